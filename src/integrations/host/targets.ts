/**
 * The one tool-target extractor: which input fields of which tool name hold the paths a tool call
 * touched, as a table per host. Pure (no I/O).
 */
import { absolute, pathInputProblem } from "../../core/paths.js";

/**
 * Most paths one tool event is about; the rest are not looked at. A model (steered by a hostile
 * repository) can name thousands in one call (`read_many_files`, a patch with 1,500 headers), and
 * each costs a resolve: 3,500 paths of 4 KB ran a hook out of a 256 MB heap (docs/security.md).
 */
export const MAX_EVENT_TARGETS = 256;

/**
 * The first MAX_EVENT_TARGETS distinct targets, in order.
 */
export function eventTargets(targets: readonly string[]): string[] {
  const out = new Set<string>();
  for (const target of targets) {
    if (out.size >= MAX_EVENT_TARGETS) break;
    out.add(target);
  }
  return [...out];
}

/** One tool call as a host reports it. */
export interface ToolCall {
  tool: string;
  /** The tool's arguments. */
  input: Readonly<Record<string, unknown>>;
  /** What the tool reported back (some hosts name the paths only there). */
  metadata?: Readonly<Record<string, unknown>> | undefined;
  /** Relative paths are taken against this directory. */
  cwd: string;
}

/**
 * How a tool names its paths: the first of `fields` present in the input (a path, or an array of
 * paths), else cwd with `orCwd` (a search without a path searches cwd); or a function for shapes a
 * field list cannot say (patch texts).
 */
type TargetRule = { readonly fields: readonly string[]; readonly orCwd?: boolean } | ((call: ToolCall) => string[]);

/** Tool name -> rule. */
export type TargetTable = Readonly<Record<string, TargetRule>>;

/**
 * `value` as an absolute path, or undefined when it is not a usable path: not a string, or one no
 * file can have (empty, NUL, longer or deeper than PATH_MAX: core/paths.ts `pathInputProblem`).
 * Checked before resolving: resolving a 40 KB path of 20,000 segments keeps ~0.6 MB, so 250 of
 * them in one event ran a hook out of a 256 MB heap (docs/security.md).
 */
export function usablePath(value: unknown, cwd: string): string | undefined {
  if (typeof value !== "string" || pathInputProblem(value) !== null) return undefined;
  return absolute(value, cwd);
}

function pathsOf(value: unknown, cwd: string): string[] {
  const list = Array.isArray(value) ? value.slice(0, MAX_EVENT_TARGETS) : [value];
  return list.map((each) => usablePath(each, cwd)).filter((path): path is string => path !== undefined);
}

/**
 * The absolute paths a tool call touched (empty: not a file tool, or no path given), without repeats.
 */
export function toolTargets(table: TargetTable, call: ToolCall): string[] {
  const rule = Object.hasOwn(table, call.tool) ? table[call.tool] : undefined;
  if (rule === undefined) return [];
  if (typeof rule === "function") return eventTargets(rule(call));
  for (const field of rule.fields) {
    if (call.input[field] === undefined) continue;
    return eventTargets(pathsOf(call.input[field], call.cwd));
  }
  return rule.orCwd ? [call.cwd] : [];
}

/**
 * The paths an apply_patch text names (`*** Add File:`, `*** Update File:`, `*** Delete File:`,
 * `*** Move to:` lines; the format Codex and OpenCode share), deleted files left out unless `deleted`.
 */
export function patchTargets(text: unknown, cwd: string, options: { deleted?: boolean } = {}): string[] {
  if (typeof text !== "string") return [];
  const kinds = options.deleted ? "Add File|Update File|Delete File|Move to" : "Add File|Update File|Move to";
  const out: string[] = [];
  for (const match of text.matchAll(new RegExp(`^\\*\\*\\* (?:${kinds}): (.+)$`, "gm"))) {
    const path = usablePath(match[1]!.trim(), cwd);
    if (path !== undefined) out.push(path);
    if (out.length >= 4 * MAX_EVENT_TARGETS) break;
  }
  return eventTargets(out);
}
