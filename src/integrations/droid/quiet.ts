/**
 * Factory Droid's part of the quiet stage (host/quiet-format.ts `QuietHost`): a PostToolUse
 * event's conversation and targets, read as input.ts would (the Claude-style fields, Droid's tool
 * table), without zod. Anything else goes to the full path.
 */
import type { QuietHost } from "../host/quiet-format.js";
import { claudeStyleQuietEvent } from "../host/claude-style-quiet.js";
import { DROID_TOOL_TARGETS } from "./tools.js";

/** The quiet stage's reading of a Droid event. */
export const quietHost: QuietHost = {
  host: "droid",
  event: (raw) => claudeStyleQuietEvent(raw, DROID_TOOL_TARGETS),
};
