/**
 * The only module that imports node:fs. Everything else gets a `FileSystem`, so tests and
 * benchmarks can inject faults or count calls.
 */
import {
  constants,
  promises as fsp,
  stat as statCb,
  lstat as lstatCb,
  readdir as readdirCb,
  statSync,
  lstatSync,
  openSync,
  fstatSync,
  readSync,
  closeSync,
  watch as watchFs,
  fsyncSync,
  fchmodSync,
  mkdirSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  readFileSync,
  type Dirent,
  type Stats,
} from "node:fs";
import { FsError } from "../core/errors.js";
import { realpathNow } from "./realpath-now.js";

export type FileKind = "file" | "directory" | "other";

export interface FileInfo {
  kind: FileKind;
  mtimeMs: number;
  /**
   * When the inode last changed (contents, entries, owner, mode, or a utimes call): unlike mtime,
   * nobody can set it back. Absent where a file system does not give it; then mtime stands in.
   */
  ctimeMs?: number;
  size: number;
  dev: number;
  ino: number;
  /** Owner's user id (POSIX; absent where the platform has none). */
  uid?: number;
  /** Permission bits with set-id and sticky bits (`mode & 0o7777`). */
  mode?: number;
}

export interface ReadResult {
  /** The bytes read: never more than the `maxBytes` asked for. */
  bytes: Uint8Array;
  /** The size of the file when it was opened. */
  size: number;
  mtimeMs: number;
  /** True when the file holds more than was read. */
  truncated: boolean;
}

/** The file-system calls agentsmd makes. All async; nothing else touches the disk. */
export interface FileSystem {
  /** Follows symlinks. `null` when nothing is there (see {@link ABSENT_CODES}); throws {@link FsError} otherwise. */
  stat(path: string): Promise<FileInfo | null>;
  /** Does not follow symlinks; a symlink has kind `other` with `symlink: true`. */
  lstat(path: string): Promise<(FileInfo & { symlink: boolean }) | null>;
  /** Reads at most `maxBytes` from a regular file. Never opens a FIFO or device for a blocking read. */
  read(path: string, maxBytes: number): Promise<ReadResult>;
  /** Names in a directory (for `doctor` and `tree`). */
  readdir(path: string): Promise<Array<{ name: string; kind: FileKind | "symlink" }>>;
  /**
   * Names in a directory in the order the file system lists them (Node's readdir sorts them), for
   * reproducing a program that walks in that order (OpenCode's glob).
   */
  readdirUnsorted(path: string): Promise<Array<{ name: string; kind: FileKind | "symlink" }>>;
  realpath(path: string): Promise<string>;
  /**
   * Replaces the entry at `path` atomically (a temp file beside it created exclusively, never
   * through a link, fsync, rename): a crash leaves the old file intact. A symbolic link at `path`
   * is replaced itself, its target left alone (a caller that means the target resolves it first,
   * as install does for a dotfiles link); an existing regular file keeps its permissions.
   * `options.sync: false` skips the fsync, for a file whose reader detects a torn one (a checksum)
   * and falls back safely: the rename stays atomic.
   */
  writeAtomic(path: string, data: string, options?: WriteOptions): Promise<void>;
  /** Creates a directory and its parents, `mode` for those it creates (no error when it exists). */
  mkdir(path: string, mode?: number): Promise<void>;
  /** Creates a file only if nothing is there, not even a dangling link (a lock file); false when something already is. */
  createExclusive(path: string, data: string): Promise<boolean>;
  /** Removes a file; nothing happens when it is already gone. */
  remove(path: string): Promise<void>;
  /**
   * The names `dir` holds, when already known without I/O (a survey listed the directory and the
   * tree is not changing); undefined otherwise. Lets a probe skip candidates that are absent, and
   * a real path skip the lstat of an entry listed as no symlink.
   */
  knownEntries?(dir: string): { has(name: string): boolean; get(name: string): FileKind | "symlink" | undefined } | undefined;
}

/** How `writeAtomic` writes. */
interface WriteOptions {
  /** fsync the data before the rename (default true). */
  sync?: boolean;
}

