/**
 * GitHub Copilot CLI's session log (`<COPILOT_HOME or ~/.copilot>/session-state/<id>/events.jsonl`,
 * one JSON event a line, `{type, data, id, timestamp, parentId}`; observed with 1.0.102) as audit
 * events: cwd from `session.start`/`session.resume`, touches from `tool.execution_start` (the
 * hook's tool table, shell commands through shell-paths.ts), and what reached the model: the
 * system prompt (`system.message`, the `<custom_instruction>` blocks of the files Copilot loads
 * itself), each prompt as sent (`user.message` `transformedContent`, with a prompt hook's
 * `<system_reminder>`), tool results as sent (`tool.execution_complete`, with a postToolUse hook's
 * context), a sessionStart hook's context (`hook.end`). A nested file Copilot attaches itself
 * after a `view` is logged by name (`system.notification` `instruction_discovered`); its text only
 * when a postToolUse hook ran (its input's `newMessages`): else the file counts by its
 * modification time (log-event.ts `attached`). Pure over the lines it is given; a bad line is
 * skipped.
 */
import { join } from "../../core/paths.js";
import { copilotHome } from "../../presets/copilot.js";
import { usablePath } from "../host/targets.js";
import { recordOf, stringOf, timeOf, type LogEvent, type SessionLogReader, type ShownChannel, type TouchUse } from "../host/log-event.js";
import { JsonLinesLog } from "../host/log-lines.js";
import { splitFrames } from "../host/log-frames.js";
import { ShellCommandTally } from "../host/log-shell.js";
import { copilotToolTargets } from "./targets.js";

const EDIT_TOOLS: ReadonlySet<string> = new Set(["create", "edit"]);
/** `str_replace_editor` commands that change a file (its `view` only reads). */
const EDITOR_WRITES: ReadonlySet<string> = new Set(["create", "str_replace", "insert", "undo_edit"]);
/** Distinct system-prompt texts kept to tell a new one from a repeat. */
const MAX_SYSTEM_TEXTS = 64;
/** Most attachments waiting for their tool call's end, and whole-file views remembered. */
const MAX_PENDING = 256;
/** Copilot's frame of a nested file it attaches after a `view` (e2e/copilot/FINDINGS.md). */
const ATTACHED = /^\s*<system_reminder>\nCustom instructions from ([^\n]+?)\. Apply these to any code you write here:\n\n/;

class CopilotLogState extends JsonLinesLog {
  protected override readonly shell = new ShellCommandTally();
  private gitRoot: string | undefined;
  private readonly system = new Set<string>();
  private sawSystem = false;
  /** A resume came after the last logged system prompt (Copilot rebuilds it without logging it). */
  private resumedSince = false;
  private byNameOnly = 0;
  /** Files Copilot said it attached during the running tool call, their text not (yet) seen. */
  private pending: Array<{ path: string; time: number }> = [];
  /** toolCallId -> the file a `view` showed whole. */
  private readonly wholeViews = new Map<string, string>();

  constructor(private readonly home: string) {
    super("Copilot events");
  }

  *line(line: string | null): Generator<LogEvent> {
    const record = this.record(line, (record) => recordOf(record.data) !== undefined && typeof record.type === "string");
    const data = recordOf(record?.data);
    if (record === undefined || data === undefined) return;
    const time = timeOf(record.timestamp);
    const at = time !== undefined ? { time } : {};
    switch (record.type) {
      case "session.start":
      case "session.resume": {
        if (record.type === "session.resume" && this.sawSystem) this.resumedSince = true;
        const context = recordOf(data.context);
        const root = stringOf(context?.gitRoot);
        if (root !== undefined && root.startsWith("/")) this.gitRoot = root;
        yield* this.moveTo(stringOf(context?.cwd), time);
        return;
      }
      case "system.message": {
        const text = stringOf(data.content);
        if (text === undefined) return;
        this.sawSystem = true;
        this.resumedSince = false;
        if (this.system.has(text)) return;
        if (this.system.size < MAX_SYSTEM_TEXTS) this.system.add(text);
        yield* shownPieces(text, "system", at);
        return;
      }
      case "user.message": {
        const text = stringOf(data.transformedContent) ?? stringOf(data.content);
        if (text !== undefined) yield* shownPieces(text, "user", at);
        return;
      }
      case "tool.execution_start":
        yield* this.call(data, at);
        return;
      case "tool.execution_complete":
        yield* this.result(data, at);
        return;
      case "system.notification":
        this.discovered(recordOf(data.kind), time);
        return;
      case "hook.start":
        yield* this.hookInput(data, at);
        return;
      case "hook.end": {
        // sessionStart's context is a message of its own; the others' are in the prompt or the tool result.
        const context = stringOf(recordOf(data.output)?.additionalContext);
        if (context !== undefined && (data.hookType === "sessionStart" || data.hookType === "preToolUse")) yield* shownPieces(context, "hook", at);
        return;
      }
    }
  }

