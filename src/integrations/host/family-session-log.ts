/**
 * The session log of the OpenCode family (OpenCode 1.18, Kilo 7.7): one SQLite database per user
 * (`$XDG_DATA_HOME/<app>/<app>.db`) holding every session: `session` (id, parent, directory),
 * `message` (role, the assistant's cwd) and `part` (user text, tool calls with input, output and
 * metadata) rows, each a JSON `data` column. The store reads one session (and its subagents' child
 * sessions) as JSON lines (io/sqlite-read.ts, no native module); the events turn them into what the
 * audit follows: cwd, touches read as the plugin reads them (file tools, patches, bash commands
 * through shell-paths.ts) and tool outputs (a read's file text without its line numbers, the
 * instruction blocks the agent and agentsmd append). The system prompt (the agent's own
 * AGENTS.md and config `instructions`) is not stored. What differs per agent is a
 * {@link FamilyLogSpec}.
 */
import { AgentsMdError } from "../../core/errors.js";
import { join } from "../../core/paths.js";
import { quote } from "../../core/quote.js";
import { SqliteReader, type SqliteRow } from "../../io/sqlite-read.js";
import { jsonLine, recordOf, stringOf, type LogEvent, type ReadLimits, type SessionLogReader, type ShownChannel, type TouchUse } from "./log-event.js";
import { splitFrames } from "./log-frames.js";
import { ShellCommandTally, touchesOf } from "./log-shell.js";
import { usablePath } from "./targets.js";

/** What differs between the agents of the family. */
export interface FamilyLogSpec {
  /** The app's folder under the XDG data directory, and its database's name there ("opencode", "opencode.db"). */
  app: string;
  database: string;
  /** The paths a (non-shell) tool call touched, as the agent's plugin reads them. */
  targets(tool: string, input: Record<string, unknown>, metadata: Record<string, unknown>, cwd: string): string[];
}

/** Tools that change the files they name. */
const EDIT_TOOLS: ReadonlySet<string> = new Set(["edit", "write", "apply_patch", "patch", "multiedit"]);
/** The shell tool, whose command is read for paths. */
const SHELL_TOOL = "bash";
/** Most sessions listed from one database (newest first). */
const MAX_SESSIONS = 10_000;

type Line = { table: "session" | "message" | "part"; id: string; time: number; text: string };

/** A row's text column, or "" (a damaged row). */
function textOf(row: NonNullable<SqliteRow>, column: string): string {
  const value = row[column];
  return typeof value === "string" ? value : "";
}

