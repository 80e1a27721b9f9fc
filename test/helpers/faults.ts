/**
 * Fault injection through the `FileSystem` seam: every call goes to the real file system unless a
 * hook intercepts it. Tests run as root, so EACCES, EIO and races are produced here, not by chmod.
 *
 * @example
 * const fs = injectFs({ read: ([path, max], next) => (path === locked ? Promise.reject(fsError(path, "EACCES")) : next(path, max)) });
 * const session = await openSession(tree, { fs });
 */
import { FsError } from "../../src/core/errors.js";
import { nodeFileSystem, type FileSystem } from "../../src/io/file-system.js";

/** The calls that touch the disk (`knownEntries` is a survey's knowledge, never faulted). */
type Disk = Required<Omit<FileSystem, "knownEntries">>;
type Method = Exclude<keyof FileSystem, "knownEntries">;

/** Intercepts one method: gets the call's arguments and the real method to delegate to. */
type Hook<K extends Method> = (args: Parameters<Disk[K]>, next: Disk[K]) => ReturnType<Disk[K]>;

export type Hooks = { [K in Method]?: Hook<K> };

/** A file system that runs `hooks` in front of `inner` (default: the real one). */
export function injectFs(hooks: Hooks, inner: FileSystem = nodeFileSystem): FileSystem {
  const wrap = <K extends Method>(name: K): Disk[K] => {
    const hook = hooks[name] as Hook<K> | undefined;
    const next = ((...args: unknown[]) => (inner[name] as (...a: unknown[]) => unknown).apply(inner, args)) as Disk[K];
    if (!hook) return next;
    return ((...args: Parameters<Disk[K]>) => hook(args, next)) as Disk[K];
  };
  return {
    stat: wrap("stat"),
    lstat: wrap("lstat"),
    read: wrap("read"),
    readdir: wrap("readdir"),
    readdirUnsorted: wrap("readdirUnsorted"),
    realpath: wrap("realpath"),
    writeAtomic: wrap("writeAtomic"),
    mkdir: wrap("mkdir"),
    createExclusive: wrap("createExclusive"),
    remove: wrap("remove"),
  };
}

/** The error the real file system throws for `code` at `path`. */
export function fsError(path: string, code: string, action = "read"): FsError {
  return new FsError(`cannot ${action} ${path}: ${code}`, { path, code, cause: Object.assign(new Error(code), { code }) });
}

/** True when `path` is `dir` or below it. */
export function under(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}
