/**
 * Each preset reads its agent's own configuration (Codex config.toml, Gemini
 * settings.json), agentsmd's config can scope a setting to one preset, and --no-agent-config turns
 * the agent layer off. The Codex reader is proven against the real Codex in e2e/codex/agent-config.
 */
import { describe, expect, it } from "vitest";
import { createTree, openSession, runCli } from "./helpers/tree.js";

describe("agent configuration", () => {
  it("Codex: project_doc_fallback_filenames in $CODEX_HOME/config.toml selects the fallback file", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/CONTRIBUTING.md": "contrib rules",
      "codex/config.toml": 'project_doc_fallback_filenames = ["CONTRIBUTING.md"]\n',
    });
    const env = { CODEX_HOME: tree.path("codex") };
    const session = await openSession(tree, { cwd: tree.path("repo"), preset: "codex", env });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/CONTRIBUTING.md")]);
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ level: "info", code: "agent-config", path: tree.path("codex/config.toml") }));
    const off = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "--preset", "codex", "--no-agent-config", "paths"], { env });
    expect(off.stdout).toBe("");
    const on = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "--preset", "codex", "paths"], { env });
    expect(on.stdout).toBe(`${tree.path("repo/CONTRIBUTING.md")}\n`);
  });

  it("Codex: agentsmd's own codex keys win over config.toml; other presets never read it", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/NOTES.md": "notes",
      "repo/CONTRIBUTING.md": "c",
      "codex/config.toml": 'project_doc_fallback_filenames = ["CONTRIBUTING.md"]\n',
    });
    const env = { CODEX_HOME: tree.path("codex") };
    const session = await openSession(tree, {
      cwd: tree.path("repo"),
      preset: "codex",
      env,
      config: { codex: { project_doc_fallback_filenames: ["NOTES.md"] } },
    });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/NOTES.md")]);
    const codelia = await openSession(tree, { cwd: tree.path("repo"), env });
    expect(codelia.initialFiles).toEqual([]);
  });

  it("Codex: a config.toml that is not TOML is a warning naming it, and nothing else changes", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root", "codex/config.toml": "project_doc_max_bytes = = 3\n" });
    const session = await openSession(tree, { cwd: tree.path("repo"), preset: "codex", env: { CODEX_HOME: tree.path("codex") } });
    expect(session.initialFiles).toHaveLength(1);
    expect(session.diagnostics).toContainEqual(
      expect.objectContaining({ level: "warning", code: "agent-config-invalid", path: tree.path("codex/config.toml") }),
    );
  });

  it("Gemini: context.fileName from settings.json (comments allowed); the workspace's wins over the user's", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/AGENTS.md": "agents",
      "repo/GEMINI.md": "gemini",
      "repo/CONTEXT.md": "context",
      "home/.gemini/settings.json": '// mine\n{ "context": { "fileName": ["AGENTS.md"] }, }\n',
    });
    const home = tree.path("home");
    const user = await openSession(tree, { cwd: tree.path("repo"), preset: "gemini", home, env: {} });
    // GEMINI.md stays in Gemini's list whatever is configured (preset gemini, proven against gemini-cli-core).
    expect(user.initialFiles.map((file) => file.path).sort()).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/GEMINI.md")]);
    await tree.write("repo/.gemini/settings.json", '{ "context": { "fileName": "CONTEXT.md" } }');
    const workspace = await openSession(tree, { cwd: tree.path("repo"), preset: "gemini", home, env: {} });
    expect(workspace.initialFiles.map((file) => file.path).sort()).toEqual([tree.path("repo/CONTEXT.md"), tree.path("repo/GEMINI.md")]);
    const explained = await runCli(["--home", home, "--cwd", tree.path("repo"), "--preset", "gemini", "explain", tree.path("repo/x.ts")]);
    expect(explained.stdout).toContain(`setting: context.fileName from ${tree.path("repo/.gemini/settings.json")} (the agent's own configuration)`);
  });

  it("a presets section scopes a setting to one preset: the Gemini fix does not change Codex, Claude or OpenCode", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "agents", "repo/GEMINI.md": "gemini" });
    await tree.write("agentsmd.json", JSON.stringify({ presets: { gemini: { files: { names: ["GEMINI.md", "AGENTS.md"] } } } }));
    const args = (preset: string) => ["--home", tree.home, "--cwd", tree.path("repo"), "--config", tree.path("agentsmd.json"), "--preset", preset, "paths"];
    const plain = (preset: string) => ["--home", tree.home, "--cwd", tree.path("repo"), "--preset", preset, "paths"];
    expect((await runCli(args("gemini"))).stdout.split("\n").sort()).toEqual(["", tree.path("repo/AGENTS.md"), tree.path("repo/GEMINI.md")]);
    expect((await runCli(plain("gemini"))).stdout).toBe(`${tree.path("repo/GEMINI.md")}\n`);
    for (const preset of ["codex", "claude", "opencode", "codelia", "hygge"]) {
      expect((await runCli(args(preset))).stdout, preset).toBe((await runCli(plain(preset))).stdout);
    }
  });

  it("a presets section that is not a config is rejected naming the key", async () => {
    const tree = await createTree({ "repo/.git/": null });
    await tree.write("agentsmd.json", JSON.stringify({ presets: { gemini: { files: { nams: ["X"] } } } }));
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "--config", tree.path("agentsmd.json"), "show"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("presets.gemini.files");
  });
});

