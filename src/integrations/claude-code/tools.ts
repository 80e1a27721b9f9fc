/**
 * What Claude Code's events are, without zod: its tool table, the payloads of other hosts that run
 * its hooks, and its plugin's state directory. input.ts (the schema) and quiet.ts (the quiet
 * stage, a bundle of a few KB) both read them here.
 */
import { join } from "../../core/paths.js";
import type { TargetTable } from "../host/targets.js";

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

/** `$CLAUDE_PLUGIN_DATA/sessions` when installed as a plugin (absolute only). */
export function pluginDataDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const data = env.CLAUDE_PLUGIN_DATA;
  return data && data.startsWith("/") ? join(data, "sessions") : undefined;
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
