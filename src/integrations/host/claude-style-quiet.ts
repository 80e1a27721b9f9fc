/**
 * The quiet stage's reading of a Claude-style tool event (host/claude-style-event.ts's fields,
 * without zod): its conversation and the targets of the host's tool table. A field of the wrong
 * type, or any other event, is null: the full path validates and answers it.
 */
import { absolute } from "../../core/paths.js";
import type { QuietEvent } from "./quiet-format.js";
import { toolTargets, type TargetTable } from "./targets.js";

type Fields = Record<string, unknown>;

const isRecord = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);
const maybeString = (value: unknown) => value === undefined || typeof value === "string";
const someString = (value: unknown): value is string => typeof value === "string" && value !== "";

/**
 * A Claude-style tool event's conversation and targets, or null. `own.toolEvent`: the host's name
 * of its tool event (Claude Code's `PostToolUse`, Gemini CLI's `AfterTool`); `own.strings`: the
 * host's own optional string fields.
 */
export function claudeStyleQuietEvent(raw: unknown, table: TargetTable, own: { toolEvent?: string; strings?: readonly string[] } = {}): QuietEvent | null {
  if (!isRecord(raw)) return null;
  const { session_id, hook_event_name, cwd, tool_name, tool_input, agent_id } = raw;
  if (
    hook_event_name !== (own.toolEvent ?? "PostToolUse") ||
    !someString(session_id) ||
    !someString(cwd) ||
    typeof tool_name !== "string" ||
    !isRecord(tool_input)
  )
    return null;
  // The optional strings of the shared schema, and the host's own (`own.strings`).
  if (![agent_id, raw.transcript_path, raw.source, raw.prompt, ...(own.strings ?? []).map((key) => raw[key])].every(maybeString)) return null;
  const targets = toolTargets(table, { tool: tool_name, input: tool_input, cwd: absolute(cwd, "/") });
  return { conversation: { id: session_id, agent: agent_id as string | undefined }, targets };
}
