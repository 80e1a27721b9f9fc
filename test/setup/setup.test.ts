/**
 * `agentsmd setup`: detection from PATH executables and configuration directories in a fake HOME,
 * a dry run that changes no byte, an install through each host's install code whose hooks are then
 * really run (the command read back from each agent's file, spawned through the shell with that
 * agent's event), the plugin hosts' module files (imported as each host imports them, fed that
 * host's event), and an uninstall that gives every file and directory back byte for byte.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { chmod, readFile, readdir, lstat, writeFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createTree, runCli, type Tree } from "../helpers/tree.js";
import { ensureBuilt, REPO } from "../helpers/bin.js";
import { detectAgents } from "../../src/integrations/setup/detect.js";
import type { SetupReport } from "../../src/integrations/setup/setup.js";
import { verifyPluginFile } from "../../src/integrations/setup/plugin-file.js";
import { hostById } from "../../src/integrations/registry.js";

beforeAll(ensureBuilt, 180_000);

const NODE_DIR = dirname(process.execPath);

/** Every file (bytes) and directory under `dir`, by relative path. */
async function snapshot(dir: string, base = dir, out = new Map<string, string>()): Promise<Map<string, string>> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = path.slice(base.length + 1);
    if (entry.isDirectory()) {
      out.set(`${rel}/`, `dir ${((await lstat(path)).mode & 0o777).toString(8)}`);
      await snapshot(path, base, out);
    } else out.set(rel, (await readFile(path)).toString("base64"));
  }
  return out;
}

/** Fake agent executables on a PATH of their own (`codex` that does not run unless told). */
async function fakeBin(tree: Tree, names: readonly string[], codexScript = "#!/bin/sh\necho 'codex: cannot start' >&2\nexit 3\n"): Promise<string> {
  const dir = tree.path("bin");
  await mkdir(dir, { recursive: true });
  for (const name of names) {
    await writeFile(join(dir, name), name === "codex" ? codexScript : "#!/bin/sh\nexit 0\n");
    await chmod(join(dir, name), 0o755);
  }
  return dir;
}

const USER_CLAUDE = '{\n  "model": "opus",\n  "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "notify-send done" } ] } ] }\n}\n';
const USER_QWEN = '{"ui":{"theme":"dark"}}';
const USER_KILO_PLUGIN = "export default async () => ({});\n";

async function machine(): Promise<{ tree: Tree; env: Record<string, string>; home: string }> {
  const tree = await createTree({
    ".test-home/.claude/settings.json": USER_CLAUDE,
    ".test-home/.qwen/settings.json": USER_QWEN,
    ".test-home/.config/opencode/": null,
    ".test-home/.config/kilo/plugins/other.js": USER_KILO_PLUGIN,
    ".test-home/.pi/": null,
    ".test-home/.local/state/": null,
  });
  const bin = await fakeBin(tree, ["claude", "codex", "gemini", "copilot", "qwen"]);
  const env = { PATH: `${bin}:${NODE_DIR}:/usr/bin:/bin`, HOME: tree.home, XDG_STATE_HOME: tree.path(".test-home/.local/state") };
  return { tree, env, home: tree.home };
}