function numberOf(row: NonNullable<SqliteRow>, column: string): number {
  const value = row[column];
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * A row as one JSON line: its `data` text first, so a hostile `data` cannot override the
 * fields after it (JSON.parse keeps a repeated key's last value); a `data` that is no JSON
 * makes the line unreadable, which `events` counts.
 */
function lineOf(data: string, fields: Record<string, string | number | null>): string {
  return `{"data":${data === "" ? "null" : data},${JSON.stringify(fields).slice(1)}`;
}

/** The sessions of a family database, newest first: top-level ones (a subagent's child session belongs to its parent). */
async function listSessions(file: string): Promise<Array<{ id: string; updatedMs: number }>> {
  const db = await SqliteReader.open(file);
  try {
    const out: Array<{ id: string; updatedMs: number }> = [];
    for await (const row of db.rows("session", 1024 * 1024)) {
      if (row === null || row.parent_id !== null || typeof row.id !== "string") continue;
      out.push({ id: row.id, updatedMs: numberOf(row, "time_updated") });
      if (out.length >= MAX_SESSIONS) break;
    }
    return out.sort((a, b) => b.updatedMs - a.updatedMs);
  } finally {
    await db.close();
  }
}

/**
 * One session of a family database as JSON lines (`session` rows, then its messages and parts in
 * the order they were made), its child sessions with it. `id` undefined: the newest top-level one.
 * At most `limits.maxBytes` of row text is held; a row over `limits.maxLineBytes` is a null line.
 */
async function* sessionLines(file: string, id: string | undefined, limits: ReadLimits): AsyncGenerator<string | null> {
  const db = await SqliteReader.open(file);
  try {
    const parents = new Map<string, string | null>();
    const sessions: Line[] = [];
    let newest: { id: string; time: number } | undefined;
    for await (const row of db.rows("session", limits.maxLineBytes)) {
      if (row === null || typeof row.id !== "string") continue;
      const parent = typeof row.parent_id === "string" ? row.parent_id : null;
      parents.set(row.id, parent);
      const time = numberOf(row, "time_created");
      if (parent === null && (newest === undefined || numberOf(row, "time_updated") > newest.time))
        newest = { id: row.id, time: numberOf(row, "time_updated") };
      sessions.push({
        table: "session",
        id: row.id,
        time,
        text: lineOf("null", { table: "session", id: row.id, parent, directory: textOf(row, "directory"), time }),
      });
    }
    const root = id ?? newest?.id;
    if (root === undefined || !parents.has(root))
      throw new AgentsMdError(root === undefined ? `${file} holds no session` : `${file} holds no session ${quote(root)}`, {
        path: file,
        fix: "pass the database alone for its newest session, or list them with --since",
      });
    const inSession = (candidate: string): boolean => {
      for (let at: string | null | undefined = candidate, depth = 0; at != null && depth < 64; at = parents.get(at), depth++) if (at === root) return true;
      return false;
    };
    const lines: Line[] = sessions.filter((line) => inSession(line.id));
    let held = 0;
    let over = false;
    let skipped = 0;
    for (const table of ["message", "part"] as const) {
      for await (const row of db.rows(table, limits.maxLineBytes)) {
        if (row === null) {
          skipped++;
          continue;
        }
        const session = textOf(row, "session_id");
        if (!inSession(session)) continue;
        const data = textOf(row, "data");
        held += data.length;
        if (held > limits.maxBytes) {
          over = true;
          break;
        }
        const fields = {
          table,
          id: textOf(row, "id"),
          session,
          message: table === "part" ? textOf(row, "message_id") : null,
          time: numberOf(row, "time_created"),
        };
        lines.push({ table, id: fields.id, time: fields.time, text: lineOf(data, fields) });
      }
    }
    // Sessions first, then by creation time; a message before its parts; ids (time-ordered) break ties.
    const rank = { session: 0, message: 1, part: 2 } as const;
    lines.sort((a, b) =>
      (a.table === "session") !== (b.table === "session")
        ? rank[a.table] - rank[b.table]
        : a.time - b.time || rank[a.table] - rank[b.table] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    for (const line of lines) yield line.text;
    for (let i = 0; i < skipped; i++) yield null;
    if (over) yield JSON.stringify({ table: "cut", bytes: limits.maxBytes });
    for (const problem of db.problems) yield JSON.stringify({ table: "problem", text: problem });
  } finally {
    await db.close();
  }
}

/** A read tool's output split into the file's text (line numbers taken off) and what follows `</content>`. */
function readOutput(output: string): { content: string | undefined; whole: boolean; rest: string } {
  const open = output.indexOf("<content>\n");
  const close = output.lastIndexOf("</content>");
  if (open === -1 || close < open) return { content: undefined, whole: false, rest: output };
  const body = output.slice(open + "<content>\n".length, close);
  const lines: string[] = [];
  let whole = false;
  for (const line of body.split("\n")) {
    const numbered = /^\d+: ?(.*)$/.exec(line);
    if (numbered) lines.push(numbered[1]!);
    else if (/^\(End of file - total \d+ lines?\)$/.test(line)) whole = true;
  }
  return { content: lines.join("\n"), whole, rest: output.slice(close + "</content>".length) };
}

class FamilyLogState {
  private cwd: string | undefined;
  private readonly roles = new Map<string, string>();
  skipped = 0;
  bad = 0;
  private readonly shell = new ShellCommandTally();
  cut = false;
  readonly problems: string[] = [];

  constructor(
    private readonly spec: FamilyLogSpec,
    private readonly home: string,
  ) {}

  *line(line: string | null): Generator<LogEvent> {
    if (line === null) {
      this.skipped++;
      return;
    }
    const record = jsonLine(line);
    if (record === undefined) {
      if (line.trim() !== "") this.bad++;
      return;
    }
    const data = recordOf(record.data) ?? {};
    const time = typeof record.time === "number" && Number.isFinite(record.time) && record.time > 0 ? record.time : undefined;
    const at = time !== undefined ? { time } : {};
    switch (record.table) {
      case "session":
        if (record.parent === null) yield* this.setCwd(stringOf(record.directory), at);
        return;
      case "message": {
        const role = stringOf(data.role);
        if (role !== undefined && typeof record.id === "string" && this.roles.size < 100_000) this.roles.set(record.id, role);
        yield* this.setCwd(stringOf(recordOf(data.path)?.cwd), at);
        return;
      }
      case "part":
        yield* this.part(data, stringOf(record.message), at);
        return;
      case "cut":
        this.cut = true;
        return;
      case "problem": {
        const text = stringOf(record.text);
        if (text !== undefined && !this.problems.includes(text)) this.problems.push(text);
        return;
      }
      default:
        this.bad++;
    }
  }

  private *setCwd(cwd: string | undefined, at: { time?: number }): Generator<LogEvent> {
    if (cwd === undefined || !cwd.startsWith("/") || cwd === this.cwd || usablePath(cwd, "/") === undefined) return;
    this.cwd = cwd;
    yield { kind: "cwd", cwd, ...at };
  }

  private *shown(text: string, channel: ShownChannel, at: { time?: number }): Generator<LogEvent> {
    for (const piece of splitFrames(text)) yield { kind: "shown", text: piece.text, channel, ...(piece.about ? { about: piece.about } : {}), ...at };
  }

  private *part(data: Record<string, unknown>, message: string | undefined, at: { time?: number }): Generator<LogEvent> {
    if (data.type === "text") {
      const text = stringOf(data.text);
      if (text !== undefined && this.roles.get(message ?? "") === "user") yield* this.shown(text, "user", at);
      return;
    }
    if (data.type !== "tool") return;
    const tool = stringOf(data.tool) ?? "tool";
    const state = recordOf(data.state) ?? {};
    const input = recordOf(state.input) ?? {};
    const started = recordOf(state.time)?.start;
    const when = typeof started === "number" && Number.isFinite(started) && started > 0 ? { time: started } : at;
    const whole = yield* this.touches(tool, input, recordOf(state.metadata) ?? {}, when);
    const output = stringOf(state.output) ?? stringOf(state.error);
    if (output === undefined) return;
    if (tool === "read") {
      const read = readOutput(output);
      if (read.content !== undefined) {
        const about = read.whole && whole !== undefined && input.offset === undefined ? { about: whole } : {};
        yield { kind: "shown", text: read.content, channel: "tool-result", ...about, ...when };
      }
      if (read.rest.trim() !== "") yield* this.shown(read.rest, "tool-result", when);
      return;
    }
    if (whole !== undefined) {
      yield { kind: "shown", text: output, channel: "tool-result", about: whole, ...when };
      return;
    }
    yield* this.shown(output, "tool-result", when);
  }

  /** The touches of a tool call; returns the one file it showed whole, when it did. */
  private *touches(
    tool: string,
    input: Record<string, unknown>,
    metadata: Record<string, unknown>,
    at: { time?: number },
  ): Generator<LogEvent, string | undefined> {
    if (this.cwd === undefined) return undefined;
    const touch = (path: string, use: TouchUse): LogEvent => ({ kind: "touch", path, use, tool, ...at });
    if (tool === SHELL_TOOL) {
      const command = stringOf(input.command);
      if (command === undefined) return undefined;
      const workdir = stringOf(input.workdir);
      const cwd = (workdir !== undefined ? usablePath(workdir, this.cwd) : undefined) ?? this.cwd;
      const plain = this.shell.paths(command, { cwd, home: this.home });
      if (plain === undefined) return undefined;
      yield* touchesOf(plain, tool, at);
      const shownWhole = plain.filter((p) => p.shown === "whole");
      return shownWhole.length === 1 && plain.length === 1 ? shownWhole[0]!.path : undefined;
    }
    const paths = this.spec.targets(tool, input, metadata, this.cwd);
    const use: TouchUse = EDIT_TOOLS.has(tool) ? "edit" : "read";
    for (const path of paths) yield touch(path, use);
    return tool === "read" && paths.length === 1 ? paths[0] : undefined;
  }

  *notes(): Generator<LogEvent> {
    yield* this.shell.notes();
    if (this.skipped > 0) yield { kind: "note", text: `${this.skipped} row(s) over the line limit or damaged were skipped` };
    if (this.bad > 0) yield { kind: "note", text: `${this.bad} row(s) whose data is not JSON were skipped (a damaged database)` };
    if (this.cut) yield { kind: "note", text: "the session is larger than the read limit: its later rows were left out" };
    for (const problem of this.problems) yield { kind: "note", text: `the database: ${problem}` };
  }
}

/**
 * The session-log reader of an agent of the family: its database under `$XDG_DATA_HOME/<app>/`
 * (default `~/.local/share/<app>/`), each top-level session a log named `DATABASE#SESSION`.
 */
export function familySessionLog(spec: FamilyLogSpec): SessionLogReader {
  return {
    records: { systemPrompt: false, hookContext: true, toolResults: true },
    logDirs: (env, home) => {
      const data = env.XDG_DATA_HOME?.startsWith("/") ? env.XDG_DATA_HOME : join(home, ".local/share");
      return [join(data, spec.app)];
    },
    isLog: (file) => file === spec.database,
    store: { sessions: listSessions, lines: sessionLines },
    async *events(lines, context) {
      const state = new FamilyLogState(spec, context.home);
      for await (const line of lines) yield* state.line(line);
      yield* state.notes();
    },
  };
}
