/**
 * Reads Cline's compaction record of a session (`<sessions>/<id>/<id>.compaction.json`, see
 * compaction.ts) at a hook event. The session id comes from the event: only a plain id is used
 * (sessions.ts), the session directory and the file are lstat'ed first and must be a directory and
 * a regular file, never a link (a link, FIFO or device is no record and is never opened), and reads
 * are bounded: the head first, the whole document (at most MAX_COMPACTION_BYTES) only for a
 * compaction not applied yet.
 */
import { renderPiece } from "../host/pack.js";
import type { HostCompaction, NativeContext } from "../host/profile.js";
import { clineCompactionHead, parseClineCompaction } from "./compaction.js";
import { clineCompactionPath, clineSessionsDir } from "./sessions.js";

/** Bytes read to find the record's id (its keys before `messages`: about 300 bytes). */
const HEAD_BYTES = 4096;
/** Most bytes of a record read whole (one observed with twelve 100 KB reads kept: 0.6 MB). */
export const MAX_COMPACTION_BYTES = 32 * 1024 * 1024;

/** Nothing is seen: every file the compaction may have taken comes again. */
const SEES_NOTHING = (): boolean => false;

/**
 * The latest compaction Cline recorded for session `id`, or null (none, not a plain id, not a
 * regular file, unreadable). `applied`: the compaction already applied, whose record is not read
 * past its head. A record too large or damaged to parse, whose head names a compaction, counts
 * as one that kept nothing agentsmd gave.
 */
export async function readClineCompaction(
  id: string,
  context: Pick<NativeContext<unknown>, "fs" | "home" | "env">,
  applied: string | undefined,
): Promise<HostCompaction | null> {
  const { fs } = context;
  const at = clineCompactionPath(clineSessionsDir(context.env, context.home), id);
  if (at === null) return null;
  try {
    const dir = await fs.lstat(at.dir);
    if (dir?.kind !== "directory" || dir.symlink) return null;
    const file = await fs.lstat(at.file);
    if (file?.kind !== "file" || file.symlink) return null;
    const head = await fs.read(at.file, HEAD_BYTES);
    const headId = clineCompactionHead(Buffer.from(head.bytes).toString("utf8"));
    if (headId !== null && headId === applied) return { id: headId, sees: SEES_NOTHING };
    const whole = !head.truncated ? head : head.size > MAX_COMPACTION_BYTES ? null : await fs.read(at.file, MAX_COMPACTION_BYTES);
    const parsed = whole === null || whole.truncated ? null : parseClineCompaction(Buffer.from(whole.bytes).toString("utf8"));
    if (parsed === null) return headId === null ? null : { id: headId, sees: SEES_NOTHING };
    // What agentsmd gave is in a kept `<hook_context>` exactly as it rendered it.
    return { id: parsed.id, sees: (piece) => parsed.kept.includes(renderPiece(piece)) };
  } catch {
    return null; // an unreadable record is no record: never a failure at every later event
  }
}
