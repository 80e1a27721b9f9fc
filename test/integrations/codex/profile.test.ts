/**
 * The Codex profile on the shared host layer, event by event on a temp tree: the chain Codex loads
 * itself is never sent, a shell read or a patch brings the nested files once (override wins), a
 * prompt after an edit brings the new text, compaction restores nested files, resume repeats nothing.
 */
import { describe, expect, it } from "vitest";
import { handleHostEvent } from "../../../src/integrations/host/deliver.js";
import { nodeFileSystem } from "../../../src/io/file-system.js";
import { codexEvent, codexEventTargets, codexProfile, type CodexHookOutput } from "../../../src/integrations/codex/profile.js";
import { runCodexHook } from "../../../src/integrations/codex/hook.js";
import { CodexHookEventSchema } from "../../../src/integrations/codex/input.js";
import { createTree } from "../../helpers/tree.js";

const SPEC = {
  ".git/": null,
  "AGENTS.md": "ROOT\n",
  "pkg/AGENTS.md": "PKG-PLAIN\n",
  "pkg/AGENTS.override.md": "PKG-OVERRIDE\n",
  "pkg/src/a.ts": "a\n",
  "lib/AGENTS.md": "LIB\n",
  "sib/AGENTS.md": "SIB\n",
};

async function setup() {
  const tree = await createTree(SPEC);
  const base = { session_id: "s1", cwd: tree.root, transcript_path: null, model: "gpt-5.5", permission_mode: "bypassPermissions" };
  const options = { env: { HOME: tree.home }, home: tree.home, stateDir: tree.path(".state") };
  const send = async (event: Record<string, unknown>): Promise<string> => {
    let out: unknown = null;
    await runCodexHook(JSON.stringify({ ...base, ...event }), { ...options, flags: {}, deliver: (o) => void (out = o) });
    return (out as CodexHookOutput | null)?.hookSpecificOutput.additionalContext ?? "";
  };
  const bash = (command: string, cwd = tree.root) =>
    send({ hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command }, tool_response: "", tool_use_id: "c", turn_id: "t", cwd });
  return { tree, send, bash };
}

describe("codex profile", () => {
  it("maps events: startup/clear start, resume, compact, prompt, tool", () => {
    const e = { session_id: "s", cwd: "/r" };
    expect(codexEvent({ ...e, hook_event_name: "SessionStart", source: "startup" }, { targets: [] })).toMatchObject({ kind: "start", fresh: true });
    expect(codexEvent({ ...e, hook_event_name: "SessionStart", source: "resume" }, { targets: [] }).kind).toBe("resume");
    expect(codexEvent({ ...e, hook_event_name: "SessionStart", source: "compact" }, { targets: [] }).kind).toBe("compact");
    expect(codexEvent({ ...e, hook_event_name: "UserPromptSubmit", prompt: "x" }, { targets: [] }).kind).toBe("prompt");
    expect(codexEvent({ ...e, hook_event_name: "PostToolUse", tool_name: "Bash" }, { targets: ["/r/a"], read: "whole" })).toMatchObject({
      kind: "tool",
      targets: ["/r/a"],
      read: "whole",
    });
  });

  it("puts the file a command printed whole first", async () => {
    const tree = await createTree(SPEC);
    const event = {
      session_id: "s",
      cwd: tree.root,
      hook_event_name: "PostToolUse" as const,
      tool_name: "Bash",
      tool_input: { command: "ls lib && cat pkg/AGENTS.override.md" },
    };
    expect(await codexEventTargets(event, nodeFileSystem, tree.home)).toEqual({
      targets: [tree.path("pkg/AGENTS.override.md"), tree.path("lib")],
      read: "whole",
    });
  });

  it("start sends nothing Codex loads itself; a read brings the nested file once, the override rule applied", async () => {
    const { tree, send, bash } = await setup();
    expect(await send({ hook_event_name: "SessionStart", source: "startup" })).toBe("");
    const first = await bash("sed -n '1,20p' pkg/src/a.ts");
    expect(first).toContain("PKG-OVERRIDE");
    expect(first).not.toContain("PKG-PLAIN");
    expect(first).not.toContain("ROOT");
    expect(await bash("cat pkg/src/a.ts")).toBe("");
    expect(await bash("cat a.ts", tree.path("pkg/src"))).toBe(""); // the tool's own workdir
    expect(await bash("cat $(ls)")).toBe(""); // unparseable: nothing
    expect(await send({ hook_event_name: "UserPromptSubmit", prompt: "go", turn_id: "t2" })).toBe("");
  });

  it("apply_patch into a new directory, a prompt after an edit, compaction and resume", async () => {
    const { tree, send } = await setup();
    await send({ hook_event_name: "SessionStart", source: "startup" });
    const patch = "*** Begin Patch\n*** Add File: lib/new/deep/x.ts\n+x\n*** End Patch\n";
    const patched = await send({ hook_event_name: "PostToolUse", tool_name: "apply_patch", tool_input: { command: patch }, tool_use_id: "p", turn_id: "t" });
    expect(patched).toContain("LIB");
    expect(patched).not.toContain("SIB");
    await tree.write("lib/AGENTS.md", "LIB-EDITED\n");
    await tree.setMtime("lib/AGENTS.md", 2_000_000_000);
    const prompt = await send({ hook_event_name: "UserPromptSubmit", prompt: "next", turn_id: "t2" });
    expect(prompt).toContain("LIB-EDITED");
    expect(await send({ hook_event_name: "UserPromptSubmit", prompt: "again", turn_id: "t3" })).toBe("");
    expect(await send({ hook_event_name: "SessionStart", source: "resume" })).toBe("");
    const compacted = await send({ hook_event_name: "SessionStart", source: "compact" });
    expect(compacted).toContain("LIB-EDITED");
    expect(compacted).not.toContain("ROOT"); // Codex puts its own AGENTS.md fragment back itself
  });

  it("answers nothing to events it does not handle, and validates through the shared layer", async () => {
    const { send } = await setup();
    expect(await send({ hook_event_name: "Stop", stop_hook_active: false })).toBe("");
    await expect(handleHostEvent(codexProfile(), { hook_event_name: "PostToolUse" })).rejects.toThrow(/not a Codex hook event/);
  });

  it("validates an event once: the runner's parse (for the targets) is the one the algorithm uses", async () => {
    const { tree, send, bash } = await setup();
    await send({ hook_event_name: "SessionStart", source: "startup" });
    const internals = CodexHookEventSchema._zod;
    const run = internals.run;
    let parses = 0;
    internals.run = (payload, context) => (parses++, run(payload, context));
    try {
      expect(await bash("cat pkg/src/a.ts")).toContain("PKG-OVERRIDE");
      expect(parses).toBe(1);
      expect(await bash(`cat ${tree.path("pkg/src/a.ts")}`)).toBe("");
      expect(parses).toBe(2);
    } finally {
      internals.run = run;
    }
  });
});
