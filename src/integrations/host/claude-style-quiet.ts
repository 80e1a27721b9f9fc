/**
 * The quiet stage's reading of a Claude-style tool event (host/claude-style-event.ts's fields,
 * without zod): its conversation and the targets of the host's tool table. Hosts that spell the
 * same event their own way (Auggie's `conversation_id` and `workspace_roots`, Crush's `event`, Gemini CLI's `AfterTool`)
 * pass their spelling. A field of the wrong type, or any other event, is null: the full path
 * validates and answers it.
 */
import { absolute } from "../../core/paths.js";
import type { QuietEvent } from "./quiet-format.js";
import { toolTargets, type TargetTable } from "./targets.js";

type Fields = Record<string, unknown>;

const isRecord = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);
const maybeString = (value: unknown) => value === undefined || typeof value === "string";
const someString = (value: unknown): value is string => typeof value === "string" && value !== "";

/** How a host's schema spells its tool event: the keys the quiet reading checks, as its schema would. */
export interface QuietSpelling {
  /** The key of the event's name, and the name of the one event read (the gate's `toolEvent`). */
  event: { key: string; name: string };
  /** The key of the conversation's id (a non-empty string), and of its subagent's id (an optional string). */
  conversation: string;
  agent?: string;
  /** The event's working directory as the host's normalisation takes it (before `absolute`), or null when its schema refuses it. */
  cwd(raw: Fields): string | null;
  /** The schema's optional string fields (a value of another type fails it). */
  strings: readonly string[];
}

/** Claude Code's spelling, which Qwen Code speaks too (Gemini CLI with its own event name). */
export const CLAUDE_STYLE: QuietSpelling = {
  event: { key: "hook_event_name", name: "PostToolUse" },
  conversation: "session_id",
  agent: "agent_id",
  cwd: (raw) => (someString(raw.cwd) ? raw.cwd : null),
  strings: ["transcript_path", "source", "prompt"],
};

/**
 * A Claude-style tool event's conversation and targets, or null. `own.strings`: the host's own
 * optional string fields; `own.spelling`: the host's names for the shared fields (Claude Code's
 * when absent).
 */
export function claudeStyleQuietEvent(
  raw: unknown,
  table: TargetTable,
  own: { strings?: readonly string[]; spelling?: QuietSpelling } = {},
): QuietEvent | null {
  if (!isRecord(raw)) return null;
  const spelling = own.spelling ?? CLAUDE_STYLE;
  const { tool_name, tool_input } = raw;
  const id = raw[spelling.conversation];
  const agent = spelling.agent === undefined ? undefined : raw[spelling.agent];
  if (raw[spelling.event.key] !== spelling.event.name || !someString(id) || typeof tool_name !== "string" || !isRecord(tool_input)) return null;
  if (![agent, ...[...spelling.strings, ...(own.strings ?? [])].map((key) => raw[key])].every(maybeString)) return null;
  const cwd = spelling.cwd(raw);
  if (cwd === null) return null;
  const targets = toolTargets(table, { tool: tool_name, input: tool_input, cwd: absolute(cwd, "/") });
  return { conversation: { id, agent: agent as string | undefined }, targets };
}