describe("Claude Code's settings", () => {
  it("claudeMdExcludes from the user, project and local settings hides files at startup and on touch; an excluded CLAUDE.md lets AGENTS.md load; --no-agent-config ignores it", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/CLAUDE.md": "root",
      "repo/AGENTS.md": "agents",
      "repo/pkg/CLAUDE.md": "pkg",
      "home/.claude/CLAUDE.md": "user",
      "home/.claude/settings.json": JSON.stringify({ claudeMdExcludes: ["**/repo/CLAUDE.md"] }),
    });
    await tree.write("repo/.claude/settings.local.json", JSON.stringify({ claudeMdExcludes: ["**/pkg/CLAUDE.md"] }));
    await tree.write("repo/.claude/settings.json", JSON.stringify({ claudeMdExcludes: [tree.path("home/.claude/CLAUDE.md")] }));
    const home = tree.path("home");
    const session = await openSession(tree, { cwd: tree.path("repo"), preset: "claude", home, env: {} });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md")]);
    expect(await session.touch([tree.path("repo/pkg/a.ts")])).toEqual([]);
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "agent-config", path: tree.path("repo/.claude/settings.local.json") }));
    const off = await openSession(tree, { cwd: tree.path("repo"), preset: "claude", home, env: {}, config: { agentConfig: false } });
    expect(off.initialFiles.map((file) => file.path)).toContain(tree.path("repo/CLAUDE.md"));
    // Other presets never read Claude Code's settings.
    const opencode = await openSession(tree, { cwd: tree.path("repo/pkg"), preset: "opencode", home, env: {} });
    expect(opencode.initialFiles.map((file) => file.path)).toContain(tree.path("repo/AGENTS.md"));
  });

  it("CLAUDE_CODE_DISABLE_CLAUDE_MDS loads no memory file, user file included", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/CLAUDE.md": "root", "home/.claude/CLAUDE.md": "user" });
    const session = await openSession(tree, {
      cwd: tree.path("repo"),
      preset: "claude",
      home: tree.path("home"),
      env: { CLAUDE_CODE_DISABLE_CLAUDE_MDS: "true" },
    });
    expect(session.initialFiles).toEqual([]);
    expect(session.initialMessage).toBe("");
  });
});

describe("explain agrees with show on Claude Code's excludes", () => {
  it("an excluded CLAUDE.md is listed as excluded by the agent's settings, and AGENTS.md as loaded in its place", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/CLAUDE.md": "root",
      "repo/AGENTS.md": "agents",
      "repo/.claude/settings.json": JSON.stringify({ claudeMdExcludes: ["**/repo/CLAUDE.md"] }),
    });
    const args = ["--home", tree.home, "--cwd", tree.path("repo"), "--preset", "claude"];
    const shown = await runCli([...args, "show"], { env: {} });
    expect(shown.stdout).toContain("agents");
    expect(shown.stdout).not.toContain("root");
    const explained = await runCli([...args, "explain", tree.path("repo/a.ts")], { env: {} });
    expect(explained.stdout).toContain(`1. ${tree.path("repo/AGENTS.md")}`);
    expect(explained.stdout).toContain(`-  ${tree.path("repo/CLAUDE.md")}\n   ignored: excluded by the agent's own settings`);
    expect(explained.stdout).toContain("setting: claudeMdExcludes **/repo/CLAUDE.md from");
  });
});
