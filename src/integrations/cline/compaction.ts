/**
 * Cline CLI 3.0.65's compaction record, the pure part (no I/O). Cline runs no hook when it
 * compacts; it writes what the model sees afterwards to `<id>.compaction.json` beside the session's
 * messages (observed with the binary, test/integrations/cline/compaction/):
 *
 *   { "version": 1, "updated_at": ISO time, "conversation_id", "source_message_count": N,
 *     "source_prefix_hash", "source_last_message_key", "messages": [ a user message whose
 *     `metadata.kind` is `compaction_summary` ("Context summary: ..."), then the messages kept ] }
 *
 * The file is rewritten as the session goes on, its `updated_at` and `source_message_count` only
 * by a new compaction: together they name one. The document is untrusted text: anything not of
 * this shape is no compaction.
 */
import { stringLeaves, jsonRecord } from "../host/transcript.js";

/** One compaction: its id, and the texts of the messages the model kept (the summary among them). */
export interface ClineCompaction {
  id: string;
  kept: string;
}

/** An `updated_at` as Cline writes it: an ISO time, nothing longer. */
const UPDATED_AT = /^[0-9T:.+Z-]{1,40}$/;

function idOf(updatedAt: unknown, count: unknown): string | null {
  if (typeof updatedAt !== "string" || !UPDATED_AT.test(updatedAt)) return null;
  if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 0) return null;
  return `${updatedAt}#${count}`;
}

/** The whole document: its id and kept texts, or null when it is not a compaction record (damaged, cut short, another shape). */
export function parseClineCompaction(text: string): ClineCompaction | null {
  const doc = jsonRecord(text);
  if (!doc || doc.version !== 1 || !Array.isArray(doc.messages)) return null;
  const id = idOf(doc.updated_at, doc.source_message_count);
  return id === null ? null : { id, kept: stringLeaves(doc.messages).join("\n") };
}

/** Top-level `"updated_at": "..."` and `"source_message_count": N`, before `"messages"`. */
const HEAD_UPDATED_AT = /^\s*"updated_at"\s*:\s*"([^"\\]*)"\s*,?\s*$/m;
const HEAD_COUNT = /^\s*"source_message_count"\s*:\s*(\d{1,15})\s*,?\s*$/m;

/**
 * The id from the head of the document alone (Cline writes it indented, these keys before
 * `messages`), so an unchanged compaction costs a few kilobytes and a document too large to read
 * whole still names its compaction. null when the head does not hold both keys before `messages`.
 */
export function clineCompactionHead(head: string): string | null {
  const end = head.indexOf('"messages"');
  if (end < 0) return null;
  const top = head.slice(0, end);
  return idOf(top.match(HEAD_UPDATED_AT)?.[1], Number(top.match(HEAD_COUNT)?.[1] ?? Number.NaN));
}
