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
import { createSession, countingFileSystem, nodeFileSystem, type AgentsSession, type AgentsConfig, type FileSystem } from "../src/index.js";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Implementation, Loader, LoadedFile } from "./lib/loader.js";
import type { FsCounts } from "./lib/fs-count.js";
import type { TreeInfo } from "./generate-tree.js";
import { summarize } from "./lib/measure.js";

const LIFTED_CAPS: AgentsConfig = { lazy: { maxFiles: 1_000_000, maxBytes: 1_000_000_000 } };

/** A FileSystem adding to bench counts (probes = stat + lstat, opens = read). */
function countingInto(counts: FsCounts): FileSystem {
  const { fs, counters } = countingFileSystem(nodeFileSystem);
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
}

function makeLoader(name: string, mode: "resolve" | "touch", counts?: FsCounts, config?: AgentsConfig): AgentsmdLoader {
  const fs = counts ? countingInto(counts) : undefined;
  let session: AgentsSession | undefined;
  return {
    name,
    get session() {
      return session;
    },
    async initial(_root, cwd) {
      await session?.close();
      session = await createSession({ cwd, env: {}, ...(fs ? { fs } : {}), ...(config ? { config } : {}) });
      return session.initialFiles.filter((f) => f.layer === "project").map((f) => ({ path: f.path, bytes: f.includedBytes }));
    },
    async resolve(_root, target): Promise<LoadedFile[]> {
      if (!session) throw new Error("agentsmd loader: initial() first");
      if (mode === "resolve") return (await session.resolve(target)).files.map((f) => ({ path: f.path, bytes: 0 }));
      return (await session.touch([target])).map((b) => ({ path: b.path, bytes: Buffer.byteLength(b.content) }));
    },
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
  create: async (counts) => makeLoader("agentsmd", "resolve", counts),
};

export const agentsmdTouchImplementation: Implementation & { cases: string[] } = {
  name: "agentsmd touch",
  family: "agentsmd",
  delivers: "bodies",
  cases: ["first-resolve", "seen-resolve", "touch-10k"],
  create: async (counts) => makeLoader("agentsmd touch", "touch", counts, LIFTED_CAPS),
};

export async function implementations(): Promise<Implementation[]> {
  return [agentsmdImplementation, agentsmdTouchImplementation];
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
export async function watchLatency(tree: TreeInfo, o: { quick: boolean; log: (s: string) => void }) {
  const rounds = o.quick ? 5 : 20;
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
  const returns = async (path: string) => (await session.resolve(tree.deepFile)).files.some((f) => f.path === path);
  const timeout = 2_000;
  try {
    await session.resolve(tree.deepFile);
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
        const probe = await session.cache.probeDir(createDir);
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
  const timing = summarize(all);
  const kinds = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
  o.log(
    `  watch          agentsmd         edit/create/delete visible: median ${timing.median.toFixed(1)} ms, p95 ${timing.p95.toFixed(1)} ms, max ${Math.max(...all).toFixed(1)} ms (${all.length} changes)`,
  );
  return {
    id: "watch",
    title: "edit-to-visible latency, default configuration (50 ms revalidation window; no watcher landed yet)",
    target: "agentsmd <= 100 ms",
    minimum: null,
    rows: [
      { impl: "agentsmd", family: "agentsmd", delivers: "metadata", timing, kinds, note: "watching not landed: revalidation window measured" },
      { impl: "naive", family: "naive", delivers: "bodies", note: "immediate: re-reads everything on every call" },
      { impl: "gemini", family: "gemini", delivers: "bodies", note: "never in a session: each file once until /memory reload" },
    ],
    ratios: {},
  };
}
