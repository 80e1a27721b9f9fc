/**
 * Persisted sessions: read/validate a state file, write it atomically, and a cross-process lock
 * (exclusive lock file, stale-lock recovery) so concurrent processes never lose an update.
 *
 * Never through a link: a state or lock file that is not a regular file (a symbolic link, a FIFO,
 * a device) is refused, not opened, and a save replaces the directory entry, never what it points
 * to. A state directory must be this user's alone to write (io/own-directory.ts): anyone else who
 * may write there could swap a state file for a link between two calls.
 */
import { basename, dirname } from "node:path";
import { FsError, StateError, jsonParseProblem } from "../core/errors.js";
import {
  ageMs,
  closeDirectory,
  createExclusive,
  hostName,
  nodeFileSystem,
  readTextFile,
  removeFile,
  writeFileAtomic,
  type FileInfo,
  type FileSystem,
} from "./file-system.js";
import { ownDirectoryProblem } from "./own-directory.js";
import { parseSessionState } from "../core/session-state.js";
import type { SessionState } from "../core/schema.js";

/** Largest state file accepted. */
export const MAX_STATE_BYTES = 64 * 1024 * 1024;

/** What group and others may not do in a state directory: write (they could swap a file for a link). */
const STATE_DIR_DENIED = 0o022;

/** The mode of the directories agentsmd creates for state: the user's alone. */
const STATE_DIR_MODE = 0o700;

/** Where to keep state instead, for a fix that names a directory agentsmd may not use. */
const ELSEWHERE = "or keep agentsmd's state in a directory only you can write (XDG_STATE_HOME; --state-dir or the stateDir option; --state for the CLI)";

/**
 * The directories a state directory's safety rests on: itself, and the `agentsmd` folder above it
 * when it is one (`$XDG_STATE_HOME/agentsmd/<host>`: whoever may write there may rename `<host>`).
 */
function stateDirLevels(dir: string): string[] {
  const parent = dirname(dir);
  return basename(parent) === "agentsmd" ? [parent, dir] : [dir];
}

function refusedDir(dir: string, problem: string, info: FileInfo & { symlink: boolean }): StateError {
  const fix = !(info.kind === "directory" && !info.symlink)
    ? `remove or rename ${dir} (agentsmd creates it as a directory only you can write), ${ELSEWHERE}`
    : info.uid !== process.getuid?.()
      ? `have uid ${info.uid ?? "?"} remove ${dir}, ${ELSEWHERE}`
      : `chmod 700 ${dir}, ${ELSEWHERE}`;
  return new StateError(`state directory ${dir} ${problem}: another user could swap a state file there for a link; agentsmd neither reads nor writes there`, {
    path: dir,
    fix,
  });
}

/** Checks each present level (top first); true when every level is there. */
async function checkLevels(levels: readonly string[], uid: number, fs: FileSystem): Promise<boolean> {
  for (const level of levels) {
    let info = await fs.lstat(level);
    if (info === null) return false;
    let problem = ownDirectoryProblem({ directory: info.kind === "directory" && !info.symlink, uid: info.uid, mode: info.mode }, uid, STATE_DIR_DENIED);
    // agentsmd's own folders that an older agentsmd made with the user's umask (0775 under umask
    // 002): the user's, so closed to group and others here, top first, instead of refused.
    if (problem !== null && levels.length > 1 && info.uid === uid && info.kind === "directory" && !info.symlink && closeDirectory(level)) {
      info = await fs.lstat(level);
      problem = info && ownDirectoryProblem({ directory: info.kind === "directory" && !info.symlink, uid: info.uid, mode: info.mode }, uid, STATE_DIR_DENIED);
    }
    if (info === null) return false;
    if (problem !== null) throw refusedDir(level, problem, info);
  }
  return true;
}

/**
 * Refuses a state directory (and the `agentsmd` folder above it) that is not a real directory of
 * this user or that group or others may write, with a StateError naming it and the fix; with
 * `create`, first makes what is missing, 0700. Absent and not created: nothing to refuse. On a
 * platform without uids (Windows) nothing is checked.
 */
export async function privateStateDir(dir: string, fs: FileSystem, create: boolean): Promise<void> {
  const uid = process.getuid?.();
  if (uid === undefined) {
    if (create) await fs.mkdir(dir, STATE_DIR_MODE);
    return;
  }
  const levels = stateDirLevels(dir);
  if ((await checkLevels(levels, uid, fs)) || !create) return;
  await fs.mkdir(dir, STATE_DIR_MODE);
  await checkLevels(levels, uid, fs);
}

