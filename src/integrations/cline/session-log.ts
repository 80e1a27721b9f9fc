/**
 * Cline CLI's session log (3.0.65: `$CLINE_DATA_DIR/sessions/<id>/<id>.messages.json`, one JSON
 * document rewritten as the task goes, resumed sessions included) as audit events. The document
 * holds `messages` (user text, the model's `tool_use` blocks, `tool_result` blocks, hook context as
 * user text `<hook_context …>`), each with `ts` (epoch ms), and `system_prompt`: the prompt as
 * Cline built it before appending its rules, so the AGENTS.md files Cline loads itself (`# Rules`)
 * are not in the log, and the reader says so. The working directory is the one the system prompt
 * names (`Working Directory:`). Pure over the lines it is given: they are joined (at most
 * MAX_DOCUMENT_CHARS) and parsed once; a document that does not parse is said, never guessed at.
 */
import { patchTargets, toolTargets, usablePath } from "../host/targets.js";
import { jsonLine, recordOf, stringOf, type LogEvent, type SessionLogReader, type ShownChannel, type TouchUse } from "../host/log-event.js";
import { splitFrames } from "../host/log-frames.js";
import { ShellCommandTally } from "../host/log-shell.js";
import { CLINE_TOOL_TARGETS, readWhole } from "./input.js";
import { clineSessionsDir } from "./sessions.js";

/** Most characters of a session document parsed (a larger one is said, not read). */
const MAX_DOCUMENT_CHARS = 64 * 1024 * 1024;
/** Most commands of one `run_commands` call read for paths. */
const MAX_COMMANDS = 64;

/** Tools that change the paths they name. */
const EDIT_TOOLS: ReadonlySet<string> = new Set(["apply_patch", "editor"]);

/** `Working Directory: /abs` of the `<env>` block Cline puts in its system prompt. */
const WORKING_DIRECTORY = /^\s*(?:\d+\.\s*)?Working Directory:\s*(\/[^\n]*?)\s*$/m;

/** A `read_files` result line as the model saw it: `N | text`. */
const NUMBERED_LINE = /^\s*\d+ \| ?/;

/**
 * A read result's file text without Cline's line numbers (`1 | a` -> `a`), else the text as is.
 */
export function unnumbered(text: string): string {
  const lines = text.split("\n");
  if (!lines.every((line) => line === "" || NUMBERED_LINE.test(line))) return text;
  return lines.map((line) => line.replace(NUMBERED_LINE, "")).join("\n");
}

