/**
 * `agentsmd setup kilo` against the fixture's HOME, then one real Kilo Code turn: the module setup wrote
 * in the user's plugin folder (no plugin in the project, nothing in its node_modules) is what
 * brings the nested AGENTS.md to the model.
 *
 * Needs `npm run build` and the pinned CLI (`npm ci --prefix e2e/kilo`, done on first use).
 */
import { join } from "node:path";
import { readdir, readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { REPO_ROOT } from "../lib/install.js";
import { assertBuilt } from "../lib/agentsmd.js";
import { toolResults } from "../lib/openai-chat-server.js";
import { expectCleanRun, familyFixtures, lastMain, occurrences } from "../lib/opencode-family.js";
import { setupPluginHost } from "../lib/setup-plugin.js";
import { KILO_HOST, KILO_VERSION } from "./harness.js";

const newFixture = familyFixtures(KILO_HOST, [() => assertBuilt(join(REPO_ROOT, "dist", "cli", "bin.js"))]);

describe(`agentsmd setup kilo, then Kilo Code ${KILO_VERSION}`, () => {
  test("setup writes the user-scope plugin; a write into a new directory brings that directory's AGENTS.md", async () => {
    const fx = await newFixture({ files: { "AGENTS.md": "ROOT-RULES v1\n", "packages/web/AGENTS.md": "WEB-RULES v1\n" } });
    const agent = await setupPluginHost("kilo", {
      HOME: fx.home,
      XDG_CONFIG_HOME: fx.xdg.config,
      XDG_STATE_HOME: fx.xdg.state,
      XDG_DATA_HOME: fx.xdg.data,
      XDG_CACHE_HOME: fx.xdg.cache,
    });
    const file = agent.changes[0]!.file;
    expect(file.startsWith(join(fx.xdg.config, "kilo"))).toBe(true);
    expect(await readFile(file, "utf8")).toContain(`from "file://${join(REPO_ROOT, "dist", "plugin", "kilo.js")}"`);
    const created = fx.path("packages/web/src/new.ts");
    const run = await fx.run({
      prompt: "work",
      timeoutMs: 360_000,
      script: [{ toolCalls: [{ tool: "write", args: { filePath: created, content: "export const web = 1;\n" } }] }, { text: "done" }],
    });
    expectCleanRun(run, "kilo");
    const final = lastMain(run);
    const [afterWrite] = toolResults(final);
    expect(afterWrite?.tool).toBe("write");
    expect(afterWrite!.content).toContain(`<system-reminder>\nInstructions from: ${fx.path("packages/web/AGENTS.md")}\nWEB-RULES v1\n`);
    expect(occurrences(final, "WEB-RULES v1")).toBe(1);
    // Nothing of agentsmd's in the project.
    expect((await readdir(fx.repo)).filter((name) => name !== ".git").sort()).toEqual(["AGENTS.md", "packages", "kilo.json"].sort());
  }, 420_000);
});