/**
 * The text of a state or lock file; null when absent. Never through a link and never a FIFO or a
 * device: an entry that is not a regular file is refused (a StateError naming it), never opened.
 */
export async function readStateText(path: string, maxBytes: number, fs: FileSystem): Promise<string | null> {
  const info = await fs.lstat(path);
  if (info === null) return null;
  if (info.symlink || info.kind !== "file") {
    const what = info.symlink ? "a symbolic link" : info.kind === "directory" ? "a directory" : "a FIFO, socket or device";
    throw new StateError(`${path} is ${what}, not a file agentsmd wrote; agentsmd never reads or writes through it and left it untouched`, {
      path,
      fix: `remove ${path} (agentsmd then starts a new state file there)`,
    });
  }
  return readTextFile(path, maxBytes, fs);
}

/**
 * Reads and validates a state file; null when it does not exist. Never modifies the file.
 */
export async function readStateFile(path: string, fs: FileSystem = nodeFileSystem): Promise<SessionState | null> {
  let text: string | null;
  try {
    text = await readStateText(path, MAX_STATE_BYTES, fs);
  } catch (error) {
    if (error instanceof StateError) throw error;
    throw new StateError(`cannot read state file ${path}: ${(error as Error).message}`, {
      path,
      cause: error,
      fix: "check the path and permissions, or delete the file",
    });
  }
  if (text === null) return null;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new StateError(`state file ${path} is not valid JSON (truncated or corrupt): ${jsonParseProblem(error)}`, {
      path,
      cause: error,
      fix: `delete ${path} to start a new session`,
    });
  }
  try {
    return parseSessionState(data, `state file ${path}`);
  } catch (error) {
    if (error instanceof StateError) throw new StateError(error.message, { path, cause: error.cause, fix: `delete ${path} to start a new session` });
    throw error;
  }
}

/**
 * Writes a state file atomically (temp file + fsync + rename of the entry, never through a link),
 * in a directory only this user may write (created 0700 when missing).
 */
export async function writeStateFile(path: string, state: SessionState, fs: FileSystem = nodeFileSystem): Promise<void> {
  await privateStateDir(dirname(path), fs, true);
  await writeFileAtomic(path, `${JSON.stringify(state)}\n`, fs);
}

