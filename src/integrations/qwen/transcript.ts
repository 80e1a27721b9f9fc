/**
 * What Qwen Code's chat transcript says about the conversation the model sees now. Pure (no I/O).
 *
 * Qwen Code 0.24 records a session as JSON lines (`$QWEN_HOME/projects/<project>/chats/<id>.jsonl`,
 * the events' `transcript_path`): `user`, `assistant` and `tool_result` records each carry a
 * `message` (`{role, parts}`; hook context is inside: PostToolUse text in the tool's output,
 * UserPromptSubmit text as a prompt part), `system` records carry bookkeeping. A compaction writes
 * a `system` record with `subtype: "chat_compression"` whose `systemPayload.compressedHistory` is
 * the new history; the request that triggered it still sends its pending message (the tool
 * results recorded just before), and everything recorded afterwards follows. SessionStart text
 * lives in the system prompt, never in the transcript.
 */
import { jsonRecord, stringLeaves } from "../host/transcript.js";

const MESSAGE_TYPES = new Set(["user", "assistant", "tool_result"]);

interface Record_ {
  type?: unknown;
  subtype?: unknown;
  message?: unknown;
  systemPayload?: { compressedHistory?: unknown } | null;
}

function parse(line: string): Record_ | undefined {
  return jsonRecord(line);
}

/** The conversation the model sees, from a transcript (or its end). */
export interface QwenHistory {
  /** True when the text holds a compaction record. */
  compacted: boolean;
  /** The text of every message of the current history, joined by newlines. */
  text: string;
}

/**
 * The current history: after the last compaction its compressed history, the pending message sent
 * with it and every later message; without one, every message.
 */
export function qwenHistory(text: string): QwenHistory {
  const records = text.split("\n").map(parse);
  let compaction = -1;
  for (let index = records.length - 1; index >= 0; index--) {
    const record = records[index];
    if (record?.type === "system" && record.subtype === "chat_compression") {
      compaction = index;
      break;
    }
  }
  const parts: string[] = [];
  let from = 0;
  if (compaction >= 0) {
    stringLeaves(records[compaction]!.systemPayload?.compressedHistory, parts);
    // The pending message: what was recorded after the model's last answer before the compaction.
    let pending = compaction;
    while (pending > 0 && records[pending - 1]?.type !== "assistant") pending--;
    from = pending;
  }
  for (let index = from; index < records.length; index++) {
    const record = records[index];
    if (record && typeof record.type === "string" && MESSAGE_TYPES.has(record.type)) stringLeaves(record.message, parts);
  }
  return { compacted: compaction >= 0, text: parts.join("\n") };
}