/** The texts a tool result holds: its entries' `result` (or `error`), a JSON text of them, or plain text. */
function resultTexts(content: unknown): string[] {
  if (typeof content === "string") {
    const parsed = content.trimStart().startsWith("[") ? parseJson(content) : jsonLine(content);
    return parsed === undefined ? [content] : resultTexts(Array.isArray(parsed) ? parsed : [parsed]);
  }
  if (!Array.isArray(content)) return [];
  return content.flatMap((entry) => {
    if (typeof entry === "string") return [entry];
    const record = recordOf(entry);
    const text = stringOf(record?.result) ?? stringOf(record?.text) ?? stringOf(record?.error);
    return text === undefined ? [] : [text];
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

class ClineLogState {
  private cwd: string | undefined;
  /** tool_use id -> the file a `read_files` call read whole. */
  private readonly wholeReads = new Map<string, string>();
  readonly shell = new ShellCommandTally();

  constructor(private readonly home: string) {}

  *document(doc: Record<string, unknown>): Generator<LogEvent> {
    const system = stringOf(doc.system_prompt);
    const cwd = system?.match(WORKING_DIRECTORY)?.[1];
    if (cwd !== undefined && cwd.startsWith("/")) {
      this.cwd = cwd;
      yield { kind: "cwd", cwd };
    }
    const messages = Array.isArray(doc.messages) ? doc.messages : [];
    const first = messages.map((message) => recordOf(message)?.ts).find((ts) => typeof ts === "number");
    if (system !== undefined) {
      // The prompt as recorded comes before every message of the task.
      yield* this.shown(system, "system", undefined, typeof first === "number" ? first : undefined);
      if (!/^# Rules$/m.test(system))
        yield {
          kind: "note",
          text: "Cline's log keeps its system prompt without the rules it appends (# Rules: the AGENTS.md files Cline loads itself, ~/.agents/AGENTS.md and <cwd>/AGENTS.md): those cannot be seen in it",
        };
    } else yield { kind: "note", text: "this session records no system prompt: neither its working directory nor what Cline put there can be told from it" };
    for (const message of messages) {
      const record = recordOf(message);
      if (record !== undefined) yield* this.message(record);
    }
  }

  private *shown(text: string, channel: ShownChannel, about: string | undefined, time: number | undefined): Generator<LogEvent> {
    const at = time !== undefined ? { time } : {};
    if (about !== undefined) {
      yield { kind: "shown", text, channel, about, ...at };
      return;
    }
    for (const piece of splitFrames(text)) yield { kind: "shown", text: piece.text, channel, ...(piece.about ? { about: piece.about } : {}), ...at };
  }

  private *message(message: Record<string, unknown>): Generator<LogEvent> {
    const time = typeof message.ts === "number" && Number.isFinite(message.ts) ? message.ts : undefined;
    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (!Array.isArray(content)) return;
    for (const block of content) {
      const part = recordOf(block);
      if (part === undefined) continue;
      if (message.role === "assistant") {
        if (part.type === "tool_use") yield* this.call(part, time);
        continue;
      }
      if (part.type === "text") {
        const text = stringOf(part.text) ?? "";
        yield* this.shown(text, text.trimStart().startsWith("<hook_context") ? "hook" : "user", undefined, time);
      } else if (part.type === "tool_result") {
        const about = this.wholeReads.get(stringOf(part.tool_use_id) ?? "");
        const read = part.name === "read_files";
        for (const text of resultTexts(part.content)) yield* this.shown(read ? unnumbered(text) : text, "tool-result", about, time);
      }
    }
  }

  private *call(use: Record<string, unknown>, time: number | undefined): Generator<LogEvent> {
    const tool = stringOf(use.name);
    const input = recordOf(use.input);
    if (tool === undefined || input === undefined || this.cwd === undefined) return;
    const cwd = this.cwd;
    const touch = (path: string, how: TouchUse): LogEvent => ({ kind: "touch", path, use: how, tool, ...(time !== undefined ? { time } : {}) });
    if (tool === "run_commands") {
      yield* this.commands(input.commands, tool, time);
      return;
    }
    const paths =
      tool === "apply_patch"
        ? patchTargets(input.input, cwd, { deleted: true })
        : tool === "editor"
          ? [usablePath(input.path, cwd)].filter((path): path is string => path !== undefined)
          : toolTargets(CLINE_TOOL_TARGETS, { tool, input, cwd });
    const id = stringOf(use.id);
    if (tool === "read_files" && paths.length === 1 && readWhole(input) && id !== undefined) this.wholeReads.set(id, paths[0]!);
    for (const path of paths) yield touch(path, EDIT_TOOLS.has(tool) ? "edit" : "read");
  }

  /** `run_commands` paths read as Codex's shell commands are (globs and git revisions not followed). */
  private *commands(commands: unknown, tool: string, time: number | undefined): Generator<LogEvent> {
    const list = (Array.isArray(commands) ? commands : [commands]).slice(0, MAX_COMMANDS);
    for (const command of list) {
      if (typeof command !== "string") continue;
      yield* this.shell.touches(command, { cwd: this.cwd!, home: this.home }, tool, time !== undefined ? { time } : {});
    }
  }
}

/** Cline's session documents: `<id>/<id>.messages.json` under its sessions directory. */
export const clineSessionLog: SessionLogReader = {
  records: { systemPrompt: false, hookContext: true, toolResults: true },
  logDirs: (env, home) => [clineSessionsDir(env, home)],
  isLog: (name) => name.endsWith(".messages.json"),
  async *events(lines, context) {
    const parts: string[] = [];
    let chars = 0;
    let skipped = 0;
    for await (const line of lines) {
      if (line === null) {
        skipped++;
        continue;
      }
      chars += line.length + 1;
      if (chars <= MAX_DOCUMENT_CHARS) parts.push(line);
    }
    if (chars > MAX_DOCUMENT_CHARS) {
      yield { kind: "note", text: `the session document is larger than ${MAX_DOCUMENT_CHARS} characters: it was not read` };
      return;
    }
    const doc = skipped > 0 ? undefined : jsonLine(parts.join("\n"));
    if (doc === undefined) {
      const why = skipped > 0 ? `${skipped} line(s) over the line limit` : "it is not one whole JSON document (a truncated or damaged log)";
      yield { kind: "note", text: `the session document could not be read: ${why}` };
      return;
    }
    const state = new ClineLogState(context.home);
    yield* state.document(doc);
    yield* state.shell.notes();
  },
};
