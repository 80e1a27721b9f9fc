/**
 * Reliability (docs/reliability.md), property tests (fast-check): random trees and random sequences of resolve / touch / edit /
 * delete / admit / release / compacted / snapshot-restore, checked against a model of what the
 * model (the LLM) has been given. After every operation:
 * - a file is never presented twice at the same mtime (nor proposed twice while a proposal is open);
 * - resolve output is root-first, touch output root-first per target too (docs/loading-rules.md#progressive-resolution, preset codelia);
 * - no budget is exceeded (initial maxFiles/maxBytes, maxFilesPerResolve, the session's lazy caps);
 * - nothing outside the target's root chain is returned;
 * and at the end, every applicable file has been presented at its current version.
 *
 * `npm test` runs a few dozen cases; `npm run fuzz` runs FUZZ_RUNS (e.g. 2000).
 */
import fc from "fast-check";
import { writeFile, rm, utimes } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { restoreSession, type AgentsSession } from "../../src/session/session.js";
import { SessionStateSchema } from "../../src/core/schema.js";
import { chain, parentOf } from "../../src/core/paths.js";
import { createTree, openSession, type Tree } from "../helpers/tree.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** Every directory below the root: a, b, a/a, a/b, ... up to depth 3 (14 directories). */
const DIRS = ["", ...["a", "b"].flatMap((x) => [x, ...["a", "b"].flatMap((y) => [`${x}/${y}`, `${x}/${y}/a`, `${x}/${y}/b`])])];

const contentArb = fc.oneof(
  fc.constant(""),
  fc.constant(" \n\t\n"),
  fc.string({ minLength: 1, maxLength: 40 }).map((text) => `rules ${text}`),
  fc.integer({ min: 1, max: 200 }).map((n) => `ü${"é".repeat(n)}`),
  fc.integer({ min: 100, max: 1500 }).map((n) => "x".repeat(n)),
);

const dirArb = fc.integer({ min: 0, max: DIRS.length - 1 });

type Op =
  | { op: "resolve"; dir: number; asFile: boolean; admit: boolean }
  | { op: "touch"; dirs: number[]; admit: boolean }
  | { op: "edit"; dir: number; content: string }
  | { op: "delete"; dir: number }
  | { op: "admit" }
  | { op: "release" }
  | { op: "compacted" }
  | { op: "restore" }
  | { op: "outside" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant("resolve" as const), dir: dirArb, asFile: fc.boolean(), admit: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("touch" as const), dirs: fc.array(dirArb, { minLength: 1, maxLength: 2 }), admit: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("edit" as const), dir: dirArb, content: contentArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), dir: dirArb }) },
  { weight: 1, arbitrary: fc.constant({ op: "admit" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "release" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "compacted" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "restore" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "outside" as const }) },
);

const scenarioArb = fc.record({
  files: fc.dictionary(dirArb.map(String), contentArb, { maxKeys: 10 }),
  cwd: dirArb,
  config: fc.record({
    initial: fc.record({ maxFiles: fc.integer({ min: 1, max: 4 }), maxBytes: fc.integer({ min: 64, max: 3000 }) }),
    resolver: fc.record({ maxFilesPerResolve: fc.integer({ min: 1, max: 3 }) }),
    lazy: fc.record({ maxFiles: fc.integer({ min: 1, max: 8 }), maxBytes: fc.integer({ min: 200, max: 6000 }) }),
  }),
  ops: fc.array(opArb, { minLength: 1, maxLength: 30 }),
});

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

const isBlank = (text: string) => /^[\s\u0085]*$/.test(text);

