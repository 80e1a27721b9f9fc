/**
 * What `install`/`uninstall <host>` print for hooks kept in one file (a settings file or a hooks
 * file): the same words for every host, each path quoted for the terminal.
 */
import { quote } from "../../core/quote.js";
import type { InstallOutcome } from "./definition.js";

/** What an install or uninstall of hooks in one file returns. */
interface HooksFileResult {
  changed: boolean;
  file: string;
  command?: string | undefined;
}

/**
 * The outcome of adding `hooks` (e.g. "the Qwen Code hooks (SessionStart, PostToolUse)") to a file.
 */
export function hooksInstalled(result: HooksFileResult, hooks: string, json: unknown, notes: string[] = []): InstallOutcome {
  return {
    changed: result.changed,
    ...(result.command !== undefined ? { command: result.command } : {}),
    json,
    lines: result.changed
      ? [`agentsmd: added ${hooks} in ${quote(result.file)}`, `  command: ${quote(result.command ?? "")}`]
      : [`agentsmd: ${quote(result.file)} already has the agentsmd hooks; nothing changed`],
    notes,
  };
}

/** The outcome of taking agentsmd's hooks out of a file. */
export function hooksUninstalled(result: HooksFileResult, json: unknown): InstallOutcome {
  return {
    changed: result.changed,
    json,
    lines: [
      result.changed
        ? `agentsmd: removed the agentsmd hooks from ${quote(result.file)}`
        : `agentsmd: no agentsmd hooks in ${quote(result.file)}; nothing changed`,
    ],
    notes: [],
  };
}
