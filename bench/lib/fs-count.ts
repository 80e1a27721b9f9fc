/**
 * File-system call counting shared by every implementation under benchmark.
 *
 * Categories (the same for all implementations, so counts compare):
 * - probes:   stat / lstat / access (existence or metadata of one path)
 * - opens:    files opened for reading (readFile counts as one open)
 * - bytesRead
 * - readdirs: directory listings
 * - other:    realpath, etc.
 *
 * Two ways to count:
 * - by injection (naive loader: a counting `NaiveFs`; agentsmd: `createSession({ fs })`), and
 * - by patching `node:fs/promises` in place and calling `syncBuiltinESMExports()` so that
 *   `import * as fs from "node:fs/promises"` in third-party ESM code (Gemini CLI) sees the
 *   wrappers. Synchronous `node:fs` calls are not counted by the patch (the Gemini JIT path makes
 *   none; `setGeminiMdFilename` does, once, at setup).
 *
 * Counting always runs in a separate pass from timing, so wrappers never slow a timed run.
 */
import { createRequire, syncBuiltinESMExports } from "node:module";

export interface FsCounts {
  probes: number;
  opens: number;
  bytesRead: number;
  readdirs: number;
  other: number;
  /** fs.watch handles opened (watchers) */
  watches?: number;
  /** agentsmd only: calls made outside its FileSystem (the watcher's fs.watch), counted by patching */
  external?: FsCounts;
}

export function zeroCounts(): FsCounts {
  return { probes: 0, opens: 0, bytesRead: 0, readdirs: 0, other: 0 };
}

/** Deep copy (counts hold a nested `external`). */
export function copyCounts(c: FsCounts): FsCounts {
  return { ...c, ...(c.external ? { external: { ...c.external } } : {}) };
}

/** Calls that cross into the thread pool at least once (bytes excluded). */
export function totalCalls(c: FsCounts): number {
  return c.probes + c.opens + c.readdirs + c.other;
}

export function diffCounts(after: FsCounts, before: FsCounts): FsCounts {
  const out: FsCounts = {
    probes: after.probes - before.probes,
    opens: after.opens - before.opens,
    bytesRead: after.bytesRead - before.bytesRead,
    readdirs: after.readdirs - before.readdirs,
    other: after.other - before.other,
  };
  if (after.watches !== undefined || before.watches !== undefined) out.watches = (after.watches ?? 0) - (before.watches ?? 0);
  if (after.external) out.external = diffCounts(after.external, before.external ?? zeroCounts());
  return out;
}

/** Adds `b` into `a` (flat fields). */
export function addCounts(a: FsCounts, b: FsCounts, sign = 1): void {
  a.probes += sign * b.probes;
  a.opens += sign * b.opens;
  a.bytesRead += sign * b.bytesRead;
  a.readdirs += sign * b.readdirs;
  a.other += sign * b.other;
  if (b.watches) a.watches = (a.watches ?? 0) + sign * b.watches;
}

export function scaleCounts(c: FsCounts, by: number): FsCounts {
  const r = (n: number) => Math.round((n / by) * 100) / 100;
  return { probes: r(c.probes), opens: r(c.opens), bytesRead: r(c.bytesRead), readdirs: r(c.readdirs), other: r(c.other) };
}

const require = createRequire(import.meta.url);

type AnyFn = (...args: unknown[]) => unknown;

/**
 * Patch `node:fs/promises` so every call adds to `counts`; returns a function that restores it.
 * @example
 * const counts = zeroCounts();
 * const restore = patchFsPromises(counts);
 * try { await geminiLoader.resolve(root, file); } finally { restore(); }
 */
export function patchFsPromises(counts: FsCounts): () => void {
  const fsp = require("node:fs/promises") as Record<string, AnyFn>;
  const originals = new Map<string, AnyFn>();
  const wrap = (name: string, count: (result: unknown) => void, onCall: () => void) => {
    const original = fsp[name]!;
    originals.set(name, original);
    fsp[name] = function (this: unknown, ...args: unknown[]) {
      onCall();
      const result = original.apply(this, args) as Promise<unknown>;
      return result.then((value) => (count(value), value));
    };
  };
  const none = () => undefined;
  for (const name of ["access", "stat", "lstat"]) wrap(name, none, () => counts.probes++);
  wrap(
    "readFile",
    (value) => {
      counts.bytesRead += typeof value === "string" ? Buffer.byteLength(value) : (value as Uint8Array).length;
    },
    () => counts.opens++,
  );
  wrap("open", none, () => counts.opens++);
  for (const name of ["readdir", "opendir"]) wrap(name, none, () => counts.readdirs++);
  for (const name of ["realpath", "readlink"]) wrap(name, none, () => counts.other++);
  syncBuiltinESMExports();
  return () => {
    for (const [name, fn] of originals) fsp[name] = fn;
    syncBuiltinESMExports();
  };
}

/**
 * `patchFsPromises` plus `node:fs` callback stat/lstat, fs.watch and the synchronous calls.
 * Note: agentsmd's own nodeFileSystem also uses callback stat/lstat and fs.promises open/readdir/
 * realpath, so callers subtract what the injected counting FileSystem saw.
 */
export function patchNodeFs(counts: FsCounts): () => void {
  const restorePromises = patchFsPromises(counts);
  const fs = require("node:fs") as Record<string, AnyFn>;
  const originals = new Map<string, AnyFn>();
  for (const name of ["stat", "lstat"]) {
    const original = fs[name]!;
    originals.set(name, original);
    fs[name] = function (this: unknown, ...args: unknown[]) {
      counts.probes++;
      return original.apply(this, args);
    };
  }
  // Synchronous twins too, so "everything minus what the FileSystem saw" holds whichever calls the
  // FileSystem itself uses.
  const syncCategory: Record<string, keyof Pick<FsCounts, "probes" | "opens" | "readdirs" | "other">> = {
    statSync: "probes",
    lstatSync: "probes",
    accessSync: "probes",
    existsSync: "probes",
    openSync: "opens",
    readFileSync: "opens",
    readdirSync: "readdirs",
    realpathSync: "other",
  };
  for (const [name, category] of Object.entries(syncCategory)) {
    const original = fs[name]!;
    originals.set(name, original);
    const wrapped = function (this: unknown, ...args: unknown[]) {
      counts[category]++;
      return original.apply(this, args);
    };
    // realpathSync.native and friends stay reachable
    Object.assign(wrapped, original);
    fs[name] = wrapped;
  }
  const watch = fs.watch!;
  originals.set("watch", watch);
  fs.watch = function (this: unknown, ...args: unknown[]) {
    counts.watches = (counts.watches ?? 0) + 1;
    return watch.apply(this, args);
  };
  syncBuiltinESMExports();
  return () => {
    for (const [name, fn] of originals) fs[name] = fn;
    restorePromises();
  };
}
