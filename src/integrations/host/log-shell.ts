/**
 * What a session-log reader (the audit) follows of a shell command the agent ran: the paths it
 * read, listed or wrote, except globs, `-e` tests and git revisions, which need the file system of
 * the time (docs/audit.md). A command that cannot be read with certainty (substitutions, syntax) is
 * counted, and the count becomes one note of the report.
 */
import type { LogEvent } from "./log-event.js";
import { shellCommandPaths, type ShellPath, type ShellPathsContext } from "./shell-paths.js";

export class ShellCommandTally {
  private unread = 0;

  /** The paths of `command` a log can follow; undefined, counted, when it cannot be read. */
  paths(command: string, context: ShellPathsContext): ShellPath[] | undefined {
    const parsed = shellCommandPaths(command, context);
    if (!parsed.ok) {
      this.unread++;
      return undefined;
    }
    return parsed.paths.filter((p) => !p.glob && !p.ifExists && !p.gitRoot);
  }

  /** The touches of `command` as the tool `tool` ran it. */
  touches(command: string, context: ShellPathsContext, tool: string, at: { time?: number }): LogEvent[] {
    return touchesOf(this.paths(command, context) ?? [], tool, at);
  }

  /** The report's note on the commands that could not be read, when there were any. */
  *notes(): Generator<LogEvent> {
    if (this.unread > 0)
      yield { kind: "note", text: `${this.unread} shell command(s) could not be read with certainty (substitutions, syntax): their paths are not counted` };
  }
}

/** A touch per path: a write is an edit, a read or a listing a read. */
export function touchesOf(paths: readonly ShellPath[], tool: string, at: { time?: number }): LogEvent[] {
  return paths.map((p) => ({ kind: "touch", path: p.path, use: p.use === "write" ? "edit" : "read", tool, ...at }));
}
