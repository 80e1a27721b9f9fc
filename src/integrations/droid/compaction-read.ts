/**
 * Reads Droid's newest compaction record (compaction.ts) from the session log a hook event names
 * (`transcript_path`, attacker-controlled). Only `<sessions>/<folder>/<session_id>.jsonl` under
 * Droid's sessions directory is read (sessions.ts): the folder and the file are lstat'ed first and must be a
 * directory and a regular file, never a link (a link, FIFO or device is no log and is never
 * opened), and only the log's last TAIL_BYTES are read (a log of any size costs the same).
 */
import { readTextRange } from "../../io/file-system.js";
import { renderPiece } from "../host/pack.js";
import type { HostCompaction, NativeContext } from "../host/profile.js";
import { parseDroidCompaction } from "./compaction.js";
import { droidLogPath, droidSessionsDir } from "./sessions.js";

/**
 * Bytes read from the end of the log. The first hook event after a compaction comes one model
 * turn after its record (observed: its record, the next tool call, then the hook run), so the
 * record is near the end; a compaction followed by more than this before the next hook is missed.
 */
export const TAIL_BYTES = 1024 * 1024;

/** Nothing is seen: every file the compaction may have taken comes again. */
const SEES_NOTHING = (): boolean => false;

/**
 * The newest compaction in the Droid session log of this event, or null (none in the log's tail,
 * a path outside Droid's sessions, not a regular file, unreadable). `applied`: the compaction
 * already applied (its kept texts are not needed).
 */
export async function readDroidCompaction(
  input: { transcript_path?: string | undefined; session_id: string },
  context: Pick<NativeContext<unknown>, "fs" | "home" | "env">,
  applied: string | undefined,
): Promise<HostCompaction | null> {
  const at = droidLogPath(droidSessionsDir(context.env, context.home), input.transcript_path, input.session_id);
  if (at === null) return null;
  try {
    const folder = await context.fs.lstat(at.folder);
    if (folder?.kind !== "directory" || folder.symlink) return null;
    const file = await context.fs.lstat(at.file);
    if (file?.kind !== "file" || file.symlink) return null;
    const offset = Math.max(0, file.size - TAIL_BYTES);
    const tail = await readTextRange(at.file, offset, TAIL_BYTES);
    if (tail === null) return null;
    const found = parseDroidCompaction(tail.text, offset === 0);
    if (found === null) return null;
    if (found.id === applied) return { id: found.id, sees: SEES_NOTHING };
    // What agentsmd gave is in a kept hook run's context exactly as it rendered it.
    return { id: found.id, sees: (piece) => found.kept !== "" && found.kept.includes(renderPiece(piece)) };
  } catch {
    return null; // an unreadable log is no record: never a failure at every later event
  }
}
