/**
 * The one test of a directory that only its user may change: the hook launcher's compile cache
 * (hook/launch.ts) and every state directory (io/state-store.ts)
 * ask it. Pure: each caller lstats the directory its own way (the launcher without
 * io/file-system.ts), so the launcher stays small.
 */

/** What lstat says of a directory, as far as the test needs it. */
export interface DirectoryFacts {
  /** A real directory: lstat's answer, so a symbolic link to one is not. */
  directory: boolean;
  /** Owner's user id (absent where the platform has none). */
  uid?: number | undefined;
  /** Permission bits (extra type bits are ignored). */
  mode?: number | undefined;
}

/**
 * Why `facts` is not a directory of user `uid` with none of the `denied` mode bits, or null when
 * it is. `uid` undefined (a platform without uids): any owner.
 */
export function ownDirectoryProblem(facts: DirectoryFacts, uid: number | undefined, denied: number): string | null {
  if (!facts.directory) return "is not a directory (a symbolic link, a file or a special file)";
  if (uid !== undefined && facts.uid !== uid) return `belongs to uid ${facts.uid ?? "?"}, not to this user (uid ${uid})`;
  const mode = (facts.mode ?? 0) & 0o7777;
  const open = mode & denied;
  if (open === 0) return null;
  return `is ${open & 0o022 ? "writable" : "open"} by group or others (mode ${(mode & 0o777).toString(8).padStart(3, "0")})`;
}