/**
 * errno codes that mean "nothing is there": the path is skipped silently. Every other code is a
 * problem worth a diagnostic (EACCES, EIO, ELOOP: a symlink loop is an error, as in Codex).
 */
export const ABSENT_CODES: ReadonlySet<string> = new Set(["ENOENT", "ENOTDIR", "ENAMETOOLONG"]);

export function isAbsent(error: unknown): boolean {
  return typeof error === "object" && error !== null && ABSENT_CODES.has(String((error as { code?: unknown }).code));
}

function kindOf(stats: Stats): FileKind {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  return "other";
}

function entryOf(entry: Dirent): { name: string; kind: FileKind | "symlink" } {
  return {
    name: entry.name,
    kind: entry.isSymbolicLink() ? "symlink" : entry.isDirectory() ? "directory" : entry.isFile() ? "file" : "other",
  };
}

function infoOf(stats: Stats): FileInfo {
  return {
    kind: kindOf(stats),
    mtimeMs: stats.mtimeMs,
    ctimeMs: stats.ctimeMs,
    size: stats.size,
    dev: stats.dev,
    ino: stats.ino,
    uid: stats.uid,
    mode: stats.mode & 0o7777,
  };
}

function wrap(error: unknown, path: string, action: string): FsError {
  const raw = (error as { code?: unknown } | null)?.code;
  const code = typeof raw === "string" ? raw : "EUNKNOWN";
  const fix =
    code === "EACCES" || code === "EPERM"
      ? `check the permissions of ${path}`
      : code === "ENOTREG"
        ? `replace ${path} with a regular file or remove it`
        : undefined;
  return new FsError(`cannot ${action} ${path}: ${code}`, { path, code, cause: error, ...(fix ? { fix } : {}) });
}

// The callback forms are measurably cheaper than fs.promises for stat-heavy walks.
function statAsync(path: string, follow: boolean): Promise<Stats> {
  return new Promise((resolve, reject) => {
    (follow ? statCb : lstatCb)(path, (error, stats) => (error ? reject(error) : resolve(stats)));
  });
}

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
/**
 * A new file, never an existing entry: O_EXCL fails on any entry, a symbolic link included
 * (dangling or not), and O_NOFOLLOW says so again where O_EXCL alone might not (old NFS).
 */
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
const CHUNK = 64 * 1024;

/**
 * The real file system with every call through libuv's thread pool. Use it on network file
 * systems, where a metadata call may take milliseconds and must not hold the event loop.
 * @example const session = await createSession({ cwd, fs: asyncFileSystem });
 */
export const asyncFileSystem: FileSystem = {
  async stat(path) {
    try {
      return infoOf(await statAsync(path, true));
    } catch (error) {
      if (isAbsent(error)) return null;
      throw wrap(error, path, "stat");
    }
  },

  async lstat(path) {
    try {
      const stats = await statAsync(path, false);
      return { ...infoOf(stats), symlink: stats.isSymbolicLink() };
    } catch (error) {
      if (isAbsent(error)) return null;
      throw wrap(error, path, "lstat");
    }
  },

  async read(path, maxBytes) {
    let handle: fsp.FileHandle;
    try {
      // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer.
      handle = await fsp.open(path, READ_FLAGS);
    } catch (error) {
      throw wrap(error, path, "open");
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw wrap(Object.assign(new Error("not a regular file"), { code: "ENOTREG" }), path, "read");
      const limit = Math.max(0, Math.min(maxBytes, Number.MAX_SAFE_INTEGER));
      // Never read past the budget, whatever the file's size; a file that grows meanwhile is read
      // only up to the size it had when opened.
      const buffer = Buffer.allocUnsafe(Math.min(limit, stats.size));
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, Math.min(CHUNK, buffer.length - filled), filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      const truncated = stats.size > limit;
      const kept = filled;
      return { bytes: buffer.subarray(0, kept), size: stats.size, mtimeMs: stats.mtimeMs, truncated };
    } catch (error) {
      throw error instanceof FsError ? error : wrap(error, path, "read");
    } finally {
      await handle.close().catch(() => undefined);
    }
  },

  async readdir(path) {
    try {
      // The callback form: ~30% faster than fs.promises over a 100,000-directory scan (doctor, tree).
      const entries = await new Promise<Dirent[]>((resolve, reject) =>
        readdirCb(path, { withFileTypes: true }, (error, list) => (error ? reject(error) : resolve(list))),
      );
      return entries.map(entryOf);
    } catch (error) {
      throw wrap(error, path, "list");
    }
  },

  async readdirUnsorted(path) {
    try {
      // opendir reads the directory as the kernel lists it; readdir's scandir sorts.
      const out: Array<{ name: string; kind: FileKind | "symlink" }> = [];
      for await (const entry of await fsp.opendir(path, { bufferSize: 256 })) out.push(entryOf(entry));
      return out;
    } catch (error) {
      throw wrap(error, path, "list");
    }
  },

  async realpath(path) {
    try {
      return await fsp.realpath(path);
    } catch (error) {
      throw wrap(error, path, "resolve");
    }
  },

  writeAtomic,
  mkdir: mkdirp,
  createExclusive: exclusive,
  remove,
};