  private *call(data: Record<string, unknown>, at: { time?: number }): Generator<LogEvent> {
    const tool = stringOf(data.toolName) ?? "tool";
    const args = recordOf(data.arguments) ?? {};
    const cwd = this.cwd;
    if (cwd === undefined) return;
    const touch = (path: string, use: TouchUse): LogEvent => ({ kind: "touch", path, use, tool, ...at });
    if (tool === "bash") {
      const command = stringOf(args.command);
      if (command === undefined) return;
      yield* this.shell.touches(command, { cwd, home: this.home }, tool, at);
      return;
    }
    const targets = copilotToolTargets(tool, args, cwd);
    const command = stringOf(args.command);
    const edits = EDIT_TOOLS.has(tool) || (tool === "str_replace_editor" && command !== undefined && EDITOR_WRITES.has(command));
    const id = stringOf(data.toolCallId);
    const viewed = tool === "view" || (tool === "str_replace_editor" && command === "view");
    if (viewed && targets.length === 1 && args.view_range === undefined && id !== undefined && this.wholeViews.size < MAX_PENDING)
      this.wholeViews.set(id, targets[0]!);
    for (const path of targets) yield touch(path, edits ? "edit" : "read");
  }

  private *result(data: Record<string, unknown>, at: { time?: number }): Generator<LogEvent> {
    const id = stringOf(data.toolCallId) ?? "";
    const about = data.success === true ? this.wholeViews.get(id) : undefined;
    this.wholeViews.delete(id);
    const text = stringOf(recordOf(data.result)?.content);
    if (text !== undefined) {
      if (about !== undefined) yield { kind: "shown", text, channel: "tool-result", about, ...at };
      else yield* shownPieces(text, "tool-result", at);
    }
    // What Copilot attached to this call with no hook to log its text: known by name and time only.
    for (const attached of this.pending.splice(0)) {
      this.byNameOnly++;
      yield { kind: "attached", path: attached.path, time: attached.time };
    }
  }

  /** `instruction_discovered`: Copilot attaches that file's text to the running tool call's result. */
  private discovered(kind: Record<string, unknown> | undefined, time: number | undefined): void {
    if (kind?.type !== "instruction_discovered" || time === undefined) return;
    const path = this.repoPath(kind.sourcePath);
    if (path !== undefined && this.pending.length < MAX_PENDING) this.pending.push({ path, time });
  }

  /** A postToolUse hook's input carries the texts Copilot attached to the result (`newMessages`). */
  private *hookInput(data: Record<string, unknown>, at: { time?: number }): Generator<LogEvent> {
    if (data.hookType !== "postToolUse") return;
    const messages = recordOf(recordOf(data.input)?.toolResult)?.newMessages;
    if (!Array.isArray(messages)) return;
    for (const entry of messages.slice(0, MAX_PENDING)) {
      const text = stringOf(recordOf(entry)?.content);
      if (text === undefined) continue;
      const match = ATTACHED.exec(text);
      const about = match ? this.repoPath(match[1]) : undefined;
      if (about !== undefined) {
        this.pending = this.pending.filter((each) => each.path !== about);
        yield { kind: "shown", text: text.slice(match![0].length).replace(/\s*<\/system_reminder>\s*$/, "\n"), channel: "reminder", about, ...at };
      } else yield* shownPieces(text, "reminder", at);
    }
  }

  /** A path Copilot names relative to the repository (its git root, else cwd), as absolute. */
  private repoPath(value: unknown): string | undefined {
    const base = this.gitRoot ?? this.cwd;
    return base === undefined ? undefined : usablePath(value, base);
  }

  *notes(): Generator<LogEvent> {
    if (!this.sawSystem) yield { kind: "note", text: "this log records no system prompt: the instruction files Copilot put there cannot be told from it" };
    if (this.resumedSince)
      yield {
        kind: "note",
        text: "Copilot rebuilt its system prompt at a resume without logging it: a root instruction file edited before the resume shows as stale or never, though its new text was sent",
      };
    if (this.byNameOnly > 0)
      yield {
        kind: "note",
        text: `${this.byNameOnly} nested instruction file(s) Copilot attached itself are logged by name only (no postToolUse hook ran): counted as seen when the file is unchanged on disk since`,
      };
    yield* this.tallyNotes();
  }
}

function* shownPieces(text: string, channel: ShownChannel, at: { time?: number }): Generator<LogEvent> {
  for (const piece of splitFrames(text)) yield { kind: "shown", text: piece.text, channel, ...(piece.about ? { about: piece.about } : {}), ...at };
}

/** Copilot's session logs: `$COPILOT_HOME/session-state/<id>/events.jsonl` (default `~/.copilot`). */
export const copilotSessionLog: SessionLogReader = {
  records: { systemPrompt: true, hookContext: true, toolResults: true },
  logDirs: (env, home) => {
    const dir = copilotHome(home, env);
    return [join(dir.startsWith("/") ? dir : join(home, ".copilot"), "session-state")];
  },
  isLog: (name) => name === "events.jsonl",
  async *events(lines, context) {
    const state = new CopilotLogState(context.home);
    for await (const line of lines) yield* state.line(line);
    yield* state.notes();
  },
};
