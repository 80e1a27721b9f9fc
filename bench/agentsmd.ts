/**
 * agentsmd rows of the benchmark, compiled from ../src (no build of dist/ needed).
 *
 * - "agentsmd": `createSession({ cwd, env: {} })` in the default configuration (preset codelia),
 *   `session.resolve(path)`: metadata only. The DESIGN.md targets are checked on this row.
 * - "agentsmd touch": `session.touch([path])`: the bodies, like the peers deliver. The session caps
 *   `lazy.maxFiles` (50) / `lazy.maxBytes` (256 KiB) are lifted for this row, or the touch case
 *   would stop reading after 50 files and compare nothing.
 *
 * fs calls are counted by injecting `countingFileSystem()` (src/file-system.ts) as
 * `createSession({ fs })`; the timing passes use the default `nodeFileSystem`.
 */
import { createSession, nodeFileSystem, type AgentsSession, type AgentsConfig, type FileSystem } from "../src/index.js";
import { countingFileSystem } from "../src/io/file-system.js";
import { existsSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Implementation, Loader, LoadedFile } from "./lib/loader.js";
import { addCounts, patchNodeFs, zeroCounts, type FsCounts } from "./lib/fs-count.js";
import { watchSession, type SessionWatcher } from "../src/session/watch.js";
import { BENCH_DIR, type TreeInfo } from "./generate-tree.js";
import { summarize } from "./lib/measure.js";

const LIFTED_CAPS: AgentsConfig = { lazy: { maxFiles: 1_000_000, maxBytes: 1_000_000_000 } };

/** A FileSystem adding to bench counts (probes = stat + lstat, opens = read). */
function countingInto(counts: FsCounts, inner: FileSystem = nodeFileSystem): FileSystem {
  const { fs, counters } = countingFileSystem(inner);
  let last = { ...counters };
  const sync = () => {
    counts.probes += counters.stat - last.stat + (counters.lstat - last.lstat);
    counts.opens += counters.open - last.open;
    counts.bytesRead += counters.bytesRead - last.bytesRead;
    counts.readdirs += counters.readdir - last.readdir;
    counts.other += counters.realpath - last.realpath;
    last = { ...counters };
  };
  const after =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } finally {
        sync();
      }
    };
  return {
    ...fs,
    stat: (path) => {
      const p = fs.stat(path);
      sync();
      return p;
    },
    lstat: (path) => {
      const p = fs.lstat(path);
      sync();
      return p;
    },
    read: after((path: string, max: number) => fs.read(path, max)),
    readdir: (path) => {
      const p = fs.readdir(path);
      sync();
      return p;
    },
    realpath: (path) => {
      const p = fs.realpath(path);
      sync();
      return p;
    },
  };
}

export interface AgentsmdLoader extends Loader {
  readonly session: AgentsSession | undefined;
  /** Waits for background watcher work (no-op without a watcher). */
  settled(): Promise<void>;
}

interface LoaderOptions {
  mode: "resolve" | "touch";
  counts?: FsCounts | undefined;
  config?: AgentsConfig;
  base?: FileSystem;
  /** start a watcher (`watchSession`, what `createSession({ watch: true })` does) */
  watch?: boolean;
}

function makeLoader(name: string, o: LoaderOptions): AgentsmdLoader {
  const counts = o.counts;
  const fs = counts ? countingInto(counts, o.base) : o.base;
  let session: AgentsSession | undefined;
  let watcher: SessionWatcher | undefined;
  /**
   * Counting mode: calls made outside the injected FileSystem (fs.watch) are counted by patching
   * node:fs and node:fs/promises, minus what the FileSystem itself saw; background watcher work a
   * call starts is waited for (`settled()`) so it is charged to that call.
   */
  const around = async <T>(fn: () => Promise<T>): Promise<T> => {
    // Only a watcher makes calls outside the FileSystem (and a sync-backed FileSystem would make
    // the subtraction below negative).
    if (!counts || !o.watch) return fn();
    const raw = zeroCounts();
    const inside = { ...counts };
    const restore = patchNodeFs(raw);
    try {
      const value = await fn();
      await watcher?.settled();
      return value;
    } finally {
      restore();
      const seen = { ...counts, watches: 0 };
      addCounts(seen, inside, -1);
      addCounts(raw, seen, -1);
      raw.bytesRead = 0; // reads outside the FileSystem are not sized; agentsmd reads go through it
      counts.external ??= zeroCounts();
      addCounts(counts.external, raw);
    }
  };
  const live = (): AgentsSession => {
    if (!session) throw new Error("agentsmd loader: initial() first");
    return session;
  };
  return {
    name,
    get session() {
      return session;
    },
    settled: async () => void (await watcher?.settled()),
    initial: (_root, cwd) =>
      around(async () => {
        await session?.close();
        session = await createSession({ cwd, env: {}, ...(fs ? { fs } : {}), ...(o.config ? { config: o.config } : {}) });
        watcher = o.watch ? await watchSession(session, {}) : undefined;
        return session.initialFiles.filter((f) => f.layer === "project").map((f) => ({ path: f.path, bytes: f.includedBytes }));
      }),
    resolve: (_root, target) =>
      around(async (): Promise<LoadedFile[]> => {
        if (!session) throw new Error("agentsmd loader: initial() first");
        if (o.mode === "resolve") return (await session.resolve(target)).files.map((f) => ({ path: f.path, bytes: 0 }));
        return (await session.touch([target])).map((b) => ({ path: b.path, bytes: Buffer.byteLength(b.content) }));
      }),
    // No closure or frame beyond the library's own call when timed (see Loader.call).
    call:
      counts && o.watch
        ? (_root, target) => around((): Promise<unknown> => (o.mode === "resolve" ? live().resolve(target) : live().touch([target])))
        : o.mode === "resolve"
          ? (_root, target) => (session ?? live()).resolve(target)
          : (_root, target) => (session ?? live()).touch([target]),
    reset() {
      void session?.close();
      session = undefined;
    },
    async close() {
      await session?.close();
      session = undefined;
    },
  };
}