/** The synchronous twin of asyncFileSystem.read: same checks, same bound. */
function readNow(path: string, maxBytes: number): ReadResult {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer.
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    throw wrap(error, path, "open");
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw wrap(Object.assign(new Error("not a regular file"), { code: "ENOTREG" }), path, "read");
    const limit = Math.max(0, Math.min(maxBytes, Number.MAX_SAFE_INTEGER));
    const buffer = Buffer.allocUnsafe(Math.min(limit, stats.size));
    let filled = 0;
    while (filled < buffer.length) {
      const bytesRead = readSync(fd, buffer, filled, Math.min(CHUNK, buffer.length - filled), filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { bytes: buffer.subarray(0, filled), size: stats.size, mtimeMs: stats.mtimeMs, truncated: stats.size > limit };
  } catch (error) {
    throw error instanceof FsError ? error : wrap(error, path, "read");
  } finally {
    try {
      closeSync(fd);
    } catch {
      // nothing to do: the descriptor is gone either way
    }
  }
}

function statNow(path: string, follow: boolean): Stats | null {
  try {
    return (follow ? statSync : lstatSync)(path, { throwIfNoEntry: false }) ?? null;
  } catch (error) {
    if (isAbsent(error)) return null;
    throw wrap(error, path, follow ? "stat" : "lstat");
  }
}

/**
 * The real file system (the default). stat, lstat, realpath and the bounded reads of instruction
 * files run synchronously: on a local disk a stat costs a few µs on the calling thread against
 * 10-40 µs for a thread-pool round trip, and the resolver makes one per unseen directory (measured
 * in `npm run bench`: the initial load and a cold resolve are 4-5x faster); a realpath of a chain's
 * deepest directory (io/real-path.ts) replaces an lstat per level. Reads are bounded by the budget,
 * so none holds the thread long. readdir stays asynchronous. On a network file system pass
 * {@link asyncFileSystem} instead.
 * @example const session = await createSession({ cwd, fs: nodeFileSystem });
 */
export const nodeFileSystem: FileSystem = {
  ...asyncFileSystem,
  read: (path, maxBytes) => {
    try {
      return Promise.resolve(readNow(path, maxBytes));
    } catch (error) {
      return Promise.reject(error);
    }
  },
  stat: (path) => {
    try {
      const stats = statNow(path, true);
      return Promise.resolve(stats ? infoOf(stats) : null);
    } catch (error) {
      return Promise.reject(error);
    }
  },
  lstat: (path) => {
    try {
      const stats = statNow(path, false);
      return Promise.resolve(stats ? { ...infoOf(stats), symlink: stats.isSymbolicLink() } : null);
    } catch (error) {
      return Promise.reject(error);
    }
  },
  realpath: (path) => {
    try {
      return Promise.resolve(realpathNow(path));
    } catch (error) {
      return Promise.reject(wrap(error, path, "resolve"));
    }
  },
};

/** One directory watched for changes to its entries (session/watch.ts). */
export interface DirectoryWatch {
  close(): void;
}

/**
 * Watches one directory, not recursively (inotify on Linux, FSEvents/kqueue on macOS):
 * `onEvent("rename", name)` when an entry appears, vanishes or is renamed, `("change", name)` when
 * one is written; `name` is null when the platform did not say which. A watch that breaks later
 * calls `onError`. Throws an {@link FsError} when it cannot be set up (ENOENT, EMFILE, ENOSPC: the
 * inotify watch limit, EACCES). Never keeps the process alive.
 */
export function watchDirectory(
  path: string,
  onEvent: (kind: "rename" | "change", name: string | null) => void,
  onError: (error: FsError) => void,
): DirectoryWatch {
  try {
    const watcher = watchFs(path, { persistent: false, encoding: "utf8" }, (kind, name) => onEvent(kind === "change" ? "change" : "rename", name ?? null));
    watcher.on("error", (error) => onError(wrap(error, path, "watch")));
    return watcher;
  } catch (error) {
    throw wrap(error, path, "watch");
  }
}

/**
 * This machine's name, as os.hostname() gives it (lock files record it). On Linux it is read from
 * /proc/sys/kernel/hostname, the same uname node name, so a hook process does not load node:os for
 * it (about half a millisecond a call); elsewhere, or when that file is unreadable, node:os.
 */
export function hostName(): string {
  if (process.platform === "linux") {
    try {
      const name = readFileSync("/proc/sys/kernel/hostname", "utf8").trim();
      if (name !== "") return name;
    } catch {
      // a container without /proc: ask node:os
    }
  }
  return process.getBuiltinModule("node:os").hostname();
}

/**
 * A kernel pseudo-file's text (`/proc/<pid>/cmdline`, whose size reads 0), at most `maxBytes`
 * bytes, or null when it is absent, unreadable or no regular file. Linux only: null elsewhere.
 */
export async function readPseudoFile(path: string, maxBytes: number): Promise<string | null> {
  if (process.platform !== "linux") return null;
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(path, READ_FLAGS);
    if (!(await handle.stat()).isFile()) return null;
    const buffer = Buffer.alloc(maxBytes);
    let read = 0;
    while (read < maxBytes) {
      const { bytesRead } = await handle.read(buffer, read, maxBytes - read, null);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return buffer.subarray(0, read).toString("utf8");
  } catch {
    return null;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** A synchronous call as the Promise the FileSystem interface returns. */
function settled<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Takes group and others' permissions off a directory of the user's: opened without following a
 * link (O_DIRECTORY | O_NOFOLLOW) and changed through that descriptor, so a directory swapped for
 * a link in between is never what is changed. false when it could not be done.
 */
export function closeDirectory(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | (constants.O_NOFOLLOW ?? 0));
    const stats = fstatSync(fd);
    if (!stats.isDirectory()) return false;
    fchmodSync(fd, stats.mode & 0o700);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The permissions a replacement keeps: an existing regular file's (never a link target's), else 0600. */
function keptMode(stats: Stats | null | undefined): number {
  return stats?.isFile() ? stats.mode & 0o777 : 0o600;
}

/** A temp file's name beside `path`: the rename that replaces the entry stays in one directory. */
function tempBeside(path: string): string {
  return `${path}.${process.pid}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}.tmp`;
}

/** The synchronous twin of writeAtomic: same temp file, mode, fsync and rename. */
function writeAtomicNow(path: string, data: string, options?: WriteOptions): void {
  let mode = 0o600;
  try {
    mode = keptMode(lstatSync(path, { throwIfNoEntry: false }));
  } catch {
    // keep the default
  }
  const temp = tempBeside(path);
  let fd: number | undefined;
  try {
    fd = openSync(temp, CREATE_FLAGS, mode);
    writeFileSync(fd, data, "utf8");
    if (options?.sync !== false) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // the descriptor is gone either way
      }
    }
    try {
      unlinkSync(temp);
    } catch {
      // never created, or already gone
    }
    throw wrap(error, path, "write");
  }
}

