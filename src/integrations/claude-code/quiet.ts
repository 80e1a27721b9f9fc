/**
 * Claude Code's part of the quiet stage (host/quiet-format.ts `QuietHost`): a PostToolUse event's
 * conversation and targets, read as input.ts's schema and claude-style-event.ts would, without
 * zod. Anything else (another event, VS Code's camelCase variant, another host's payload, a field
 * of the wrong type) is left to the full path, which validates and answers it.
 */
import { absolute } from "../../core/paths.js";
import { toolTargets } from "../host/targets.js";
import type { QuietHost } from "../host/quiet-format.js";
import { CLAUDE_TOOL_TARGETS, foreignHookHost, pluginDataDir } from "./tools.js";

type Fields = Record<string, unknown>;

const isRecord = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);
const maybeString = (value: unknown) => value === undefined || typeof value === "string";
const someString = (value: unknown): value is string => typeof value === "string" && value !== "";

/** The quiet stage's reading of a Claude Code event (every host's quiet.ts exports `quietHost`: scripts/build-hook.mjs bundles it by that name). */
export const quietHost: QuietHost = {
  host: "claude-code",
  stateDir: pluginDataDir,
  event(raw, env) {
    if (!isRecord(raw) || foreignHookHost(raw, env) !== null) return null;
    const { session_id, hook_event_name, cwd, tool_name, tool_input, agent_id } = raw;
    if (hook_event_name !== "PostToolUse" || !someString(session_id) || !someString(cwd) || typeof tool_name !== "string" || !isRecord(tool_input)) return null;
    if (![agent_id, raw.transcript_path, raw.source, raw.prompt].every(maybeString)) return null;
    const targets = toolTargets(CLAUDE_TOOL_TARGETS, { tool: tool_name, input: tool_input, cwd: absolute(cwd, "/") });
    return { conversation: { id: session_id, agent: agent_id as string | undefined }, targets };
  },
};
