/**
 * `npm run bench` / `npm run bench:quick`: the benchmark suite.
 *
 * One process, one run: every case runs agentsmd, the naive reference and Gemini CLI's JIT loader
 * back to back on the same generated tree, so ratios are measured pair by pair. Each case has a
 * timing pass (no instrumentation) and a separate counting pass (fs calls next to the minimum).
 *
 * Options: --quick (under a minute), --only id,id  --impl name,name  --no-verify  --experiments
 *          --dirs N  --seed S  --out FILE (default bench/results/latest.json; --quick writes
 *          bench/results/quick.json unless --out is given)
 */
import { cpus, totalmem, platform, arch, release, loadavg } from "node:os";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve as resolvePath } from "node:path";
import { generateTree, BENCH_DIR, type TreeInfo } from "./generate-tree.js";
import { naiveImplementation } from "./naive-loader.js";
import { geminiImplementation, geminiAvailability } from "./gemini-jit.js";
import { verify } from "./verify.js";
import { measure, summarize, type Timing } from "./lib/measure.js";
import { zeroCounts, diffCounts, totalCalls, scaleCounts, copyCounts, type FsCounts } from "./lib/fs-count.js";
import type { Implementation, Loader } from "./lib/loader.js";
import { hookRows, replay, type HookRow, type ReplayResult } from "./hook.js";
import { cliRows, type CliRow } from "./cli.js";
import { pluginRows, type PluginRow } from "./plugin.js";
import { cleanupProcessScratch } from "./lib/process-cpu.js";

// ---------------------------------------------------------------- options

interface Args {
  quick: boolean;
  only: Set<string> | null;
  impl: Set<string> | null;
  verify: boolean;
  experiments: boolean;
  dirs: number | undefined;
  seed: number | undefined;
  out: string | undefined;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { quick: false, only: null, impl: null, verify: true, experiments: false, dirs: undefined, seed: undefined, out: undefined };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    const v = argv[i + 1];
    if (x === "--quick") a.quick = true;
    else if (x === "--no-verify") a.verify = false;
    else if (x === "--experiments") a.experiments = true;
    else if (x === "--only") ((a.only = new Set(String(v).split(","))), i++);
    else if (x === "--impl") ((a.impl = new Set(String(v).split(","))), i++);
    else if (x === "--dirs") ((a.dirs = Number(v)), i++);
    else if (x === "--seed") ((a.seed = Number(v)), i++);
    else if (x === "--out") ((a.out = resolvePath(String(v))), i++);
    else throw new Error(`unknown option ${x}; options: --quick --only --impl --no-verify --dirs --seed --out`);
  }
  return a;
}

// ---------------------------------------------------------------- helpers

const gc = (globalThis as { gc?: () => void }).gc;

