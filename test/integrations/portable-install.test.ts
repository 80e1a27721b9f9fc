/**
 * Installs that survive the machine changing: a project-scope file (meant to be committed) holds
 * nothing absolute that is specific to this machine, a user-scope command does not pin one Node
 * binary, nothing written calls `npx`, and uninstall takes away the directories install created
 * (only those, and only when empty).
 */
import { describe, expect, it } from "vitest";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createTree, runCli, type Tree } from "../helpers/tree.js";
import { ensureBuilt, REPO } from "../helpers/bin.js";
import { verifyHook } from "../../src/integrations/setup/verify.js";
import { installerOf } from "../../src/integrations/host/installers.js";
import { hostById } from "../../src/integrations/registry.js";
import { isEphemeralPackage, packageHookScript, projectPrefixOf, userHookPrefix } from "../../src/integrations/host/hook-command.js";
import { hookCommands } from "../../src/integrations/host/hook-commands.js";

/** Every project-scope install and the file it writes, relative to the project. */
const PROJECT_INSTALLS: ReadonlyArray<{ args: string[]; file: string; host: string }> = [
  { args: ["install", "claude-code", "--scope", "project"], file: ".claude/settings.json", host: "claude-code" },
  { args: ["install", "claude-code", "--scope", "local"], file: ".claude/settings.local.json", host: "claude-code" },
  { args: ["install", "copilot", "--scope", "project"], file: ".github/hooks/agentsmd.json", host: "copilot" },
  { args: ["install", "gemini", "--scope", "project"], file: ".gemini/settings.json", host: "gemini" },
  { args: ["install", "qwen", "--scope", "project"], file: ".qwen/settings.json", host: "qwen" },
];

/** What no committed file may name: this Node, this package, this home, this project. */
function machinePaths(tree: Tree): string[] {
  return [process.execPath, dirname(process.execPath), REPO, tree.home, tree.root, tree.path("repo")];
}

async function installAll(tree: Tree): Promise<Map<string, string[]>> {
  const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state"), PATH: process.env.PATH ?? "" };
  const commands = new Map<string, string[]>();
  for (const { args, file } of PROJECT_INSTALLS) {
    const run = await runCli(["--cwd", tree.path("repo"), "--home", tree.home, ...args], { env });
    expect(run.code, run.stderr).toBe(0);
    const text = await readFile(tree.path(`repo/${file}`), "utf8");
    for (const path of machinePaths(tree)) expect(text, `${file} names ${path}`).not.toContain(path);
    expect(text).not.toMatch(/\bnpx\b/);
    commands.set(file, [...new Set(hookCommands(JSON.parse(text)).map((c) => c.command))]);
  }
  return commands;
}

