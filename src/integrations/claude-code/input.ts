/**
 * The Claude Code hook's input side: the event schema (with VS Code's camelCase variant), which
 * paths a tool event is about (one table), and what an event means for delivery. No I/O.
 */
import * as z from "zod/mini";
import "../../core/zod-locale.js";
import { leaves, once } from "../../core/config-schema.js";
import { absolute } from "../../core/paths.js";
import { conversationPath } from "../host/store.js";
import { toolTargets as extractTargets } from "../host/targets.js";
import { CLAUDE_TOOL_TARGETS } from "./tools.js";
import { HookInputError, parseHostText, type HostInputSide } from "../host/deliver.js";
import type { HostEvent } from "../host/profile.js";
import { claudeStyleEvent, claudeStyleHostEvent } from "../host/claude-style-event.js";

export { HookInputError };

const { optionalString, optionalUnknown } = leaves();

/** The stdin document of a hook (docs/hosts/claude-code.md); unknown fields are kept and ignored. */
export const ClaudeHookInputSchema = claudeStyleEvent({ agent_id: optionalString });
export type ClaudeHookInput = z.infer<typeof ClaudeHookInputSchema>;

/**
 * VS Code's agent hooks read the same settings files and send camelCase fields (`sessionId`,
 * `hookEventName`, SessionStart `source: "new"`): map them to Claude Code's names.
 */
function normalizeHookInput(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const data = Object.fromEntries(Object.entries(raw));
  if (data.session_id !== undefined || data.hook_event_name !== undefined) return raw;
  if (data.sessionId === undefined && data.hookEventName === undefined) return raw;
  const out: Record<string, unknown> = { ...data, session_id: data.sessionId, hook_event_name: data.hookEventName };
  for (const [from, to] of [
    ["transcriptPath", "transcript_path"],
    ["toolName", "tool_name"],
    ["toolInput", "tool_input"],
    ["toolResponse", "tool_response"],
  ] as const) {
    if (out[to] === undefined && data[from] !== undefined) out[to] = data[from];
  }
  if (out.source === "new") out.source = "startup";
  return out;
}

/** The event as the profile parses it: VS Code's variant mapped first. */
export const ClaudeHookEventSchema = z.pipe(z.transform(normalizeHookInput), ClaudeHookInputSchema);

/**
 * The paths a tool event is about, absolute (empty: not a file tool, or Grep/Glob without a path).
 */
function toolTargets(input: ClaudeHookInput): string[] {
  if (!input.tool_name) return [];
  return extractTargets(CLAUDE_TOOL_TARGETS, { tool: input.tool_name, input: input.tool_input ?? {}, cwd: absolute(input.cwd, "/") });
}

/** What a Read answered (its `file` line counts); built on the first Read. */
const readResponseSchema = once(() =>
  z.looseObject({
    type: optionalUnknown,
    file: z.optional(z.looseObject({ numLines: optionalUnknown, totalLines: optionalUnknown })),
  }),
);

/** A text Read shows the model the file: whole, or a range of it. */
function readShown(input: ClaudeHookInput): HostEvent["read"] {
  if (input.tool_name !== "Read") return undefined;
  const parsed = readResponseSchema().safeParse(input.tool_response ?? {});
  const response = parsed.success ? parsed.data : {};
  if (response.type !== undefined && response.type !== "text") return undefined;
  return response.file?.numLines === undefined || response.file.numLines === response.file.totalLines ? "whole" : "part";
}

/**
 * What a Claude Code event means for delivery.
 */
export function claudeCodeEvent(input: ClaudeHookInput): HostEvent {
  return claudeStyleHostEvent(input, () => ({ targets: toolTargets(input), read: readShown(input) }));
}

/** The host's name in the state directory and in `agentsmd hook`. */
export const CLAUDE_CODE_HOST = "claude-code";

/**
 * The state file of one conversation (a subagent has its own context, so its own file).
 */
export function hookStatePath(input: Pick<ClaudeHookInput, "session_id" | "agent_id">, dir: string): string {
  return conversationPath(dir, { id: input.session_id, agent: input.agent_id });
}

/** The input side of the Claude Code profile. */
const CLAUDE_CODE_INPUT: HostInputSide<ClaudeHookInput> = { host: CLAUDE_CODE_HOST, displayName: "Claude Code", input: ClaudeHookEventSchema };

/**
 * Parses a hook's stdin. Throws HookInputError naming what is wrong.
 */
export function parseHookInput(text: string): ClaudeHookInput {
  return parseHostText(CLAUDE_CODE_INPUT, text);
}
