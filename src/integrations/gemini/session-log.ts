/**
 * Gemini CLI's chat log (0.61: `$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-*.jsonl`, the
 * hook events' `transcript_path`) as audit events, on the family's shared reader
 * (host/gemini-family-log.ts). Its lines: a header (`sessionId`, `projectHash`, `startTime`), one
 * record per message (`type` user, gemini or info; `content` the parts of a user message; a gemini
 * message's `toolCalls` each with `name`, `args` and its `result` parts), and `$set` lines; a
 * `$set.messages` replaces the whole history (a session's start, a resume, a compression) and
 * repeats messages already recorded (the shared reader counts each id once). The first message is
 * Gemini's `<session_context>`: the workspace directories (the first is the working directory)
 * and the context files it loaded itself at startup, framed `--- Context from: PATH ---`. The
 * system instruction is not recorded; hook context is, inside the prompt and tool results.
 */
import { checksum } from "../../core/checksum.js";
import { join } from "../../core/paths.js";
import { familySessionLog, type FamilyLine, type FamilyMessage } from "../host/gemini-family-log.js";
import { recordOf, stringOf, timeOf } from "../host/log-event.js";
import { geminiDir } from "../../presets/gemini.js";
import { GEMINI_FAMILY } from "./input.js";

const SESSION_CONTEXT = "<session_context>";
/** The working directory: the first of the workspace directories the session context lists. */
const WORKSPACE = /\n- \*\*Workspace Directories:\*\*\n {2}- (\/[^\n]+)\n/;

/** A user message's parts: `content` is a list of parts or a text. */
function partsOf(content: unknown): unknown[] {
  if (typeof content === "string") return [{ text: content }];
  return Array.isArray(content) ? content : [];
}

/** One recorded message as the shared reader's message: a gemini message's tool calls as function calls, then their results. */
function messagesOf(record: Record<string, unknown>): FamilyMessage[] {
  const time = timeOf(record.timestamp);
  if (record.type === "user") {
    const parts = partsOf(record.content);
    // The session context keeps its id when a new process writes it again with new text (a resume): the id and a checksum of the text name one message.
    const id = stringOf(record.id);
    return [{ ...(id !== undefined ? { id: `${id}#${checksum(JSON.stringify(parts))}` } : {}), ...(time !== undefined ? { time } : {}), role: "user", parts }];
  }
  if (record.type !== "gemini" || !Array.isArray(record.toolCalls)) return [];
  const calls = record.toolCalls.map(recordOf).filter((call) => call !== undefined);
  // The model's message is recorded again once its calls ran (same id): the calls are what counts.
  const model: FamilyMessage = { role: "model", parts: calls.map((call) => ({ functionCall: { id: call.id, name: call.name, args: call.args } })) };
  // A call's result, as sent back: also recorded as the next user message (the reader counts a response id once).
  const results: FamilyMessage = { role: "user", parts: calls.flatMap((call) => (Array.isArray(call.result) ? (call.result as unknown[]) : [])) };
  return [
    { ...model, ...(time !== undefined ? { time } : {}) },
    { ...results, ...(time !== undefined ? { time } : {}) },
  ];
}

/** The working directory a session context names. */
function workspaceOf(message: unknown): string | undefined {
  const first = recordOf(partsOf(recordOf(message)?.content)[0]);
  const text = stringOf(first?.text);
  if (text === undefined || !text.startsWith(SESSION_CONTEXT)) return undefined;
  return WORKSPACE.exec(text.slice(0, 64 * 1024))?.[1];
}

function lineOf(record: Record<string, unknown>): FamilyLine | undefined {
  const set = recordOf(record.$set);
  if (set !== undefined) {
    if (!Array.isArray(set.messages)) return { messages: [] };
    const cwd = workspaceOf(set.messages[0]);
    const messages = set.messages.flatMap((message) => {
      const each = recordOf(message);
      return each === undefined ? [] : messagesOf(each);
    });
    return { ...(cwd !== undefined ? { cwd } : {}), messages };
  }
  if (typeof record.sessionId === "string" && record.type === undefined) return { messages: [] }; // the header
  if (typeof record.type !== "string") return undefined;
  return { messages: messagesOf(record) };
}

/** Gemini CLI's logs under `~/.gemini/tmp` (`$GEMINI_CLI_HOME` replaces the home directory). */
export const geminiSessionLog = familySessionLog({
  records: { systemPrompt: false, startupFiles: true, hookContext: true, toolResults: true },
  logDirs: (env, home) => [join(geminiDir(home, env), "tmp")],
  isLog: (name) => name.startsWith("session-") && name.endsWith(".jsonl"),
  targets: GEMINI_FAMILY.targets,
  editTools: new Set(["write_file", "replace"]),
  partialReadArgs: GEMINI_FAMILY.partialReadArgs,
  line: lineOf,
  channel: (text) => (text.startsWith(SESSION_CONTEXT) ? "system" : text.startsWith("<hook_context>") ? "hook" : "user"),
  notes: [
    "Gemini CLI's log records the context files it loaded at startup (its session context) but not its system instruction; shell commands are not read for paths (as the hook does not)",
  ],
});
