/**
 * Factory Droid's session log (0.215.0: `~/.factory/sessions/<cwd slug>/<id>.jsonl`, one JSON
 * record a line) as audit events: cwd from `session_start`, touches from the model's `tool_use`
 * blocks through Droid's tool table (Execute commands read as shell commands), and what reached the
 * model: user text (the session's first context message with Droid's project instructions, its
 * `<system-reminder>` attachments of nested files), hook context (each hook run is recorded with
 * its output) and tool results. Droid's frames
 * (`% cat PATH` and `## PATH` before `<coding_guidelines>`) name the file a block belongs to. Droid's
 * own system prompt is not in the log. Pure over the lines it is given; a bad line is skipped.
 */
import { patchTargets, toolTargets, type TargetTable } from "../host/targets.js";
import { JsonLinesLog } from "../host/log-lines.js";
import { framedPath, splitFrames } from "../host/log-frames.js";
import { jsonLine, recordOf, stringOf, timeOf, type LogEvent, type SessionLogReader, type ShownChannel, textsOf } from "../host/log-event.js";
import { ShellCommandTally } from "../host/log-shell.js";
import { droidSessionsDir } from "./sessions.js";

/** Droid's file tools -> the arguments naming paths (the hook's table, and Execute apart). */
const DROID_LOG_TARGETS: TargetTable = {
  Read: { fields: ["file_path"] },
  Create: { fields: ["file_path"] },
  Edit: { fields: ["file_path"] },
  MultiEdit: { fields: ["file_path"] },
  LS: { fields: ["directory_path"], orCwd: true },
  Grep: { fields: ["path"], orCwd: true },
  Glob: { fields: ["folder"], orCwd: true },
  ApplyPatch: (call) => patchTargets(call.input.input, call.cwd, { deleted: true }),
};
const EDIT_TOOLS: ReadonlySet<string> = new Set(["Create", "Edit", "MultiEdit", "ApplyPatch"]);

