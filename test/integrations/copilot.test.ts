import { describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { createTree, runCli } from "../helpers/tree.js";
import { parseCopilotEvent, inferCopilotEvent, CopilotEventError } from "../../src/integrations/copilot/events.js";
import { copilotLoadsNested, copilotToolTargets, MAX_TARGETS } from "../../src/integrations/copilot/targets.js";
import { copilotHooksDocument, copilotHooksPath, installCopilot, isAgentsmdHooksFile, uninstallCopilot } from "../../src/integrations/copilot/install.js";
import { ConfigError } from "../../src/core/errors.js";

// Payloads as GitHub Copilot CLI 1.0.102 sent them to a hook in ~/.copilot/hooks (e2e/copilot/native.e2e.test.ts).
const START = { sessionId: "b289", timestamp: 1795469978365, cwd: "/repo", source: "new", initialPrompt: "work" };
const PROMPT = { sessionId: "b289", timestamp: 1795469978439, cwd: "/repo", prompt: "work" };
const VIEW = {
  sessionId: "b289",
  timestamp: 1795469978642,
  cwd: "/repo",
  toolName: "view",
  toolArgs: { path: "/repo/packages/api/src/handler.ts" },
  toolResult: { resultType: "success", textResultForLlm: "export const h = 1;\n" },
};
const COMPACT = {
  sessionId: "b289",
  timestamp: 1795470014403,
  cwd: "/repo",
  transcriptPath: "/h/.copilot/session-state/b289/events.jsonl",
  trigger: "auto",
  customInstructions: "",
};

describe("copilot events", () => {
  it("takes the event from the command line, else from the payload's shape", () => {
    expect(parseCopilotEvent(START, "sessionStart")).toMatchObject({ event: "sessionStart", source: "new" });
    expect(parseCopilotEvent(VIEW)).toMatchObject({ event: "postToolUse", toolName: "view" });
    expect(inferCopilotEvent(PROMPT)).toBe("userPromptSubmitted");
    expect(inferCopilotEvent(COMPACT)).toBe("preCompact");
    expect(inferCopilotEvent(START)).toBe("sessionStart");
    // preToolUse (no result) and events agentsmd does not handle: null, the hook says nothing.
    const { toolResult: _result, ...preToolUse } = VIEW;
    expect(parseCopilotEvent(preToolUse)).toBeNull();
    expect(parseCopilotEvent(VIEW, "agentStop")).toBeNull();
  });

  it("rejects what is not Copilot's payload, naming the field", () => {
    expect(() => parseCopilotEvent([], "postToolUse")).toThrow(CopilotEventError);
    expect(() => parseCopilotEvent({ hook_event_name: "PostToolUse", session_id: "s", cwd: "/r", tool_name: "Read" }, "postToolUse")).toThrow(/sessionId/);
    expect(() => parseCopilotEvent({ ...VIEW, sessionId: "x".repeat(600) }, "postToolUse")).toThrow(/sessionId/);
  });
});

describe("copilot tool targets", () => {
  it("reads path and paths, relative to cwd, and nothing from other tools", () => {
    expect(copilotToolTargets("view", { path: "/r/a.ts" }, "/r")).toEqual(["/r/a.ts"]);
    expect(copilotToolTargets("create", { path: "pkg/new/x.ts", file_text: "" }, "/r")).toEqual(["/r/pkg/new/x.ts"]);
    expect(copilotToolTargets("edit", { path: "/r/b.ts", old_str: "a", new_str: "b" }, "/r")).toEqual(["/r/b.ts"]);
    expect(copilotToolTargets("grep", { pattern: "x", paths: "web" }, "/r")).toEqual(["/r/web"]);
    expect(copilotToolTargets("glob", { pattern: "*", paths: ["web", "/r/api", "web"] }, "/r")).toEqual(["/r/web", "/r/api"]);
    expect(copilotToolTargets("glob", { pattern: "*" }, "/r")).toEqual([]);
    expect(copilotToolTargets("bash", { command: "cat a" }, "/r")).toEqual([]);
    expect(copilotToolTargets("toString", { path: "/r/a" }, "/r")).toEqual([]);
    expect(copilotToolTargets("view", { path: "a\0b" }, "/r")).toEqual([]);
    expect(copilotToolTargets("view", null, "/r")).toEqual([]);
  });

  it("bounds a hostile paths array", () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `d${i}`);
    expect(copilotToolTargets("grep", { pattern: "x", paths: many }, "/r")).toHaveLength(MAX_TARGETS);
  });

  it("Copilot attaches nested files itself only after a view of a file", () => {
    expect(copilotLoadsNested("view", true)).toBe(true);
    expect(copilotLoadsNested("view", false)).toBe(false);
    for (const tool of ["create", "edit", "grep", "glob", "str_replace_editor"]) expect(copilotLoadsNested(tool, true)).toBe(false);
  });
});

