/**
 * Experiment (not part of agentsmd): a `FileSystem` that keeps the async interface but answers
 * from synchronous syscalls (`statSync(..., { throwIfNoEntry: false })`, open/fstat/read/close
 * sync). A stat then costs ~3 µs on the calling thread instead of a ~25 µs thread-pool round trip.
 * `npm run bench -- --experiments` adds an "agentsmd sync-fs" row injecting it with
 * `createSession({ fs })`, to measure what such a change in src/file-system.ts would buy.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readdirSync, realpathSync, statSync, type Stats } from "node:fs";
import { nodeFileSystem, type FileSystem, type FileInfo } from "../../src/index.js";

const ABSENT = new Set(["ENOENT", "ENOTDIR", "ELOOP", "ENAMETOOLONG"]);
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function info(stats: Stats): FileInfo {
  return {
    kind: stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "other",
    mtimeMs: stats.mtimeMs,
    size: stats.size,
    dev: stats.dev,
    ino: stats.ino,
  };
}

/** Falls back to the real async implementation for anything unusual (errors other than absent). */
export const syncFileSystem: FileSystem = {
  ...nodeFileSystem,
  stat(path) {
    try {
      const stats = statSync(path, { throwIfNoEntry: false });
      return Promise.resolve(stats ? info(stats) : null);
    } catch (error) {
      if (ABSENT.has(String((error as { code?: string }).code))) return Promise.resolve(null);
      return nodeFileSystem.stat(path);
    }
  },
  lstat(path) {
    try {
      const stats = lstatSync(path, { throwIfNoEntry: false });
      return Promise.resolve(stats ? { ...info(stats), symlink: stats.isSymbolicLink() } : null);
    } catch {
      return nodeFileSystem.lstat(path);
    }
  },
  read(path, maxBytes) {
    let fd: number;
    try {
      fd = openSync(path, READ_FLAGS);
    } catch {
      return nodeFileSystem.read(path, maxBytes);
    }
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) return nodeFileSystem.read(path, maxBytes);
      const limit = Math.max(0, Math.min(maxBytes, stats.size));
      const buffer = Buffer.allocUnsafe(limit);
      let filled = 0;
      while (filled < limit) {
        const n = readSync(fd, buffer, filled, limit - filled, filled);
        if (n === 0) break;
        filled += n;
      }
      return Promise.resolve({ bytes: buffer.subarray(0, filled), size: stats.size, mtimeMs: stats.mtimeMs, truncated: stats.size > maxBytes });
    } catch {
      return nodeFileSystem.read(path, maxBytes);
    } finally {
      closeSync(fd);
    }
  },
  readdir(path) {
    try {
      return Promise.resolve(
        readdirSync(path, { withFileTypes: true }).map((e) => ({
          name: e.name,
          kind: e.isSymbolicLink() ? ("symlink" as const) : e.isDirectory() ? ("directory" as const) : e.isFile() ? ("file" as const) : ("other" as const),
        })),
      );
    } catch {
      return nodeFileSystem.readdir(path);
    }
  },
  realpath(path) {
    try {
      return Promise.resolve(realpathSync(path));
    } catch {
      return nodeFileSystem.realpath(path);
    }
  },
};
