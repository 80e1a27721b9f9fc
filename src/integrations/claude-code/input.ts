/**
 * The Claude Code hook's input side: the event schema (with VS Code's camelCase variant), which
 * paths a tool event is about (one table), and what an event means for delivery. No I/O.
 */
import * as z from "zod/mini";
import "../../core/zod-locale.js";
import { leaves, once } from "../../core/config-schema.js";
import { absolute, join } from "../../core/paths.js";
import { conversationPath } from "../host/store.js";
import { toolTargets as extractTargets, type TargetTable } from "../host/targets.js";
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

/** Tool name -> the input fields naming its paths (Grep/Glob without `path` search cwd: nothing new). */
export const CLAUDE_TOOL_TARGETS: TargetTable = {
  Read: { fields: ["file_path"] },
  Write: { fields: ["file_path"] },
  Edit: { fields: ["file_path"] },
  MultiEdit: { fields: ["file_path"] },
  NotebookEdit: { fields: ["notebook_path", "file_path"] },
  Grep: { fields: ["path"] },
  Glob: { fields: ["path"] },
  // VS Code agent hooks (docs/hosts/claude-code.md#limits) send the same hook files with this tool.
  editFiles: { fields: ["files"] },
};

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

/** `$CLAUDE_PLUGIN_DATA/sessions` when installed as a plugin (absolute only). */
export function pluginDataDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const data = env.CLAUDE_PLUGIN_DATA;
  return data && data.startsWith("/") ? join(data, "sessions") : undefined;
}

/**
 * The state file of one conversation (a subagent has its own context, so its own file).
 */
export function hookStatePath(input: Pick<ClaudeHookInput, "session_id" | "agent_id">, dir: string): string {
  return conversationPath(dir, { id: input.session_id, agent: input.agent_id });
}

/** The input side of the Claude Code profile. */
const CLAUDE_CODE_INPUT: HostInputSide<ClaudeHookInput> = { host: CLAUDE_CODE_HOST, displayName: "Claude Code", input: ClaudeHookEventSchema };

/** Gemini CLI's own event names (Claude Code has none of them). */
const GEMINI_EVENTS: ReadonlySet<string> = new Set([
  "BeforeAgent",
  "AfterAgent",
  "BeforeModel",
  "AfterModel",
  "BeforeToolSelection",
  "BeforeTool",
  "AfterTool",
  "PreCompress",
]);
/** Claude Code's file tools, whose path Claude Code names `file_path` and Copilot CLI `path`. */
const PATH_TOOLS: ReadonlySet<string> = new Set(["Read", "Write", "Edit", "MultiEdit"]);

/**
 * The other host that sent this event, or null for Claude Code (or VS Code, which speaks its
 * protocol). The hook stays silent for another host's events instead of half-working:
 * - GitHub Copilot CLI runs the hooks of `.claude/settings.json` with Claude's event and tool
 *   names but its own fields (`tool_result`, `tool_input.path`, `source: "new"`,
 *   `initial_prompt`, no `transcript_path`; `COPILOT_CLI=1` in the environment), and its own
 *   hook files send camelCase payloads without an event name;
 * - Gemini CLI has its own event names (AfterTool, BeforeAgent, ...) and sets `GEMINI_*`
 *   variables for its hooks; its payloads carry a `timestamp`.
 */
export function foreignHookHost(raw: unknown, env: Readonly<Record<string, string | undefined>> = {}): "copilot" | "gemini" | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const data: Record<string, unknown> = Object.fromEntries(Object.entries(raw));
  const event = data.hook_event_name;
  if (typeof event !== "string") {
    // Copilot's own hook files: camelCase, no event name at all (VS Code names it `hookEventName`).
    const copilotShape =
      data.sessionId !== undefined &&
      data.hookEventName === undefined &&
      ("toolArgs" in data || "toolResult" in data || "initialPrompt" in data || data.source === "new");
    return copilotShape ? "copilot" : null;
  }
  if (GEMINI_EVENTS.has(event)) return "gemini";
  if ((env.GEMINI_SESSION_ID || env.GEMINI_PROJECT_DIR) && "timestamp" in data) return "gemini";
  if ("tool_result" in data || "initial_prompt" in data || data.source === "new") return "copilot";
  const input = data.tool_input;
  if (
    typeof data.tool_name === "string" &&
    PATH_TOOLS.has(data.tool_name) &&
    typeof input === "object" &&
    input !== null &&
    "path" in input &&
    !("file_path" in input)
  )
    return "copilot";
  // Claude Code always sends transcript_path; Copilot only on Stop, and it stamps every event.
  if ((env.COPILOT_CLI === "1" || "timestamp" in data) && !("transcript_path" in data)) return "copilot";
  return null;
}

/**
 * Parses a hook's stdin. Throws HookInputError naming what is wrong.
 */
export function parseHookInput(text: string): ClaudeHookInput {
  return parseHostText(CLAUDE_CODE_INPUT, text);
}