export const agentsmdImplementation: Implementation = {
  name: "agentsmd",
  family: "agentsmd",
  delivers: "metadata",
  create: async (counts) => makeLoader("agentsmd", { mode: "resolve", counts }),
};

/** `createSession({ watch: true })`: one fs.watch per scanned directory invalidates the cache, entries are trusted until then. */
export const agentsmdWatchImplementation: Implementation = {
  name: "agentsmd watch",
  family: "agentsmd",
  delivers: "metadata",
  cases: ["initial", "first-resolve", "seen-resolve", "seen-resolve-idle", "touch-10k", "heap"],
  create: async (counts) => makeLoader("agentsmd watch", { mode: "resolve", counts, watch: true }),
};

export const agentsmdTouchImplementation: Implementation & { cases: string[] } = {
  name: "agentsmd touch",
  family: "agentsmd",
  delivers: "bodies",
  cases: ["first-resolve", "seen-resolve", "touch-10k"],
  create: async (counts) => makeLoader("agentsmd touch", { mode: "touch", counts, config: LIFTED_CAPS }),
};

export async function implementations(): Promise<Implementation[]> {
  return [agentsmdImplementation, agentsmdWatchImplementation, agentsmdTouchImplementation];
}

/** `--experiments`: rows measuring proposed changes without touching src (see bench/experiments/). */
export async function experimentalImplementations(): Promise<Implementation[]> {
  const { syncFileSystem } = await import("./experiments/sync-fs.js");
  return [
    {
      name: "agentsmd sync-fs",
      family: "agentsmd",
      delivers: "metadata",
      cases: ["initial", "first-resolve", "seen-resolve-idle", "touch-10k"],
      create: async (counts) => makeLoader("agentsmd sync-fs", { mode: "resolve", counts, base: syncFileSystem }),
    },
  ];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Edit-to-visible latency in the default configuration (no watcher has landed: the cache trusts
 * a probe for `cache.revalidateMs` = 50 ms, then re-stats). A change is made at t0; `resolve` of a
 * path below it is polled every ~1 ms until the change shows.
 * - edit:   append to an AGENTS.md the session has loaded -> resolve returns it again
 * - create: a new AGENTS.md in a covered directory -> resolve returns it
 * - delete: remove that file -> the directory's probe no longer lists it
 */
async function changeLatency(tree: TreeInfo, rounds: number, watch: boolean) {
  const editFile = tree.deepChainFiles[Math.floor(tree.deepChainFiles.length / 2)]!;
  const chainDirs: string[] = [];
  for (let d = tree.deepDir; d.startsWith(tree.root); d = dirname(d)) {
    chainDirs.push(d);
    if (d === tree.root) break;
  }
  const createDir = chainDirs.find((d) => !tree.deepChainFiles.includes(join(d, "AGENTS.md")))!;
  const createFile = join(createDir, "AGENTS.md");
  const original = readFileSync(editFile);
  const samples = { edit: [] as number[], create: [] as number[], delete: [] as number[] };
  const session = await createSession({ cwd: tree.root, env: {} });
  const watcher = watch ? await watchSession(session, {}) : undefined;
  const returns = async (path: string) => (await session.resolve(tree.deepFile)).files.some((f) => f.path === path);
  const timeout = 2_000;
  try {
    await session.resolve(tree.deepFile);
    await watcher?.settled();
    for (let i = 0; i < rounds; i++) {
      await sleep(5 + (i % 7) * 9); // vary the phase against the revalidation window
      let t0 = performance.now();
      writeFileSync(editFile, Buffer.concat([original, Buffer.from(`\nedit ${i}\n`)]));
      while (!(await returns(editFile))) {
        if (performance.now() - t0 > timeout) throw new Error(`edit of ${editFile} not visible after ${timeout} ms`);
        await sleep(1);
      }
      samples.edit.push(performance.now() - t0);

      await sleep(5 + (i % 5) * 11);
      t0 = performance.now();
      writeFileSync(createFile, `# created ${i}\n`);
      while (!(await returns(createFile))) {
        if (performance.now() - t0 > timeout) throw new Error(`creation of ${createFile} not visible after ${timeout} ms`);
        await sleep(1);
      }
      samples.create.push(performance.now() - t0);

      await sleep(5 + (i % 3) * 13);
      t0 = performance.now();
      rmSync(createFile);
      for (;;) {
        await session.resolve(tree.deepFile);
        const probe = session.cache.peekDir(createDir, session.cache.now()) ?? (await session.cache.probeDir(createDir));
        if (!probe.files.some((f) => f.path === createFile)) break;
        if (performance.now() - t0 > timeout) throw new Error(`deletion of ${createFile} not visible after ${timeout} ms`);
        await sleep(1);
      }
      samples.delete.push(performance.now() - t0);
    }
  } finally {
    writeFileSync(editFile, original);
    rmSync(createFile, { force: true });
    await session.close();
  }
  const all = [...samples.edit, ...samples.create, ...samples.delete];
  return { timing: summarize(all), max: Math.max(...all), kinds: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)])) };
}

