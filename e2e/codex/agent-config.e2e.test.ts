/**
 * Codex's own config.toml is read as Codex reads it: for every fixture with settings,
 * the settings are written into `$CODEX_HOME/config.toml` (no `-c` overrides, no agentsmd config),
 * and `agentsmd show --preset codex` must equal what `codex debug prompt-input` sends. With
 * `--no-agent-config` agentsmd ignores the file (and differs where the settings matter).
 */
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { fixtures, type CodexSettings } from "./fixtures.js";
import { buildFixture, expectedStdout } from "./harness.js";
import { codexAgentsFragment, codexEntry, CODEX_VERSION } from "./oracle.js";

/** TOML for Codex's settings (JSON strings, numbers and arrays are valid TOML values). */
function toml(settings: CodexSettings): string {
  return Object.entries(settings)
    .map(([key, value]) => `${key} = ${JSON.stringify(value)}\n`)
    .join("");
}

const withSettings = fixtures.filter((fixture) => fixture.config !== undefined && fixture.codexHome !== "unset" && fixture.posixOnly !== true);

describe(`agentsmd reads Codex ${CODEX_VERSION}'s config.toml like Codex`, () => {
  beforeAll(async () => {
    await codexEntry();
    await assertAgentsmdBuilt();
  }, 15 * 60_000);

  it("has fixtures with settings to check", () => {
    expect(withSettings.length).toBeGreaterThanOrEqual(4);
  });

  for (const fixture of withSettings) {
    it(`${fixture.name}: settings from config.toml`, async () => {
      const built = await buildFixture({ ...fixture, overrides: [] });
      try {
        await writeFile(path.join(built.codexHome!, "config.toml"), toml(fixture.config!.codex));
        const fragment = await codexAgentsFragment({ cwd: built.cwd, codexHome: built.codexHome, home: built.home, overrides: [] });
        const env = cleanEnv({ CODEX_HOME: built.codexHome, HOME: built.home });
        // Codex follows symlinks leaving the repository; the fixtures' agentsmd config says so too (and nothing else).
        const follow = path.join(built.tree.root, "follow.json");
        await writeFile(follow, JSON.stringify({ files: { symlinks: "follow" } }));
        const shown = await runAgentsmd(["show", "--preset", "codex", "--cwd", built.cwd, "--config", follow], { cwd: built.tree.root, env });
        expect(shown.code, shown.stderr.toString()).toBe(0);
        expect(shown.stdout.toString("utf8")).toBe(expectedStdout(fragment).toString("utf8"));
        const explained = await runAgentsmd(["explain", "--preset", "codex", "--cwd", built.cwd, "--config", follow, built.cwd], { cwd: built.tree.root, env });
        expect(explained.stdout.toString("utf8")).toContain(`from ${path.join(built.codexHome!, "config.toml")} (the agent's own configuration)`);
        // --no-agent-config: what Codex sends without that config.toml.
        const ignored = await runAgentsmd(["show", "--preset", "codex", "--cwd", built.cwd, "--config", follow, "--no-agent-config"], {
          cwd: built.tree.root,
          env,
        });
        await rm(path.join(built.codexHome!, "config.toml"));
        const bare = await codexAgentsFragment({ cwd: built.cwd, codexHome: built.codexHome, home: built.home, overrides: [] });
        expect(ignored.code).toBe(0);
        expect(ignored.stdout.toString("utf8")).toBe(expectedStdout(bare).toString("utf8"));
      } finally {
        await built.cleanup();
      }
    });
  }
});
