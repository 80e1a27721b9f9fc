/**
 * Crush's part of the quiet stage (host/quiet-format.ts `QuietHost`): a PreToolUse event (the tool
 * event agentsmd registers, install.ts) read as input.ts's `crushEvent` would (its own keys: `event`,
 * a `session_id` that may be empty, `cwd`; no subagent), without zod. Anything else, PostToolUse
 * and a PostCompact too, goes to the full path.
 */
import { claudeStyleQuietEvent, type QuietSpelling } from "../host/claude-style-quiet.js";
import type { QuietHost } from "../host/quiet-format.js";
import { CRUSH_TOOL_TARGETS } from "./tools.js";

/** Crush sends its canonical event names (input.ts `canonical`): this one as spelled here, as host.ts's gate looks for it. */
const CRUSH_SPELLING: QuietSpelling = {
  event: { key: "event", name: "PreToolUse" },
  conversation: "session_id",
  cwd: (raw) => (typeof raw.cwd === "string" && raw.cwd !== "" ? raw.cwd : null),
  strings: [],
};

/** The quiet stage's reading of a Crush event. */
export const quietHost: QuietHost = {
  host: "crush",
  event: (raw) => claudeStyleQuietEvent(raw, CRUSH_TOOL_TARGETS, { spelling: CRUSH_SPELLING }),
};
