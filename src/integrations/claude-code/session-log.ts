/**
 * Claude Code's session log (the transcript `~/.claude/projects/<project>/<session>.jsonl`, one
 * JSON record a line) as audit events: cwd and time from each record, touches from the assistant's
 * `tool_use` blocks through the hook's own tool table (CLAUDE_TOOL_TARGETS), and what reached the
 * model: user messages and tool results, attachments as rendered (instruction files, hook context,
 * reminders), the system prompt from `api-request-shape` records (once per distinct text). Pure
 * over the lines it is given; a bad line is skipped.
 */
import { join } from "../../core/paths.js";
import { toolTargets, type ToolCall } from "../host/targets.js";
import { JsonLinesLog } from "../host/log-lines.js";
import { splitFrames } from "../host/log-frames.js";
import { recordOf, stringOf, timeOf, type LogEvent, type SessionLogReader, type ShownChannel, textsOf } from "../host/log-event.js";
import { CLAUDE_TOOL_TARGETS } from "./tools.js";

const EDIT_TOOLS: ReadonlySet<string> = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit", "editFiles"]);
/** Distinct system-prompt texts kept to tell a new one from a repeat. */
const MAX_SYSTEM_TEXTS = 64;

function* shownPieces(text: string, channel: ShownChannel, time: number | undefined): Generator<LogEvent> {
  for (const piece of splitFrames(text))
    yield { kind: "shown", text: piece.text, channel, ...(piece.about ? { about: piece.about } : {}), ...(time !== undefined ? { time } : {}) };
}

class ClaudeLogState extends JsonLinesLog {
  system = new Set<string>();
  sawSystem = false;
  sidechain = false;

  constructor() {
    super("JSON records");
  }

  *line(line: string | null): Generator<LogEvent> {
    const record = this.record(line);
    if (record === undefined) return;
    const time = timeOf(record.timestamp);
    yield* this.moveTo(stringOf(record.cwd), time);
    if (record.isSidechain === true) this.sidechain = true;
    switch (record.type) {
      case "assistant":
        yield* this.assistant(recordOf(record.message), time);
        return;
      case "user":
        yield* this.user(record, time);
        return;
      case "attachment":
        yield* this.attachment(recordOf(record.attachment), record.rendered, time);
        return;
      case "api-request-shape":
        yield* this.systemPrompt(recordOf(record.shape)?.system, time);
        return;
    }
  }

  private *assistant(message: Record<string, unknown> | undefined, time: number | undefined): Generator<LogEvent> {
    const content = message?.content;
    if (!Array.isArray(content) || this.cwd === undefined) return;
    for (const block of content) {
      const use = recordOf(block);
      const tool = stringOf(use?.name);
      const input = recordOf(use?.input);
      if (use?.type !== "tool_use" || tool === undefined || input === undefined) continue;
      const call: ToolCall = { tool, input, cwd: this.cwd };
      for (const path of toolTargets(CLAUDE_TOOL_TARGETS, call)) {
        yield { kind: "touch", path, use: EDIT_TOOLS.has(tool) ? "edit" : "read", tool, ...(time !== undefined ? { time } : {}) };
      }
    }
  }

  private *user(record: Record<string, unknown>, time: number | undefined): Generator<LogEvent> {
    const content = recordOf(record.message)?.content;
    if (typeof content === "string") {
      yield* shownPieces(content, "user", time);
      return;
    }
    if (!Array.isArray(content)) return;
    for (const block of content) {
      const part = recordOf(block);
      if (part?.type === "text") yield* shownPieces(stringOf(part.text) ?? "", "user", time);
      else if (part?.type === "tool_result") yield* this.toolResult(part, recordOf(record.toolUseResult), time);
    }
  }

  /** A Read's result as its file text (the model's copy has line numbers), naming the file when whole. */
  private *toolResult(part: Record<string, unknown>, result: Record<string, unknown> | undefined, time: number | undefined): Generator<LogEvent> {
    const file = recordOf(result?.file);
    const path = stringOf(file?.filePath);
    const text = stringOf(file?.content);
    if (result?.type === "text" && path !== undefined && text !== undefined) {
      const whole = file?.startLine === 1 && file?.numLines === file?.totalLines;
      yield { kind: "shown", text, channel: "tool-result", ...(whole && path.startsWith("/") ? { about: path } : {}), ...(time !== undefined ? { time } : {}) };
      return;
    }
    for (const text of textsOf(part.content)) yield* shownPieces(text, "tool-result", time);
  }

  private *attachment(attachment: Record<string, unknown> | undefined, rendered: unknown, time: number | undefined): Generator<LogEvent> {
    if (attachment === undefined) return;
    const at = time !== undefined ? { time } : {};
    if (attachment.type === "instructions" && Array.isArray(attachment.files)) {
      // Claude Code's own instruction files, each with its path: what it put in front of the model.
      for (const entry of attachment.files) {
        const file = recordOf(entry);
        const text = stringOf(file?.content);
        const path = stringOf(file?.path);
        if (text !== undefined) yield { kind: "shown", text, channel: "system", ...(path?.startsWith("/") ? { about: path } : {}), ...at };
      }
      return;
    }
    const channel: ShownChannel = attachment.type === "hook_additional_context" ? "hook" : "reminder";
    const texts = Array.isArray(rendered) ? rendered.flatMap((each) => textsOf([{ text: recordOf(each)?.content }])) : [];
    if (texts.length === 0) {
      const content = attachment.content;
      texts.push(...(Array.isArray(content) ? content.filter((each): each is string => typeof each === "string") : textsOf(content)));
    }
    for (const text of texts) yield* shownPieces(text, channel, time);
  }

  private *systemPrompt(system: unknown, time: number | undefined): Generator<LogEvent> {
    this.sawSystem = true;
    for (const text of textsOf(system)) {
      if (this.system.has(text)) continue;
      if (this.system.size < MAX_SYSTEM_TEXTS) this.system.add(text);
      yield* shownPieces(text, "system", time);
    }
  }

  *notes(): Generator<LogEvent> {
    if (!this.sawSystem)
      yield {
        kind: "note",
        text: "this transcript records no system prompt (no api-request-shape record): instruction files Claude Code put there cannot be told from it",
      };
    yield* this.tallyNotes();
    if (this.sidechain) yield { kind: "note", text: "subagent (sidechain) records are audited in the same timeline as the main conversation" };
  }
}

/** Claude Code's transcripts: `$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`. */
export const claudeCodeSessionLog: SessionLogReader = {
  records: { systemPrompt: true, hookContext: true, toolResults: true },
  logDirs: (env, home) => [join(env.CLAUDE_CONFIG_DIR?.startsWith("/") ? env.CLAUDE_CONFIG_DIR : join(home, ".claude"), "projects")],
  isLog: (name) => name.endsWith(".jsonl"),
  async *events(lines) {
    const state = new ClaudeLogState();
    for await (const line of lines) yield* state.line(line);
    yield* state.notes();
  },
};
