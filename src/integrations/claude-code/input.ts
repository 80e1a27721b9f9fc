/**
 * The Claude Code hook's input side: the event schema (with VS Code's camelCase variant), which
 * paths a tool event is about, and where a conversation's state file lives. No I/O.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { absolute, join, xdgDir } from "../../core/paths.js";
import { CLAUDE_FILE_TOOLS } from "../../presets/claude.js";
import { AgentsMdError } from "../../core/errors.js";

/** The stdin document of a hook (peers §9.2); unknown fields are kept and ignored. */
export const ClaudeHookInputSchema = z
  .object({
    session_id: z.string().min(1),
    hook_event_name: z.string().min(1),
    cwd: z.string().min(1),
    transcript_path: z.string().optional(),
    source: z.string().optional(),
    agent_id: z.string().optional(),
    tool_name: z.string().optional(),
    tool_input: z.record(z.string(), z.unknown()).optional(),
    tool_response: z.unknown().optional(),
    prompt: z.string().optional(),
  })
  .passthrough();
export type ClaudeHookInput = z.infer<typeof ClaudeHookInputSchema>;

/** Input that is not a hook event agentsmd understands. */
export class HookInputError extends AgentsMdError {}

/**
 * Parses a hook's stdin. Throws HookInputError naming what is wrong.
 * @example parseHookInput('{"session_id":"s","hook_event_name":"SessionStart","cwd":"/r","source":"startup"}')
 */
export function parseHookInput(text: string): ClaudeHookInput {
  return validateHookInput(readHookJson(text));
}

/**
 * A hook's stdin as JSON, not yet validated (`handleClaudeCodeHook` validates it, after telling
 * another host's event apart). Throws HookInputError when it is not JSON.
 * @example readHookJson('{"session_id":"s"}') // { session_id: "s" }
 */
export function readHookJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HookInputError(`hook input is not JSON (${(error as Error).message})`, {
      fix: "run this command as a Claude Code hook: it reads the event JSON on stdin",
    });
  }
}

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
 * @example foreignHookHost({ hook_event_name: "PostToolUse", session_id: "s", cwd: "/r", tool_name: "Read", tool_input: { path: "/r/a" } }, {}) // "copilot"
 * @example foreignHookHost({ hook_event_name: "AfterTool", session_id: "s", cwd: "/r" }, {}) // "gemini"
 */
export function foreignHookHost(raw: unknown, env: Readonly<Record<string, string | undefined>> = {}): "copilot" | "gemini" | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const data = raw as Record<string, unknown>;
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
  const input = data.tool_input as Record<string, unknown> | undefined;
  if (typeof data.tool_name === "string" && PATH_TOOLS.has(data.tool_name) && input && typeof input === "object" && "path" in input && !("file_path" in input))
    return "copilot";
  // Claude Code always sends transcript_path; Copilot only on Stop, and it stamps every event.
  if ((env.COPILOT_CLI === "1" || "timestamp" in data) && !("transcript_path" in data)) return "copilot";
  return null;
}

/**
 * Validates a parsed hook event (Claude Code's, or VS Code's camelCase one). Throws HookInputError
 * naming the first problem.
 * @example validateHookInput({ session_id: "s", hook_event_name: "SessionStart", cwd: "/r" }).session_id // "s"
 */
export function validateHookInput(data: unknown): ClaudeHookInput {
  const result = ClaudeHookInputSchema.safeParse(normalizeHookInput(data));
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new HookInputError(
      `hook input is not a Claude Code hook event: ${issue ? `${issue.path.join(".") || "(top level)"}: ${issue.message}` : "invalid"}`,
      {
        fix: "register `agentsmd hook claude-code` as a command hook",
      },
    );
  }
  return result.data;
}

/**
 * The directory of the per-session state files.
 * @example hookStateDir({ CLAUDE_PLUGIN_DATA: "/data" }, "/home/me") // "/data/sessions"
 */
export function hookStateDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
  if (env.CLAUDE_PLUGIN_DATA) return join(env.CLAUDE_PLUGIN_DATA, "sessions");
  return join(xdgDir(env, "XDG_STATE_HOME", home, ".local/state"), "agentsmd/claude-code");
}

function safeName(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 80);
  return clean === id && !clean.startsWith(".") ? clean : `${clean.replace(/^\.+/, "_")}-${createHash("sha256").update(id).digest("hex").slice(0, 12)}`;
}

/**
 * The state file of one conversation (a subagent has its own context, so its own file).
 * @example hookStatePath({ session_id: "abc", agent_id: "a1" }, "/s") // "/s/abc.agent-a1.json"
 */
export function hookStatePath(input: Pick<ClaudeHookInput, "session_id" | "agent_id">, dir: string): string {
  return join(dir, `${safeName(input.session_id)}${input.agent_id ? `.agent-${safeName(input.agent_id)}` : ""}.json`);
}

function usablePath(value: unknown, cwd: string): string | undefined {
  if (typeof value !== "string" || value.length === 0 || value.includes("\0")) return undefined;
  return absolute(value, cwd);
}

/**
 * The paths a tool event is about, absolute (empty: not a file tool, or Grep/Glob without a path).
 * @example toolTargets({ session_id: "s", hook_event_name: "PostToolUse", cwd: "/r", tool_name: "Grep", tool_input: { pattern: "x", path: "src" } }) // ["/r/src"]
 */
export function toolTargets(input: ClaudeHookInput): string[] {
  const args = input.tool_input ?? {};
  if (input.tool_name === "editFiles" && Array.isArray(args.files)) {
    // VS Code agent hooks (peers §9.4) send the same hook files with this tool.
    return args.files.map((file) => usablePath(file, input.cwd)).filter((path): path is string => path !== undefined);
  }
  if (!input.tool_name || !CLAUDE_FILE_TOOLS.has(input.tool_name)) return [];
  const value =
    input.tool_name === "Grep" || input.tool_name === "Glob"
      ? args.path
      : input.tool_name === "NotebookEdit"
        ? (args.notebook_path ?? args.file_path)
        : args.file_path;
  const path = usablePath(value, input.cwd);
  return path === undefined ? [] : [path];
}

/**
 * VS Code's agent hooks read the same settings files and send camelCase fields (`sessionId`,
 * `hookEventName`, SessionStart `source: "new"`): map them to Claude Code's names.
 * @example normalizeHookInput({ sessionId: "s", hookEventName: "SessionStart", source: "new", cwd: "/r" }) // { ..., session_id: "s", hook_event_name: "SessionStart", source: "startup" }
 */
export function normalizeHookInput(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const data = raw as Record<string, unknown>;
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
