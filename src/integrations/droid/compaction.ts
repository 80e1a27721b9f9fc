/**
 * Factory Droid 0.215.0's record of a compaction in its session log, the pure part (no I/O).
 * `droid exec` runs no hook when it compacts; it appends one `compaction_state` line to the
 * session's JSONL log (observed with the binary, e2e/droid/compaction.e2e.test.ts):
 *
 *   {"type":"compaction_state","id":UUID,"timestamp":ISO time,"summaryText":...,
 *    "anchorMessage":{"id":UUID,"index":N},"removedCount":N,"systemInfo":...,...}
 *
 * The anchor is the last message removed (observed: index 6 with 7 removed); what the log holds
 * after it is what the model still has besides Droid's system prompt, its startup context and the
 * summary. The log is untrusted text: a line not of this shape is no compaction.
 */
import { jsonRecord, stringLeaves } from "../host/transcript.js";
import { jsonLine, recordOf, stringOf } from "../host/log-event.js";

/** One compaction: its id, and the texts of the messages logged after its anchor (what the model kept). */
export interface DroidCompaction {
  id: string;
  kept: string;
}

/** A record or message id as Droid writes them (UUIDs), and its ISO timestamps: nothing longer. */
const RECORD_ID = /^[A-Za-z0-9_-]{1,64}$/;
const TIMESTAMP = /^[0-9T:.+Z-]{1,40}$/;
const MARKER = '"compaction_state"';

function compactionId(record: Record<string, unknown>): { id: string; anchor: string } | null {
  const id = stringOf(record.id);
  const time = stringOf(record.timestamp);
  const anchor = stringOf(recordOf(record.anchorMessage)?.id);
  const removed = record.removedCount;
  if (id === undefined || !RECORD_ID.test(id) || time === undefined || !TIMESTAMP.test(time)) return null;
  if (anchor === undefined || !RECORD_ID.test(anchor) || typeof removed !== "number" || !Number.isSafeInteger(removed) || removed < 0) return null;
  return { id: `${id}@${time}#${anchor}+${removed}`, anchor };
}

/** What a logged message put in front of the model: its text parts, or the context a hook run returned. */
function messageTexts(record: Record<string, unknown>): string[] {
  const message = recordOf(record.message);
  if (record.type !== "message" || message === undefined) return [];
  if (typeof message.hookEventName !== "string") return stringLeaves(message.content);
  if (!Array.isArray(message.hookResults)) return [];
  return message.hookResults.flatMap((result) => {
    const run = recordOf(result);
    const stdout = stringOf(run?.stdout);
    const context =
      run?.exitCode === 0 && stdout !== undefined ? stringOf(recordOf(jsonLine(stdout.trim())?.hookSpecificOutput)?.additionalContext) : undefined;
    return context === undefined ? [] : [context];
  });
}

/**
 * The newest compaction recorded in `text`, the end of a session log (`whole`: from its first
 * byte; else the first line may be cut and is dropped), or null when it holds none. Its kept texts
 * are those of the messages after its anchor; an anchor not in `text` keeps nothing.
 */
export function parseDroidCompaction(text: string, whole: boolean): DroidCompaction | null {
  const lines = text.split("\n");
  if (!whole) lines.shift();
  for (let at = lines.length - 1; at >= 0; at--) {
    if (!lines[at]!.includes(MARKER)) continue;
    const record = jsonRecord(lines[at]!);
    if (record?.type !== "compaction_state") continue;
    const named = compactionId(record);
    if (named === null) continue;
    let anchor = at - 1;
    while (anchor >= 0 && !(lines[anchor]!.includes(named.anchor) && stringOf(jsonRecord(lines[anchor]!)?.id) === named.anchor)) anchor--;
    if (anchor < 0) return { id: named.id, kept: "" };
    const kept: string[] = [];
    for (const line of lines.slice(anchor + 1)) {
      const next = jsonRecord(line);
      if (next !== undefined) kept.push(...messageTexts(next));
    }
    return { id: named.id, kept: kept.join("\n") };
  }
  return null;
}