function fullGc(): void {
  if (!gc) return;
  for (let i = 0; i < 4; i++) gc();
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.01 ? 2 : 1)} µs`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

function fmtCounts(c: FsCounts | null): string {
  if (!c) return "-";
  const parts = [`${c.probes} st`, `${c.opens} op`];
  if (c.readdirs) parts.push(`${c.readdirs} rd`);
  if (c.other) parts.push(`${c.other} oth`);
  const e = c.external;
  if (e && (e.probes || e.opens || e.readdirs || e.other || e.watches)) {
    const ext = [
      e.probes && `${e.probes} st`,
      e.opens && `${e.opens} op`,
      e.readdirs && `${e.readdirs} rd`,
      e.other && `${e.other} oth`,
      e.watches && `${e.watches} fs.watch`,
    ].filter(Boolean);
    parts.push(`+ watcher ${ext.join(" ")}`);
  }
  return parts.join(" ");
}

function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}

// ---------------------------------------------------------------- cases

interface CaseContext {
  tree: TreeInfo;
  quick: boolean;
  touchPaths: string[];
  /** when set, multi-path ops push each call's duration (ms) here */
  perCall?: number[];
}

interface RowResult {
  impl: string;
  family: string;
  delivers: string;
  timing?: Timing;
  /** for multi-op cases: time of one whole pass, and per path */
  perPath?: { median: number; p95: number; mean: number };
  /** paths this row ran (multi-path cases) */
  paths?: number;
  fs?: FsCounts;
  fsTotal?: number;
  heapBytes?: number;
  note?: string;
  error?: string;
}

interface CaseResult {
  id: string;
  title: string;
  target: string;
  minimum: { probes: number; opens: number; note: string } | null;
  rows: RowResult[];
  ratios: Record<string, number>;
  verdict?: { met: boolean; detail: string };
}

interface CaseDef {
  id: string;
  title: string;
  target: string;
  minimum(ctx: CaseContext, impl: Implementation): { probes: number; opens: number; note: string } | null;
  /** Fresh state before each timed op (untimed). */
  prep(loader: Loader, ctx: CaseContext): Promise<void>;
  /** The timed operation. */
  op(loader: Loader, ctx: CaseContext): Promise<unknown>;
  /** Only rows of these families (default: all). */
  families?: readonly string[];
  /** Sleep this long (untimed) before every sample. */
  pause?: number;
  /** "fresh": prep before every sample; "shared": prep once, then op repeatedly. */
  mode: "fresh" | "shared";
  iterations(ctx: CaseContext, impl: Implementation): { iterations: number; time: number; batch: number };
  /** ops per timed call (touch over N paths): reported per path too */
  opsPerCall?(ctx: CaseContext): number;
}

const chainDirs = (ctx: CaseContext) => ctx.tree.options.deepDepth + 1;
/** Longer than agentsmd's default cache.revalidateMs (50 ms). */
const IDLE_MS = 70;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const CASES: CaseDef[] = [
  {
    id: "initial",
    title: "initial load of a depth-20 chain (fresh session each iteration)",
    target: "agentsmd <= 1 ms",
    minimum: (ctx) => ({ probes: chainDirs(ctx), opens: ctx.tree.deepChainFiles.length, note: "one probe per chain directory + one read per file" }),
    prep: (loader) => loader.close(),
    op: (loader, ctx) => loader.initial(ctx.tree.root, ctx.tree.deepDir),
    mode: "fresh",
    iterations: (ctx) => (ctx.quick ? { iterations: 50, time: 300, batch: 1 } : { iterations: 300, time: 1500, batch: 1 }),
  },
  {
    id: "first-resolve",
    title: "first resolve of a depth-20 path (session started at the root)",
    target: "agentsmd <= 0.3 ms; fs calls <= 1.5x minimum",
    minimum: (ctx, impl) => ({
      probes: chainDirs(ctx) - 1,
      opens: impl.delivers === "bodies" ? ctx.tree.deepChainFiles.length - 1 : 0,
      note: "one probe per unseen directory" + (impl.delivers === "bodies" ? " + one read per new file" : ""),
    }),
    prep: async (loader, ctx) => {
      await loader.close();
      await loader.initial(ctx.tree.root, ctx.tree.root);
    },
    op: (loader, ctx) => loader.resolve(ctx.tree.root, ctx.tree.deepFile),
    mode: "fresh",
    iterations: (ctx) => (ctx.quick ? { iterations: 50, time: 300, batch: 1 } : { iterations: 300, time: 1500, batch: 1 }),
  },
  {
    id: "seen-resolve",
    title: "resolve of an already-seen path, nothing changed",
    target: "agentsmd median <= 5 µs, zero file reads",
    minimum: () => ({ probes: 0, opens: 0, note: "nothing changed: nothing to ask the disk" }),
    prep: async (loader, ctx) => {
      await loader.close();
      await loader.initial(ctx.tree.root, ctx.tree.root);
      await loader.resolve(ctx.tree.root, ctx.tree.deepFile);
    },
    op: (loader, ctx) => loader.resolve(ctx.tree.root, ctx.tree.deepFile),
    mode: "shared",
    iterations: (ctx, impl) =>
      impl.family === "agentsmd"
        ? ctx.quick
          ? { iterations: 100, time: 300, batch: 100 }
          : { iterations: 500, time: 1500, batch: 200 }
        : ctx.quick
          ? { iterations: 50, time: 300, batch: 1 }
          : { iterations: 300, time: 1500, batch: 1 },
  },
  {
    id: "seen-resolve-idle",
    title: "resolve of an already-seen path after a pause longer than the revalidation window (agent pace)",
    target: "agentsmd median <= 20 µs, zero file reads, at most one stat (default configuration)",
    families: ["agentsmd"],
    minimum: () => ({ probes: 0, opens: 0, note: "nothing changed: nothing to ask the disk" }),
    prep: async (loader, ctx) => {
      await loader.close();
      await loader.initial(ctx.tree.root, ctx.tree.root);
      await loader.resolve(ctx.tree.root, ctx.tree.deepFile);
      await sleep(IDLE_MS);
    },
    // Every sample follows a pause: the case is about what one call costs at agent pace, set
    // against the floor (a no-op awaited): the library's call itself, not the adapter's conversion.
    pause: IDLE_MS,
    op: (loader, ctx) => (loader.call ? loader.call(ctx.tree.root, ctx.tree.deepFile) : loader.resolve(ctx.tree.root, ctx.tree.deepFile)),
    mode: "shared",
    iterations: (ctx) => (ctx.quick ? { iterations: 15, time: 0, batch: 1 } : { iterations: 60, time: 0, batch: 1 }),
  },
  {
    id: "touch-10k",
    title: "touch over N distinct paths, one call per path (fresh session at the root)",
    target: "(ratio only)",
    minimum: (ctx, impl) => ({
      probes: unionDirs(ctx) - 1,
      opens: impl.delivers === "bodies" ? unionFiles(ctx) - 1 : 0,
      note: "one probe per distinct unseen directory" + (impl.delivers === "bodies" ? " + one read per new file" : ""),
    }),
    prep: async (loader, ctx) => {
      await loader.close();
      await loader.initial(ctx.tree.root, ctx.tree.root);
    },
    op: async (loader, ctx) => {
      const root = ctx.tree.root;
      const perCall = ctx.perCall;
      for (const path of ctx.touchPaths) {
        const t = performance.now();
        await loader.resolve(root, path);
        perCall?.push(performance.now() - t);
      }
      // Work a watcher deferred (timers) belongs to this pass: the total includes it.
      await (loader as Loader & { settled?: () => Promise<void> }).settled?.();
    },
    mode: "fresh",
    // Peers take seconds per pass: one pass (10,000 per-path samples) is enough.
    iterations: (ctx, impl) => ({ iterations: ctx.quick || impl.family !== "agentsmd" ? 1 : 3, time: 0, batch: 1 }),
    opsPerCall: (ctx) => ctx.touchPaths.length,
  },
];

// Union of chains for the touch paths actually used (quick mode uses a prefix).
let unionCache: { key: string; dirs: number; files: number } | null = null;
function union(ctx: CaseContext): { dirs: number; files: number } {
  const key = `${ctx.tree.root}:${ctx.touchPaths.length}`;
  if (unionCache?.key === key) return unionCache;
  if (ctx.touchPaths.length === ctx.tree.touchPaths.length) {
    unionCache = { key, dirs: ctx.tree.touchUniqueDirs, files: ctx.tree.touchInstructionFiles };
    return unionCache;
  }
  const scopes = new Set(ctx.tree.instructionFiles.map((f) => dirname(f)));
  const seen = new Set<string>();
  let files = 0;
  for (const path of ctx.touchPaths) {
    for (let dir = dirname(path); !seen.has(dir); dir = dirname(dir)) {
      seen.add(dir);
      if (scopes.has(dir)) files++;
      if (dir === ctx.tree.root) break;
    }
  }
  unionCache = { key, dirs: seen.size, files };
  return unionCache;
}
const unionDirs = (ctx: CaseContext) => union(ctx).dirs;
const unionFiles = (ctx: CaseContext) => union(ctx).files;

async function runCase(def: CaseDef, impls: Implementation[], ctx: CaseContext, log: (s: string) => void): Promise<CaseResult> {
  // minimum for the touch case is computed on the full path list (rows with fewer paths say so)
  const fullCtx = ctx;
  const rows: RowResult[] = [];
  let minimum: CaseResult["minimum"] = null;
  for (const impl of impls) {
    if (impl.cases && !impl.cases.includes(def.id)) continue;
    if (def.families && !def.families.includes(impl.family)) continue;
    const row: RowResult = { impl: impl.name, family: impl.family, delivers: impl.delivers };
    rows.push(row);
    const full = ctx;
    const cap = ctx.quick ? (impl.quickMaxPaths ?? impl.maxPaths) : impl.maxPaths;
    if (def.opsPerCall && cap && cap < ctx.touchPaths.length) {
      ctx = { ...ctx, touchPaths: ctx.touchPaths.slice(0, cap) };
      row.note = `${ctx.touchPaths.length} paths`;
    }
    try {
      // timing pass
      const loader = await impl.create();
      const it = def.iterations(ctx, impl);
      const prep = () => def.prep(loader, ctx);
      const per = def.opsPerCall?.(ctx);
      const perCall: number[] = [];
      if (per) ctx.perCall = perCall;
      const timing = await measure(`${def.id}/${impl.name}`, () => def.op(loader, ctx), {
        iterations: it.iterations,
        time: it.time,
        batch: it.batch,
        ...(def.mode === "fresh"
          ? { beforeEach: def.pause ? async () => (await prep(), await sleep(def.pause!)) : prep }
          : { beforeAll: prep, ...(def.pause ? { beforeEach: () => sleep(def.pause!) } : {}) }),
        ...(def.pause ? { warmupIterations: 1, warmupTime: 0 } : {}),
        ...(def.id === "touch-10k" ? { warmupIterations: 0, warmupTime: 0 } : {}),
      });
      delete ctx.perCall;
      await loader.close();
      row.timing = timing;
      if (per) {
        row.paths = ctx.touchPaths.length;
        const calls = summarize(perCall);
        row.perPath = { median: calls.median, p95: calls.p95, mean: calls.mean };
      }
      // counting pass
      const counts = zeroCounts();
      const counting = await impl.create(counts);
      await def.prep(counting, ctx);
      if (def.pause) await sleep(def.pause);
      const before = copyCounts(counts);
      await def.op(counting, ctx);
      row.fs = diffCounts(counts, before);
      row.fsTotal = totalCalls(row.fs);
      await counting.close();
      if (impl.family === "agentsmd" && !row.note) minimum ??= def.minimum(fullCtx, impl);
      log(
        `  ${def.id.padEnd(14)} ${impl.name.padEnd(16)} median ${fmtMs(timing.median).padStart(10)}  p95 ${fmtMs(timing.p95).padStart(10)}  fs ${fmtCounts(row.fs)}${row.note ? ` (${row.note})` : ""}`,
      );
    } catch (error) {
      row.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(`  ${def.id.padEnd(14)} ${impl.name.padEnd(16)} ERROR ${row.error.split("\n")[0]}`);
    }
    ctx = full;
  }
  minimum ??= def.minimum(ctx, impls[0]!);
  return { id: def.id, title: def.title, target: def.target, minimum, rows, ratios: ratiosOf(rows) };
}

/**
 * The number ratios compare: per operation; for multi-path cases the amortised cost per path (the
 * median pass time, deferred watcher work included, over the paths that row ran).
 */
function costOf(r: RowResult): number {
  return r.perPath && r.paths ? r.timing!.median / r.paths : r.timing!.median;
}

function ratiosOf(rows: RowResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of rows.filter((r) => r.family === "agentsmd" && r.timing)) {
    for (const b of rows.filter((r) => r.family !== "agentsmd" && r.timing)) {
      out[`${a.impl} / ${b.impl}`] = costOf(a) / costOf(b);
    }
  }
  return out;
}

// Heap retained by one session after N resolves of distinct paths.
async function heapCase(impls: Implementation[], ctx: CaseContext, n: number, log: (s: string) => void): Promise<CaseResult> {
  const rows: RowResult[] = [];
  const allPaths = ctx.tree.touchPaths.slice(0, n);
  for (const impl of impls) {
    if (impl.cases && !impl.cases.includes("heap")) continue;
    const row: RowResult = { impl: impl.name, family: impl.family, delivers: impl.delivers };
    rows.push(row);
    const cap = ctx.quick ? (impl.quickMaxPaths ?? impl.maxPaths) : impl.maxPaths;
    const paths = cap && cap < allPaths.length ? allPaths.slice(0, cap) : allPaths;
    if (paths !== allPaths) row.note = `${paths.length} resolves`;
    try {
      // warm up module-level state (schemas, lazily built tables) outside the measurement
      const warm = await impl.create();
      await warm.initial(ctx.tree.root, ctx.tree.root);
      await warm.resolve(ctx.tree.root, ctx.tree.deepFile);
      await warm.close();
      fullGc();
      const base = process.memoryUsage().heapUsed;
      const loader = await impl.create();
      await loader.initial(ctx.tree.root, ctx.tree.root);
      const start = performance.now();
      for (const path of paths) await loader.resolve(ctx.tree.root, path);
      await (loader as Loader & { settled?: () => Promise<void> }).settled?.();
      const elapsed = performance.now() - start;
      fullGc();
      row.heapBytes = process.memoryUsage().heapUsed - base;
      row.timing = { median: elapsed, p95: elapsed, mean: elapsed, min: elapsed, opsPerSec: (paths.length * 1000) / elapsed, samples: 1, batch: paths.length };
      row.perPath = { median: elapsed / paths.length, p95: elapsed / paths.length, mean: elapsed / paths.length };
      // keep the session alive until after the measurement
      await loader.close();
      log(`  ${"heap".padEnd(14)} ${impl.name.padEnd(16)} retained ${fmtBytes(row.heapBytes)} after ${paths.length} resolves (${fmtMs(elapsed)})`);
    } catch (error) {
      row.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(`  heap           ${impl.name.padEnd(16)} ERROR ${row.error.split("\n")[0]}`);
    }
  }
  return {
    id: "heap",
    title: `heap retained by a session after ${allPaths.length} resolves over ${ctx.tree.dirs} directories`,
    target: "agentsmd <= 20 MB (10,000 resolves over 100,000 directories)",
    minimum: null,
    rows,
    ratios: {},
  };
}

// ---------------------------------------------------------------- agentsmd (optional until the core lands)

interface AgentsmdModule {
  implementations(): Promise<Implementation[]>;
  experimentalImplementations?(): Promise<Implementation[]>;
  watchLatency?(tree: TreeInfo, o: { quick: boolean; log: (s: string) => void }): Promise<CaseResult>;
  watchMemory?(tree: TreeInfo, o: { quick: boolean; log: (s: string) => void }): Promise<CaseResult>;
}

async function loadAgentsmd(): Promise<{ mod: AgentsmdModule | null; reason: string }> {
  try {
    const mod = (await import(new URL("./agentsmd.js", import.meta.url).href)) as AgentsmdModule;
    return { mod, reason: "" };
  } catch (error) {
    return { mod: null, reason: `agentsmd adapter unavailable: ${error instanceof Error ? error.message : String(error)}` };
  }
}

// ---------------------------------------------------------------- verdicts and output

let infoLines: string[] = [];
/** What any call costs after the same pause on this machine (see pauseFloor); null when not measured. */
let idleFloor: number | null = null;

/**
 * The floor of a call at agent pace: an awaited function that returns a kept answer, timed like
 * seen-resolve-idle (one call after each 70 ms pause). After a pause the first instructions run
 * with cold caches (and, in a VM, a vCPU that was descheduled), whatever they do; the idle rows
 * are also reported as a multiple of this floor, measured in the same run.
 */
async function pauseFloor(quick: boolean, log: (s: string) => void): Promise<number> {
  const kept = { files: [] as string[] };
  const timing = await measure("seen-resolve-idle/floor", async () => kept, {
    iterations: quick ? 15 : 60,
    time: 0,
    batch: 1,
    beforeEach: () => sleep(IDLE_MS),
    warmupIterations: 1,
    warmupTime: 0,
  });
  log(`  ${"seen-resolve-idle".padEnd(14)} ${"floor (no-op)".padEnd(16)} median ${fmtMs(timing.median).padStart(10)}  p95 ${fmtMs(timing.p95).padStart(10)}`);
  return timing.median;
}

/** ", 2.1x the floor (a no-op awaited after the same pause: 22 µs)" when the floor was measured. */
function floorNote(median: number): string {
  return idleFloor === null ? "" : `, ${(median / idleFloor).toFixed(1)}x the floor (a no-op awaited after the same pause: ${fmtMs(idleFloor)})`;
}

function verdicts(cases: CaseResult[], quick: boolean): void {
  const get = (id: string) => cases.find((c) => c.id === id);
  const row = (c: CaseResult | undefined, impl = "agentsmd") => c?.rows.find((r) => r.impl === impl && !r.error);
  const initial = row(get("initial"));
  if (initial?.timing) get("initial")!.verdict = { met: initial.timing.median <= 1, detail: `median ${fmtMs(initial.timing.median)} (target 1 ms)` };
  const first = get("first-resolve");
  const fr = row(first);
  if (fr?.timing && fr.fs && first?.minimum) {
    const min = first.minimum.probes + first.minimum.opens;
    const ratio = fr.fsTotal! / Math.max(1, min);
    first.verdict = {
      met: fr.timing.median <= 0.3 && ratio <= 1.5,
      detail: `median ${fmtMs(fr.timing.median)} (target 0.3 ms); fs calls ${fr.fsTotal} vs minimum ${min} = ${ratio.toFixed(2)}x (target 1.5x)`,
    };
  }
  const idle = row(get("seen-resolve-idle"));
  if (idle?.timing && idle.fs)
    get("seen-resolve-idle")!.verdict = {
      met: idle.timing.median <= 0.02 && idle.fs.opens === 0 && idle.fs.probes <= 1,
      detail: `median ${fmtMs(idle.timing.median)} (target 20 µs)${floorNote(idle.timing.median)}; ${idle.fs.opens} opens, ${idle.fs.probes} probes per call after a ${IDLE_MS} ms pause (target 0 and <= 1)`,
    };
  const seen = row(get("seen-resolve"));
  if (seen?.timing && seen.fs)
    get("seen-resolve")!.verdict = {
      met: seen.timing.median <= 0.005 && seen.fs.opens === 0,
      detail: `median ${fmtMs(seen.timing.median)} (target 5 µs); ${seen.fs.opens} opens, ${seen.fs.probes} probes (target 0 reads); back-to-back calls`,
    };
  const heap = row(get("heap"));
  if (heap?.heapBytes !== undefined)
    get("heap")!.verdict = {
      met: heap.heapBytes <= 20 * 1024 * 1024,
      detail: `${fmtBytes(heap.heapBytes)} (target 20 MB)${quick ? "; quick mode: fewer resolves than the target's 10,000" : ""}`,
    };
  const info: string[] = [];
  for (const id of ["seen-resolve", "seen-resolve-idle", "first-resolve", "initial", "heap"]) {
    const r = row(get(id), "agentsmd watch");
    if (!r) continue;
    if (id === "heap" && r.heapBytes !== undefined) info.push(`watch: true, heap: ${fmtBytes(r.heapBytes)} (target 20 MB)`);
    else if (r.timing)
      info.push(
        `watch: true, ${id}: median ${fmtMs(r.timing.median)}${id === "seen-resolve-idle" ? floorNote(r.timing.median) : ""}, fs ${fmtCounts(r.fs ?? null)}`,
      );
  }
  infoLines = info;
  const memory = get("watch-memory");
  const m = memory?.rows.find((r) => r.impl === "agentsmd watch" && !r.error) as (RowResult & { bytesPerDir?: number; start?: { median: number } }) | undefined;
  if (memory && m?.bytesPerDir !== undefined)
    memory.verdict = {
      met: m.bytesPerDir <= 1024,
      detail: `${Math.round(m.bytesPerDir)} B per watched directory (target 1 KB); start median ${fmtMs(m.start?.median ?? Number.NaN)}`,
    };
  const watch = get("watch");
  const w = row(watch);
  if (watch && w?.timing) watch.verdict = { met: w.timing.p95 <= 100, detail: `p95 ${fmtMs(w.timing.p95)}, median ${fmtMs(w.timing.median)} (target 100 ms)` };
}

function table(cases: CaseResult[]): string {
  const header = ["case", "impl", "median", "p95", "ops/s", "fs calls (st/op)", "bytes read", "min", "vs agentsmd"];
  const lines: string[][] = [];
  for (const c of cases) {
    const agent = c.rows.find((r) => r.impl === "agentsmd" && r.timing);
    for (const r of c.rows) {
      if (r.error) {
        lines.push([c.id, r.impl, "error", "", "", "", "", "", ""]);
        continue;
      }
      if (r.note && !r.timing) {
        lines.push([c.id, r.impl, r.note, "", "", "", "", "", ""]);
        continue;
      }
      const t = r.timing!;
      const per = r.perPath;
      const median =
        c.id === "heap"
          ? (r.heapBytes ?? 0) < 64 * 1024
            ? "~0 (noise)"
            : fmtBytes(r.heapBytes ?? 0)
          : per
            ? `${fmtMs(per.median)}/path (amortised ${fmtMs(costOf(r))})`
            : fmtMs(t.median);
      const p95 = c.id === "heap" ? `${fmtMs(t.median)} total` : per ? `${fmtMs(per.p95)}/path` : fmtMs(t.p95);
      const ops = c.id === "heap" ? "" : t.opsPerSec >= 100 ? Math.round(t.opsPerSec).toLocaleString("en-US") : t.opsPerSec.toFixed(2);
      const min = c.minimum && r.family === "agentsmd" ? `${c.minimum.probes} st ${c.minimum.opens} op` : "";
      const factor = agent && r !== agent && c.id !== "heap" ? costOf(r) / costOf(agent) : 0;
      const versus = !factor ? "" : factor >= 1 ? `${factor.toFixed(1)}x slower` : `${(1 / factor).toFixed(1)}x faster`;
      const heapVs =
        c.id === "heap" && r.impl !== "agentsmd"
          ? (() => {
              const a = c.rows.find((x) => x.impl === "agentsmd" && x.heapBytes !== undefined);
              return a && r.perPath && a.perPath ? `${(r.perPath.median / a.perPath.median).toFixed(1)}x slower/path` : "";
            })()
          : "";
      lines.push([
        c.id,
        r.note ? `${r.impl} (${r.note})` : r.impl,
        median,
        p95,
        ops,
        fmtCounts(r.fs ?? null),
        r.fs ? fmtBytes(r.fs.bytesRead) : "",
        min,
        versus || heapVs,
      ]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (l: string[]) => "| " + l.map((x, i) => x.padEnd(widths[i]!)).join(" | ") + " |";
  return [fmt(header), "|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|", ...lines.map(fmt)].join("\n");
}

/** The commit measured, and whether src/ differs from it (the bench compiles the working tree). */
function revision(): { commit: string; srcDirty: boolean } | null {
  try {
    const cwd = dirname(BENCH_DIR);
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "src"], { cwd, encoding: "utf8" }).trim() !== "";
    return { commit, srcDirty: dirty };
  } catch {
    return null;
  }
}

function machine() {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model ?? "unknown",
    cores: cpu.length,
    memoryGB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${platform()} ${release()} ${arch()}`,
    uvThreadpoolSize: Number(process.env.UV_THREADPOOL_SIZE ?? 4),
    loadAverage1m: Math.round(loadavg()[0]! * 100) / 100,
  };
}