describe("install copilot", () => {
  it("user scope: one file of its own under ~/.copilot/hooks ($COPILOT_HOME), idempotent, removed exactly", async () => {
    const tree = await createTree({});
    const context = { projectDir: tree.path("p"), home: tree.home, env: {} };
    const first = await installCopilot({ ...context, scope: "user", command: "agentsmd" });
    expect(first).toMatchObject({ file: tree.path(".test-home/.copilot/hooks/agentsmd.json"), changed: true });
    const text = await readFile(first.file, "utf8");
    expect(JSON.parse(text)).toEqual(copilotHooksDocument("agentsmd"));
    expect(JSON.parse(text).hooks.postToolUse[0]).toEqual({
      type: "command",
      matcher: "view|create|edit|str_replace_editor|grep|glob",
      bash: "agentsmd hook copilot --event postToolUse",
      timeoutSec: 30,
    });
    expect(await installCopilot({ ...context, scope: "user", command: "agentsmd" })).toMatchObject({ changed: false });
    expect(await installCopilot({ ...context, scope: "user", command: "/usr/bin/agentsmd" })).toMatchObject({ changed: true });
    expect(await uninstallCopilot({ ...context, scope: "user" })).toMatchObject({ changed: true });
    expect(existsSync(first.file)).toBe(false);
    expect(await uninstallCopilot({ ...context, scope: "user" })).toMatchObject({ changed: false });
    expect(copilotHooksPath("user", { ...context, env: { COPILOT_HOME: "/ch" } })).toBe("/ch/hooks/agentsmd.json");
    expect(copilotHooksPath("project", context)).toBe(tree.path("p/.github/hooks/agentsmd.json"));
  });

  it("never overwrites or deletes a file of that name it did not write", async () => {
    const tree = await createTree({ "p/.github/hooks/agentsmd.json": '{"version":1,"hooks":{"postToolUse":[{"type":"command","bash":"./lint.sh"}]}}\n' });
    const context = { projectDir: tree.path("p"), home: tree.home, env: {} };
    await expect(installCopilot({ ...context, scope: "project", command: "agentsmd" })).rejects.toThrow(ConfigError);
    await expect(uninstallCopilot({ ...context, scope: "project" })).rejects.toThrow(/not written by agentsmd/);
    expect(await readFile(tree.path("p/.github/hooks/agentsmd.json"), "utf8")).toContain("lint.sh");
    expect(isAgentsmdHooksFile("not json")).toBe(false);
  });
});

describe("agentsmd install|uninstall copilot and the scope caveats", () => {
  it("default user scope, quiet; project scope prints the subdirectory caveat; a wrong scope is a usage error", async () => {
    const tree = await createTree({ "repo/.git/": null });
    const base = ["--cwd", tree.path("repo"), "--home", tree.home];
    const user = await runCli([...base, "install", "copilot", "--command", "agentsmd"]);
    expect(user).toMatchObject({ code: 0, stderr: "" });
    expect(user.stdout).toContain(tree.path(".test-home/.copilot/hooks/agentsmd.json"));
    expect(JSON.parse(await readFile(tree.path(".test-home/.copilot/hooks/agentsmd.json"), "utf8")).hooks.sessionStart[0].bash).toBe(
      "agentsmd hook copilot --event sessionStart",
    );
    const project = await runCli([...base, "install", "copilot", "--scope", "project"]);
    expect(project.code).toBe(0);
    expect(project.stderr).toContain("only when started in");
    expect(existsSync(tree.path("repo/.github/hooks/agentsmd.json"))).toBe(true);
    expect((await runCli([...base, "uninstall", "copilot", "--scope", "project"])).code).toBe(0);
    expect(existsSync(tree.path("repo/.github/hooks/agentsmd.json"))).toBe(false);
    expect((await runCli([...base, "install", "copilot", "--scope", "local"])).code).toBe(2);
    const claude = await runCli([...base, "install", "claude-code", "--scope", "project"]);
    expect(claude.stderr).toContain("a session started in a subdirectory gets nothing");
    expect((await runCli([...base, "install", "claude-code"])).stderr).toBe("");
  });
});