/**
 * Edit-to-visible latency. A change is made at t0; `resolve` of a path below it is polled every
 * ~1 ms until the change shows.
 * - edit:   append to an AGENTS.md the session has loaded -> resolve returns it again
 * - create: a new AGENTS.md in a covered directory -> resolve returns it
 * - delete: remove that file -> the directory's cached probe no longer lists it
 * Rows: the default configuration (no watcher: `cache.revalidateMs` = 50 ms), and `watch: true`.
 */
export async function watchLatency(tree: TreeInfo, o: { quick: boolean; log: (s: string) => void }) {
  const rounds = o.quick ? 5 : 20;
  const rows: Array<Record<string, unknown>> = [];
  for (const [name, watch] of [
    ["agentsmd", false],
    ["agentsmd watch", true],
  ] as const) {
    try {
      const r = await changeLatency(tree, rounds, watch);
      o.log(
        `  watch          ${name.padEnd(16)} edit/create/delete visible: median ${r.timing.median.toFixed(1)} ms, p95 ${r.timing.p95.toFixed(1)} ms, max ${r.max.toFixed(1)} ms (${r.timing.samples} changes)`,
      );
      rows.push({
        impl: name,
        family: "agentsmd",
        delivers: "metadata",
        timing: r.timing,
        kinds: r.kinds,
        note: watch ? "fs.watch per directory" : "no watcher: 50 ms revalidation window",
      });
    } catch (error) {
      rows.push({ impl: name, family: "agentsmd", delivers: "metadata", error: error instanceof Error ? error.message : String(error) });
      o.log(`  watch          ${name.padEnd(16)} ERROR ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  rows.push({ impl: "naive", family: "naive", delivers: "bodies", note: "immediate: re-reads everything on every call" });
  rows.push({ impl: "gemini", family: "gemini", delivers: "bodies", note: "never in a session: each file once until /memory reload" });
  return {
    id: "watch",
    title: "edit-to-visible latency: edit, creation, deletion of an AGENTS.md on the chain",
    target: "agentsmd <= 100 ms (default configuration)",
    minimum: null,
    rows,
    ratios: {},
  };
}

/** What the bench uses of chokidar (bench/peers; not a dependency of agentsmd). */
interface ChokidarModule {
  watch(paths: string[], options: Record<string, unknown>): { add(paths: string[]): void; once(event: "ready", fn: () => void): void; close(): Promise<void> };
}

const heapNow = (): number => {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; gc && i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
};

/**
 * What watching costs per watched directory, and at session start.
 * - agentsmd watch: a session at the root resolves N touch paths with `watchSession`; the heap it
 *   retains minus the heap an identical session without a watcher retains, over the directories
 *   watched. Start: `watchSession` on a fresh session whose cwd is the depth-20 directory.
 * - fs.watch: the floor, one bare `fs.watch` per directory of the same set (one shared listener).
 * - chokidar 5 (bench/peers, when installed): the same directories with `depth: 0`, an `ignored`
 *   filter passing only the candidate names, no initial events, no polling: what the watcher
 *   used before (its heap per directory and its time to `ready`).
 */
export async function watchMemory(tree: TreeInfo, o: { quick: boolean; log: (s: string) => void }) {
  const count = o.quick ? 500 : 2_000;
  const paths = tree.touchPaths.slice(0, count);
  const rows: Array<Record<string, unknown>> = [];
  const { watch: fsWatch } = await import("node:fs");
  let dirs: string[] = [];
  try {
    // Baseline: the same session and resolves without a watcher.
    const plainSession = await createSession({ cwd: tree.root, env: {} });
    const before = heapNow();
    for (const path of paths) await plainSession.resolve(path);
    const plain = heapNow() - before;
    await plainSession.close();

    const session = await createSession({ cwd: tree.root, env: {} });
    const base = heapNow();
    const watcher = await watchSession(session, {});
    for (const path of paths) await session.resolve(path);
    await watcher.settled();
    const watched = heapNow() - base;
    dirs = watcher.watchedDirs();
    await session.close();

    const starts: number[] = [];
    for (let i = 0; i < (o.quick ? 10 : 40); i++) {
      const fresh = await createSession({ cwd: tree.deepDir, env: {} });
      const t0 = performance.now();
      await watchSession(fresh, {});
      starts.push(performance.now() - t0);
      await fresh.close();
    }
    const start = summarize(starts);
    const perDir = (watched - plain) / dirs.length;
    const note = `${perDir.toFixed(0)} B per watched directory (${dirs.length} after ${paths.length} resolves); start median ${(start.median * 1000).toFixed(0)} µs`;
    o.log(`  watch-memory   agentsmd watch   ${note}`);
    rows.push({ impl: "agentsmd watch", family: "agentsmd", delivers: "metadata", bytesPerDir: perDir, dirs: dirs.length, start, note });
  } catch (error) {
    rows.push({ impl: "agentsmd watch", family: "agentsmd", delivers: "metadata", error: error instanceof Error ? error.message : String(error) });
    o.log(`  watch-memory   agentsmd watch   ERROR ${error instanceof Error ? error.message : String(error)}`);
  }
  if (dirs.length > 0) {
    const base = heapNow();
    const t0 = performance.now();
    const listener = () => undefined;
    const handles = dirs.map((dir) => fsWatch(dir, { persistent: false }, listener));
    const elapsed = performance.now() - t0;
    const perDir = (heapNow() - base) / dirs.length;
    for (const handle of handles) handle.close();
    const note = `${perDir.toFixed(0)} B per directory, ${elapsed.toFixed(1)} ms to set`;
    o.log(`  watch-memory   fs.watch         ${note}`);
    rows.push({ impl: "fs.watch", family: "floor", delivers: "metadata", bytesPerDir: perDir, dirs: dirs.length, setMs: elapsed, note });

    const chokidarDir = join(BENCH_DIR, "peers", "node_modules", "chokidar");
    if (existsSync(join(chokidarDir, "package.json"))) {
      const { watch } = (await import(pathToFileURL(join(chokidarDir, "index.js")).href)) as ChokidarModule;
      const version = (JSON.parse(readFileSync(join(chokidarDir, "package.json"), "utf8")) as { version: string }).version;
      const set = new Set(dirs);
      const base = heapNow();
      const t0 = performance.now();
      const watcher = watch([], {
        ignoreInitial: true,
        persistent: false,
        depth: 0,
        usePolling: false,
        alwaysStat: false,
        atomic: false,
        ignored: (path: string) => !set.has(path) && !path.endsWith("/AGENTS.md"),
      });
      const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
      watcher.add(dirs);
      await ready;
      const elapsed = performance.now() - t0;
      const perDir = (heapNow() - base) / dirs.length;
      await watcher.close();
      const note = `${perDir.toFixed(0)} B per directory (depth 0), ${elapsed.toFixed(0)} ms to ready`;
      o.log(`  watch-memory   chokidar ${version}    ${note}`);
      rows.push({ impl: `chokidar ${version}`, family: "chokidar", delivers: "metadata", bytesPerDir: perDir, dirs: dirs.length, setMs: elapsed, note });
    } else {
      rows.push({ impl: "chokidar", family: "chokidar", delivers: "metadata", note: "not installed: run `npm ci --prefix bench/peers`" });
    }
  }
  return {
    id: "watch-memory",
    title: "heap per watched directory, and the watcher's start",
    target: "agentsmd watch <= 1 KB per watched directory",
    minimum: null,
    rows,
    ratios: {},
  };
}