/**
 * Every call on the calling thread, writes too (atomic replacement with fsync, lock files). For a
 * short-lived process such as a hook (`agentsmd hook <host>`, one per tool call): it never starts
 * libuv's thread pool nor loads node's fs/promises (about twenty internal modules), which a
 * process that lives for one event pays for nothing. Long-lived hosts keep {@link nodeFileSystem}.
 */
export const syncFileSystem: FileSystem = {
  ...nodeFileSystem,
  readdir: (path) =>
    settled(() => {
      try {
        return readdirSync(path, { withFileTypes: true }).map((entry) => ({
          name: entry.name,
          kind: entry.isSymbolicLink() ? "symlink" : entry.isDirectory() ? "directory" : entry.isFile() ? "file" : "other",
        }));
      } catch (error) {
        throw wrap(error, path, "list");
      }
    }),
  realpath: (path) =>
    settled(() => {
      try {
        return realpathNow(path);
      } catch (error) {
        throw wrap(error, path, "resolve");
      }
    }),
  writeAtomic: (path, data, options) => settled(() => writeAtomicNow(path, data, options)),
  mkdir: (path, mode) =>
    settled(() => {
      try {
        mkdirSync(path, { recursive: true, ...(mode !== undefined ? { mode } : {}) });
      } catch (error) {
        throw wrap(error, path, "create directory");
      }
    }),
  createExclusive: (path, data) =>
    settled(() => {
      try {
        const fd = openSync(path, CREATE_FLAGS, 0o666);
        try {
          writeFileSync(fd, data, "utf8");
        } finally {
          closeSync(fd);
        }
        return true;
      } catch (error) {
        if ((error as { code?: string }).code === "EEXIST") return false;
        throw wrap(error, path, "create");
      }
    }),
  remove: (path) =>
    settled(() => {
      try {
        unlinkSync(path);
      } catch (error) {
        if ((error as { code?: string }).code === "ENOENT") return;
        // the code fs.rm gives a directory (unlink says EISDIR on Linux, EPERM on macOS)
        const directory = statNow(path, false)?.isDirectory() ?? false;
        throw wrap(directory ? Object.assign(new Error("is a directory"), { code: "ERR_FS_EISDIR" }) : error, path, "remove");
      }
    }),
};

