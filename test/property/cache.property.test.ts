/**
 * The cached resolver against an uncached oracle (fast-check). Random trees, then random
 * sequences of resolves, edits, creations, deletions, directory removals and renames, and pauses on
 * a fake clock (`process.hrtime`, the stat cache's), with the default revalidation window of a session without a
 * watcher. The oracle is the test's own model of the disk: the files on the chain of the target's
 * deepest existing directory, minus what the model (the LLM) already has at that version.
 * - when the last change is older than the window, resolve returns exactly what the oracle says
 *   (the freshness rule: nothing cached, memoised or revalidated hides a change);
 * - inside the window it may answer from the cache, but never presents a version that was never on
 *   disk, nor one the model already has (admission semantics unchanged).
 *
 * With a watcher (real time) the same sequences must each be seen eventually, and then agree exactly.
 *
 * `npm test` runs a few dozen cases; `npm run fuzz` runs FUZZ_RUNS.
 */
import fc from "fast-check";
import { mkdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { describe, expect, it, vi } from "vitest";
import type { AgentsSession } from "../../src/session/session.js";
import { watchSession, type SessionWatcher } from "../../src/session/watch.js";
import { chain, parentOf } from "../../src/core/paths.js";
import { RACY_MS } from "../../src/io/unchanged.js";
import { createTree, openSession } from "../helpers/tree.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const WINDOW_MS = 50;

/** The root and every directory below it up to depth 3 (15 directories). */
const DIRS = ["", ...["a", "b"].flatMap((x) => [x, ...["a", "b"].flatMap((y) => [`${x}/${y}`, `${x}/${y}/a`, `${x}/${y}/b`])])];
const NAME_SETS = [["AGENTS.md"], ["AGENTS.override.md", "AGENTS.md"]] as const;

const dirArb = fc.integer({ min: 0, max: DIRS.length - 1 });
const subdirArb = fc.integer({ min: 1, max: DIRS.length - 1 });
const nameArb = fc.integer({ min: 0, max: 1 });

type Op =
  | { op: "resolve"; dir: number; asFile: boolean; again: boolean }
  | { op: "write"; dir: number; name: number; near: boolean }
  | { op: "delete"; dir: number; name: number; near: boolean }
  | { op: "rmdir"; dir: number }
  | { op: "move"; dir: number }
  | { op: "pause"; ms: number }
  | { op: "recheck" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant("resolve" as const), dir: dirArb, asFile: fc.boolean(), again: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("write" as const), dir: dirArb, name: nameArb, near: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), dir: dirArb, name: nameArb, near: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("rmdir" as const), dir: subdirArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("move" as const), dir: subdirArb }) },
  { weight: 5, arbitrary: fc.record({ op: fc.constant("pause" as const), ms: fc.constantFrom(0, 10, 30, 49, 51, 70, 120) }) },
  { weight: 3, arbitrary: fc.constant({ op: "recheck" as const }) },
);

const scenarioArb = fc.record({
  names: fc.constantFrom(...NAME_SETS),
  files: fc.array(fc.tuple(dirArb, nameArb), { maxLength: 8 }),
  ops: fc.array(opArb, { minLength: 1, maxLength: 40 }),
});

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() === true;
}

/**
 * With a watcher: waits (proposals released, nothing admitted) until the resolver agrees with the
 * oracle; events arrive asynchronously, so "eventually", capped at 5 s (a missed event never arrives).
 */
