/**
 * The corpus (test/corpus: real public repositories' instruction-file layouts, synthetic bodies)
 * against the real Codex: from every recorded cwd, `agentsmd show --preset codex` equals the
 * AGENTS.md fragment `codex debug prompt-input` sends, once with Codex's defaults and once with a
 * `$CODEX_HOME/config.toml` that names fallback files (CLAUDE.md, GEMINI.md) and a smaller budget.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { loadCorpus, materialise } from "../../test/corpus/materialise.js";
import { expectedStdout } from "./harness.js";
import { codexAgentsFragment, codexEntry, CODEX_VERSION } from "./oracle.js";

const corpus = loadCorpus();
let base: string;

beforeAll(async () => {
  await codexEntry();
  await assertAgentsmdBuilt();
  base = await realpath(await mkdtemp(path.join(tmpdir(), "agentsmd-e2e-codex-corpus-")));
}, 15 * 60_000);
afterAll(async () => {
  if (base && process.env.AGENTSMD_E2E_KEEP !== "1") await rm(base, { recursive: true, force: true });
});

const SETTINGS = 'project_doc_fallback_filenames = ["CLAUDE.md", "GEMINI.md"]\nproject_doc_max_bytes = 20000\n';

describe(`the corpus against Codex ${CODEX_VERSION}`, () => {
  for (const repo of corpus) {
    it(`${repo.repo}: ${repo.cwds.length} cwds, defaults and config.toml fallbacks`, async () => {
      const root = materialise(repo, path.join(base, repo.name, "repo"));
      const home = path.join(base, repo.name, "home");
      const codexHome = path.join(base, repo.name, "codex-home");
      await mkdir(home, { recursive: true });
      await mkdir(codexHome, { recursive: true });
      // Codex follows symlinks leaving the repository; agentsmd's config says so (and nothing else).
      const follow = path.join(base, repo.name, "follow.json");
      await writeFile(follow, JSON.stringify({ files: { symlinks: "follow" } }));
      const env = cleanEnv({ CODEX_HOME: codexHome, HOME: home });
      const show = async (cwd: string) => {
        const r = await runAgentsmd(["show", "--preset", "codex", "--cwd", cwd, "--config", follow], { env });
        expect(r.code, r.stderr.toString()).toBe(0);
        return r.stdout.toString("utf8");
      };
      let nonEmpty = 0;
      for (const settings of [null, SETTINGS]) {
        if (settings) await writeFile(path.join(codexHome, "config.toml"), settings);
        for (const rel of repo.cwds) {
          const cwd = path.join(root, rel);
          const fragment = await codexAgentsFragment({ cwd, codexHome, home, overrides: [] });
          if (fragment) nonEmpty++;
          expect(await show(cwd), `${repo.name} ${rel}${settings ? " with config.toml" : ""}`).toBe(expectedStdout(fragment).toString("utf8"));
        }
      }
      expect(nonEmpty).toBeGreaterThan(0);
    });
  }
});
