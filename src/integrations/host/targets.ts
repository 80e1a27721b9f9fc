/**
 * The one tool-target extractor: which input fields of which tool name hold the paths a tool call
 * touched, as a table per host. Pure (no I/O).
 */
import { absolute } from "../../core/paths.js";

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
export type TargetRule = { readonly fields: readonly string[]; readonly orCwd?: boolean } | ((call: ToolCall) => string[]);

/** Tool name -> rule. */
export type TargetTable = Readonly<Record<string, TargetRule>>;

/**
 * `value` as an absolute path, or undefined when it is not a usable path (empty, not a string, NUL).
 * @example usablePath("src/a.ts", "/r") // "/r/src/a.ts"
 */
export function usablePath(value: unknown, cwd: string): string | undefined {
  if (typeof value !== "string" || value.length === 0 || value.includes("\0")) return undefined;
  return absolute(value, cwd);
}

function pathsOf(value: unknown, cwd: string): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((each) => usablePath(each, cwd)).filter((path): path is string => path !== undefined);
}

/**
 * The absolute paths a tool call touched (empty: not a file tool, or no path given), without repeats.
 * @example toolTargets({ Read: { fields: ["file_path"] } }, { tool: "Read", input: { file_path: "a.ts" }, cwd: "/r" }) // ["/r/a.ts"]
 * @example toolTargets({ grep: { fields: ["path"], orCwd: true } }, { tool: "grep", input: {}, cwd: "/r" }) // ["/r"]
 */
export function toolTargets(table: TargetTable, call: ToolCall): string[] {
  const rule = Object.hasOwn(table, call.tool) ? table[call.tool] : undefined;
  if (rule === undefined) return [];
  if (typeof rule === "function") return [...new Set(rule(call))];
  for (const field of rule.fields) {
    if (call.input[field] === undefined) continue;
    return [...new Set(pathsOf(call.input[field], call.cwd))];
  }
  return rule.orCwd ? [call.cwd] : [];
}

/**
 * The paths an apply_patch text names (`*** Add File:`, `*** Update File:`, `*** Delete File:`,
 * `*** Move to:` lines; the format Codex and OpenCode share), deleted files left out unless `deleted`.
 * @example patchTargets("*** Begin Patch\n*** Add File: a/n.ts\n+x\n*** End Patch", "/r") // ["/r/a/n.ts"]
 */
export function patchTargets(text: unknown, cwd: string, options: { deleted?: boolean } = {}): string[] {
  if (typeof text !== "string") return [];
  const kinds = options.deleted ? "Add File|Update File|Delete File|Move to" : "Add File|Update File|Move to";
  const out: string[] = [];
  for (const match of text.matchAll(new RegExp(`^\\*\\*\\* (?:${kinds}): (.+)$`, "gm"))) {
    const path = usablePath(match[1]!.trim(), cwd);
    if (path !== undefined) out.push(path);
  }
  return [...new Set(out)];
}
