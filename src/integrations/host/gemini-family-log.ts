/**
 * The session-log reader Gemini CLI and Qwen Code share (`agentsmd audit`, docs/audit.md). Both
 * record a conversation as JSON lines of Gemini API messages: `parts` holding `text`,
 * `functionCall {id, name, args}` and `functionResponse {id, name, response}`. How a line carries
 * its messages, working directory and time differs (gemini/session-log.ts, qwen/session-log.ts:
 * a `FamilyLogFormat`); what a message means is the same: a model's function call touches the
 * paths its arguments name (the family's tool table, as the hook reads them), a user message's
 * text and a function's response reached the model. A message, call or response recorded twice
 * (a resumed history written again, a call logged with and without its result) counts once.
 * Pure over the lines it is given; a bad line is skipped and counted.
 */
import { toolTargets, type TargetTable } from "./targets.js";
import { jsonLine, recordOf, stringOf, type LogEvent, type LogRecords, type SessionLogReader, type ShownChannel } from "./log-event.js";
import { splitFrames } from "./log-frames.js";

/** One message of a line, as the host's format gives it. */
export interface FamilyMessage {
  /** Its id, when the log gives one: a message recorded again under the same id counts once. */
  id?: string;
  role: "user" | "model";
  parts: readonly unknown[];
  time?: number;
}

/** What one line holds. */
export interface FamilyLine {
  /** The working directory this line records (absolute). */
  cwd?: string;
  messages: FamilyMessage[];
}

/** What one host's log looks like (the rest is shared). */
export interface FamilyLogFormat {
  records: LogRecords;
  logDirs: SessionLogReader["logDirs"];
  isLog: SessionLogReader["isLog"];
  /** Tool name -> the arguments naming its paths (the hook's table). */
  targets: TargetTable;
  /** The tools that change the paths they name. */
  editTools: ReadonlySet<string>;
  /** `read_file` arguments that make a read show part of the file. */
  partialReadArgs: readonly string[];
  /** A line's messages and working directory; undefined: not a record of this log (counted). */
  line(record: Record<string, unknown>): FamilyLine | undefined;
  /** The channel of a user text part: the host's own context, a hook's, or the user's words. */
  channel(text: string): ShownChannel;
  /** Notes every report of this host carries (what its log never records). */
  notes: readonly string[];
}

/** Most ids remembered for deduplication; past it a repeat counts again (said in a note). */
const MAX_IDS = 100_000;

class BoundedIds {
  private readonly ids = new Set<string>();
  full = false;

  /** True the first time `id` is seen (always true once full). */
  first(id: string | undefined): boolean {
    if (id === undefined) return true;
    if (this.ids.has(id)) return false;
    if (this.ids.size >= MAX_IDS) this.full = true;
    else this.ids.add(id);
    return true;
  }
}

class FamilyLogState {
  private cwd: string | undefined;
  private readonly messages = new BoundedIds();
  private readonly calls = new BoundedIds();
  private readonly responses = new BoundedIds();
  /** Call id -> the file a call showed whole (the text before its frames is that file's). */
  private readonly wholeReads = new Map<string, string>();
  private skipped = 0;
  private bad = 0;

  constructor(private readonly format: FamilyLogFormat) {}

  *line(line: string | null): Generator<LogEvent> {
    if (line === null) {
      this.skipped++;
      return;
    }
    const record = jsonLine(line);
    const parsed = record === undefined ? undefined : this.format.line(record);
    if (parsed === undefined) {
      if (line.trim() !== "") this.bad++;
      return;
    }
    if (parsed.cwd !== undefined && parsed.cwd.startsWith("/") && parsed.cwd !== this.cwd) {
      this.cwd = parsed.cwd;
      yield { kind: "cwd", cwd: parsed.cwd };
    }
    for (const message of parsed.messages) {
      if (!this.messages.first(message.id)) continue;
      const at = message.time !== undefined ? { time: message.time } : {};
      for (const part of message.parts) yield* this.part(recordOf(part), message.role, at);
    }
  }

  private *part(part: Record<string, unknown> | undefined, role: FamilyMessage["role"], at: { time?: number }): Generator<LogEvent> {
    if (part === undefined) return;
    const call = recordOf(part.functionCall);
    if (role === "model") {
      if (call !== undefined) yield* this.call(call, at);
      return;
    }
    const text = stringOf(part.text);
    if (text !== undefined) yield* this.shown(text, this.format.channel(text), undefined, at);
    const response = recordOf(part.functionResponse);
    if (response !== undefined) yield* this.response(response, at);
  }

  private *call(call: Record<string, unknown>, at: { time?: number }): Generator<LogEvent> {
    if (!this.calls.first(stringOf(call.id))) return;
    const name = stringOf(call.name);
    const args = recordOf(call.args) ?? {};
    if (name === undefined || this.cwd === undefined) return;
    const paths = toolTargets(this.format.targets, { tool: name, input: args, cwd: this.cwd });
    const use = this.format.editTools.has(name) ? "edit" : "read";
    const id = stringOf(call.id);
    const partial = this.format.partialReadArgs.some((arg) => args[arg] !== undefined);
    if (name === "read_file" && !partial && paths.length === 1 && id !== undefined && this.wholeReads.size < MAX_IDS) this.wholeReads.set(id, paths[0]!);
    for (const path of paths) yield { kind: "touch", path, use, tool: name, ...at };
  }

  private *response(response: Record<string, unknown>, at: { time?: number }): Generator<LogEvent> {
    const id = stringOf(response.id);
    if (!this.responses.first(id)) return;
    const body = recordOf(response.response);
    const text = stringOf(body?.output) ?? stringOf(body?.error) ?? stringOf(response.response);
    if (text === undefined) return;
    yield* this.shown(text, "tool-result", id === undefined ? undefined : this.wholeReads.get(id), at);
  }

  /** A text that reached the model, split at its frames; the text before them is `read`'s file's when the call read it whole. */
  private *shown(text: string, channel: ShownChannel, read: string | undefined, at: { time?: number }): Generator<LogEvent> {
    for (const [index, piece] of splitFrames(text).entries()) {
      const about = piece.about ?? (index === 0 && read !== undefined ? read : undefined);
      yield { kind: "shown", text: piece.text, channel, ...(about !== undefined ? { about } : {}), ...at };
    }
  }

  *notes(): Generator<LogEvent> {
    for (const text of this.format.notes) yield { kind: "note", text };
    if (this.cwd === undefined) yield { kind: "note", text: "this log records no working directory: its tool paths were not followed (pass --cwd)" };
    if (this.messages.full || this.calls.full || this.responses.full)
      yield { kind: "note", text: `more than ${MAX_IDS} message ids: repeats past that are counted again` };
    if (this.skipped > 0) yield { kind: "note", text: `${this.skipped} line(s) over the line limit were skipped` };
    if (this.bad > 0) yield { kind: "note", text: `${this.bad} line(s) that are not chat records were skipped (a truncated or damaged log)` };
  }
}

/**
 * The reader of a family host's chat log.
 */
export function familySessionLog(format: FamilyLogFormat): SessionLogReader {
  return {
    records: format.records,
    logDirs: format.logDirs,
    isLog: format.isLog,
    async *events(lines) {
      const state = new FamilyLogState(format);
      for await (const line of lines) yield* state.line(line);
      yield* state.notes();
    },
  };
}
