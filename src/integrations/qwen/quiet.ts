/**
 * Qwen Code's part of the quiet stage (host/quiet-format.ts `QuietHost`): a PostToolUse event's
 * conversation and targets, read as profile.ts's `qwenEvent` would (the Claude-style fields with
 * Qwen's own, its tool table; an empty `agent_id` is none), without zod. Anything else goes to
 * the full path.
 */
import type { QuietHost } from "../host/quiet-format.js";
import { claudeStyleQuietEvent } from "../host/claude-style-quiet.js";
import { QWEN_TOOL_TARGETS } from "./tools.js";

/** The quiet stage's reading of a Qwen Code event. */
export const quietHost: QuietHost = {
  host: "qwen",
  event: (raw) => {
    const event = claudeStyleQuietEvent(raw, QWEN_TOOL_TARGETS, { strings: ["permission_mode", "model"] });
    return event && { ...event, conversation: { id: event.conversation.id, agent: event.conversation.agent || undefined } };
  },
};
