/**
 * Small CLI contract points: a bare `agentsmd` is a usage error, `--state` never creates a
 * directory chain, a `--preset` a state cannot honour is refused, and `--no-agent-config`'s help
 * names every agent whose configuration it turns off.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { PRESETS } from "../src/presets/table.js";
import { createTree, runCli, type Tree } from "./helpers/tree.js";

async function repo(): Promise<Tree> {
  return createTree({ "repo/.git/": null, "repo/AGENTS.md": "root rules\n", "repo/pkg/AGENTS.md": "pkg rules\n", "repo/pkg/x.ts": "" });
}

describe("a bare agentsmd", () => {
  it("prints the help on stderr and exits 2 (no command is a usage error); --help stays exit 0 on stdout", async () => {
    const bare = await runCli([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe("");
    expect(bare.stderr).toContain("Usage: agentsmd [options] [command]");
    // global options alone name no command either
    expect((await runCli(["--json"])).code).toBe(2);
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: agentsmd [options] [command]");
  });
});

describe("--state in a directory that does not exist", () => {
  it.each([
    ["resolve", ["resolve", "PATH"]],
    ["touch", ["touch", "PATH"]],
    ["resume", ["resume"]],
  ])("%s refuses it, naming the directory and the fix, exit 1, and creates nothing", async (_name, args) => {
    const tree = await repo();
    const dir = tree.path("nope/deeper");
    const state = `${dir}/s.json`;
    const argv = args.map((arg) => (arg === "PATH" ? tree.path("repo/pkg/x.ts") : arg));
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), ...argv, "--state", state], { env: {} });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`the directory of --state ${state} does not exist: ${dir}`);
    expect(run.stderr).toContain(`mkdir -p ${dir}`);
    expect(existsSync(tree.path("nope"))).toBe(false);
  });

  it("a state file in an existing directory is still created on first use", async () => {
    const tree = await repo();
    const state = tree.path("s.json");
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "resolve", tree.path("repo/pkg/x.ts"), "--state", state], { env: {} });
    expect(run.code).toBe(0);
    expect(JSON.parse(await readFile(state, "utf8"))).toMatchObject({ preset: "codelia" });
  });
});

describe("--preset against an existing state", () => {
  it("is refused when it differs from the state's preset, naming both and how to start fresh; the same preset or none goes on", async () => {
    const tree = await repo();
    const state = tree.path("s.json");
    const cli = (...args: string[]) => runCli(["--home", tree.home, "--cwd", tree.path("repo"), ...args], { env: {} });
    expect((await cli("--preset", "claude", "resolve", tree.path("repo/x.ts"), "--state", state)).code).toBe(0);
    const before = await readFile(state, "utf8");
    for (const args of [
      ["--preset", "codex", "resolve", tree.path("repo/pkg/x.ts"), "--state", state],
      ["--preset", "codex", "touch", tree.path("repo/pkg/x.ts"), "--state", state],
      ["--preset", "codex", "resume", "--state", state],
    ]) {
      const run = await cli(...args);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(`state file ${state} holds a session of preset claude, not codex`);
      expect(run.stderr).toContain("pass a new --state file (or delete this one) to start fresh with preset codex");
    }
    expect(await readFile(state, "utf8")).toBe(before);
    expect((await cli("--preset", "claude", "resolve", tree.path("repo/pkg/x.ts"), "--state", state)).code).toBe(0);
    expect((await cli("resume", "--state", state)).code).toBe(0);
  });
});

/** The agent each preset that reads an agent's own configuration stands for (a new such preset must be added here and to the help). */
const AGENT_OF_PRESET: Record<string, string> = { codex: "Codex", gemini: "Gemini CLI", claude: "Claude Code", opencode: "OpenCode", kilo: "Kilo Code" };

describe("--no-agent-config help", () => {
  it("names every agent whose configuration a preset reads (agentConfig, excludes or listed)", async () => {
    const help = (await runCli(["--help"])).stdout.replace(/\s+/g, " ");
    const readers = [...PRESETS.values()].filter((preset) => preset.agentConfig || preset.excludes || preset.listed).map((preset) => preset.name);
    expect(readers.sort()).toEqual(Object.keys(AGENT_OF_PRESET).sort());
    const line = /--no-agent-config (.*?) -h, --help/.exec(help)![1]!;
    for (const name of readers) expect(line).toContain(`${name}: ${AGENT_OF_PRESET[name]}`);
  });
});

describe("--config against an existing state", () => {
  it("is refused when its settings differ from the state's, naming the file and how to start fresh; the same settings or none go on", async () => {
    const tree = await repo();
    const state = tree.path("s.json");
    const first = tree.path("first.json");
    const other = tree.path("other.json");
    await writeFile(first, JSON.stringify({ initial: { maxBytes: 4096 } }));
    await writeFile(other, JSON.stringify({ initial: { maxBytes: 2048 } }));
    const cli = (...args: string[]) => runCli(["--home", tree.home, "--cwd", tree.path("repo"), ...args], { env: {} });
    expect((await cli("--config", first, "resolve", tree.path("repo/x.ts"), "--state", state)).code).toBe(0);
    const before = await readFile(state, "utf8");
    for (const args of [
      ["--config", other, "resolve", tree.path("repo/pkg/x.ts"), "--state", state],
      ["--config", other, "touch", tree.path("repo/pkg/x.ts"), "--state", state],
      ["--config", other, "resume", "--state", state],
    ]) {
      const run = await cli(...args);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(`state file ${state} holds a session created with other settings than --config ${other}`);
      expect(run.stderr).toContain("pass a new --state file (or delete this one) to start fresh with");
    }
    expect(await readFile(state, "utf8")).toBe(before);
    expect((await cli("--config", first, "resolve", tree.path("repo/pkg/x.ts"), "--state", state)).code).toBe(0);
    expect((await cli("resume", "--state", state)).code).toBe(0);
  });
});
