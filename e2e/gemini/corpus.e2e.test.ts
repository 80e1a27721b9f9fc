/**
 * The corpus (test/corpus: real public repositories' instruction-file layouts, synthetic bodies)
 * against Gemini CLI core's own loader: from every recorded cwd, `agentsmd show --preset gemini`
 * equals Gemini's rendered memory, with Gemini's default context file name and with
 * `context.fileName: ["GEMINI.md", "AGENTS.md", "CLAUDE.md"]` in `~/.gemini/settings.json` (which
 * agentsmd reads itself; the loader gets the same names as Gemini CLI would pass them).
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { loadCorpus, materialise } from "../../test/corpus/materialise.js";
import { GEMINI_CORE_VERSION, startGeminiOracle, type GeminiOracle } from "./oracle.js";

const corpus = loadCorpus();
let base: string;
let gemini: GeminiOracle;

beforeAll(async () => {
  await assertAgentsmdBuilt();
  gemini = await startGeminiOracle();
  base = await realpath(await mkdtemp(path.join(tmpdir(), "agentsmd-e2e-gemini-corpus-")));
}, 15 * 60_000);
afterAll(async () => {
  await gemini?.close();
  if (base && process.env.AGENTSMD_E2E_KEEP !== "1") await rm(base, { recursive: true, force: true });
});

const NAMES = ["GEMINI.md", "AGENTS.md", "CLAUDE.md"];

describe(`the corpus against Gemini CLI core ${GEMINI_CORE_VERSION}`, () => {
  for (const repo of corpus) {
    it(`${repo.repo}: ${repo.cwds.length} cwds, default names and context.fileName from settings.json`, async () => {
      const root = materialise(repo, path.join(base, repo.name, "repo"));
      let nonEmpty = 0;
      for (const fileName of [undefined, NAMES]) {
        for (const rel of repo.cwds) {
          // A fresh home per run: Gemini's Storage writes into ~/.gemini.
          const home = path.join(base, repo.name, `home-${fileName ? "names" : "default"}-${rel.replaceAll("/", "_")}`);
          await mkdir(path.join(home, ".gemini"), { recursive: true });
          if (fileName) await writeFile(path.join(home, ".gemini", "settings.json"), JSON.stringify({ context: { fileName } }));
          const cwd = path.join(root, rel);
          const started = await gemini.start({ cwd, home, ...(fileName ? { fileName } : {}) });
          const expected = started.rendered.replace(/^\n---\n\n/, "");
          if (expected !== "") nonEmpty++;
          // Gemini follows symlinks leading outside the project; agentsmd's config says so (and nothing else).
          const config = path.join(home, "agentsmd.json");
          await writeFile(config, JSON.stringify({ files: { symlinks: "follow" } }));
          const r = await runAgentsmd(["--preset", "gemini", "--cwd", cwd, "--home", home, "--config", config, "show"], { env: cleanEnv({ HOME: home }) });
          expect(r.code, r.stderr.toString()).toBe(0);
          expect(r.stdout.toString("utf8"), `${repo.name} ${rel}${fileName ? " with context.fileName" : ""}`).toBe(expected);
        }
      }
      expect(nonEmpty).toBeGreaterThan(0);
    });
  }
});