/** Droid's frame of an instruction file: `% cat PATH` or `## PATH`, then `<coding_guidelines>`. */
const DROID_FRAME = /^(?:% cat |## )(\/[^\n]*|"[^\n]*")\n<coding_guidelines>\n/gm;
/** Most framed blocks one text is split into. */
const MAX_BLOCKS = 256;

/**
 * `text` split at Droid's instruction frames: each block's body (up to `</coding_guidelines>`) with
 * the path it names; the rest through the shared frames (agentsmd's own, in hook context).
 */
export function droidPieces(text: string): Array<{ text: string; about?: string }> {
  const pieces: Array<{ text: string; about?: string }> = [];
  let last = 0;
  DROID_FRAME.lastIndex = 0;
  for (let match = DROID_FRAME.exec(text); match !== null && pieces.length < MAX_BLOCKS; match = DROID_FRAME.exec(text)) {
    const about = framedPath(match[1]!);
    const start = match.index + match[0].length;
    const close = text.indexOf("</coding_guidelines>", start);
    if (about === undefined || close < 0) continue;
    if (match.index > last) pieces.push(...splitFrames(text.slice(last, match.index)).filter((piece) => piece.text.trim() !== ""));
    pieces.push({ text: text.slice(start, close), about });
    last = close + "</coding_guidelines>".length;
    DROID_FRAME.lastIndex = last;
  }
  if (last < text.length) pieces.push(...splitFrames(text.slice(last)).filter((piece) => piece.text.trim() !== "" || last === 0));
  return pieces;
}

class DroidLogState extends JsonLinesLog {
  protected override readonly shell = new ShellCommandTally();
  /** tool_use id -> the file a Read showed whole. */
  private readonly wholeReads = new Map<string, string>();

  constructor(private readonly home: string) {
    super("session records");
  }

  *line(line: string | null): Generator<LogEvent> {
    const record = this.record(line);
    if (record === undefined) return;
    if (record.type === "session_start") {
      yield* this.moveTo(stringOf(record.cwd));
      return;
    }
    const message = recordOf(record.message);
    if (record.type !== "message" || message === undefined) return;
    const time = timeOf(record.timestamp);
    const id = stringOf(record.id) ?? "";
    if (message.role === "assistant") {
      yield* this.calls(message.content, time);
      return;
    }
    if (message.role !== "user") return;
    if (typeof message.hookEventName === "string") {
      yield* this.hookRun(message.hookResults, time);
      return;
    }
    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (!Array.isArray(content)) return;
    // The session's opening context (project instructions) and Droid's attachments are reminders; the rest the user's or a hook's.
    const channel: ShownChannel = id.startsWith("context-") ? "system" : id.includes("system-reminder") ? "reminder" : "user";
    for (const block of content) {
      const part = recordOf(block);
      if (part?.type === "text") yield* this.shown(stringOf(part.text) ?? "", channel, undefined, time);
      else if (part?.type === "tool_result") {
        const about = this.wholeReads.get(stringOf(part.tool_use_id) ?? "");
        for (const text of textsOf(part.content)) yield* this.shown(text, "tool-result", about, time);
      }
    }
  }

  /**
   * A hook run, recorded with its raw output (`hookResults[].stdout`) in a message only the user
   * sees: the `hookSpecificOutput.additionalContext` of a run that succeeded is what Droid gave the
   * model (observed: as a user message after the tool result).
   */
  private *hookRun(results: unknown, time: number | undefined): Generator<LogEvent> {
    if (!Array.isArray(results)) return;
    for (const result of results.slice(0, MAX_BLOCKS)) {
      const run = recordOf(result);
      const stdout = stringOf(run?.stdout);
      if (run?.exitCode !== 0 || stdout === undefined) continue;
      const context = stringOf(recordOf(jsonLine(stdout.trim())?.hookSpecificOutput)?.additionalContext);
      if (context !== undefined) yield* this.shown(context, "hook", undefined, time);
    }
  }

  private *shown(text: string, channel: ShownChannel, about: string | undefined, time: number | undefined): Generator<LogEvent> {
    const at = time !== undefined ? { time } : {};
    if (about !== undefined) {
      yield { kind: "shown", text, channel, about, ...at };
      return;
    }
    for (const piece of droidPieces(text)) yield { kind: "shown", text: piece.text, channel, ...(piece.about ? { about: piece.about } : {}), ...at };
  }

  private *calls(content: unknown, time: number | undefined): Generator<LogEvent> {
    if (!Array.isArray(content) || this.cwd === undefined) return;
    const at = time !== undefined ? { time } : {};
    for (const block of content) {
      const use = recordOf(block);
      const tool = stringOf(use?.name);
      const input = recordOf(use?.input);
      if (use?.type !== "tool_use" || tool === undefined || input === undefined) continue;
      if (tool === "Execute") {
        yield* this.command(input.command, tool, at);
        continue;
      }
      const paths = toolTargets(DROID_LOG_TARGETS, { tool, input, cwd: this.cwd });
      const id = stringOf(use.id);
      if (tool === "Read" && paths.length === 1 && input.offset === undefined && input.limit === undefined && id !== undefined)
        this.wholeReads.set(id, paths[0]!);
      for (const path of paths) yield { kind: "touch", path, use: EDIT_TOOLS.has(tool) ? "edit" : "read", tool, ...at };
    }
  }

  private *command(command: unknown, tool: string, at: { time?: number }): Generator<LogEvent> {
    if (typeof command !== "string") return;
    yield* this.shell.touches(command, { cwd: this.cwd!, home: this.home }, tool, at);
  }

  *notes(): Generator<LogEvent> {
    yield* this.tallyNotes();
  }
}

const SESSION_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

/** Droid's sessions: `<id>.jsonl` under a folder per working directory. */
export const droidSessionLog: SessionLogReader = {
  records: { systemPrompt: false, startupFiles: true, hookContext: true, toolResults: true },
  logDirs: (env, home) => [droidSessionsDir(env, home)],
  isLog: (name) => SESSION_FILE.test(name),
  async *events(lines, context) {
    const state = new DroidLogState(context.home);
    for await (const line of lines) yield* state.line(line);
    yield* state.notes();
  },
};
