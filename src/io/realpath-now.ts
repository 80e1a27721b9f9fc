/**
 * realpath(3) in a few system calls on Linux. The C library resolves a path by an lstat of every
 * prefix (26 calls for a 26-component path, about 48 µs here); the kernel already knows where an
 * open directory is: one open (its own walk through the dentry cache), a readlink of
 * `/proc/self/fd/N` and a close, about 14 µs, whatever the depth. A file that is no symlink is its
 * real directory plus its name (one more lstat). Anything else, and any failure of the quick way
 * (no /proc, a directory the user may search but not read, a race with a removal), asks the C
 * library, so results and errors are those of `realpathSync.native`.
 */
import { closeSync, constants, lstatSync, openSync, readlinkSync, realpathSync } from "node:fs";

/** Set once /proc/self/fd turns out not to be there (a sandbox without /proc): no second try. */
let noProc = process.platform !== "linux";

/** Linux appends this to the target of a descriptor whose file was removed. */
const DELETED = " (deleted)";

/**
 * The real path of the directory `path` through an open descriptor; `not-directory` when `path`
 * (or a component) is something else; undefined when it cannot be opened or the answer is in
 * doubt. Never blocks: O_DIRECTORY refuses a FIFO before it is opened.
 */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- the sentinel is named for the reader
function directoryRealPath(path: string): string | "not-directory" | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (error) {
    return (error as { code?: string }).code === "ENOTDIR" ? "not-directory" : undefined;
  }
  try {
    const real = readlinkSync(`/proc/self/fd/${fd}`);
    return real.startsWith("/") && !real.endsWith(DELETED) ? real : undefined;
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") noProc = true;
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** What a quick resolve of the non-directory `path` gives: its real directory plus its name, when it is no symlink. */
function fileRealPath(path: string): string | undefined {
  // A last name of "", "." or ".." names no file: its parent then is no directory either.
  const cut = path.lastIndexOf("/");
  if (cut <= 0) return undefined;
  const dir = directoryRealPath(path.slice(0, cut));
  if (dir === undefined || dir === "not-directory") return undefined;
  try {
    if (lstatSync(path).isSymbolicLink()) return undefined;
  } catch {
    return undefined;
  }
  return dir === "/" ? path.slice(cut) : dir + path.slice(cut);
}

/**
 * `realpathSync.native(path)` for an absolute path, answered through /proc when it can be.
 */
export function realpathNow(path: string): string {
  if (!noProc && path.startsWith("/")) {
    const direct = directoryRealPath(path);
    const real = direct === "not-directory" ? fileRealPath(path) : direct;
    if (real !== undefined) return real;
  }
  return realpathSync.native(path);
}

/** For tests: whether the quick way is in use on this platform. */
export function realpathNowUsesProc(): boolean {
  return !noProc;
}
