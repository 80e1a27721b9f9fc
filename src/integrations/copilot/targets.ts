/**
 * Which paths a Copilot CLI tool call is about (its `toolArgs`), and whether Copilot attaches the
 * nested instruction files there itself. Observed with 1.0.102 (gpt-4.1 tool set): `view`
 * (`path`, a file or a directory), `create` and `edit` (`path`), `grep` and `glob` (`paths`: one
 * directory or an array, default cwd), `str_replace_editor` (`command` + `path`, the Anthropic
 * tool set). Copilot itself attaches nested files only after a `view` of a file. No I/O.
 */
import { absolute } from "../../core/paths.js";

/** How a tool names its paths. */
type TargetRule = (args: Record<string, unknown>) => unknown[];

const path: TargetRule = (args) => [args.path];
const paths: TargetRule = (args) => (Array.isArray(args.paths) ? args.paths : args.paths === undefined ? [] : [args.paths]);

/** The tool-target table: tool name -> where its paths are. */
export const COPILOT_TOOL_TARGETS: Readonly<Record<string, TargetRule>> = {
  view: path,
  create: path,
  edit: path,
  str_replace_editor: path,
  grep: paths,
  glob: paths,
};

/** The tools the hook is registered for (postToolUse `matcher`). */
export const COPILOT_FILE_TOOLS: readonly string[] = Object.keys(COPILOT_TOOL_TARGETS);

/** At most this many paths per call are considered (a hostile `paths` array costs nothing more). */
export const MAX_TARGETS = 32;

function usable(value: unknown, cwd: string): string | undefined {
  if (typeof value !== "string" || value.length === 0 || value.length > 16 * 1024 || value.includes("\0")) return undefined;
  return absolute(value, cwd);
}

/**
 * The absolute paths a tool call is about (empty: not a file tool).
 * @example copilotToolTargets("glob", { pattern: "*.ts", paths: ["web"] }, "/repo") // ["/repo/web"]
 */
export function copilotToolTargets(toolName: string, toolArgs: unknown, cwd: string): string[] {
  const rule = Object.hasOwn(COPILOT_TOOL_TARGETS, toolName) ? COPILOT_TOOL_TARGETS[toolName] : undefined;
  if (!rule || typeof toolArgs !== "object" || toolArgs === null || Array.isArray(toolArgs)) return [];
  const out: string[] = [];
  for (const value of rule(toolArgs as Record<string, unknown>).slice(0, MAX_TARGETS)) {
    const target = usable(value, cwd);
    if (target !== undefined && !out.includes(target)) out.push(target);
  }
  return out;
}

/**
 * True when Copilot attaches the nested instruction files of this call's target itself: a `view`
 * of a file (`isFile`: the target is a regular file). Not a directory listing, and not
 * `str_replace_editor` (not observed: agentsmd delivers there rather than risk a gap).
 * @example copilotLoadsNested("view", true) // true
 * @example copilotLoadsNested("edit", true) // false
 */
export function copilotLoadsNested(toolName: string, isFile: boolean): boolean {
  return isFile && toolName === "view";
}