// ---------------------------------------------------------------- main

export async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const log = (s: string) => console.log(s);
  const started = performance.now();
  const measuredRevision = revision(); // what tsc compiled, before the run
  if (!gc) log("note: run with --expose-gc for heap numbers (npm run bench does)");
  if (args.verify) {
    const problems = await verify(() => undefined);
    if (problems.length) {
      console.error(`adapter verification failed:\n${problems.join("\n")}`);
      return 1;
    }
    log("verify: every loader returns the expected files on a small tree");
  }
  const tree = await generateTree({ ...(args.dirs ? { dirs: args.dirs } : {}), ...(args.seed ? { seed: args.seed } : {}) });
  log(
    `tree: ${tree.dirs.toLocaleString("en-US")} dirs, depth <= ${tree.maxDepthReached} (mean ${tree.meanDepth}), ` +
      `${tree.instructionFiles.length} AGENTS.md, ${tree.touchPaths.length} touch paths ` +
      `(${tree.reused ? "reused from cache" : `generated in ${fmtMs(tree.generatedMs)}`}) at ${tree.root}`,
  );
  const touchCount = args.quick ? Math.min(1_000, tree.touchPaths.length) : tree.touchPaths.length;
  const heapCount = args.quick ? Math.min(2_000, tree.touchPaths.length) : tree.touchPaths.length;
  const ctx: CaseContext = { tree, quick: args.quick, touchPaths: tree.touchPaths.slice(0, touchCount) };

  const notes: string[] = [];
  let impls: Implementation[] = [];
  const agentsmd = await loadAgentsmd();
  if (agentsmd.mod) impls.push(...(await agentsmd.mod.implementations()));
  if (agentsmd.mod && args.experiments && agentsmd.mod.experimentalImplementations) impls.push(...(await agentsmd.mod.experimentalImplementations()));
  else notes.push(agentsmd.reason);
  impls.push(naiveImplementation);
  const gemini = geminiAvailability();
  if (gemini.ok) impls.push(geminiImplementation);
  else notes.push(`gemini: ${gemini.reason}`);
  if (args.impl) impls = impls.filter((i) => args.impl!.has(i.name));
  for (const n of notes) log(`note: ${n}`);

  const cases: CaseResult[] = [];
  const want = (id: string) => !args.only || args.only.has(id);
  for (const def of CASES) {
    if (!want(def.id)) continue;
    const r = await runCase(def, impls, ctx, log);
    if (def.id === "touch-10k") r.title = r.title.replace("N", ctx.touchPaths.length.toLocaleString("en-US"));
    cases.push(r);
  }
  if (want("seen-resolve-idle")) idleFloor = await pauseFloor(args.quick, log);
  if (want("heap")) cases.push(await heapCase(impls, { ...ctx }, heapCount, log));
  if (want("watch")) {
    if (agentsmd.mod?.watchLatency) cases.push(await agentsmd.mod.watchLatency(tree, { quick: args.quick, log }));
    else
      cases.push({
        id: "watch",
        title: "edit-to-visible latency with watching on",
        target: "agentsmd <= 100 ms",
        minimum: null,
        rows: [{ impl: "agentsmd", family: "agentsmd", delivers: "metadata", note: "pending: watching not landed" }],
        ratios: {},
      });
  }
  if (want("watch-memory") && agentsmd.mod?.watchMemory) cases.push(await agentsmd.mod.watchMemory(tree, { quick: args.quick, log }));
  verdicts(cases, args.quick);
  let hook: { rows: HookRow[]; missing: string[] } | null = null;
  if (want("hook")) hook = await hookRows(tree, { quick: args.quick, log });
  const cli: CliRow[] | null = want("cli") ? cliRows({ quick: args.quick, log }) : null;
  const plugin: PluginRow[] | null = want("plugin") ? pluginRows({ quick: args.quick, log }) : null;
  let replayed: ReplayResult | null = null;
  if (want("replay")) {
    try {
      replayed = await replay(tree, { quick: args.quick, log });
    } catch (error) {
      log(`  replay         ERROR ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  cleanupProcessScratch();

  const out = args.out ?? join(BENCH_DIR, "results", args.quick ? "quick.json" : "latest.json");
  const { instructionFiles, touchPaths, deepChainFiles, ...treeSummary } = tree;
  const doc = {
    tool: "agentsmd bench",
    date: new Date().toISOString(),
    mode: args.quick ? "quick" : "full",
    machine: machine(),
    revision: measuredRevision,
    tree: {
      ...treeSummary,
      instructionFiles: instructionFiles.length,
      touchPaths: touchPaths.length,
      deepChainFiles: deepChainFiles.length,
      touchPathsUsed: touchCount,
      heapResolves: heapCount,
    },
    implementations: impls.map((i) => ({ name: i.name, family: i.family, delivers: i.delivers })),
    notes,
    verdicts: [
      ...cases.filter((c) => c.verdict).map((c) => ({ id: c.id, ...c.verdict })),
      ...(hook?.rows ?? [])
        .filter((r) => r.cpu && r.via === "dist/hook/hook.cjs")
        .map((r) => ({
          id: `hook ${r.host} ${r.event}`,
          met: r.met,
          detail: `${r.cpu!.ratio.toFixed(2)}x node -e 0 (target ${r.target}x)`,
        })),
      ...(cli ?? [])
        .filter((r) => r.cpu && r.target !== undefined)
        .map((r) => ({ id: `cli agentsmd ${r.command}`, met: r.met, detail: `${r.cpu!.ratio.toFixed(2)}x node -e 0 (target ${r.target}x)` })),
    ],
    hook,
    cli,
    plugin,
    replay: replayed,
    // seen-resolve-idle's baseline: a no-op awaited after the same pause, ms (see pauseFloor)
    idleFloorMs: idleFloor,
    cases: cases.map((c) => ({
      ...c,
      rows: c.rows.map((r) => ({ ...r, fsPerPath: r.fs && r.perPath && r.paths ? scaleCounts(r.fs, r.paths) : undefined })),
    })),
    elapsedSeconds: Math.round((performance.now() - started) / 100) / 10,
  };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(doc, null, 2) + "\n");

  log("");
  log(table(cases));
  log("");
  log("st = stat/lstat/access probes, op = files opened for reading, rd = directory listings; min = the minimum the case needs.");
  for (const c of cases) {
    for (const [k, v] of Object.entries(c.ratios)) if (c.id !== "heap") log(`ratio ${c.id}: ${k} = ${v < 0.01 ? v.toExponential(2) : v.toFixed(3)}`);
  }
  log("");
  for (const c of cases) if (c.verdict) log(`${c.verdict.met ? "MET " : "MISS"} ${c.id}: ${c.verdict.detail}`);
  for (const r of hook?.rows ?? []) {
    if (!r.cpu) continue;
    const line = `hook ${r.host} ${r.event} via ${r.via}: ${r.cpu.ratio.toFixed(2)}x node -e 0 (${r.cpu.cpuMs.toFixed(0)} vs ${r.cpu.baseMs.toFixed(0)} ms CPU; ${r.trace?.modules ?? "?"} JS files, ${((r.trace?.bytes ?? 0) / 1024).toFixed(0)} KB)`;
    if (r.via === "dist/hook/hook.cjs") log(`${r.met ? "MET " : "MISS"} ${line} (target ${r.target}x)`);
    else log(`INFO ${line}`);
  }
  for (const host of hook?.missing ?? []) log(`MISS hook ${host}: no bench events (bench/hook.ts HOST_EVENTS)`);
  for (const r of cli ?? []) {
    if (!r.cpu) continue;
    const line = `cli agentsmd ${r.command}: ${r.cpu.ratio.toFixed(2)}x node -e 0 (${r.cpu.cpuMs.toFixed(0)} vs ${r.cpu.baseMs.toFixed(0)} ms CPU; ${r.trace?.modules ?? "?"} JS files, ${((r.trace?.bytes ?? 0) / 1024).toFixed(0)} KB)`;
    log(r.target !== undefined ? `${r.met ? "MET " : "MISS"} ${line} (target ${r.target}x)` : `INFO ${line}`);
  }
  for (const r of plugin ?? []) {
    if (!r.cpu || !r.inside) continue;
    const event = r.inside.event ? `; events ${r.inside.event.wallMs.toFixed(0)} ms wall, ${r.inside.event.cpuMs.toFixed(0)} ms CPU` : "";
    log(
      `INFO plugin ${r.host} ${r.step} (${r.build}): ${r.cpu.ratio.toFixed(2)}x node -e 0 (${r.cpu.cpuMs.toFixed(0)} vs ${r.cpu.baseMs.toFixed(0)} ms CPU); import() ${r.inside.import.wallMs.toFixed(0)} ms wall, ${r.inside.import.cpuMs.toFixed(0)} ms CPU${event}; ${r.trace?.modules ?? "?"} JS files, ${((r.trace?.bytes ?? 0) / 1024).toFixed(0)} KB`,
    );
  }
  if (replayed)
    log(
      `INFO replay of ${replayed.calls} tool calls: hook ${(replayed.hookCpuMs / 1000).toFixed(2)} s CPU vs no-op hook ${(replayed.floorCpuMs / 1000).toFixed(2)} s = ${replayed.ratio.toFixed(2)}x; in-process ${replayed.inProcessCpuMs.toFixed(0)} ms`,
    );
  for (const line of infoLines) log(`INFO ${line}`);
  const load = loadavg()[0]!;
  if (load > cpus().length)
    log(
      `WARNING: load average ${load.toFixed(1)} on ${cpus().length} cores during the run: absolute times are inflated; ratios within the run still compare like with like`,
    );
  log(`\n${machine().cpu}, ${machine().cores} cores, Node ${process.version}; ${doc.elapsedSeconds} s; written ${out}`);
  return 0;
}

if (process.argv[1] && resolvePath(process.argv[1]).endsWith(join("bench", "run.js"))) {
  // agentsmd's watchSession awaits unref'd timers: without a live handle (a host always has one)
  // the process would exit mid-await with code 13. Keep the loop alive for the run.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  try {
    process.exitCode = await main(process.argv.slice(2));
  } finally {
    clearInterval(keepAlive);
  }
}
