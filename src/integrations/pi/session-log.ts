/**
 * pi's session file (`<agent dir>/sessions/--<cwd>--/<time>_<id>.jsonl`, one JSON entry a line;
 * observed with 0.87.1) as audit events: cwd from the `session` header, touches from the
 * assistant's `toolCall` blocks resolved as pi resolves them (pi/targets.ts; `bash` commands
 * through shell-paths.ts), and what reached the model: the system prompt (pi logs it as `system`
 * messages whose `sections` change; `project_context` holds the instruction files pi loaded
 * itself), user messages, tool results (with what an extension such as agentsmd's added),
 * `custom_message` entries (an extension's messages, sent to the model as user messages) and
 * compaction summaries. Pure over the lines it is given; a bad line is skipped.
 */
import { join } from "../../core/paths.js";
import { piAgentDir } from "../../presets/pi.js";
import { recordOf, stringOf, timeOf, type LogEvent, type SessionLogReader, type ShownChannel, type TouchUse, textsOf } from "../host/log-event.js";
import { JsonLinesLog } from "../host/log-lines.js";
import { splitFrames } from "../host/log-frames.js";
import { ShellCommandTally } from "../host/log-shell.js";
import { PI_SHELL_TOOL, piToolTargets } from "./targets.js";

const EDIT_TOOLS: ReadonlySet<string> = new Set(["edit", "write"]);
/** Whole-file reads remembered until their result. */
const MAX_READS = 256;

function* shownPieces(text: string, channel: ShownChannel, at: { time?: number }): Generator<LogEvent> {
  for (const piece of splitFrames(text)) yield { kind: "shown", text: piece.text, channel, ...(piece.about ? { about: piece.about } : {}), ...at };
}

class PiLogState extends JsonLinesLog {
  protected override readonly shell = new ShellCommandTally();
  private sawSystem = false;
  private edited = 0;
  /** toolCallId -> the file a `read` without offset or limit showed. */
  private readonly wholeReads = new Map<string, string>();

  constructor(private readonly home: string) {
    super("session entries");
  }

  *line(line: string | null): Generator<LogEvent> {
    const entry = this.record(line, (entry) => typeof entry.type === "string");
    if (entry === undefined) return;
    const time = timeOf(entry.timestamp);
    const at = time !== undefined ? { time } : {};
    switch (entry.type) {
      case "session": {
        yield* this.moveTo(stringOf(entry.cwd), time);
        return;
      }
      case "message":
        yield* this.message(recordOf(entry.message), at);
        return;
      case "custom_message":
        for (const text of textsOf(entry.content)) yield* shownPieces(text, "hook", at);
        return;
      case "compaction":
      case "branch_summary": {
        const summary = stringOf(entry.summary);
        if (summary !== undefined) yield* shownPieces(summary, "user", at);
        return;
      }
      case "context_edit":
        this.edited++;
        return;
    }
  }

  private *message(message: Record<string, unknown> | undefined, at: { time?: number }): Generator<LogEvent> {
    switch (message?.role) {
      case "system": {
        this.sawSystem = true;
        // Only the sections that changed are logged; the ones before still stand.
        const sections = recordOf(message.sections) ?? {};
        for (const value of Object.values(sections)) if (typeof value === "string") yield* shownPieces(value, "system", at);
        for (const text of textsOf(message.content)) if (text !== "") yield* shownPieces(text, "system", at);
        return;
      }
      case "user":
        for (const text of textsOf(message.content)) yield* shownPieces(text, "user", at);
        return;
      case "custom":
        for (const text of textsOf(message.content)) yield* shownPieces(text, "hook", at);
        return;
      case "assistant":
        if (Array.isArray(message.content)) for (const block of message.content) yield* this.call(recordOf(block), at);
        return;
      case "toolResult": {
        const id = stringOf(message.toolCallId) ?? "";
        const about = message.isError === true ? undefined : this.wholeReads.get(id);
        this.wholeReads.delete(id);
        // A whole read's first part is the file's text; what an extension appended follows.
        const texts = textsOf(message.content);
        for (let index = 0; index < texts.length; index++) {
          if (index === 0 && about !== undefined) yield { kind: "shown", text: texts[0]!, channel: "tool-result", about, ...at };
          else yield* shownPieces(texts[index]!, "tool-result", at);
        }
        return;
      }
    }
  }

  private *call(block: Record<string, unknown> | undefined, at: { time?: number }): Generator<LogEvent> {
    const tool = stringOf(block?.name);
    const args = recordOf(block?.arguments);
    const cwd = this.cwd;
    if (block?.type !== "toolCall" || tool === undefined || args === undefined || cwd === undefined) return;
    const touch = (path: string, use: TouchUse): LogEvent => ({ kind: "touch", path, use, tool, ...at });
    if (tool === PI_SHELL_TOOL) {
      const command = stringOf(args.command);
      if (command === undefined) return;
      yield* this.shell.touches(command, { cwd, home: this.home }, tool, at);
      return;
    }
    const targets = piToolTargets(tool, args, cwd, this.home);
    const id = stringOf(block.id);
    if (
      tool === "read" &&
      targets.length === 1 &&
      args.offset === undefined &&
      args.limit === undefined &&
      id !== undefined &&
      this.wholeReads.size < MAX_READS
    )
      this.wholeReads.set(id, targets[0]!);
    for (const path of targets) yield touch(path, EDIT_TOOLS.has(tool) ? "edit" : "read");
  }

  *notes(): Generator<LogEvent> {
    if (!this.sawSystem) yield { kind: "note", text: "this session file records no system prompt: the instruction files pi put there cannot be told from it" };
    if (this.edited > 0)
      yield { kind: "note", text: `${this.edited} context edit(s) replaced or removed earlier messages: texts they took away still count as shown` };
    yield* this.tallyNotes();
  }
}

/** pi's session files: `<agent dir>/sessions` (`$PI_CODING_AGENT_DIR`, default `~/.pi/agent`). */
export const piSessionLog: SessionLogReader = {
  records: { systemPrompt: true, hookContext: true, toolResults: true },
  logDirs: (env, home) => {
    const dir = piAgentDir({ home, env });
    return [join(dir.startsWith("/") ? dir : join(join(home, ".pi"), "agent"), "sessions")];
  },
  isLog: (name) => name.endsWith(".jsonl"),
  async *events(lines, context) {
    const state = new PiLogState(context.home);
    for await (const line of lines) yield* state.line(line);
    yield* state.notes();
  },
};