describe("portable hook commands", () => {
  it("project scope without a copy of its own: the command name, nothing absolute", async () => {
    const tree = await createTree({ "repo/.git/": null });
    const commands = await installAll(tree);
    expect(commands.get(".claude/settings.json")).toEqual(["agentsmd hook claude-code"]);
    expect(commands.get(".gemini/settings.json")).toEqual(["agentsmd hook gemini"]);
    expect(commands.get(".qwen/settings.json")).toEqual(["agentsmd hook qwen"]);
    expect(commands.get(".github/hooks/agentsmd.json")).toContain("agentsmd hook copilot --event postToolUse");
  });

  it("project scope with the project's own agentsmd: its lean hook executable, relative to the project (the host's project-dir variable where it sets one)", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/node_modules/agentsmd/dist/hook/hook.cjs": "", "repo/node_modules/.bin/agentsmd": "" });
    const commands = await installAll(tree);
    const lean = "node_modules/agentsmd/dist/hook/hook.cjs";
    expect(commands.get(".claude/settings.json")).toEqual([`node "$CLAUDE_PROJECT_DIR"/${lean} hook claude-code`]);
    expect(commands.get(".claude/settings.local.json")).toEqual([`node "$CLAUDE_PROJECT_DIR"/${lean} hook claude-code`]);
    expect(commands.get(".gemini/settings.json")).toEqual([`node "$GEMINI_PROJECT_DIR"/${lean} hook gemini`]);
    expect(commands.get(".qwen/settings.json")).toEqual([`node "$QWEN_PROJECT_DIR"/${lean} hook qwen`]);
    // Copilot CLI runs a project's hooks only when started in that directory: relative to it.
    expect(commands.get(".github/hooks/agentsmd.json")).toContain(`node ${lean} hook copilot --event sessionStart`);
  });

  it("project scope with only the bin link: the link, relative to the project", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/node_modules/.bin/agentsmd": "#!/bin/sh\n" });
    const commands = await installAll(tree);
    expect(commands.get(".claude/settings.json")).toEqual(['"$CLAUDE_PROJECT_DIR"/node_modules/.bin/agentsmd hook claude-code']);
    expect(projectPrefixOf("bin")).toBe("node_modules/.bin/agentsmd");
  });

  it("user scope: node from PATH and this package's lean hook executable, never one Node binary by path", async () => {
    const tree = await createTree({});
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const run = await runCli(["--json", "--home", tree.home, "install", "qwen"], { env });
    const { command } = JSON.parse(run.stdout) as { command: string };
    expect(command).toBe(`node ${packageHookScript()} hook qwen`);
    expect(command).not.toContain(process.execPath);
    expect(packageHookScript()).toBe(join(REPO, "dist/hook/hook.cjs"));
    // A package in npx's cache goes away with the cache: the command name instead.
    expect(isEphemeralPackage("/home/me/.npm/_npx/1f2e/node_modules/agentsmd/dist/hook/hook.cjs")).toBe(true);
    expect(userHookPrefix("/home/me/.npm/_npx/1f2e/node_modules/agentsmd/dist/hook/hook.cjs")).toBe("agentsmd");
    expect(userHookPrefix("/opt/my tools/agentsmd/dist/hook/hook.cjs")).toBe("node '/opt/my tools/agentsmd/dist/hook/hook.cjs'");
  });

  it("a user-scope hook keeps working after a Node version switch: it runs whatever node PATH holds when it runs", async () => {
    await ensureBuilt();
    const tree = await createTree({});
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const { command } = JSON.parse((await runCli(["--json", "--home", tree.home, "install", "claude-code"], { env })).stdout) as { command: string };
    // Another Node installation: a `node` elsewhere, which leaves a mark when it runs.
    mkdirSync(tree.path("other-node/bin"), { recursive: true });
    writeFileSync(tree.path("other-node/bin/node"), `#!/bin/sh\necho ran > "${tree.path("other-node/ran")}"\nexec '${process.execPath}' "$@"\n`);
    chmodSync(tree.path("other-node/bin/node"), 0o755);
    const result = await verifyHook("claude-code", (await installerOf(hostById("claude-code")!))!.verify!, command, {
      env: { PATH: `${tree.path("other-node/bin")}:/usr/bin:/bin` },
      home: tree.home,
    });
    expect(result.problem).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(existsSync(tree.path("other-node/ran"))).toBe(true);
  }, 180_000);

  it("a project hook that calls agentsmd by name says so when no agentsmd is on PATH here", async () => {
    const tree = await createTree({ "repo/.git/": null, "bin/agentsmd": "#!/bin/sh\n" });
    chmodSync(tree.path("bin/agentsmd"), 0o755);
    const args = ["--cwd", tree.path("repo"), "--home", tree.home, "install", "qwen", "--scope", "project"];
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    expect((await runCli(args, { env: { ...env, PATH: "/usr/bin:/bin" } })).stderr).toContain("the hooks call `agentsmd` by name");
    expect((await runCli(args, { env: { ...env, PATH: tree.path("bin") } })).stderr).toBe("");
  });

  it("nothing in src/ writes or recommends npx", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
    const offenders = files(join(REPO, "src")).filter((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .some((line) => /\bnpx\s+(-y\s+)?agentsmd\b/.test(line)),
    );
    expect(offenders).toEqual([]);
  });
});

describe("uninstall takes away the directories install created, and no others", () => {
  it("user scope in an empty home: every directory install created goes; in a home that had them, they stay", async () => {
    const tree = await createTree({ "kept/.claude/": null, "kept/.copilot/": null, "kept/.codex/": null });
    for (const home of [tree.home, tree.path("kept")]) {
      const env = { HOME: home, XDG_STATE_HOME: tree.path("state") };
      for (const host of ["claude-code", "copilot", "codex", "gemini", "qwen"]) {
        const installed = await runCli(["--home", home, "install", host, "--command", "agentsmd"], { env });
        expect(installed.code, installed.stderr).toBe(0);
      }
      for (const host of ["claude-code", "copilot", "codex", "gemini", "qwen"]) {
        const removed = await runCli(["--home", home, "uninstall", host], { env });
        expect(removed.code, removed.stderr).toBe(0);
      }
    }
    expect(readdirSync(tree.home)).toEqual([]);
    expect(readdirSync(tree.path("kept")).sort()).toEqual([".claude", ".codex", ".copilot"]);
    for (const dir of [".claude", ".codex", ".copilot"]) expect(readdirSync(tree.path(`kept/${dir}`))).toEqual([]);
    expect(existsSync(tree.path("state/agentsmd/install"))).toBe(false);
  });

  it("project scope: .github/hooks created for the file goes, an existing .github stays", async () => {
    const tree = await createTree({ "repo/.github/workflows/ci.yml": "on: push\n" });
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const base = ["--cwd", tree.path("repo"), "--home", tree.home];
    expect((await runCli([...base, "install", "copilot", "--scope", "project"], { env })).code).toBe(0);
    expect((await runCli([...base, "uninstall", "copilot", "--scope", "project"], { env })).code).toBe(0);
    expect(readdirSync(tree.path("repo/.github"))).toEqual(["workflows"]);
  });
});

describe("install <host> usage", () => {
  it("an unknown host lists the hosts with hooks and the plugin hosts, not MCP for Codex and Gemini", async () => {
    const run = await runCli(["install", "vim"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("supported: auggie, claude-code, cline, codex, continue, copilot, crush, droid, gemini, qwen");
    expect(run.stderr).toContain("OpenCode, Kilo Code, pi and Amp");
    expect(run.stderr).not.toMatch(/for Codex, Gemini/);
  });
});