export interface FsCounters {
  stat: number;
  lstat: number;
  open: number;
  bytesRead: number;
  readdir: number;
  realpath: number;
  /** writeAtomic, createExclusive and remove calls. */
  write: number;
}

/**
 * Wraps a file system and counts its calls (benchmarks, tests that assert "a warm cache reads nothing").
 */
export function countingFileSystem(inner: FileSystem = nodeFileSystem): { fs: FileSystem; counters: FsCounters; reset(): void } {
  const counters: FsCounters = { stat: 0, lstat: 0, open: 0, bytesRead: 0, readdir: 0, realpath: 0, write: 0 };
  const fs: FileSystem = {
    stat: (path) => (counters.stat++, inner.stat(path)),
    lstat: (path) => (counters.lstat++, inner.lstat(path)),
    read: async (path, maxBytes) => {
      counters.open++;
      const result = await inner.read(path, maxBytes);
      counters.bytesRead += result.bytes.length;
      return result;
    },
    readdir: (path) => (counters.readdir++, inner.readdir(path)),
    readdirUnsorted: (path) => (counters.readdir++, inner.readdirUnsorted(path)),
    realpath: (path) => (counters.realpath++, inner.realpath(path)),
    writeAtomic: (path, data, options) => (counters.write++, inner.writeAtomic(path, data, options)),
    mkdir: (path, mode) => inner.mkdir(path, mode),
    createExclusive: (path, data) => (counters.write++, inner.createExclusive(path, data)),
    remove: (path) => (counters.write++, inner.remove(path)),
  };
  const reset = () => {
    for (const key of Object.keys(counters) as Array<keyof FsCounters>) counters[key] = 0;
  };
  return { fs, counters, reset };
}

/** Reads a small whole text file (config, state). `null` when absent. Bounded by `maxBytes`. */
export async function readTextFile(path: string, maxBytes = 64 * 1024 * 1024, fs: FileSystem = nodeFileSystem): Promise<string | null> {
  try {
    const result = await fs.read(path, maxBytes);
    if (result.truncated) throw new FsError(`${path} is larger than ${maxBytes} bytes`, { path, code: "EFBIG" });
    return Buffer.from(result.bytes).toString("utf8");
  } catch (error) {
    if (error instanceof FsError && ABSENT_CODES.has(error.code)) return null;
    throw error;
  }
}

