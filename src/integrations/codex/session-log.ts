/**
 * Codex's session log (the rollout `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`, one JSON
 * record a line: `{timestamp, type, payload}`) as audit events: cwd from `session_meta` and
 * `turn_context`, touches from the model's tool calls read the way the hook reads them (shell
 * commands through shell-paths.ts, patches through `patchTargets`), and what reached the model:
 * the `response_item` messages (user, developer: Codex's own AGENTS.md, hook context) and tool
 * outputs, the base instructions when the log carries them. `event_msg` records repeat those and
 * are left out. Pure over the lines it is given; a bad line is skipped.
 */
import { join } from "../../core/paths.js";
import { patchTargets, usablePath } from "../host/targets.js";
import { jsonLine, recordOf, stringOf, timeOf, type LogEvent, type SessionLogReader, type ShownChannel, type TouchUse, textsOf } from "../host/log-event.js";
import { JsonLinesLog } from "../host/log-lines.js";
import { splitFrames } from "../host/log-frames.js";
import { ShellCommandTally, touchesOf } from "../host/log-shell.js";

/** A tool call's arguments: a JSON text (function calls) or an object. */
function argumentsOf(value: unknown): Record<string, unknown> {
  if (typeof value === "string") return jsonLine(value) ?? {};
  return recordOf(value) ?? {};
}

/** The command line of a shell call: `cmd` (exec_command), `command` as text or argv (`bash -lc TEXT`). */
function commandOf(args: Record<string, unknown>): string | undefined {
  const text = stringOf(args.cmd) ?? stringOf(args.command);
  if (text !== undefined) return text;
  if (!Array.isArray(args.command) || !args.command.every((word) => typeof word === "string")) return undefined;
  const argv = args.command;
  if (argv.length === 3 && /(^|\/)(ba|z|)sh$/.test(argv[0]!) && /^-l?c$/.test(argv[1]!)) return argv[2];
  return undefined;
}

class CodexLogState extends JsonLinesLog {
  protected override readonly shell = new ShellCommandTally();
  sawBase = false;
  /** call_id -> the file a call showed whole (its output is that file's text). */
  private readonly wholeReads = new Map<string, string>();

  constructor(private readonly home: string) {
    super("rollout records");
  }

  *line(line: string | null): Generator<LogEvent> {
    const record = this.record(line, (record) => recordOf(record.payload) !== undefined);
    const payload = recordOf(record?.payload);
    if (record === undefined || payload === undefined) return;
    const time = timeOf(record.timestamp);
    const at = time !== undefined ? { time } : {};
    switch (record.type) {
      case "session_meta":
      case "turn_context": {
        yield* this.moveTo(stringOf(payload.cwd), time);
        const base = stringOf(recordOf(payload.base_instructions)?.text) ?? stringOf(payload.instructions);
        if (record.type === "session_meta" && base !== undefined) {
          this.sawBase = true;
          yield* this.shown(base, "system", undefined, at);
        }
        return;
      }
      case "response_item":
        yield* this.item(payload, at);
        return;
    }
  }

  private *shown(text: string, channel: ShownChannel, about: string | undefined, at: { time?: number }): Generator<LogEvent> {
    if (about !== undefined) {
      yield { kind: "shown", text, channel, about, ...at };
      return;
    }
    for (const piece of splitFrames(text)) yield { kind: "shown", text: piece.text, channel, ...(piece.about ? { about: piece.about } : {}), ...at };
  }

  private *item(payload: Record<string, unknown>, at: { time?: number }): Generator<LogEvent> {
    switch (payload.type) {
      case "message": {
        if (payload.role === "assistant") return;
        const channel: ShownChannel = payload.role === "developer" || payload.role === "system" ? "hook" : "user";
        for (const text of textsOf(payload.content)) yield* this.shown(text, channel, undefined, at);
        return;
      }
      case "function_call":
      case "custom_tool_call":
      case "local_shell_call":
        yield* this.call(payload, at);
        return;
      case "function_call_output":
      case "custom_tool_call_output": {
        const output = payload.output;
        const texts = typeof output === "string" ? [output] : textsOf(recordOf(output)?.content ?? output);
        const about = this.wholeReads.get(stringOf(payload.call_id) ?? "");
        for (const text of texts) yield* this.shown(text, "tool-result", about, at);
        return;
      }
    }
  }

  private *call(payload: Record<string, unknown>, at: { time?: number }): Generator<LogEvent> {
    const name = stringOf(payload.name) ?? stringOf(payload.type) ?? "tool";
    const args = payload.type === "local_shell_call" ? (recordOf(payload.action) ?? {}) : argumentsOf(payload.input ?? payload.arguments);
    const workdir = stringOf(args.workdir);
    const cwd = workdir !== undefined && this.cwd !== undefined ? usablePath(workdir, this.cwd) : this.cwd;
    if (cwd === undefined) return;
    const touch = (path: string, use: TouchUse): LogEvent => ({ kind: "touch", path, use, tool: name, ...at });
    if (name === "apply_patch") {
      const text = typeof payload.input === "string" ? payload.input : (stringOf(args.input) ?? stringOf(args.patch));
      for (const path of patchTargets(text, cwd, { deleted: true })) yield touch(path, "edit");
      return;
    }
    const command = commandOf(args);
    if (command === undefined) return;
    const plain = this.shell.paths(command, { cwd, home: this.home });
    if (plain === undefined) return;
    const whole = plain.filter((p) => p.shown === "whole");
    const callId = stringOf(payload.call_id);
    if (whole.length === 1 && plain.length === 1 && callId !== undefined) this.wholeReads.set(callId, whole[0]!.path);
    yield* touchesOf(plain, name, at);
  }

  *notes(): Generator<LogEvent> {
    if (!this.sawBase) yield { kind: "note", text: "this rollout records no base instructions: what Codex put in its system prompt cannot be told from it" };
    yield* this.tallyNotes();
  }
}

/** Codex's rollouts: `$CODEX_HOME/sessions` (default `~/.codex/sessions`) and `archived_sessions`. */
export const codexSessionLog: SessionLogReader = {
  records: { systemPrompt: true, hookContext: true, toolResults: true },
  logDirs: (env, home) => {
    const codexHome = env.CODEX_HOME?.startsWith("/") ? env.CODEX_HOME : join(home, ".codex");
    return [join(codexHome, "sessions"), join(codexHome, "archived_sessions")];
  },
  isLog: (name) => name.startsWith("rollout-") && name.endsWith(".jsonl"),
  async *events(lines, context) {
    const state = new CodexLogState(context.home);
    for await (const line of lines) yield* state.line(line);
    yield* state.notes();
  },
};