export interface LockOptions {
  /** Give up after this long. @default 10000 */
  timeoutMs?: number;
  /** A lock older than this is considered abandoned by a dead process. @default 30000 */
  staleMs?: number;
  /** Where the lock files live. @default nodeFileSystem */
  fs?: FileSystem;
  /**
   * "private": the lock's directory must be this user's alone (privateStateDir: it holds state
   * files); "any": a lock that guards no file in its directory (a build step's, in the temp directory).
   * @default "private"
   */
  directory?: "private" | "any";
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

/**
 * 16 hex digits that tell two acquisitions apart (not a secret: Math.random, so a hook process does
 * not load node:crypto just to take a lock).
 */
function randomHex(): string {
  const part = () =>
    Math.floor(Math.random() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, "0");
  return part() + part();
}

/** What a lock file holds: the owner's pid, host and a token unique to this acquisition. */
function lockContent(): string {
  return `${process.pid}\n${hostName()}\n${randomHex()}\n`;
}

interface LockSeen {
  text: string;
  ino: number;
}

/** A lock file's text; null when absent or unreadable. A lock that is not a regular file is refused (readStateText). */
function lockText(lock: string, fs: FileSystem): Promise<string | null> {
  return readStateText(lock, 256, fs).catch((error: unknown) => {
    if (error instanceof StateError) throw error;
    return null;
  });
}

/** The content and inode of a lock file, or null when there is none. */
async function readLock(lock: string, fs: FileSystem): Promise<LockSeen | null> {
  const [text, info] = await Promise.all([lockText(lock, fs), fs.lstat(lock).catch(() => null)]);
  return text === null || info === null ? null : { text, ino: info.ino };
}

/**
 * True when a lock was left by a process that is gone (same host, pid not running) or is older
 * than `staleMs`.
 */
async function isStale(lock: string, seen: LockSeen, staleMs: number, fs: FileSystem): Promise<boolean> {
  const [pidLine = "", host = ""] = seen.text.split("\n");
  const owner = Number.parseInt(pidLine.trim(), 10);
  // A pid from another host (a shared state directory) says nothing about liveness here.
  const sameHost = host === "" || host === hostName();
  if (sameHost && Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) return true;
  const age = await ageMs(lock, fs);
  return age !== null && age > staleMs;
}

/**
 * The guard that lets one process break one particular stale lock: named after that lock's
 * content and inode, so it can never stand for a newer lock at the same path.
 */
export function breakGuardPath(lock: string, seen: { text: string; ino: number }): string {
  return `${lock}.break-${process.getBuiltinModule("node:crypto").createHash("sha256").update(`${seen.ino}\0${seen.text}`).digest("hex").slice(0, 16)}`;
}

/**
 * Removes `lock` if it is stale. Removing by path is only safe for the instance judged stale:
 * only the process that creates that instance's guard may remove it, and only after checking
 * the path still holds that instance. A guard left by a breaker that died is broken the same
 * way (bounded depth).
 */
async function breakStale(lock: string, staleMs: number, fs: FileSystem, depth = 0): Promise<void> {
  const seen = await readLock(lock, fs);
  if (!seen || !(await isStale(lock, seen, staleMs, fs))) return;
  const guard = breakGuardPath(lock, seen);
  if (!(await createExclusive(guard, lockContent(), fs))) {
    if (depth < 3) await breakStale(guard, staleMs, fs, depth + 1);
    return;
  }
  try {
    const now = await readLock(lock, fs);
    if (now && now.text === seen.text && now.ino === seen.ino) await removeFile(lock, fs);
  } finally {
    await removeFile(guard, fs);
  }
}

/** Removes the lock only while it is still ours (a lock broken as stale may belong to another process now). */
async function releaseLock(lock: string, content: string, fs: FileSystem): Promise<void> {
  const text = await readStateText(lock, 256, fs).catch(() => null);
  if (text === content) await removeFile(lock, fs);
}

/**
 * What a failure to take a lock means for the user: a state directory that is another user's (or
 * read-only) stays so at every event, so the error names the directory, its owner and the ways
 * out instead of the errno of whichever file was tried.
 */
async function stateDirError(error: unknown, lock: string, fs: FileSystem): Promise<unknown> {
  if (!(error instanceof FsError)) return error;
  const dir = dirname(lock);
  if (error.code === "EACCES" || error.code === "EPERM" || error.code === "EROFS") {
    const info = await fs.stat(dir).catch(() => null);
    const self = process.getuid?.();
    const owner = info?.uid !== undefined && info.uid !== self ? `, which belongs to uid ${info.uid}` : "";
    return new StateError(`cannot take the lock ${lock}: this user (uid ${self ?? "?"}) may not write in ${dir}${owner} (${error.code})`, {
      path: dir,
      cause: error,
      fix: `if no agentsmd process is running, have the owner delete ${lock}; or make ${dir} yours (chown); or point XDG_STATE_HOME at a directory you own`,
    });
  }
  if (error.code === "EEXIST" || error.code === "ENOTDIR") {
    return new StateError(`cannot keep state in ${dir}: it or a directory above it is not a directory (${error.code})`, {
      path: dir,
      cause: error,
      fix: `remove or rename the file standing in the way of ${dir}, or point XDG_STATE_HOME elsewhere`,
    });
  }
  return error;
}

/**
 * Runs `fn` while holding `<path>.lock`. Stale locks (dead owner on this host, or older than
 * `staleMs`) are broken, one breaker at a time. The directory is checked (and created 0700) by
 * privateStateDir first; a lock that is not a regular file (a link, a FIFO) is refused at once.
 */
export async function withLock<T>(path: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lock = `${path}.lock`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const fs = options.fs ?? nodeFileSystem;
  const content = lockContent();
  const started = Date.now();
  let delay = 2;
  try {
    if (options.directory === "any") await fs.mkdir(dirname(path));
    else await privateStateDir(dirname(path), fs, true);
    for (;;) {
      if (await createExclusive(lock, content, fs)) break;
      await breakStale(lock, staleMs, fs);
      if (Date.now() - started > timeoutMs) {
        throw new StateError(`timed out waiting for the lock ${lock}`, { path: lock, fix: `if no agentsmd process is running, delete ${lock}` });
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 50);
    }
  } catch (error) {
    throw await stateDirError(error, lock, fs);
  }
  try {
    return await fn();
  } finally {
    await releaseLock(lock, content, fs);
  }
}
