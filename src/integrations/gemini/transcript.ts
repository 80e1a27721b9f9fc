/**
 * What Gemini CLI's chat transcript says about the conversation the model sees now. Pure (no I/O):
 * callers pass the text of the transcript (or of its end, from an offset they recorded).
 *
 * Gemini CLI 0.61 records a session as JSON lines (`~/.gemini/tmp/<project>/chats/session-*.jsonl`,
 * the events' `transcript_path`): a header line, one line per message, and `{"$set":{"messages":[…]}}`
 * whenever it replaces the whole history: when a session is resumed and after every chat
 * compression (`GeminiClient.tryCompressChat` starts a new chat with the compressed history). Every
 * message's text is in the line: hook context appended to tool output, prompts with their
 * `<hook_context>` parts.
 */
import { jsonRecord, stringLeaves } from "../host/transcript.js";

/** The start of a line that replaces the whole recorded history. */
const HISTORY_RESET = '{"$set":{"messages":';

/** The history the model sees since the last replacement in `text`. */
export interface GeminiHistory {
  /** True when `text` holds a history replacement (a compression, or the reload of a resumed session). */
  replaced: boolean;
  /** The text of every message of the current history, joined by newlines ("" when not `replaced`). */
  text: string;
}

/**
 * The current history from a piece of transcript: the last whole-history line and the messages
 * recorded after it.
 */
export function geminiHistory(text: string): GeminiHistory {
  const lines = text.split("\n");
  let start = -1;
  for (let index = lines.length - 1; index >= 0; index--) {
    if (lines[index]!.startsWith(HISTORY_RESET)) {
      start = index;
      break;
    }
  }
  if (start < 0) return { replaced: false, text: "" };
  const parts: string[] = [];
  for (const line of lines.slice(start)) {
    const data = jsonRecord(line);
    if (data === undefined) continue;
    if (data.$set !== undefined) {
      const set = data.$set as Record<string, unknown> | null;
      if (set && Array.isArray(set.messages)) {
        parts.length = 0; // a later replacement wins
        stringLeaves(set.messages, parts);
      }
      continue;
    }
    if (data.type === "user" || data.type === "gemini" || data.type === "info") stringLeaves(data.content, parts);
    if (Array.isArray(data.toolCalls)) stringLeaves(data.toolCalls, parts);
  }
  return { replaced: true, text: parts.join("\n") };
}
