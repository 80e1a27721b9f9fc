import { describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { createTree, runCli } from "../helpers/tree.js";
import { addClaudeHooks, CLAUDE_HOOK_EVENTS, isAgentsmdHandler, removeClaudeHooks } from "../../src/integrations/claude-code/install.js";

const REPO = join(import.meta.dirname, "../..");

const USER_SETTINGS = {
  model: "opus",
  permissions: { allow: ["Bash(npm test)"] },
  hooks: {
    PostToolUse: [
      { matcher: "Edit|Write", hooks: [{ type: "command", command: "npx prettier --write", timeout: 5 }] },
      { matcher: "Read", hooks: [{ type: "command", command: "echo read" }] },
    ],
    Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }],
  },
};

describe("install claude-code", () => {
  it("merges into an existing settings.json, is idempotent, and uninstall restores the file byte for byte", async () => {
    const tree = await createTree({ "repo/.claude/settings.json": `${JSON.stringify(USER_SETTINGS, null, 2)}\n` });
    const file = tree.path("repo/.claude/settings.json");
    const original = await readFile(file, "utf8");
    const args = ["--cwd", tree.path("repo"), "--home", tree.home, "install", "claude-code", "--scope", "project", "--command", "agentsmd"];
    const first = await runCli(args);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("added");
    const installed = JSON.parse(await readFile(file, "utf8"));
    expect(installed.model).toBe("opus");
    expect(installed.permissions).toEqual(USER_SETTINGS.permissions);
    expect(installed.hooks.Stop).toEqual(USER_SETTINGS.hooks.Stop);
    expect(installed.hooks.PostToolUse.slice(0, 2)).toEqual(USER_SETTINGS.hooks.PostToolUse);
    expect(installed.hooks.PostToolUse[2]).toEqual({
      matcher: "Read|Write|Edit|MultiEdit|NotebookEdit|Grep|Glob",
      hooks: [{ type: "command", command: "agentsmd hook claude-code", timeout: 30 }],
    });
    expect(installed.hooks.SessionStart).toEqual([{ hooks: [{ type: "command", command: "agentsmd hook claude-code", timeout: 30 }] }]);
    expect(installed.hooks.UserPromptSubmit).toHaveLength(1);

    const text = await readFile(file, "utf8");
    const second = await runCli(args);
    expect(second.stdout).toContain("nothing changed");
    expect(await readFile(file, "utf8")).toBe(text);

    const removed = await runCli(["--cwd", tree.path("repo"), "--home", tree.home, "uninstall", "claude-code", "--scope", "project"]);
    expect(removed.code).toBe(0);
    expect(await readFile(file, "utf8")).toBe(original);
    expect((await runCli(["--cwd", tree.path("repo"), "--home", tree.home, "uninstall", "claude-code", "--scope", "project"])).stdout).toContain(
      "nothing changed",
    );
  });

  it("picks the settings file of each scope; --json reports it", async () => {
    const tree = await createTree({ "repo/": null });
    const run = async (scope: string, env: Record<string, string> = {}) =>
      JSON.parse((await runCli(["--json", "--cwd", tree.path("repo"), "--home", tree.home, "install", "claude-code", "--scope", scope], { env })).stdout);
    expect(await run("user")).toMatchObject({ file: join(tree.home, ".claude/settings.json"), scope: "user", changed: true });
    expect(await run("project")).toMatchObject({ file: tree.path("repo/.claude/settings.json") });
    expect(await run("local")).toMatchObject({ file: tree.path("repo/.claude/settings.local.json") });
    expect(await run("user", { CLAUDE_CONFIG_DIR: tree.path("cfg") })).toMatchObject({ file: tree.path("cfg/settings.json") });
    const local = JSON.parse(await readFile(tree.path("repo/.claude/settings.local.json"), "utf8"));
    // Without a local install the hooks run this very CLI by absolute path.
    expect(local.hooks.SessionStart[0].hooks[0].command).toMatch(/ hook claude-code$/);
    expect((await runCli(["install", "claude-code", "--scope", "team"])).code).toBe(2);
    expect((await runCli(["install", "vim"])).code).toBe(2);
  });

  it("uses the project's node_modules/.bin/agentsmd for project scope when it is installed there", async () => {
    const tree = await createTree({ "repo/node_modules/.bin/agentsmd": "#!/bin/sh\n" });
    await runCli(["--cwd", tree.path("repo"), "--home", tree.home, "install", "claude-code", "--scope", "project"]);
    const settings = JSON.parse(await readFile(tree.path("repo/.claude/settings.json"), "utf8"));
    expect(settings.hooks.PostToolUse[0].hooks[0].command).toBe('"$CLAUDE_PROJECT_DIR"/node_modules/.bin/agentsmd hook claude-code');
  });

  it("replaces an older agentsmd entry instead of adding a second one, and keeps foreign handlers of a shared group", () => {
    const before = {
      hooks: {
        SessionStart: [
          {
            hooks: [
              { type: "command", command: "/old/agentsmd hook claude-code" },
              { type: "command", command: "echo hi" },
            ],
          },
        ],
      },
    };
    const { settings } = addClaudeHooks(before, "agentsmd hook claude-code");
    const start = settings.hooks as Record<string, Array<{ hooks: unknown[] }>>;
    expect(start.SessionStart).toEqual([
      { hooks: [{ type: "command", command: "echo hi" }] },
      { hooks: [{ type: "command", command: "agentsmd hook claude-code", timeout: 30 }] },
    ]);
    expect(removeClaudeHooks(settings).settings).toEqual({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: "echo hi" }] }] } });
    expect(removeClaudeHooks({ a: 1 })).toEqual({ settings: { a: 1 }, changed: false });
    expect(isAgentsmdHandler({ type: "command", command: "my-hook claude-code-ish" })).toBe(false);
  });

  it("a settings file that is not JSON is an input problem and stays untouched", async () => {
    const tree = await createTree({ "repo/.claude/settings.json": "{ nope" });
    const run = await runCli(["--cwd", tree.path("repo"), "--home", tree.home, "install", "claude-code", "--scope", "project"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(tree.path("repo/.claude/settings.json"));
    expect(await readFile(tree.path("repo/.claude/settings.json"), "utf8")).toBe("{ nope");
  });
});

