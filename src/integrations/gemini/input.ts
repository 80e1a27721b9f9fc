/**
 * Gemini CLI's hook protocol, the pure part (no I/O): the event schema, which tool arguments name
 * the paths a tool touched, and the answer's shape. Facts from Gemini CLI 0.61.0, observed with
 * the real binary against a scripted model (e2e/gemini-cli/FINDINGS.md):
 *
 * - every event carries `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`;
 *   SessionStart adds `source` (`startup`, `resume`, `clear`; never `compact`), BeforeAgent
 *   `prompt`, PreCompress `trigger` (`auto`, `manual`), AfterTool `tool_name`, `tool_input` (paths
 *   as the model wrote them, often relative to the workspace) and `tool_response.llmContent`;
 * - an answer's `hookSpecificOutput.additionalContext` is wrapped in `<hook_context>…</hook_context>`:
 *   AfterTool appends it to the tool's output, BeforeAgent adds it as a part of the prompt's
 *   message, SessionStart prepends it to the first prompt (non-interactive) or the first turn;
 * - PreCompress fires before every model call, before Gemini decides whether to compress: it marks
 *   a possible compression, not a compression.
 */
import type * as z from "zod/mini";
import { leaves } from "../../core/config-schema.js";
import { geminiDir } from "../../presets/gemini.js";
import { claudeStyleEvent } from "../host/claude-style-event.js";
import { familyToolMatcher, type GeminiFamilyHost, type GeminiFamilyOutput } from "../host/gemini-family.js";
import { GEMINI_TOOL_TARGETS } from "./tools.js";

/** Events agentsmd answers. */
type GeminiHookEvent = "SessionStart" | "BeforeAgent" | "AfterTool" | "PreCompress";

const { optionalString } = leaves();

/** The stdin document of a Gemini CLI command hook; unknown fields are kept and ignored. */
export const GeminiHookInputSchema = claudeStyleEvent({ timestamp: optionalString, trigger: optionalString });
export type GeminiHookInput = z.infer<typeof GeminiHookInputSchema>;

/** The tools whose success makes Gemini CLI load its own context files just in time (`jit-context.ts` callers). */
export const GEMINI_JIT_TOOLS: ReadonlySet<string> = new Set(["read_file", "list_directory", "write_file", "replace", "read_many_files"]);

/** The AfterTool matcher agentsmd registers (a regular expression on the tool name). */
export const GEMINI_AFTER_TOOL_MATCHER = familyToolMatcher(GEMINI_TOOL_TARGETS);

/** The answer of a Gemini CLI command hook. */
export type GeminiHookOutput = GeminiFamilyOutput<GeminiHookEvent>;

/** Gemini CLI in the family it shares with Qwen Code (host/gemini-family.ts). */
export const GEMINI_FAMILY: GeminiFamilyHost<GeminiHookEvent> = {
  host: "gemini",
  displayName: "Gemini CLI",
  settingsFolder: ".gemini",
  userDir: geminiDir,
  projectDirVariable: "GEMINI_PROJECT_DIR",
  // PreCompress carries no context
  answered: ["SessionStart", "BeforeAgent", "AfterTool"],
  fallbackEvent: "AfterTool",
  // Gemini CLI sets no limit on hook context
  contextLimit: 32_000,
  targets: GEMINI_TOOL_TARGETS,
  partialReadArgs: ["start_line", "end_line", "offset", "limit"],
  // a name or a list; empty names are left out
  contextNames: (value) => {
    if (typeof value === "string") return [value];
    if (Array.isArray(value)) return value.filter((name): name is string => typeof name === "string" && name.length > 0);
    return undefined;
  },
};
