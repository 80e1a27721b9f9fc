import { describe, expect, it } from "vitest";
import { utimes, appendFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { createTree, runCli, type Tree } from "../helpers/tree.js";
import { handleHostEvent } from "../../src/integrations/host/deliver.js";
import { copilotEvent, copilotProfile, COPILOT_CONTEXT_LIMIT, copilotReadsName } from "../../src/integrations/copilot/profile.js";
import { copilotEventsFile, latestResume } from "../../src/integrations/copilot/session-events.js";

/** Appends a process start to the session's Copilot events file, as Copilot writes it before any hook. */
async function copilotLogs(tree: Tree, type: "session.start" | "session.resume" | "session.shutdown", id: string, parentId?: string): Promise<void> {
  const file = copilotEventsFile("c-1", tree.home, {})!;
  await mkdir(path.dirname(file), { recursive: true });
  await appendFile(file, `${JSON.stringify({ type, data: {}, id, ...(parentId ? { parentId } : {}), timestamp: "2026-11-28T02:11:15.705Z" })}\n`);
}

const FILES = {
  "r/.git/": null,
  "r/AGENTS.md": "ROOT\n",
  "r/api/AGENTS.md": "API\n",
  "r/api/src/h.ts": "h\n",
  "r/web/AGENTS.md": "WEB\n",
  "r/web/GEMINI.md": "WEB-GEMINI\n",
  "r/web/App.tsx": "a\n",
  "r/docs/AGENTS.md": "DOCS\n",
  "r/unused/AGENTS.md": "UNUSED\n",
};

/** One Copilot conversation against a tree: each call runs the profile as `agentsmd hook copilot --event <e>` would. */
function copilot(tree: Tree, cwd = "r") {
  const options = { home: tree.home, env: { HOME: tree.home, XDG_STATE_HOME: tree.path("state") } };
  const base = { sessionId: "c-1", timestamp: 1795469978365, cwd: tree.path(cwd) };
  const send = async (event: string, payload: Record<string, unknown>) =>
    (await handleHostEvent(copilotProfile({ event }), { ...base, ...payload }, options))?.additionalContext ?? "";
  return {
    start: () => send("sessionStart", { source: "new", initialPrompt: "go" }),
    tool: (toolName: string, toolArgs: Record<string, unknown>) =>
      send("postToolUse", { toolName, toolArgs, toolResult: { resultType: "success", textResultForLlm: "" } }),
    view: (rel: string) =>
      send("postToolUse", { toolName: "view", toolArgs: { path: tree.path(rel) }, toolResult: { resultType: "success", textResultForLlm: "" } }),
    prompt: () => send("userPromptSubmitted", { prompt: "next" }),
    resume: () => send("sessionStart", { source: "resume", initialPrompt: "again" }),
    compact: () => send("preCompact", { trigger: "auto", customInstructions: "" }),
  };
}

describe("copilot profile", () => {
  it("says nothing at start and after a view of a file (Copilot loads both itself); delivers on create, edit, grep, glob and a directory view", async () => {
    const tree = await createTree(FILES);
    const c = copilot(tree);
    expect(await c.start()).toBe("");
    expect(await c.view("r/api/src/h.ts")).toBe("");
    const created = await c.tool("create", { path: tree.path("r/web/new/x.ts"), file_text: "" });
    expect(created).toContain("WEB\n");
    expect(created).toContain("WEB-GEMINI");
    expect(created).not.toContain("ROOT");
    expect(await c.view("r/web/App.tsx")).toBe("");
    expect(await c.view("r/docs")).toContain("DOCS");
    expect(await c.tool("grep", { pattern: "x", paths: [tree.path("r/docs"), tree.path("r/api")] })).toBe("");
  });

  it("after a resume (Copilot drops the nested files it attached and attaches them afresh): an edited one is left to Copilot's next view, or given at a touch that is not a view; agentsmd's own answers stay", async () => {
    const tree = await createTree(FILES);
    const c = copilot(tree);
    await c.start();
    expect(await c.view("r/web/App.tsx")).toBe("");
    expect(await c.tool("create", { path: tree.path("r/docs/x.md"), file_text: "" })).toContain("DOCS");
    // Nothing edited: a resume says nothing (the root chain is Copilot's system message, never attached).
    expect(await c.resume()).toBe("");
    await c.view("r/web/App.tsx");
    await appendFile(tree.path("r/web/AGENTS.md"), "WEB-V2\n");
    await utimes(tree.path("r/web/AGENTS.md"), new Date(), new Date(Date.now() + 5000));
    expect(await c.resume()).not.toContain("WEB");
    // Not at the prompt: Copilot attaches it itself at the next view below it.
    expect(await c.prompt()).toBe("");
    expect(await c.view("r/web/App.tsx")).toBe("");
    expect(await c.tool("edit", { path: tree.path("r/web/App.tsx") })).toBe("");
    // Another resume; now an edit (no view) below the attached files: agentsmd gives them.
    expect(await c.resume()).not.toContain("WEB");
    const edit = await c.tool("edit", { path: tree.path("r/web/App.tsx") });
    expect(edit).toContain("WEB-V2");
    expect(edit).toContain("WEB-GEMINI");
    // agentsmd's own answer (docs, in a tool result) survived the resume: not given again.
    expect(await c.tool("edit", { path: tree.path("r/docs/x.md") })).toBe("");
  });

  it("a resumed process's first prompt handled before its resume (Copilot runs both hooks at once): the resume applies first, once; the edited nested file is left to Copilot's next view", async () => {
    const tree = await createTree(FILES);
    const c = copilot(tree);
    await copilotLogs(tree, "session.start", "s-0");
    await c.start();
    expect(await c.view("r/web/App.tsx")).toBe("");
    await appendFile(tree.path("r/web/AGENTS.md"), "WEB-V2\n");
    await utimes(tree.path("r/web/AGENTS.md"), new Date(), new Date(Date.now() + 5000));
    // The first process ended; the resumed one has not logged its resume yet when the prompt's
    // hook wins the race: without the events file it would give WEB-V2 here, and Copilot would
    // attach it again at its next view.
    await copilotLogs(tree, "session.shutdown", "x-1");
    expect(await c.prompt()).not.toContain("WEB-V2");
    await copilotLogs(tree, "session.resume", "r-1", "x-1");
    expect(await c.resume()).toBe("");
    expect(await c.view("r/web/App.tsx")).toBe("");
    expect(await c.tool("edit", { path: tree.path("r/web/App.tsx") })).toBe("");
    // A later prompt of the same process: the resume is not applied again.
    expect(await c.prompt()).toBe("");
    // The next resume in the usual order: applied at sessionStart, not again at the prompt.
    await appendFile(tree.path("r/web/AGENTS.md"), "WEB-V3\n");
    await utimes(tree.path("r/web/AGENTS.md"), new Date(), new Date(Date.now() + 9000));
    await copilotLogs(tree, "session.shutdown", "x-2");
    await copilotLogs(tree, "session.resume", "r-2", "x-2");
    expect(await c.resume()).not.toContain("WEB-V3");
    expect(await c.prompt()).not.toContain("WEB-V3");
    expect(await c.tool("edit", { path: tree.path("r/web/App.tsx") })).toContain("WEB-V3");
  });

  it("reads Copilot's latest resume from a tail of its events file, named by the shutdown it follows, logged yet or not", () => {
    const line = (type: string, id: string, parentId?: string) => JSON.stringify({ type, data: {}, id, ...(parentId ? { parentId } : {}), timestamp: "t" });
    const first = [line("session.start", "a"), line("hook.start", "h"), line("session.shutdown", "s1", "h")];
    expect(latestResume(first.join("\n"), false)).toBe("s1");
    const resumed = [...first, line("session.resume", "b", "s1"), line("hook.end", "e"), ""];
    expect(latestResume(resumed.join("\n"), false)).toBe("s1");
    expect(latestResume([...resumed, line("session.shutdown", "s2", "e")].join("\n"), false)).toBe("s2");
    expect(latestResume([line("session.resume", "b", "s1"), line("session.start", "c")].join("\n"), false)).toBeNull();
    expect(latestResume(line("hook.end", "e"), false)).toBeNull();
    // A tail's first line may be cut: never trusted.
    expect(latestResume([line("session.resume", "b", "s1"), line("user.message", "u")].join("\n"), true)).toBeNull();
    expect(latestResume('{"type":"session.resume", broken\n{"type":"session.resume","id":7}\n', false)).toBeNull();
    expect(latestResume(line("session.shutdown", "x".repeat(600)), false)).toBeNull();
    expect(copilotEventsFile("../x", "/h", {})).toBeNull();
    expect(copilotEventsFile("c-1", "/h", { COPILOT_HOME: "/c" })).toBe("/c/session-state/c-1/events.jsonl");
  });

  it("an edited file Copilot attached comes again with its new text, at the next touch or the next prompt", async () => {
    const tree = await createTree(FILES);
    const c = copilot(tree);
    await c.start();
    expect(await c.view("r/web/App.tsx")).toBe("");
    await appendFile(tree.path("r/web/AGENTS.md"), "WEB-V2\n");
    await utimes(tree.path("r/web/AGENTS.md"), new Date(), new Date(Date.now() + 5000));
    const prompt = await c.prompt();
    expect(prompt).toContain("WEB-V2");
    expect(await c.view("r/web/App.tsx")).toBe("");
    await appendFile(tree.path("r/web/AGENTS.md"), "WEB-V3\n");
    await utimes(tree.path("r/web/AGENTS.md"), new Date(), new Date(Date.now() + 10000));
    expect(await c.view("r/web/App.tsx")).toContain("WEB-V3");
  });

  it("after preCompact the nested files come again with the next tool call there, Copilot's own included (it never re-attaches)", async () => {
    const tree = await createTree(FILES);
    const c = copilot(tree);
    await c.start();
    expect(await c.view("r/api/src/h.ts")).toBe("");
    expect(await c.tool("edit", { path: tree.path("r/web/App.tsx"), old_str: "a", new_str: "b" })).toContain("WEB");
    expect(await c.compact()).toBe("");
    const api = await c.view("r/api/src/h.ts");
    expect(api).toContain("API");
    expect(api).not.toContain("ROOT");
    // agentsmd gave web/AGENTS.md (edit) before; Copilot never attached it, so this view does.
    expect(await c.view("r/web/App.tsx")).toBe("");
    expect(await c.tool("edit", { path: tree.path("r/web/App.tsx"), old_str: "b", new_str: "c" })).toBe("");
  });

  it("a file agentsmd gave that Copilot then attached on a view is not promised to Copilot after a compaction", async () => {
    const tree = await createTree(FILES);
    const c = copilot(tree);
    await c.start();
    expect(await c.tool("create", { path: tree.path("r/web/n.ts"), file_text: "" })).toContain("WEB");
    // Copilot attaches web/AGENTS.md here itself (it cannot know agentsmd gave it): agentsmd records that.
    expect(await c.view("r/api/src/h.ts")).toBe("");
    expect(await c.view("r/web/App.tsx")).toBe("");
    await c.compact();
    expect(await c.view("r/web/App.tsx")).toContain("WEB");
  });

  it("from a subdirectory: the chain is Copilot's; a sibling's file on create", async () => {
    const tree = await createTree(FILES);
    const c = copilot(tree, "r/api");
    expect(await c.start()).toBe("");
    const text = await c.tool("create", { path: tree.path("r/docs/x.md"), file_text: "" });
    expect(text).toContain("DOCS");
    expect(text).not.toMatch(/ROOT|API|UNUSED/);
  });

  it("ignores events it does not handle and Claude-style payloads; keeps answers under Copilot's cut", async () => {
    const tree = await createTree({ ...FILES, "r/big/AGENTS.md": `BIG\n${"b".repeat(30_000)}\n`, "r/big/x.ts": "" });
    const options = { home: tree.home, env: { HOME: tree.home, XDG_STATE_HOME: tree.path("state") } };
    const pre = { sessionId: "c-2", cwd: tree.path("r"), toolName: "view", toolArgs: { path: tree.path("r/web/App.tsx") } };
    expect(await handleHostEvent(copilotProfile({ event: "preToolUse" }), pre, options)).toBeNull();
    expect(await handleHostEvent(copilotProfile(), pre, options)).toBeNull();
    const claudeStyle = {
      hook_event_name: "PostToolUse",
      session_id: "c-2",
      cwd: tree.path("r"),
      tool_name: "Write",
      tool_input: { path: tree.path("r/web/x") },
    };
    expect(await handleHostEvent(copilotProfile({ event: "postToolUse" }), claudeStyle, options)).toBeNull();
    const big = await copilot(tree).tool("create", { path: tree.path("r/big/y.ts"), file_text: "" });
    expect(big.length).toBeLessThan(COPILOT_CONTEXT_LIMIT);
    expect(big).toContain(tree.path("r/big/AGENTS.md"));
  });

  it("maps events and names", () => {
    expect(copilotEvent({ event: "sessionStart", sessionId: "s", cwd: "/r", source: "resume" }).kind).toBe("resume");
    expect(copilotEvent({ event: "postToolUse", sessionId: "s", cwd: "/r", toolName: "view", toolArgs: { path: "a", view_range: [1, 2] } })).toMatchObject({
      kind: "tool",
      targets: ["/r/a"],
      read: "part",
    });
    expect(copilotReadsName("/r/x/Agents.MD")).toBe(true);
    expect(copilotReadsName("/r/x/.github/copilot-instructions.md")).toBe(true);
    expect(copilotReadsName("/r/x/AGENTS.override.md")).toBe(false);
  });

  it("the CLI: `agentsmd hook copilot --event postToolUse` prints the answer; bad input is one stderr line, exit 0", async () => {
    const tree = await createTree(FILES);
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const payload = {
      sessionId: "c-3",
      cwd: tree.path("r"),
      toolName: "create",
      toolArgs: { path: tree.path("r/docs/z.md") },
      toolResult: { resultType: "success" },
    };
    const run = await runCli(["hook", "copilot", "--event", "postToolUse"], { stdin: JSON.stringify(payload), env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).additionalContext).toContain("DOCS");
    const bad = await runCli(["hook", "copilot", "--event", "postToolUse"], { stdin: "{", env });
    expect(bad).toMatchObject({ code: 0, stdout: "" });
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
  });
});