describe("the shipped Claude Code plugin folder", () => {
  it("has a manifest, the same hook events as install, and a runnable hook script", async () => {
    const manifest = JSON.parse(await readFile(join(REPO, "claude-plugin/.claude-plugin/plugin.json"), "utf8"));
    expect(manifest.name).toBe("agentsmd");
    expect(manifest.hooks).toBeUndefined(); // hooks/hooks.json loads by itself; declaring it again is an error
    const hooks = JSON.parse(await readFile(join(REPO, "claude-plugin/hooks/hooks.json"), "utf8")).hooks;
    expect(Object.keys(hooks)).toEqual(CLAUDE_HOOK_EVENTS.map((entry) => entry.event));
    for (const { event, matcher } of CLAUDE_HOOK_EVENTS) {
      expect(hooks[event][0].matcher).toBe(matcher);
      expect(hooks[event][0].hooks[0].command).toBe('sh "${CLAUDE_PLUGIN_ROOT}/bin/agentsmd-hook"');
    }
    const pkg = JSON.parse(await readFile(join(REPO, "package.json"), "utf8"));
    expect(pkg.files).toContain("claude-plugin");

    // Without the built CLI next to it and without agentsmd on PATH it must still exit 0.
    const tree = await createTree({ "plugin/bin/agentsmd-hook": await readFile(join(REPO, "claude-plugin/bin/agentsmd-hook"), "utf8") });
    const lonely = spawnSync("/bin/sh", [tree.path("plugin/bin/agentsmd-hook")], { input: "{}", env: { PATH: "/nonexistent" }, encoding: "utf8" });
    expect(lonely.status).toBe(0);
    expect(lonely.stdout).toBe("");
    expect(lonely.stderr).toContain("agentsmd is not installed");
  });
});
