/**
 * Qwen Code's hook protocol, the pure part (no I/O): the event schema, which tool arguments name
 * the paths a tool touched, and the answer's shape. Facts from Qwen Code 0.24.4, observed with the
 * real binary against a scripted model (e2e/qwen/FINDINGS.md):
 *
 * - Claude Code's protocol: `session_id`, `transcript_path`, `cwd`, `hook_event_name`,
 *   `permission_mode`; SessionStart `source` (`startup`, `resume`, `clear`, `compact`) and `model`;
 *   UserPromptSubmit `prompt` (also fired with `""` before each tool-result continuation);
 *   PostToolUse `tool_name`, `tool_input` (absolute paths), `tool_response.llmContent`;
 * - `hookSpecificOutput.additionalContext`: SessionStart text goes into the system prompt inside
 *   `<qwen:session-start-context hidden="true">`, and the latest SessionStart answer replaces the
 *   earlier one (a resumed or compacted session keeps only its own); PostToolUse text is appended
 *   to the tool result after a blank line; UserPromptSubmit text becomes a part of the user message;
 * - hook timeouts are seconds.
 */
import type * as z from "zod/mini";
import { leaves, safeParseConfig } from "../../core/config-schema.js";
import { qwenDir } from "../../presets/qwen.js";
import { claudeStyleEvent } from "../host/claude-style-event.js";
import { familyToolMatcher, type GeminiFamilyHost, type GeminiFamilyOutput } from "../host/gemini-family.js";
import { QWEN_TOOL_TARGETS } from "./tools.js";

/** Events agentsmd answers. */
const QWEN_HOOK_EVENTS = ["SessionStart", "PostToolUse", "UserPromptSubmit"] as const;
export type QwenHookEvent = (typeof QWEN_HOOK_EVENTS)[number];

const { optionalString } = leaves();

/** The stdin document of a Qwen Code command hook; unknown fields are kept and ignored. */
export const QwenHookInputSchema = claudeStyleEvent({ permission_mode: optionalString, model: optionalString, agent_id: optionalString });
export type QwenHookInput = z.infer<typeof QwenHookInputSchema>;

/** The PostToolUse matcher agentsmd registers (Qwen matches tool ids and their display names by regular expression). */
export const QWEN_POST_TOOL_MATCHER = familyToolMatcher(QWEN_TOOL_TARGETS);

/** The answer of a Qwen Code command hook. */
export type QwenHookOutput = GeminiFamilyOutput<QwenHookEvent>;

/** A configured name agentsmd can look up in a directory (what `files.names` accepts: relative, no `..`); a repository's settings may name anything. */
function lookupName(name: string): boolean {
  // only the `files` key is built (core/config-schema.ts): this runs in every Qwen hook process
  return safeParseConfig({ files: { names: [name] } }).success;
}

/** Qwen Code in the family it shares with Gemini CLI (host/gemini-family.ts). */
export const QWEN_FAMILY: GeminiFamilyHost<QwenHookEvent> = {
  host: "qwen",
  displayName: "Qwen Code",
  settingsFolder: ".qwen",
  userDir: qwenDir,
  projectDirVariable: "QWEN_PROJECT_DIR",
  answered: QWEN_HOOK_EVENTS,
  fallbackEvent: "PostToolUse",
  // Qwen Code sets no documented limit on hook context
  contextLimit: 32_000,
  targets: QWEN_TOOL_TARGETS,
  partialReadArgs: ["offset", "limit", "pages"],
  /**
   * Names that leave the directory (`../x`, `/etc/passwd`) are left out: they are no instruction
   * file agentsmd delivers, and as `files.names` they would fail every event of a project whose
   * settings hold them (docs/security.md).
   */
  contextNames: (value) => {
    const names = (Array.isArray(value) ? value : [value])
      .filter((name): name is string => typeof name === "string")
      .map((name) => name.trim())
      .filter(lookupName);
    return names.length > 0 ? names : undefined;
  },
};
