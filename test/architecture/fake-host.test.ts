/**
 * A host is its definition: a fake host, registered through the registry alone (no file of
 * agentsmd changed), is installed (`install fakehost` with an option of its own), run as a hook
 * (`hook fakehost` with an event on stdin, through the shared host layer), explained (it reads
 * Claude Code's rules itself) and doctored (its signs, its hook file).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createTree, runCli } from "../helpers/tree.js";
import { registerHost } from "../../src/integrations/registry.js";
import type { HostDefinition, HostInstaller, InstallRequest } from "../../src/integrations/host/definition.js";
import { hookRunner } from "../../src/integrations/host/deliver.js";
import { claudeCodeProfile } from "../../src/integrations/claude-code/profile.js";

const hookFile = (request: { home: string }) => join(request.home, ".fake", "hooks.json");

/** Writes and removes one hooks file; its messages are the host's own. */
const installer: HostInstaller = {
  async install(request: InstallRequest) {
    const file = hookFile(request);
    const command = `${request.command ?? "agentsmd"} hook fakehost`;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ hooks: { PostToolUse: [{ hooks: [{ type: "command", command }] }] }, loud: request.options.loud === true }));
    return { changed: true, command, json: { file, command }, lines: [`fake: hooks written to ${file}${request.options.loud ? " (loud)" : ""}`], notes: [] };
  },
  async uninstall(request) {
    return { changed: false, json: {}, lines: [`fake: nothing in ${hookFile(request)}`], notes: [] };
  },
  async setup() {
    throw new Error("not used here");
  },
  verify: {
    userHookFile: hookFile,
    projectHookFiles: () => [],
    event: "PostToolUse",
    tool: "Read",
    answer: "hookSpecificOutput",
    projectDirVars: [],
    isOurs: (command) => command.endsWith("hook fakehost"),
    payload: () => ({}),
  },
};

const fake: HostDefinition = {
  id: "fakehost",
  name: "Fake Agent",
  bin: "fakeagent",
  configDir: (home) => join(home, ".fake"),
  preset: "claude",
  nativeRuleFormats: ["claude"],
  hook: {
    description: "Fake Agent hook (Claude-shaped events)",
    // The shared algorithm with Claude Code's event shape, under the fake host's own name (its state directory).
    load: async () => hookRunner(() => ({ ...claudeCodeProfile({ agentsMd: "inject" }), host: "fakehost", displayName: "Fake Agent" })),
  },
  install: {
    summary: "a hooks file in ~/.fake",
    scopes: ["user"],
    files: { user: "~/.fake/hooks.json" },
    options: [{ name: "loud", flags: "--loud", description: "say it loudly" }],
    load: async () => installer,
  },
  doctor: {
    names: ["FAKE.md"],
    rootEntries: [".fake"],
    hookFiles: ({ root }) => [{ path: join(root, ".fake", "hooks.json"), scope: "project" }],
  },
};

let remove: () => void;
beforeAll(() => {
  remove = registerHost(fake);
});
afterAll(() => remove());

describe("a host added through the registry alone", () => {
  it("is installed: `install fakehost --loud` runs its installer, and help lists it with its option", async () => {
    const tree = await createTree({});
    const run = await runCli(["--home", tree.home, "install", "fakehost", "--loud"], { env: { HOME: tree.home } });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`fake: hooks written to ${join(tree.home, ".fake/hooks.json")} (loud)`);
    expect(JSON.parse(readFileSync(join(tree.home, ".fake/hooks.json"), "utf8")).loud).toBe(true);
    const help = await runCli(["install", "--help"]);
    // Commander wraps the help at 80 columns wherever the other hosts' text leaves a word.
    const helpText = help.stdout.replace(/\s+/g, " ");
    expect(helpText).toContain("fakehost (a hooks file in ~/.fake)");
    expect(helpText).toContain("fakehost: say it loudly");
    // Another host's option is refused for it, naming both.
    const wrong = await runCli(["--home", tree.home, "install", "fakehost", "--trust"], { env: { HOME: tree.home } });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--trust is an option of codex, not of fakehost");
    // A scope it does not have is a usage error naming the host.
    const scope = await runCli(["--home", tree.home, "install", "fakehost", "--scope", "project"], { env: { HOME: tree.home } });
    expect(scope.code).toBe(2);
    expect(scope.stderr).toContain("Fake Agent has no project scope: use --scope user");
  });

  it("is hooked: `hook fakehost` answers an event through the shared host layer, its state under its own name", async () => {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "ROOT\n", "r/pkg/AGENTS.md": "FAKE-PKG\n", "r/pkg/a.ts": "x\n" });
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const event = {
      session_id: "s1",
      transcript_path: tree.path("t.jsonl"),
      cwd: tree.path("r"),
      hook_event_name: "PostToolUse",
      tool_name: "Read",
      tool_input: { file_path: tree.path("r/pkg/a.ts") },
      tool_response: {},
    };
    const run = await runCli(["hook", "fakehost"], { env, stdin: JSON.stringify(event), cwd: tree.path("r") });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toContain("FAKE-PKG");
    expect(existsSync(tree.path("state/agentsmd/fakehost"))).toBe(true);
  });

  it("is explained: a rule of a format it reads itself names it among the native readers", async () => {
    const tree = await createTree({ "r/.git/": null, "r/src/a.ts": "x\n", "r/.claude/rules/ts.md": "---\npaths: '**/*.ts'\n---\nTS\n" });
    const run = await runCli(["--json", "--home", tree.home, "--cwd", tree.path("r"), "explain", tree.path("r/src/a.ts")], { env: { HOME: tree.home } });
    const explanation = JSON.parse(run.stdout) as { rules: Array<{ path: string; reach: { native: string[]; agentsmd: string[] } }> };
    expect(explanation.rules[0]!.reach.native).toContain("fakehost");
    expect(explanation.rules[0]!.reach.agentsmd).not.toContain("fakehost");
  });

  it("is doctored: its hook file is checked, and another host's hook there is reported as mis-read", async () => {
    const tree = await createTree({
      "r/.git/": null,
      "r/AGENTS.md": "root\n",
      "r/.fake/hooks.json": JSON.stringify({ hooks: { PostToolUse: [{ hooks: [{ type: "command", command: "agentsmd hook codex" }] }] } }),
    });
    const run = await runCli(["--json", "--home", tree.home, "doctor", tree.path("r")], { env: { HOME: tree.home } });
    const report = JSON.parse(run.stdout) as { findings: Array<{ code: string; path: string; agents?: string[]; message: string }> };
    const misread = report.findings.find((finding) => finding.code === "hook-misread");
    expect(misread).toMatchObject({ path: tree.path("r/.fake/hooks.json"), agents: ["fakehost"] });
    expect(misread!.message).toContain("but Fake Agent reads this file");
  });
});
