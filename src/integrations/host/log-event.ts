/**
 * What a session-log reader hands the audit: the agent's working directory, the paths its tools
 * touched, and every text that reached the model, in log order. Pure types and small helpers; each
 * agent's reader (src/integrations/<host>/session-log.ts) produces these from its own format.
 */

/** How a tool used a path: `read` showed or searched it, `edit` changed it (edit, write, patch). */
export type TouchUse = "read" | "edit";

/** Where a text that reached the model came from. */
export type ShownChannel = "system" | "user" | "hook" | "tool-result" | "reminder";

export type LogEvent =
  /** The agent's working directory (a session may record several: the last one before a touch applies). */
  | { kind: "cwd"; cwd: string; time?: number }
  /** A tool call's target: an absolute path. */
  | { kind: "touch"; path: string; use: TouchUse; tool: string; time?: number }
  /**
   * A text the model received. `about`: the absolute path whose text this is, when the log says so
   * by its structure (a read tool's result) or a frame; a path ending in `/` names a directory (a
   * frame naming the directory, not the file), so an earlier version of a file is known as such.
   */
  | { kind: "shown"; text: string; channel: ShownChannel; about?: string; time?: number }
  /**
   * The agent logged that it put a file's text in front of the model without logging the text
   * (Copilot's `instruction_discovered`): the file's current text when it has not changed on disk
   * since `time`, else an earlier text of it.
   */
  | { kind: "attached"; path: string; time: number }
  /** Something the log does not record or that could not be read (said in the report, never guessed). */
  | { kind: "note"; text: string };

/** What an agent's log records, for the report and docs/audit.md. */
export interface LogRecords {
  /** The system prompt (with the instruction files the agent put there itself). */
  systemPrompt: boolean;
  /**
   * The instruction files the agent loads itself at a start, recorded apart from the system prompt
   * (Gemini CLI's session context, Droid's opening message), so they can be judged without it.
   */
  startupFiles?: boolean;
  /** The text hooks added to the conversation. */
  hookContext: boolean;
  /** Tool results as the model saw them. */
  toolResults: boolean;
}

/** Limits every reader works under: a line longer than `maxLineBytes` is skipped and counted. */
export interface ReadLimits {
  maxLineBytes: number;
  maxBytes: number;
}

/** A reader of one agent's session logs. */
export interface SessionLogReader {
  /** What the log records. */
  records: LogRecords;
  /** The directories the agent keeps its logs in, for `--last`/`--since` (absolute). */
  logDirs(env: Readonly<Record<string, string | undefined>>, home: string): string[];
  /** Whether a file in those directories is one of its session logs (by name). */
  isLog(name: string): boolean;
  /** The events of one log, from its lines (each at most ReadLimits.maxLineBytes; `null` a skipped line). */
  events(lines: AsyncIterable<string | null>, context: { home: string }): AsyncIterable<LogEvent>;
  /**
   * For an agent that keeps every session in one database file (`isLog` names it) rather than a
   * file per session: a session is the log `FILE#ID` (`FILE` alone: its newest session), and its
   * lines for `events` come from here instead of the file's lines. Optional: line logs have none.
   */
  store?: SessionStore;
}

/** Sessions kept in one database file: {@link SessionLogReader.store}. */
interface SessionStore {
  /** The sessions in `file`, newest first, with when each last changed (epoch ms). */
  sessions(file: string): Promise<Array<{ id: string; updatedMs: number }>>;
  /** One session's records as the lines `events` reads (`id` undefined: the newest session). */
  lines(file: string, id: string | undefined, limits: ReadLimits): AsyncIterable<string | null>;
}

/**
 * The JSON value of one log line, or undefined for a line that is not a JSON object (a truncated
 * last line, garbage): logs are untrusted input, a bad line is skipped, never fatal.
 */
export function jsonLine(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `value` as a record, else undefined. */
export function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** `value` as a string, else undefined. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The text parts of a message content: a string, or blocks each with a string `text` (`{type: "text", text}`, Codex's `input_text`...). */
export function textsOf(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => {
    const text = stringOf(recordOf(part)?.text);
    return text === undefined ? [] : [text];
  });
}

/** An ISO time as epoch milliseconds, else undefined. */
export function timeOf(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}