async function writeAtomic(path: string, data: string, options?: WriteOptions): Promise<void> {
  // The entry is replaced, never what a link there points to: a state file swapped for a link to a
  // user's file (or a FIFO, a device) must not get that file overwritten (issue 18, row 9).
  const mode = keptMode(await fsp.lstat(path).catch(() => null));
  const temp = tempBeside(path);
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(temp, CREATE_FLAGS, mode);
    await handle.writeFile(data, "utf8");
    if (options?.sync !== false) await handle.sync();
    await handle.close();
    handle = undefined;
    await fsp.rename(temp, path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fsp.rm(temp, { force: true }).catch(() => undefined);
    throw wrap(error, path, "write");
  }
}

async function mkdirp(path: string, mode?: number): Promise<void> {
  try {
    await fsp.mkdir(path, { recursive: true, ...(mode !== undefined ? { mode } : {}) });
  } catch (error) {
    throw wrap(error, path, "create directory");
  }
}

async function exclusive(path: string, data: string): Promise<boolean> {
  try {
    await fsp.writeFile(path, data, { flag: CREATE_FLAGS });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") return false;
    throw wrap(error, path, "create");
  }
}

async function remove(path: string): Promise<void> {
  try {
    await fsp.rm(path, { force: true });
  } catch (error) {
    throw wrap(error, path, "remove");
  }
}

/**
 * Replaces a file atomically through `fs` (default: the real file system).
 */
export function writeFileAtomic(path: string, data: string, fs: FileSystem = nodeFileSystem): Promise<void> {
  return fs.writeAtomic(path, data);
}

/**
 * Creates a directory and its parents through `fs`.
 */
export function ensureDir(path: string, fs: FileSystem = nodeFileSystem, mode?: number): Promise<void> {
  return fs.mkdir(path, mode);
}

/**
 * Creates `path` exclusively (a lock file). False when it already exists.
 */
export function createExclusive(path: string, data: string, fs: FileSystem = nodeFileSystem): Promise<boolean> {
  return fs.createExclusive(path, data);
}

/**
 * Removes a file; nothing happens when it is already gone.
 */
export function removeFile(path: string, fs: FileSystem = nodeFileSystem): Promise<void> {
  return fs.remove(path);
}

/** mtime of a path without following symlinks, or null. Used for stale-lock detection. */
export async function ageMs(path: string, fs: FileSystem = nodeFileSystem): Promise<number | null> {
  try {
    const info = await fs.lstat(path);
    return info ? Date.now() - info.mtimeMs : null;
  } catch {
    return null;
  }
}

/**
 * A small JSON settings file (at most 4 MiB) parsed, or undefined when it is absent, not a regular
 * file, unreadable or not JSON: for optional settings another program owns.
 */