/** Runs one scenario against a real temp tree; throws on the first broken property. */
async function run(scenario: Scenario): Promise<void> {
  // Traps: a file above the root and one beside it must never be returned.
  const spec: Record<string, string | null> = { "repo/.git/": null, "AGENTS.md": "above the root", "outside/AGENTS.md": "beside the root" };
  for (const dir of DIRS) spec[`repo/${dir}/`.replace("//", "/")] = null;
  const tree: Tree = await createTree(spec);
  const root = tree.path("repo");
  const dirPath = (index: number) => (DIRS[index] === "" ? root : `${root}/${DIRS[index]}`);
  const filePath = (index: number) => `${dirPath(index)}/AGENTS.md`;

  // The disk, as the test knows it: path -> {content, mtimeMs}. mtimes are unique and increasing.
  const disk = new Map<string, { content: string; mtimeMs: number }>();
  let clock = 1_700_000_000;
  const put = async (path: string, content: string) => {
    await writeFile(path, content);
    clock += 10;
    await utimes(path, clock, clock);
    disk.set(path, { content, mtimeMs: clock * 1000 });
  };
  for (const [dir, content] of Object.entries(scenario.files)) await put(filePath(Number(dir)), content);

  const config = { ...scenario.config, cache: { revalidateMs: 0 } };
  // What the model was given (path -> mtime), and proposals not yet admitted or released.
  const had = new Map<string, number>();
  let pending: Array<{ path: string; mtimeMs: number }> = [];
  let lazyFiles = 0;
  let lazyBytes = 0;
  let session: AgentsSession = await openSession(tree, { cwd: dirPath(scenario.cwd), config });

  const deliver = (path: string, mtimeMs: number, how: string) => {
    if (had.get(path) === mtimeMs) throw new Error(`${how}: ${path} presented twice at mtime ${mtimeMs}`);
    if (pending.some((each) => each.path === path && each.mtimeMs === mtimeMs)) throw new Error(`${how}: ${path} proposed while its proposal is open`);
    expect(disk.get(path)?.mtimeMs, `${how}: ${path} is presented at the version on disk`).toBe(mtimeMs);
  };
  const inChain = (path: string, targetDir: string) => chain(root, targetDir).includes(parentOf(path));
  const depth = (path: string) => parentOf(path).split("/").length;

  try {
    // Initial bundle: root-first, within maxFiles and maxBytes, nothing outside root -> cwd.
    const initial = session.initialFiles;
    expect(initial.length).toBeLessThanOrEqual(config.initial.maxFiles);
    expect(initial.reduce((sum, file) => sum + file.includedBytes, 0)).toBeLessThanOrEqual(config.initial.maxBytes);
    for (let i = 1; i < initial.length; i++) expect(depth(initial[i]!.path)).toBeGreaterThan(depth(initial[i - 1]!.path));
    for (const file of initial) {
      expect(inChain(file.path, dirPath(scenario.cwd))).toBe(true);
      deliver(file.path, file.mtimeMs, "initial");
      had.set(file.path, file.mtimeMs);
    }

    for (const op of scenario.ops) {
      switch (op.op) {
        case "resolve": {
          const target = op.asFile ? `${dirPath(op.dir)}/file.ts` : dirPath(op.dir);
          const found = await session.resolve(target, { admit: op.admit });
          expect(found.files.length).toBeLessThanOrEqual(config.resolver.maxFilesPerResolve);
          for (let i = 1; i < found.files.length; i++) expect(depth(found.files[i]!.path)).toBeGreaterThan(depth(found.files[i - 1]!.path));
          for (const file of found.files) {
            expect(inChain(file.path, dirPath(op.dir)), `${file.path} is on the chain to ${target}`).toBe(true);
            deliver(file.path, file.mtimeMs, "resolve");
            if (op.admit) had.set(file.path, file.mtimeMs);
            else pending.push({ path: file.path, mtimeMs: file.mtimeMs });
          }
          break;
        }
        case "touch": {
          const targets = op.dirs.map((dir) => `${dirPath(dir)}/file.ts`);
          const blocks = await session.touch(targets, { admit: op.admit });
          let runs = blocks.length > 0 ? 1 : 0;
          for (let i = 1; i < blocks.length; i++) if (depth(blocks[i]!.path) <= depth(blocks[i - 1]!.path)) runs++;
          expect(runs, "touch output is root-first per target").toBeLessThanOrEqual(targets.length);
          for (const block of blocks) {
            expect(op.dirs.some((dir) => inChain(block.path, dirPath(dir)))).toBe(true);
            deliver(block.path, block.mtimeMs, "touch");
            expect(block.content).toBe(disk.get(block.path)!.content);
            expect(block.truncated).toBe(false);
            lazyFiles++;
            lazyBytes += Buffer.byteLength(block.content);
            if (op.admit) had.set(block.path, block.mtimeMs);
            else pending.push({ path: block.path, mtimeMs: block.mtimeMs });
          }
          expect(lazyFiles).toBeLessThanOrEqual(config.lazy.maxFiles);
          expect(lazyBytes).toBeLessThanOrEqual(config.lazy.maxBytes);
          break;
        }
        case "edit":
          await put(filePath(op.dir), op.content);
          break;
        case "delete":
          await rm(filePath(op.dir), { force: true });
          disk.delete(filePath(op.dir));
          break;
        case "admit":
          session.admit(pending);
          for (const each of pending) had.set(each.path, each.mtimeMs);
          pending = [];
          break;
        case "release":
          session.release(pending);
          pending = [];
          break;
        case "compacted":
          for (const path of session.compacted()) had.delete(path);
          break;
        case "restore": {
          const state = SessionStateSchema.parse(JSON.parse(JSON.stringify(session.snapshot())));
          await session.close();
          const restored = await restoreSession(state, { cwd: dirPath(scenario.cwd), home: tree.home, env: {} });
          session = restored.session;
          // Open proposals are not persisted: they were never delivered.
          pending = [];
          // The resume diff presents what changed in the initial scope; it counts as a delivery.
          for (const [path, mtimeMs] of session.loadedVersions) {
            const before = state.loaded.find((entry) => entry.path === path)?.mtimeMs;
            if (before === mtimeMs) continue;
            expect(restored.diff).toContain(path);
            deliver(path, mtimeMs, "resume diff");
            had.set(path, mtimeMs);
          }
          break;
        }
        case "outside":
          expect(await session.resolve(tree.path("outside/file.ts"))).toEqual({ files: [] });
          expect(await session.touch([tree.path("outside/file.ts")])).toEqual([]);
          break;
      }
    }

    // Eventually: with open proposals released, resolving every directory until nothing is new
    // presents every applicable file at its current version.
    session.release(pending);
    pending = [];
    for (let index = 0; index < DIRS.length; index++) {
      for (let round = 0; round < DIRS.length; round++) {
        const found = await session.resolve(dirPath(index));
        if (found.files.length === 0) break;
        for (const file of found.files) {
          expect(inChain(file.path, dirPath(index)), `${file.path} is on the chain to ${dirPath(index)}`).toBe(true);
          deliver(file.path, file.mtimeMs, "final resolve");
          had.set(file.path, file.mtimeMs);
        }
      }
    }
    for (const [path, { content, mtimeMs }] of disk) {
      if (!path.startsWith(`${root}/`) || content === "") continue;
      // Whitespace-only files may be recorded without being shown: they say nothing.
      if (isBlank(content) && session.loadedVersion(path)?.mtimeMs === mtimeMs) continue;
      expect(had.get(path), `${path} was presented at its current version`).toBe(mtimeMs);
    }
  } finally {
    await session.close();
    await tree.cleanup();
  }
}

describe("session properties over random trees and operation sequences", () => {
  it(
    "never presents a file twice at one mtime, presents every applicable file, keeps order, budgets and the root chain",
    { timeout: Math.max(60_000, RUNS * 2_000) },
    async () => {
      await fc.assert(fc.asyncProperty(scenarioArb, run), { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) });
    },
  );
});
