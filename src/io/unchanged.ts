/**
 * The one rule by which a fresh stat of a directory vouches for what was seen in it earlier
 * (which candidate names were absent, which entries were no symlink): the directory has not
 * changed since that look. Every change of a directory's entries (a creation, removal, rename, a
 * symlink put in place of a directory) moves its mtime and ctime; ctime counts as well because
 * nobody can set it back (utimes can set mtime to anything, and moves ctime).
 */
import type { FileInfo } from "./file-system.js";

/**
 * How long before a look a directory's last change must lie for a stat to vouch for the look.
 * Timestamps are coarse (a jiffy on Linux, 1-2 s on some file systems) and the kernel's clock
 * lags the wall clock by up to a tick: a change in the same tick as the look would not show
 * ("racy git").
 */
export const RACY_MS = 2_000;

/**
 * True when `dir` (a stat of a directory taken now) shows no change since the wall-clock moment
 * `sinceMs` (Date.now() taken before the look): what was seen in it then still holds.
 */
export function unchangedSince(dir: FileInfo | null, sinceMs: number): boolean {
  if (dir === null || dir.kind !== "directory") return false;
  const changed = dir.ctimeMs === undefined ? dir.mtimeMs : Math.max(dir.mtimeMs, dir.ctimeMs);
  return changed <= sinceMs - RACY_MS;
}
