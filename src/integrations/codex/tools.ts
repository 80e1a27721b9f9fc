/**
 * What a Codex tool event touched as far as the event alone tells, without zod: the runner
 * (profile.ts `codexEventTargets`) settles the rest against the file system, and the quiet stage
 * (quiet.ts, a bundle of a few KB) answers only what needs no settling. Pure.
 */
import { patchTargets } from "../host/targets.js";
import { needsFileSystem, plainShellTargets, shellCommandPaths, type ShellPath } from "../host/shell-paths.js";

/** A tool event's targets, the one the model saw whole or in part first. */
export interface CodexTargets {
  targets: string[];
  read?: "whole" | "part";
}

/** What of a PostToolUse event names its targets. */
interface CodexToolCall {
  tool_name: string;
  tool_input?: unknown;
  cwd: string;
}

/**
 * The command text of a shell or apply_patch event, or undefined.
 */
export function toolCommand(event: { tool_input?: unknown }): string | undefined {
  const input = event.tool_input;
  if (typeof input !== "object" || input === null) return undefined;
  const command = (input as { command?: unknown }).command;
  return typeof command === "string" ? command : undefined;
}

/**
 * A tool call's targets when the event settles them (apply_patch headers; a shell command none of
 * whose paths is a glob or a git word), else the shell paths the file system must settle.
 */
export function codexToolReading(call: CodexToolCall, home: string | undefined): { found: CodexTargets } | { settle: ShellPath[] } {
  const command = toolCommand(call);
  if (command === undefined) return { found: { targets: [] } };
  if (call.tool_name === "apply_patch") return { found: { targets: patchTargets(command, call.cwd, { deleted: true }) } };
  if (call.tool_name !== "Bash") return { found: { targets: [] } };
  const parsed = shellCommandPaths(command, { cwd: call.cwd, ...(home ? { home } : {}) });
  if (!parsed.ok) return { found: { targets: [] } };
  const plain = plainShellTargets(parsed.paths);
  return plain === null ? { settle: parsed.paths } : { found: shownFirst(parsed.paths, plain) };
}

/**
 * The settled targets with the first path whose text the command printed (no glob or git word:
 * that one file, as named) in front, and how much of it the model saw.
 */
export function shownFirst(paths: readonly ShellPath[], targets: string[]): CodexTargets {
  const seen = paths.find((path) => path.shown && !needsFileSystem(path) && targets.includes(path.path));
  if (!seen) return { targets };
  return { targets: [seen.path, ...targets.filter((target) => target !== seen.path)], read: seen.shown! };
}
