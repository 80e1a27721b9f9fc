/**
 * Keeps the oracle honest: the fragment `codex debug prompt-input` prints is the fragment a real
 * `codex exec` turn sends to the model. Codex runs against a scripted Responses API server on
 * 127.0.0.1 (no network, no login), and the recorded request must carry exactly the oracle's
 * fragment (or none), and so exactly what `agentsmd show --preset codex` prints.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertAgentsmdBuilt } from "../lib/agentsmd.js";
import { cleanEnv, run } from "../lib/exec.js";
import { codexProviderConfig, inputTexts, startResponsesServer, type ResponsesServer } from "../lib/responses-server.js";
import { fixtures } from "./fixtures.js";
import { agentsmdShow, buildFixture, oracleFragment, type BuiltFixture } from "./harness.js";
import { codexEntry, CODEX_VERSION, FRAGMENT_PREFIX } from "./oracle.js";

// A few fixtures covering framing, a mid-character cut, "no fragment" and global-only. (Checked by
// hand as well, 2026-11-22: symlink-loop-drops-project-docs and invalid-utf8 also match in exec.)
const SAMPLE = ["global-and-project", "budget-cut-mid-character", "empty-override-hides-agents-md", "global-only"];

describe(`codex exec ${CODEX_VERSION} sends the oracle's fragment to the model`, () => {
  let server: ResponsesServer | undefined;
  let built: BuiltFixture | undefined;

  beforeAll(async () => {
    await codexEntry();
    await assertAgentsmdBuilt();
  }, 15 * 60_000);

  afterEach(async () => {
    await server?.close();
    await built?.cleanup();
    server = built = undefined;
  });

  for (const name of SAMPLE) {
    it(`${name}: the request carries the same fragment as debug prompt-input and agentsmd`, async () => {
      const fixture = fixtures.find((f) => f.name === name);
      if (!fixture) throw new Error(`no fixture named ${name}`);
      if (fixture.codexHome === "unset") throw new Error("pick fixtures that set CODEX_HOME");
      built = await buildFixture(fixture);
      const fragment = await oracleFragment(built); // before config.toml exists, as in the main suite

      server = await startResponsesServer({ script: [{ text: "E2E DONE" }] });
      const codexHome = built.codexHome as string;
      await writeFile(path.join(codexHome, "config.toml"), codexProviderConfig(server.baseURL));
      const args = [await codexEntry(), "exec", "-C", built.cwd, "--skip-git-repo-check", "--ephemeral"];
      for (const o of fixture.overrides ?? []) args.push("-c", o);
      args.push("hi");
      const r = await run(process.execPath, args, {
        cwd: built.cwd,
        env: cleanEnv({ CODEX_HOME: codexHome, HOME: built.home }),
        timeoutMs: 90_000,
      });
      expect(r.code, r.stderr.toString()).toBe(0);
      expect(r.stdout.toString()).toContain("E2E DONE");

      const turns = server.requests.filter((q) => q.method === "POST" && q.path.endsWith("/responses"));
      expect(turns).toHaveLength(1);
      const sent = inputTexts(turns[0]?.body?.input).filter((t) => t.startsWith(FRAGMENT_PREFIX));
      expect(sent).toEqual(fragment === null ? [] : [fragment]);

      const shown = await agentsmdShow(built);
      expect(shown.stdout.toString("utf8")).toBe(sent[0] ?? "");
    });
  }
});