describe("agentsmd setup: detection", () => {
  it("finds agents by an executable on PATH or a configuration directory under HOME, nothing else", async () => {
    const tree = await createTree({ ".test-home/.copilot/": null, ".test-home/.config/kilo/": null, "bin/qwen": "not executable" });
    const bin = await fakeBin(tree, ["claude", "gemini"]);
    const found = await detectAgents({ home: tree.home, env: { PATH: `relative/dir:${bin}` } });
    const byId = Object.fromEntries(found.map((d) => [d.id, d]));
    expect(found.filter((d) => d.found).map((d) => d.id)).toEqual(["claude-code", "gemini", "copilot", "kilo"]);
    expect(byId["claude-code"]).toMatchObject({ binary: join(bin, "claude"), configDir: join(tree.home, ".claude"), configDirExists: false });
    expect(byId.copilot).toMatchObject({ binary: null, configDir: join(tree.home, ".copilot"), configDirExists: true });
    expect(byId.kilo!.configDir).toBe(join(tree.home, ".config/kilo"));
    expect(byId.qwen!.found).toBe(false); // a file that is not executable is no agent
    expect(byId.pi!.configDir).toBe(join(tree.home, ".pi"));
    // The agents' own directory variables are honoured.
    const moved = await detectAgents({ home: tree.home, env: { CODEX_HOME: tree.path("bin"), COPILOT_HOME: tree.path("nowhere") } });
    expect(moved.find((d) => d.id === "codex")).toMatchObject({ configDir: tree.path("bin"), found: true });
    expect(moved.find((d) => d.id === "copilot")!.found).toBe(false);
  });

  it("no agent found: says so and what to do, exit 0", async () => {
    const tree = await createTree({});
    const run = await runCli(["--home", tree.home, "setup"], { env: { PATH: tree.path("none") } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("no coding agent found");
  });
});

describe("agentsmd setup: dry run, install, verification, uninstall", () => {
  it("--dry-run shows every file and entry it would change and changes no byte", async () => {
    const { tree, env, home } = await machine();
    const before = await snapshot(tree.root);
    const run = await runCli(["--home", home, "setup", "--dry-run"], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(await snapshot(tree.root)).toEqual(before);
    expect(run.stdout).toContain("nothing was changed");
    expect(run.stdout).toContain(
      `would add to ${join(home, ".claude/settings.json")}: SessionStart, PostToolUse (Read|Write|Edit|MultiEdit|NotebookEdit|Grep|Glob), UserPromptSubmit`,
    );
    expect(run.stdout).toContain(`would add to ${join(home, ".gemini/extensions/agentsmd/hooks/hooks.json")}: SessionStart, BeforeAgent, AfterTool`);
    expect(run.stdout).toContain(`would add to ${join(home, ".copilot/hooks/agentsmd.json")}: sessionStart`);
    expect(run.stdout).toContain(`would add to ${join(home, ".codex/hooks.json")}: SessionStart, UserPromptSubmit, PostToolUse (Bash|apply_patch)`);
    // The plugin hosts: a module in the user's own plugin folder, re-exporting this copy's built entry.
    expect(run.stdout).toContain(
      `would add to ${join(home, ".config/opencode/plugin/agentsmd.js")}: a module re-exporting "file://${join(REPO, "dist/plugin/opencode.js")}"`,
    );
    expect(run.stdout).toContain(`would add to ${join(home, ".config/kilo/plugins/agentsmd.js")}: a module re-exporting "file://`);
    expect(run.stdout).toContain(`would add to ${join(home, ".pi/agent/extensions/agentsmd.js")}: a module re-exporting "${join(REPO, "dist/plugin/pi.js")}"`);
    const json = JSON.parse((await runCli(["--json", "--home", home, "setup", "--dry-run"], { env })).stdout) as SetupReport;
    expect(json.dryRun).toBe(true);
    expect(json.agents.map((a) => a.id)).toEqual(["claude-code", "codex", "gemini", "copilot", "qwen", "opencode", "kilo", "pi"]);
    expect(json.agents.find((a) => a.id === "pi")!.changes).toEqual([
      { file: join(home, ".pi/agent/extensions/agentsmd.js"), entries: [`a module re-exporting "${join(REPO, "dist/plugin/pi.js")}"`] },
    ]);
    expect(json.agents.every((a) => a.changed === undefined && a.verify === undefined)).toBe(true);
    expect(await snapshot(tree.root)).toEqual(before);
  });

  it("installs every agent found, runs each installed hook as its agent would and shows the model's text; --uninstall restores every byte", async () => {
    const { tree, env, home } = await machine();
    const before = await snapshot(tree.root);
    const run = await runCli(["--json", "--home", home, "setup"], { env });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as SetupReport;
    expect(report.ok).toBe(true);
    const hooks = report.agents.filter((a) => a.kind === "hooks");
    expect(hooks.map((a) => a.id)).toEqual(["claude-code", "codex", "gemini", "copilot", "qwen"]);
    for (const agent of hooks) {
      expect(agent.changed, agent.id).toBe(true);
      expect(agent.verify, agent.id).toMatchObject({ ok: true });
      expect(agent.verify!.answer, agent.id).toMatch(/agentsmd setup check agentsmd-verify-\w+: the instructions for pkg\//);
      // The command run is the one read back from the agent's file: node from PATH and the lean hook executable.
      expect(agent.verify!.command, agent.id).toMatch(new RegExp(`^node ${join(REPO, "dist/hook/hook.cjs")} hook ${agent.id}( --event postToolUse)?$`));
    }
    // The user's own settings are kept around agentsmd's entries.
    const claude = JSON.parse(await readFile(join(home, ".claude/settings.json"), "utf8"));
    expect(claude.model).toBe("opus");
    expect(claude.hooks.Stop).toEqual([{ hooks: [{ type: "command", command: "notify-send done" }] }]);
    expect(claude.hooks.PostToolUse[0].hooks[0].command).toBe(`node ${join(REPO, "dist/hook/hook.cjs")} hook claude-code`);
    // Codex does not run here: installed untrusted, with the line saying what to run.
    const codex = report.agents.find((a) => a.id === "codex")!;
    expect(codex.trust).toEqual({ trusted: false });
    expect(codex.notes.join("\n")).toContain("codex does not run here");
    expect(codex.notes.join("\n")).toContain("agentsmd install codex --trust");
    // The plugin agents: a module each in the user's plugin folder, imported as the host imports it and fed its event.
    const plugins = report.agents.filter((a) => a.kind === "plugin");
    expect(plugins.map((a) => a.id)).toEqual(["opencode", "kilo", "pi"]);
    for (const agent of plugins) {
      expect(agent.changed, agent.id).toBe(true);
      expect(agent.verify, agent.id).toMatchObject({ ok: true, module: true });
      expect(agent.verify!.answer, agent.id).toMatch(/agentsmd setup check agentsmd-verify-\w+: the instructions for pkg\//);
    }
    const opencodeModule = await readFile(join(home, ".config/opencode/plugin/agentsmd.js"), "utf8");
    expect(opencodeModule).toBe(
      `// Written by \`agentsmd setup\`; \`agentsmd setup --uninstall\` takes it out again.\nexport { default } from "file://${join(REPO, "dist/plugin/opencode.js")}";\n`,
    );
    expect(await readdir(join(home, ".config/kilo/plugins"))).toEqual(["agentsmd.js", "other.js"]);
    // Nothing else under the plugin hosts' folders: no package.json, no node_modules.
    expect(await readdir(join(home, ".config/opencode"))).toEqual(["plugin"]);
    expect(await readdir(join(home, ".pi"))).toEqual(["agent"]);
    const piText = await runCli(["--home", home, "setup", "pi"], { env });
    expect(piText.code, piText.stderr).toBe(0);
    expect(piText.stdout).toMatch(
      /verified: the installed module, imported as pi imports it, given a tool_result read event, answered with the text of .*pkg\/AGENTS\.md/,
    );
    expect(piText.stdout).toContain("already installed; nothing changed");

    // The text report shows what the model would receive.
    const again = await runCli(["--home", home, "setup", "qwen"], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("already installed; nothing changed");
    expect(again.stdout).toMatch(/verified: the installed command, given a PostToolUse read_file event, answered with the text of .*pkg\/AGENTS\.md/);
    expect(again.stdout).toMatch(/\| agentsmd: .*pkg\/notes\.txt is governed by these AGENTS\.md files/);

    const removed = await runCli(["--home", home, "setup", "--uninstall"], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(await snapshot(tree.root)).toEqual(before);
  }, 60_000);

  it("a plugin file of the user's at the path setup writes is left as it is: FAILED with the fix, exit 1; --uninstall leaves it too", async () => {
    const tree = await createTree({ ".test-home/.config/opencode/plugin/agentsmd.js": USER_KILO_PLUGIN, ".test-home/.local/state/": null });
    const env = { PATH: `${NODE_DIR}:/usr/bin:/bin`, HOME: tree.home, XDG_STATE_HOME: tree.path(".test-home/.local/state") };
    const before = await snapshot(tree.root);
    const run = await runCli(["--home", tree.home, "setup", "opencode"], { env });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`FAILED: ${join(tree.home, ".config/opencode/plugin/agentsmd.js")} exists and was not written by agentsmd setup`);
    expect(run.stdout).toContain("fix: move it away and run `agentsmd setup opencode` again");
    expect(await snapshot(tree.root)).toEqual(before);
    const removed = await runCli(["--home", tree.home, "setup", "--uninstall", "opencode"], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(await snapshot(tree.root)).toEqual(before);
  });

  it("a written plugin module that does not answer fails the check, with the reason", async () => {
    const tree = await createTree({ ".test-home/.local/state/": null });
    const env = { PATH: `${NODE_DIR}:/usr/bin:/bin`, HOME: tree.home, XDG_STATE_HOME: tree.path(".test-home/.local/state") };
    expect((await runCli(["--home", tree.home, "setup", "pi"], { env })).code).toBe(0);
    // The written file now re-exports a module that registers no handler (as a broken copy would).
    const file = join(tree.home, ".pi/agent/extensions/agentsmd.js");
    await writeFile(tree.path("noop.js"), "export default function () {}\n");
    const text = (await readFile(file, "utf8")).replace(/from ".*";/, `from ${JSON.stringify(tree.path("noop.js"))};`);
    await writeFile(file, text);
    const result = await verifyPluginFile(hostById("pi")!, { home: tree.home, env });
    expect(result).toMatchObject({ ok: false, module: true, command: file, problem: "the extension registered no tool_result handler" });
  });

  it("a hook that cannot run (no node on PATH) is reported NOT ANSWERING, exit 1", async () => {
    const { tree, home } = await machine();
    const env = { PATH: tree.path("bin"), HOME: home, XDG_STATE_HOME: tree.path("state") };
    const run = await runCli(["--home", home, "setup", "claude-code"], { env });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("NOT ANSWERING");
    expect(run.stdout).toMatch(/exit 127/);
    expect(run.stderr).toContain("setup did not complete for claude-code");
  });

  it("codex that runs but whose app-server fails: the hooks are installed (and reported changed), untrusted, with the line to run", async () => {
    const tree = await createTree({ ".test-home/.local/state/": null });
    const bin = await fakeBin(
      tree,
      ["codex"],
      '#!/bin/sh\ncase "$1" in --version) echo "codex-cli 0.169.0"; exit 0;; esac\necho "app-server: no" >&2\nexit 5\n',
    );
    const env = { PATH: `${bin}:${NODE_DIR}:/usr/bin:/bin`, HOME: tree.home, XDG_STATE_HOME: tree.path(".test-home/.local/state") };
    const run = await runCli(["--json", "--home", tree.home, "setup", "codex"], { env });
    expect(run.code, run.stderr).toBe(0);
    const codex = (JSON.parse(run.stdout) as SetupReport).agents[0]!;
    expect(codex).toMatchObject({ id: "codex", changed: true, trust: { trusted: false }, verify: { ok: true } });
    expect(codex.notes.join("\n")).toMatch(/`codex app-server` could not trust the hooks .*; they are installed without trust/);
    expect(codex.notes.join("\n")).toContain("agentsmd install codex --trust");
    expect(codex.changes.map((c) => c.file)).toEqual([join(tree.home, ".codex/hooks.json"), join(tree.home, ".codex/config.toml")]);
  });

  it("selects agents by name, by executable name or --only; an unknown agent is a usage error (2)", async () => {
    const { env, home } = await machine();
    const pick = async (...args: string[]) =>
      (JSON.parse((await runCli(["--json", "--home", home, "setup", "--dry-run", ...args], { env })).stdout) as SetupReport).agents.map((a) => a.id);
    expect(await pick("claude", "--only", "qwen,copilot")).toEqual(["claude-code", "copilot", "qwen"]);
    expect(await pick("pi")).toEqual(["pi"]); // named: shown even when not found, with a note
    expect((await runCli(["--home", home, "setup", "vim"], { env })).code).toBe(2);
    expect((await runCli(["--home", home, "setup", "--only", ","], { env })).code).toBe(2);
  });
});
