/**
 * The Gemini CLI profile's turn structure: a new session's chain goes out at its first BeforeAgent
 * (an extra part of the prompt message, which Gemini keeps on resume), never at SessionStart
 * (Gemini glues that context onto the first prompt's own text and drops the whole message when the
 * session is resumed: the user's first prompt with it).
 */
import { describe, expect, it } from "vitest";
import { createTree } from "../../helpers/tree.js";
import { handleHostEvent } from "../../../src/integrations/host/deliver.js";
import { geminiProfile } from "../../../src/integrations/gemini/profile.js";

type Answer = { hookSpecificOutput: { hookEventName: string; additionalContext: string } } | null;

describe("Gemini CLI profile: where a session's startup files go", () => {
  it("SessionStart startup answers nothing; the first BeforeAgent gives the chain once; the next gives nothing", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "Token ROOT-1\n", "pkg/AGENTS.md": "Token PKG-2\n", "pkg/a.ts": "x\n" });
    const cwd = tree.path("pkg");
    const options = { env: { HOME: tree.home }, home: tree.home, stateDir: tree.path("state") };
    const base = { session_id: "s1", transcript_path: tree.path("t.jsonl"), cwd };
    const send = async (event: Record<string, unknown>) => (await handleHostEvent(geminiProfile(), { ...base, ...event }, options)) as Answer;

    expect(await send({ hook_event_name: "SessionStart", source: "startup" })).toBeNull();
    const first = await send({ hook_event_name: "BeforeAgent", prompt: "FIRST" });
    expect(first?.hookSpecificOutput.hookEventName).toBe("BeforeAgent");
    const text = first!.hookSpecificOutput.additionalContext;
    expect(text.split("Token ROOT-1").length - 1).toBe(1);
    expect(text.split("Token PKG-2").length - 1).toBe(1);
    expect(await send({ hook_event_name: "BeforeAgent", prompt: "SECOND" })).toBeNull();
    // A SessionStart of a session agentsmd already serves (a stray startup) resets nothing.
    expect(await send({ hook_event_name: "SessionStart", source: "startup" })).toBeNull();
    expect(await send({ hook_event_name: "BeforeAgent", prompt: "THIRD" })).toBeNull();
  });

  it("/clear starts a new session id: its first BeforeAgent gives the chain again", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "Token ROOT-1\n" });
    const options = { env: { HOME: tree.home }, home: tree.home, stateDir: tree.path("state") };
    const event = (id: string, extra: Record<string, unknown>) => ({ session_id: id, transcript_path: tree.path("t.jsonl"), cwd: tree.root, ...extra });
    const context = (answer: unknown) => (answer as Answer)?.hookSpecificOutput.additionalContext ?? "";
    expect(context(await handleHostEvent(geminiProfile(), event("a", { hook_event_name: "BeforeAgent", prompt: "x" }), options))).toContain("Token ROOT-1");
    expect(await handleHostEvent(geminiProfile(), event("b", { hook_event_name: "SessionStart", source: "clear" }), options)).toBeNull();
    expect(context(await handleHostEvent(geminiProfile(), event("b", { hook_event_name: "BeforeAgent", prompt: "y" }), options))).toContain("Token ROOT-1");
  });
});
