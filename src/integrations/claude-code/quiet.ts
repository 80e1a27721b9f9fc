/**
 * Claude Code's part of the quiet stage (host/quiet-format.ts `QuietHost`): a PostToolUse event's
 * conversation and targets, read as input.ts's schema and claude-style-event.ts would, without
 * zod. Anything else (another event, VS Code's camelCase variant, another host's payload, a field
 * of the wrong type) is left to the full path, which validates and answers it.
 */
import type { QuietHost } from "../host/quiet-format.js";
import { claudeStyleQuietEvent } from "../host/claude-style-quiet.js";
import { CLAUDE_TOOL_TARGETS, foreignHookHost, pluginDataDir } from "./tools.js";

/** The quiet stage's reading of a Claude Code event (every host's quiet.ts exports `quietHost`: scripts/build-hook.mjs bundles it by that name). */
export const quietHost: QuietHost = {
  host: "claude-code",
  stateDir: pluginDataDir,
  event: (raw, env) => (foreignHookHost(raw, env) === null ? claudeStyleQuietEvent(raw, CLAUDE_TOOL_TARGETS) : null),
};
