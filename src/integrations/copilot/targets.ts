/**
 * Which paths a Copilot CLI tool call is about (its `toolArgs`), as a table of the shared
 * tool-target extractor (host/targets.ts), and whether Copilot attaches the nested instruction
 * files there itself. Observed with 1.0.102 (gpt-4.1 tool set): `view` (`path`, a file or a
 * directory), `create` and `edit` (`path`), `grep` and `glob` (`paths`: one directory or an array;
 * without it they search cwd, whose chain is already loaded), `str_replace_editor` (`path`, the
 * Anthropic tool set). Copilot attaches nested files only after a `view` of a file. No I/O.
 */
import { toolTargets, type TargetTable } from "../host/targets.js";

/** The tool-target table: tool name -> the argument naming its paths. */
const COPILOT_TOOL_TARGETS: TargetTable = {
  view: { fields: ["path"] },
  create: { fields: ["path"] },
  edit: { fields: ["path"] },
  str_replace_editor: { fields: ["path"] },
  grep: { fields: ["paths"] },
  glob: { fields: ["paths"] },
};

/** The tools the hook is registered for (postToolUse `matcher`). */
export const COPILOT_FILE_TOOLS: readonly string[] = Object.keys(COPILOT_TOOL_TARGETS);

/** At most this many paths per call are considered (a hostile `paths` array costs nothing more). */
export const MAX_TARGETS = 32;

/**
 * The absolute paths a tool call is about (empty: not a file tool), at most MAX_TARGETS.
 */
export function copilotToolTargets(toolName: string, toolArgs: unknown, cwd: string): string[] {
  if (typeof toolArgs !== "object" || toolArgs === null || Array.isArray(toolArgs)) return [];
  const args = toolArgs as Record<string, unknown>;
  // Bound a hostile array before it is walked, and drop absurdly long strings.
  const bounded = Array.isArray(args.paths) ? { ...args, paths: args.paths.slice(0, MAX_TARGETS) } : args;
  return toolTargets(COPILOT_TOOL_TARGETS, { tool: toolName, input: bounded, cwd })
    .filter((path) => path.length <= 16 * 1024)
    .slice(0, MAX_TARGETS);
}

/**
 * True when Copilot attaches the nested instruction files of this call's target itself: a `view`
 * of a file (`isFile`: the target is a regular file). Not a directory listing, and not
 * `str_replace_editor` (not observed: agentsmd delivers there rather than risk a gap).
 */
export function copilotLoadsNested(toolName: string, isFile: boolean): boolean {
  return isFile && toolName === "view";
}
