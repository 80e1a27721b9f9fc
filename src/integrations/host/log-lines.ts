/**
 * What every reader of a JSON-lines session log keeps alike: lines over the limit and lines that are
 * not the agent's records are counted (never fatal: logs are untrusted), the working directory is
 * followed, and the counts end up as notes in the report.
 */

import { jsonLine, type LogEvent } from "./log-event.js";
import type { ShellCommandTally } from "./log-shell.js";

export abstract class JsonLinesLog {
  /** The working directory the log last named (absolute). */
  cwd: string | undefined;
  /** The shell commands read, for a subclass whose agent has a shell tool (its note comes first). */
  protected readonly shell?: ShellCommandTally;
  private skipped = 0;
  private bad = 0;

  /** @param records what the agent's records are called in the report's note ("Copilot events"). */
  constructor(private readonly records: string) {}

  /**
   * The record on `line`, or undefined, counted, for a line over the limit (`null`) or one that is
   * not a JSON object `accept` takes (a blank line is not counted).
   */
  protected record(line: string | null, accept: (record: Record<string, unknown>) => boolean = () => true): Record<string, unknown> | undefined {
    if (line === null) {
      this.skipped++;
      return undefined;
    }
    const record = jsonLine(line);
    if (record === undefined || !accept(record)) {
      if (line.trim() !== "") this.bad++;
      return undefined;
    }
    return record;
  }

  /** A `cwd` event when `cwd` is an absolute path other than the current directory. */
  protected *moveTo(cwd: string | undefined, time?: number): Generator<LogEvent> {
    if (cwd === undefined || !cwd.startsWith("/") || cwd === this.cwd) return;
    this.cwd = cwd;
    yield { kind: "cwd", cwd, ...(time !== undefined ? { time } : {}) };
  }

  /** The notes on unread commands, skipped and damaged lines. */
  protected *tallyNotes(): Generator<LogEvent> {
    if (this.shell) yield* this.shell.notes();
    if (this.skipped > 0) yield { kind: "note", text: `${this.skipped} line(s) over the line limit were skipped` };
    if (this.bad > 0) yield { kind: "note", text: `${this.bad} line(s) that are not ${this.records} were skipped (a truncated or damaged log)` };
  }
}