async function seenByWatcher(session: AgentsSession, target: string, expected: unknown, watcher: SessionWatcher): Promise<void> {
  const started = Date.now();
  for (;;) {
    await watcher.settled();
    const found = (await session.resolve(target, { admit: false })).files;
    session.release(found);
    const same = JSON.stringify(found.map((file) => ({ path: file.path, mtimeMs: file.mtimeMs }))) === JSON.stringify(expected);
    if (same) return;
    if (Date.now() - started > 5_000) throw new Error(`the watcher never showed ${JSON.stringify(expected)} for ${target}; last: ${JSON.stringify(found)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * `vouch`: the wall clock runs RACY_MS (less a margin above a kernel clock tick) ahead of the
 * kernel's, so a directory untouched for a few ms before a look vouches for it later (the stat
 * cache's sightings and one-round revalidation answer); a change after a look still shows, as with
 * directories older than RACY_MS in real use.
 */
async function run(scenario: Scenario, watch = false, vouch = false): Promise<void> {
  const names: readonly string[] = scenario.names;
  const spec: Record<string, string | null> = { "repo/.git/": null };
  for (const dir of DIRS) spec[`repo/${dir}/`.replace("//", "/")] = null;
  const tree = await createTree(spec);
  const root = tree.path("repo");
  const dirPath = (index: number) => (DIRS[index] === "" ? root : `${root}/${DIRS[index]}`);
  const nameOf = (index: number) => names[index % names.length]!;

  // The disk as the test knows it (every AGENTS file, moved-away copies too): path -> mtimeMs
  // (unique, increasing); and every version ever written.
  const disk = new Map<string, number>();
  const history = new Set<string>();
  let mtime = 1_700_000_000;
  let lastChange = -Infinity;
  // The stat cache's clock (process.hrtime: faked without a watcher), so a pause counts for both.
  const now = () => {
    const [seconds, nanoseconds] = process.hrtime();
    return seconds * 1e3 + nanoseconds / 1e6;
  };
  const changed = () => (lastChange = now());
  const put = async (path: string) => {
    await mkdir(parentOf(path), { recursive: true });
    await writeFile(path, `rules ${mtime}\n`);
    mtime += 10;
    await utimes(path, mtime, mtime);
    disk.set(path, mtime * 1000);
    history.add(`${path}@${mtime * 1000}`);
    changed();
  };
  const dropBelow = (dir: string) => {
    for (const path of [...disk.keys()]) if (path.startsWith(`${dir}/`)) disk.delete(path);
  };

  if (!watch) vi.useFakeTimers({ toFake: ["hrtime"] }); // the stat cache's clock: io/cache.ts monotonicMs
  const wall = Date.now.bind(Date);
  if (vouch) vi.spyOn(Date, "now").mockImplementation(() => wall() + RACY_MS - 25);
  let session: AgentsSession | undefined;
  let watcher: SessionWatcher | undefined;
  try {
    for (const [dir, name] of scenario.files) await put(`${dirPath(dir)}/${nameOf(name)}`);
    session = await openSession(tree, {
      cwd: root,
      config: { cache: { revalidateMs: WINDOW_MS }, files: { names: [...names], select: "all" }, resolver: { maxFilesPerResolve: 100 } },
    });
    if (watch) watcher = await watchSession(session, { debounceMs: 1 });
    const had = new Map<string, number>();
    for (const file of session.initialFiles) had.set(file.path, file.mtimeMs);

    /** The target's directory as the resolver finds it: the target when it is a directory, else the deepest existing ancestor. */
    const targetDir = async (target: string, asFile: boolean): Promise<string> => {
      let dir = asFile ? parentOf(target) : target;
      while (dir !== root && !(await exists(dir))) dir = parentOf(dir);
      return dir;
    };
    const oracle = (dir: string) => {
      const out: Array<{ path: string; mtimeMs: number }> = [];
      for (const each of chain(root, dir)) {
        for (const name of names) {
          const path = `${each}/${name}`;
          const mtimeMs = disk.get(path);
          if (mtimeMs !== undefined && had.get(path) !== mtimeMs) out.push({ path, mtimeMs });
        }
      }
      return out;
    };

    let last: [number, boolean] | undefined;
    /** Half the time a directory on the previous target's chain: a change the next resolve of it must show. */
    const near = (op: { dir: number; near: boolean }): string => {
      if (!op.near || !last) return dirPath(op.dir);
      const dirs = chain(root, dirPath(last[0]));
      return dirs[op.dir % dirs.length]!;
    };
    for (const op of scenario.ops) {
      switch (op.op) {
        case "recheck":
        case "resolve": {
          // The previous target again (half the resolves; every recheck, after the window): what a
          // memoised answer must not hide.
          if (op.op === "recheck" && !watch) vi.advanceTimersByTime(WINDOW_MS + 1);
          const [dir, asFile] = (op.op === "recheck" || op.again) && last ? last : op.op === "resolve" ? [op.dir, op.asFile] : [0, false];
          last = [dir, asFile];
          const target = asFile ? `${dirPath(dir)}/file.ts` : dirPath(dir);
          const expected = oracle(await targetDir(target, asFile));
          if (watch) await seenByWatcher(session, target, expected, watcher!);
          const found = (await session.resolve(target)).files.map((file) => ({ path: file.path, mtimeMs: file.mtimeMs }));
          if (watch || now() - lastChange > WINDOW_MS) {
            expect(found, `resolve ${target} ${now() - lastChange} ms after the last change`).toEqual(expected);
          } else {
            for (const file of found) {
              expect(history.has(`${file.path}@${file.mtimeMs}`), `${file.path}@${file.mtimeMs} was on disk`).toBe(true);
              expect(had.get(file.path), `${file.path} presented twice at one version`).not.toBe(file.mtimeMs);
            }
          }
          for (const file of found) had.set(file.path, file.mtimeMs);
          break;
        }
        case "write":
          await put(`${near(op)}/${nameOf(op.name)}`);
          break;
        case "delete": {
          const path = `${near(op)}/${nameOf(op.name)}`;
          await rm(path, { force: true });
          disk.delete(path);
          changed();
          break;
        }
        case "rmdir":
          await rm(dirPath(op.dir), { recursive: true, force: true });
          dropBelow(dirPath(op.dir));
          changed();
          break;
        case "move": {
          // Away to a sibling name, or back: files keep their mtimes.
          const home = dirPath(op.dir);
          const away = `${home}-moved`;
          const [from, to] = (await exists(home)) && !(await exists(away)) ? [home, away] : [away, home];
          if (!(await exists(from)) || (await exists(to)) || !(await exists(parentOf(to)))) break;
          await rename(from, to);
          for (const [path, mtimeMs] of [...disk]) {
            if (!path.startsWith(`${from}/`)) continue;
            disk.delete(path);
            disk.set(`${to}${path.slice(from.length)}`, mtimeMs);
          }
          changed();
          break;
        }
        case "pause":
          if (!watch) vi.advanceTimersByTime(op.ms);
          break;
      }
    }
  } finally {
    vi.useRealTimers();
    vi.restoreAllMocks();
    await watcher?.close();
    await session?.close();
    await tree.cleanup();
  }
}

describe("the cached resolver against an uncached oracle", () => {
  it("with a watcher, every change is eventually seen and the session then agrees with the oracle", { timeout: Math.max(60_000, RUNS * 4_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, (scenario) => run(scenario, true)),
      { numRuns: Math.max(5, Math.round(RUNS / 3)), ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
  });

  it(
    "after the revalidation window every edit, creation, deletion, removed or renamed directory is seen; inside it nothing false is presented",
    { timeout: Math.max(60_000, RUNS * 2_000) },
    async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb, (scenario) => run(scenario)),
        { numRuns: RUNS * 4, ...(SEED !== undefined ? { seed: SEED } : {}) },
      );
    },
  );

  it(
    "the same when directories untouched since a look vouch for it (sightings, one-round revalidation): nothing they vouch for hides a change",
    { timeout: Math.max(60_000, RUNS * 2_000) },
    async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb, (scenario) => run(scenario, false, true)),
        { numRuns: RUNS * 4, ...(SEED !== undefined ? { seed: SEED } : {}) },
      );
    },
  );
});