export async function readJsonQuietly(fs: FileSystem, path: string): Promise<unknown> {
  try {
    const info = await fs.stat(path);
    if (!info || info.kind !== "file") return undefined;
    const read = await fs.read(path, 4 * 1024 * 1024);
    return JSON.parse(Buffer.from(read.bytes).toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Removes a directory only when it is empty; false when it is not empty or not there.
 */
export async function removeEmptyDir(path: string): Promise<boolean> {
  try {
    await fsp.rmdir(path);
    return true;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOENT" || code === "ENOTDIR") return false;
    throw wrap(error, path, "remove directory");
  }
}

/**
 * Reads at most `maxBytes` of a regular file starting at byte `offset` (a transcript's end),
 * without blocking on a FIFO. `null` when the file is absent or not a regular file.
 */
export async function readTextRange(path: string, offset: number, maxBytes: number): Promise<{ text: string; size: number } | null> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(path, READ_FLAGS);
    const stats = await handle.stat();
    if (!stats.isFile()) return null;
    const start = Math.max(0, Math.min(offset, stats.size));
    const length = Math.max(0, Math.min(maxBytes, stats.size - start));
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await handle.read(buffer, read, length - read, start + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { text: buffer.subarray(0, read).toString("utf8"), size: stats.size };
  } catch (error) {
    if (isAbsent(error)) return null;
    throw wrap(error, path, "read");
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * A new private directory (0700) under the system's temporary directory, by its real path.
 */
export async function makeTempDir(prefix: string): Promise<string> {
  const { tmpdir } = process.getBuiltinModule("node:os");
  return fsp.realpath(await fsp.mkdtemp(`${tmpdir().replace(/\/+$/, "")}/${prefix}`));
}

/**
 * Removes a directory agentsmd made (makeTempDir) and everything in it; nothing when it is gone.
 */
export async function removeTree(path: string): Promise<void> {
  await fsp.rm(path, { recursive: true, force: true });
}

/** One line of {@link readLines}: its text, or only its length when it ran over the cap (not kept). */
export type BoundedLine = { text: string; bytes: number } | { text: null; bytes: number };

/**
 * The lines of a regular file, streamed in 1 MB chunks: never more than `maxLineBytes` of one line
 * held (a longer line comes back as `{ text: null }` with its length, unread), and no byte past
 * `maxBytes` read. Lines split at the 0x0A byte, which never occurs inside a UTF-8 sequence. The
 * file is opened without blocking on a FIFO; not a regular file: an FsError naming it.
 */
export async function* readLines(path: string, limits: { maxLineBytes: number; maxBytes: number }): AsyncGenerator<BoundedLine> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(path, READ_FLAGS);
    if (!(await handle.stat()).isFile()) throw Object.assign(new Error("not a regular file"), { code: "ENOTREG" });
  } catch (error) {
    await handle?.close().catch(() => undefined);
    throw wrap(error, path, "read");
  }
  const chunk = Buffer.alloc(1 << 20);
  let parts: Buffer[] = [];
  let held = 0; // bytes of the current line kept in parts
  let length = 0; // bytes of the current line seen
  let position = 0;
  try {
    while (position < limits.maxBytes) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, limits.maxBytes - position), position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let start = 0;
      while (start < bytesRead) {
        const newline = chunk.indexOf(10, start);
        const end = newline === -1 || newline >= bytesRead ? bytesRead : newline;
        length += end - start;
        if (length <= limits.maxLineBytes) {
          parts.push(Buffer.from(chunk.subarray(start, end)));
          held += end - start;
        } else if (held > 0) {
          parts = [];
          held = 0;
        }
        if (end === bytesRead) break;
        yield length <= limits.maxLineBytes ? { text: Buffer.concat(parts, held).toString("utf8"), bytes: length } : { text: null, bytes: length };
        parts = [];
        held = 0;
        length = 0;
        start = end + 1;
      }
    }
    if (length > 0) yield length <= limits.maxLineBytes ? { text: Buffer.concat(parts, held).toString("utf8"), bytes: length } : { text: null, bytes: length };
  } catch (error) {
    throw wrap(error, path, "read");
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** A regular file open for reads at any offset (a database's pages): {@link openRandomAccess}. */
export interface RandomAccessFile {
  /** Its size when opened. */
  size: number;
  /** Up to `length` bytes from `offset` (fewer at the end of the file). */
  readAt(offset: number, length: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * Opens a regular file read-only for reads at any offset (never written, never locked), or null
 * when it is absent. Not a regular file: an FsError naming it.
 */
export async function openRandomAccess(path: string): Promise<RandomAccessFile | null> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(path, READ_FLAGS);
    const stats = await handle.stat();
    if (!stats.isFile()) throw Object.assign(new Error("not a regular file"), { code: "ENOTREG" });
  } catch (error) {
    await handle?.close().catch(() => undefined);
    if (isAbsent(error)) return null;
    throw wrap(error, path, "read");
  }
  const open = handle;
  const size = (await open.stat()).size;
  return {
    size,
    async readAt(offset, length) {
      const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
      let read = 0;
      while (read < buffer.length) {
        const { bytesRead } = await open.read(buffer, read, buffer.length - read, offset + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      return buffer.subarray(0, read);
    },
    close: () => open.close().catch(() => undefined),
  };
}
