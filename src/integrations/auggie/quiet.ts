/**
 * Auggie's part of the quiet stage (host/quiet-format.ts `QuietHost`): a PostToolUse event read as
 * input.ts's `auggieEvent` would (the conversation `conversation_id`, no subagent, the first of
 * `workspace_roots` as cwd, its tool table), without zod. Anything else goes to the full path.
 */
import { claudeStyleQuietEvent, type QuietSpelling } from "../host/claude-style-quiet.js";
import type { QuietHost } from "../host/quiet-format.js";
import { AUGGIE_TOOL_TARGETS, firstRoot } from "./tools.js";

/** A list of strings, as the schema's `workspace_roots` must be. */
const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");

/** Auggie's names for the Claude-style fields, as host.ts's gate looks for them. */
const AUGGIE_SPELLING: QuietSpelling = {
  event: { key: "hook_event_name", name: "PostToolUse" },
  conversation: "conversation_id",
  cwd: (raw) => (strings(raw.workspace_roots) ? firstRoot(raw.workspace_roots) : null),
  strings: [],
};

/** The quiet stage's reading of an Auggie event. */
export const quietHost: QuietHost = {
  host: "auggie",
  event: (raw) => claudeStyleQuietEvent(raw, AUGGIE_TOOL_TARGETS, { spelling: AUGGIE_SPELLING }),
};
