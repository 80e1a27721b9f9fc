/**
 * Gemini CLI's part of the quiet stage (host/quiet-format.ts `QuietHost`): an AfterTool event's
 * conversation and targets, read as profile.ts's `geminiEvent` would (the Claude-style fields with
 * Gemini's own, its tool table; the conversation is `session_id` alone: Gemini names no
 * subagent), without zod. Anything else goes to the full path.
 */
import type { QuietHost } from "../host/quiet-format.js";
import { CLAUDE_STYLE, claudeStyleQuietEvent } from "../host/claude-style-quiet.js";
import { GEMINI_TOOL_TARGETS } from "./tools.js";

/** The quiet stage's reading of a Gemini CLI event. */
export const quietHost: QuietHost = {
  host: "gemini",
  event: (raw) => {
    const event = claudeStyleQuietEvent(raw, GEMINI_TOOL_TARGETS, {
      spelling: { ...CLAUDE_STYLE, event: { key: "hook_event_name", name: "AfterTool" } },
      strings: ["timestamp", "trigger"],
    });
    return event && { ...event, conversation: { id: event.conversation.id } };
  },
};
