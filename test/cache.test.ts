/**
 * The stat cache, observed through a counting file system: a warm resolve costs no I/O, a cold one
 * probes each unseen directory once, concurrent lookups share one walk, the resolver never reads.
 */
import { describe, expect, it, vi } from "vitest";
import { StatCache } from "../src/io/cache.js";
import { DEFAULT_REVALIDATE_MS } from "../src/load/config.js";
import { countingFileSystem, nodeFileSystem, type FileSystem } from "../src/io/file-system.js";
import { watchSession } from "../src/session/watch.js";
import { RACY_MS } from "../src/io/unchanged.js";
import { createTree, openSession } from "./helpers/tree.js";

/** Counts calls and records the probed paths in order (stat, and lstat: a confined probe's stat of a file). */
function recording() {
  const counting = countingFileSystem();
  const stats: string[] = [];
  const fs: FileSystem = {
    ...counting.fs,
    stat: (path) => (stats.push(path), counting.fs.stat(path)),
    lstat: (path) => (stats.push(path), counting.fs.lstat(path)),
  };
  return {
    fs,
    counters: counting.counters,
    stats,
    reset() {
      counting.reset();
      stats.length = 0;
    },
  };
}

/** A depth-20 chain (repo/l1/.../l20) with an AGENTS.md at the root and every fifth level, and a source file at the bottom. */
async function chain20() {
  const spec: Record<string, string | null> = { "repo/.git/": null, "repo/AGENTS.md": "root" };
  let dir = "repo";
  for (let level = 1; level <= 20; level++) {
    dir += `/l${level}`;
    if (level % 5 === 0) spec[`${dir}/AGENTS.md`] = `level ${level}`;
  }
  spec[`${dir}/file.ts`] = "";
  return { tree: await createTree(spec), target: dir, dirs: 21, files: 5 };
}

async function deep() {
  return createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "root",
    "repo/a/AGENTS.md": "a",
    "repo/a/b/c/AGENTS.md": "c",
    "repo/a/b/c/d/e/file.ts": "",
  });
}

describe("stat cache", () => {
  it("a second resolve of the same path with nothing changed makes zero stats and zero reads within the revalidation window", async () => {
    const tree = await deep();
    const io = recording();
    const session = await openSession(tree, { cwd: tree.path("repo"), fs: io.fs, config: { cache: { revalidateMs: 60_000 } } });
    const target = tree.path("repo/a/b/c/d/e/file.ts");
    expect((await session.resolve(target)).files).toHaveLength(2);
    io.reset();
    for (let i = 0; i < 100; i++) expect(await session.resolve(target)).toEqual({ files: [] });
    expect(io.counters).toEqual({ stat: 0, lstat: 0, open: 0, bytesRead: 0, readdir: 0, realpath: 0, write: 0 });
  });

  it("a sibling target in a resolved directory costs one stat (its own), no probes", async () => {
    const tree = await deep();
    const io = recording();
    const session = await openSession(tree, { cwd: tree.path("repo"), fs: io.fs, config: { cache: { revalidateMs: 60_000 } } });
    await session.resolve(tree.path("repo/a/b/c/d/e/file.ts"));
    io.reset();
    await session.resolve(tree.path("repo/a/b/c/d/e/other.ts"));
    expect(io.stats).toEqual([tree.path("repo/a/b/c/d/e/other.ts")]);
  });

  it("a cold resolve probes each unseen directory once and reads nothing", async () => {
    const tree = await deep();
    const io = recording();
    const session = await openSession(tree, { cwd: tree.path("repo"), fs: io.fs, config: { cache: { revalidateMs: 60_000 } } });
    io.reset();
    await session.resolve(tree.path("repo/a/b/c/d/e/file.ts"));
    expect(io.counters.open).toBe(0);
    // The target's stat and an lstat per candidate (confined: a found file's lstat is its stat and
    // says it is no symlink); one realpath of the deepest directory vouches for every level's real
    // path (before: an lstat per level and another per found file).
    expect({ stat: io.counters.stat, lstat: io.counters.lstat, realpath: io.counters.realpath }).toEqual({ stat: 1, lstat: 5, realpath: 1 });
    expect(io.stats.sort()).toEqual(
      [
        tree.path("repo/a/b/c/d/e/file.ts"),
        tree.path("repo/a/AGENTS.md"),
        tree.path("repo/a/b/AGENTS.md"),
        tree.path("repo/a/b/c/AGENTS.md"),
        tree.path("repo/a/b/c/d/AGENTS.md"),
        tree.path("repo/a/b/c/d/e/AGENTS.md"),
      ].sort(),
    );
  });

  it("concurrent resolves of one cold path share the lookups", async () => {
    const tree = await deep();
    const io = recording();
    const session = await openSession(tree, { cwd: tree.path("repo"), fs: io.fs, config: { cache: { revalidateMs: 60_000 } } });
    io.reset();
    const results = await Promise.all(Array.from({ length: 20 }, () => session.resolve(tree.path("repo/a/b/c/d/e/file.ts"))));
    expect(results.flatMap((result) => result.files)).toHaveLength(2);
    expect(new Set(io.stats).size).toBe(io.stats.length);
    expect(io.stats).toHaveLength(6);
  });

  it("after the window, revalidation stats again but still reads nothing", async () => {
    const tree = await deep();
    const io = recording();
    const session = await openSession(tree, { cwd: tree.path("repo"), fs: io.fs, config: { cache: { revalidateMs: 0 } } });
    const target = tree.path("repo/a/b/c/d/e/file.ts");
    await session.resolve(target);
    io.reset();
    expect(await session.resolve(target)).toEqual({ files: [] });
    expect(io.counters.stat).toBeGreaterThan(0);
    expect(io.counters.open).toBe(0);
  });

  it("trusts a probe for revalidateMs and asks the disk again after it (injected clock)", async () => {
    const tree = await createTree({ "d/AGENTS.md": "x" });
    const io = recording();
    let now = 1000;
    const cache = new StatCache(io.fs, ["AGENTS.md"], { revalidateMs: 50, now: () => now });
    expect((await cache.probeDir(tree.path("d"))).files).toHaveLength(1);
    expect(io.counters.stat).toBe(1);
    now += 50;
    await cache.probeDir(tree.path("d"));
    expect(io.counters.stat).toBe(1);
    await tree.remove("d/AGENTS.md");
    now += 1;
    expect((await cache.probeDir(tree.path("d"))).files).toHaveLength(0);
    expect(io.counters.stat).toBe(2);
  });

  it("notices a creation next to a known file after the window, with several candidate names", async () => {
    const tree = await createTree({ "d/AGENTS.md": "x" });
    let now = 0;
    const cache = new StatCache(nodeFileSystem, ["AGENTS.override.md", "AGENTS.md"], { revalidateMs: 10, now: () => now });
    expect((await cache.probeDir(tree.path("d"))).files.map((found) => found.name)).toEqual(["AGENTS.md"]);
    await tree.write("d/AGENTS.override.md", "override");
    // Make sure the directory's mtime moves even on coarse-grained file systems.
    await tree.setMtime("d", 2_000_000_000);
    now += 11;
    expect((await cache.probeDir(tree.path("d"))).files.map((found) => found.name)).toEqual(["AGENTS.override.md", "AGENTS.md"]);
  });

  it("changes its generation when a re-probe finds something different, not when it finds the same", async () => {
    const tree = await createTree({ "d/AGENTS.md": "x" });
    let now = 0;
    const cache = new StatCache(nodeFileSystem, ["AGENTS.md"], { revalidateMs: 10, now: () => now });
    await cache.probeDir(tree.path("d"));
    const first = cache.generation;
    now += 11;
    await cache.probeDir(tree.path("d"));
    expect(cache.generation).toBe(first);
    await tree.setMtime("d/AGENTS.md", 2_000_000_000);
    now += 11;
    await cache.probeDir(tree.path("d"));
    expect(cache.generation).toBeGreaterThan(first);
    const second = cache.generation;
    cache.setRevalidateMs(Number.POSITIVE_INFINITY);
    expect(cache.generation).toBeGreaterThan(second);
  });

  it("does not store a lookup that was in flight when an invalidation arrived, and later lookups do not join it", async () => {
    const tree = await createTree({ "d/AGENTS.md": "x" });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = true;
    const fs: FileSystem = {
      ...nodeFileSystem,
      stat: async (path) => {
        const info = await nodeFileSystem.stat(path);
        if (held) await gate;
        return info;
      },
    };
    const cache = new StatCache(fs, ["AGENTS.md"], { revalidateMs: 60_000 });
    const stale = cache.probeDir(tree.path("d"));
    // The file goes away while the first lookup is held; a watcher reports it.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await tree.remove("d/AGENTS.md");
    cache.invalidateDir(tree.path("d"));
    held = false;
    const fresh = await cache.probeDir(tree.path("d"));
    expect(fresh.files).toHaveLength(0);
    release();
    expect((await stale).files).toHaveLength(1);
    // The stale answer was not stored: the cache still answers what the disk holds.
    expect(cache.peekDir(tree.path("d"), cache.now())?.files).toHaveLength(0);
  });

  it("invalidateBelow forgets a directory and everything under it, nothing beside it", async () => {
    const tree = await createTree({ "a/b/AGENTS.md": "x", "ab/AGENTS.md": "y" });
    const cache = new StatCache(nodeFileSystem, ["AGENTS.md"], { revalidateMs: 60_000 });
    for (const dir of ["a", "a/b", "ab"]) await cache.probeDir(tree.path(dir));
    await cache.stat(tree.path("a/b/AGENTS.md"));
    cache.invalidateBelow(tree.path("a"));
    const now = cache.now();
    expect(cache.peekDir(tree.path("a"), now)).toBeUndefined();
    expect(cache.peekDir(tree.path("a/b"), now)).toBeUndefined();
    expect(cache.peekPath(tree.path("a/b/AGENTS.md"), now)).toBeUndefined();
    expect(cache.peekDir(tree.path("ab"), now)).toBeDefined();
  });

  it("a seen resolve answers from the chain memo without walking the chain; a change after the window is still seen", async () => {
    vi.useFakeTimers({ toFake: ["hrtime"] }); // the stat cache's clock: io/cache.ts monotonicMs
    try {
      const tree = await deep();
      const session = await openSession(tree, { cwd: tree.path("repo"), config: { cache: { revalidateMs: 50 } } });
      const target = tree.path("repo/a/b/c/d/e/file.ts");
      expect((await session.resolve(target)).files).toHaveLength(2);
      const peek = vi.spyOn(session.cache, "peekDir");
      expect(await session.resolve(target)).toEqual({ files: [] });
      expect(peek).not.toHaveBeenCalled();
      await tree.setMtime("repo/a/AGENTS.md", 2_000_000_000);
      // Inside the window the memo stands (what the window promises); after it the edit shows.
      vi.advanceTimersByTime(51);
      expect((await session.resolve(target)).files.map((file) => file.path)).toEqual([tree.path("repo/a/AGENTS.md")]);
      await session.close();
    } finally {
      vi.useRealTimers();
    }
  });

  // A seen resolve at agent pace. The cache's clock is faked past the window; the wall
  // clock is set ahead so the tree, just written, is old enough for its timestamps to vouch for it.
  it("a seen resolve after the window re-stats the chain once: no lstat but the files' own, no realpath, no read (depth 20, confined)", async () => {
    vi.useFakeTimers({ toFake: ["hrtime", "Date"] });
    try {
      vi.setSystemTime(Date.now() + RACY_MS + 1_000);
      const { tree, target, dirs, files } = await chain20();
      const io = recording();
      const session = await openSession(tree, { cwd: tree.path("repo"), fs: io.fs, config: { cache: { revalidateMs: 50 } } });
      expect(session.config.files.symlinks).toBe("inside-root");
      expect((await session.resolve(tree.path(`${target}/file.ts`))).files).toHaveLength(files - 1); // the root's loaded at start
      for (let call = 0; call < 3; call++) {
        vi.advanceTimersByTime(70);
        io.reset();
        expect(await session.resolve(tree.path(`${target}/file.ts`))).toEqual({ files: [] });
        // Before: an lstat per level and per file again (the chain's real paths), 47 calls here.
        // A stat per directory (what appeared or went), per present file (edits) and of the target.
        // The first call probes again (the root's probe was not part of the first walk): a confined
        // probe's stat of a file is an lstat, which also tells it is no symlink; the walk then
        // memoised is vouched for by stats alone.
        const lstats = call === 0 ? files : 0;
        expect({ stat: io.counters.stat, lstat: io.counters.lstat, realpath: io.counters.realpath, open: io.counters.open }).toEqual({
          stat: dirs + files + 1 - lstats,
          lstat: lstats,
          realpath: 0,
          open: 0,
        });
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it("after the window, a file created in a directory of a seen chain, or one deleted from it, shows on the next resolve", async () => {
    vi.useFakeTimers({ toFake: ["hrtime", "Date"] });
    try {
      const { tree, target } = await chain20();
      const file = tree.path(`${target}/file.ts`);
      const session = await openSession(tree, { cwd: tree.path("repo"), config: { cache: { revalidateMs: 50 } } });
      // The first resolve vouches for the tree as it is (its clock RACY_MS and more ahead); the
      // changes come later than that by more than a kernel clock tick.
      vi.setSystemTime(Date.now() + RACY_MS + 100);
      await session.resolve(file);
      vi.advanceTimersByTime(70);
      expect(await session.resolve(file)).toEqual({ files: [] });
      await new Promise((resolve) => setTimeout(resolve, 150));
      await tree.write("repo/l1/l2/l3/AGENTS.md", "created");
      vi.advanceTimersByTime(70);
      expect((await session.resolve(file)).files.map((each) => each.path)).toEqual([tree.path("repo/l1/l2/l3/AGENTS.md")]);
      await tree.remove("repo/l1/l2/l3/l4/l5/AGENTS.md");
      vi.advanceTimersByTime(70);
      await session.resolve(file);
      expect(session.cache.peekDir(tree.path("repo/l1/l2/l3/l4/l5"), session.cache.now())?.files).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a seen resolve with a watcher asks the disk nothing (depth 20): the target is stat'ed again, once, by the call that watched its directory", async () => {
    vi.useFakeTimers({ toFake: ["hrtime"] });
    try {
      const { tree, target, files } = await chain20();
      const io = recording();
      const session = await openSession(tree, { cwd: tree.path("repo"), fs: io.fs, config: { cache: { revalidateMs: 50 } } });
      const watcher = await watchSession(session);
      expect((await session.resolve(tree.path(`${target}/file.ts`))).files).toHaveLength(files - 1); // the root's loaded at start
      await watcher.settled();
      for (let call = 0; call < 3; call++) {
        vi.advanceTimersByTime(70);
        io.reset();
        expect(await session.resolve(tree.path(`${target}/file.ts`))).toEqual({ files: [] });
        await watcher.settled();
        const probes = io.counters.stat + io.counters.lstat + io.counters.realpath + io.counters.open;
        // Before: the first made one stat, the target's own (made before its directory was watched).
        expect(probes, `call ${call}`).toBe(0);
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it("a quiet target with a watcher answers without a clock or a cache lookup, one shared frozen answer, until an event or the ledger moves", async () => {
    const { tree, target, files } = await chain20();
    const session = await openSession(tree, { cwd: tree.path("repo"), config: { cache: { revalidateMs: 50 } } });
    const watcher = await watchSession(session, { debounceMs: 0 });
    const file = tree.path(`${target}/file.ts`);
    const first = (await session.resolve(file)).files;
    expect(first).toHaveLength(files - 1); // the root's loaded at start
    await watcher.settled();
    const quiet = await session.resolve(file);
    expect(quiet).toEqual({ files: [] });
    expect(Object.isFrozen(quiet) && Object.isFrozen(quiet.files)).toBe(true);
    const clock = vi.spyOn(session.cache, "now");
    const peek = vi.spyOn(session.cache, "peekPath");
    for (let call = 0; call < 3; call++) expect(await session.resolve(file)).toBe(quiet);
    expect(clock).not.toHaveBeenCalled();
    expect(peek).not.toHaveBeenCalled();
    // The ledger moves: a forgotten file is offered again, then the target is quiet again.
    session.forget([first[0]!.path]);
    expect((await session.resolve(file)).files.map((each) => each.path)).toEqual([first[0]!.path]);
    expect(await session.resolve(file)).toBe(quiet);
    // An event moves the cache's generation: an edit on the chain shows.
    const edited = tree.path("repo/l1/l2/l3/l4/l5/l6/l7/l8/l9/l10/AGENTS.md");
    await tree.write("repo/l1/l2/l3/l4/l5/l6/l7/l8/l9/l10/AGENTS.md", "level 10, edited at more length");
    await vi.waitFor(async () => expect((await session.resolve(file)).files.map((each) => each.path)).toEqual([edited]), { timeout: 2_000, interval: 5 });
    expect(await session.resolve(file)).toBe(quiet);
    // Once the watcher is closed the window is back: the answer waits for a look at the clock.
    await watcher.close();
    clock.mockClear();
    expect(await session.resolve(file)).toBe(quiet);
    expect(clock).toHaveBeenCalled();
    await session.close();
  });

  it("a target resolved before answers from its own memo (no path work, no cache lookup) until its window ends; then a target that became a directory is one", async () => {
    vi.useFakeTimers({ toFake: ["hrtime"] });
    try {
      const tree = await deep();
      const session = await openSession(tree, { cwd: tree.path("repo"), config: { cache: { revalidateMs: 50 } } });
      const target = "a/b/c/d/e/file.ts";
      expect((await session.resolve(target)).files).toHaveLength(2);
      const peek = vi.spyOn(session.cache, "peekPath");
      expect(await session.resolve(target)).toEqual({ files: [] });
      expect(peek).not.toHaveBeenCalled();
      await tree.remove("repo/a/b/c/d/e/file.ts");
      await tree.write("repo/a/b/c/d/e/file.ts/AGENTS.md", "now a directory");
      vi.advanceTimersByTime(51);
      expect((await session.resolve(target)).files.map((file) => file.path)).toEqual([tree.path("repo/a/b/c/d/e/file.ts/AGENTS.md")]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a seen resolve that found nothing new answers at once, until the ledger changes: a forgotten or released file is offered again", async () => {
    const tree = await deep();
    const session = await openSession(tree, { cwd: tree.path("repo"), config: { cache: { revalidateMs: 60_000 } } });
    const target = tree.path("repo/a/b/c/d/e/file.ts");
    const first = (await session.resolve(target)).files;
    expect(first).toHaveLength(2);
    expect(await session.resolve(target)).toEqual({ files: [] });
    expect(await session.resolve(target)).toEqual({ files: [] });
    session.forget([first[0]!.path]);
    expect((await session.resolve(target, { admit: false })).files).toEqual([first[0]]);
    expect(await session.resolve(target)).toEqual({ files: [] });
    session.release([first[0]!]);
    expect((await session.resolve(target)).files).toEqual([first[0]]);
    expect(await session.resolve(target)).toEqual({ files: [] });
  });

  it("does not vouch for a directory by an mtime recent enough to repeat (coarse timestamps)", async () => {
    const tree = await createTree({ "d/AGENTS.md": "x" });
    // A file system whose directory mtime does not move when a file is created in the same tick.
    const frozen = Date.now();
    const fs: FileSystem = {
      ...nodeFileSystem,
      stat: async (path) => {
        const info = await nodeFileSystem.stat(path);
        return info && path === tree.path("d") ? { ...info, mtimeMs: frozen } : info;
      },
    };
    let now = 0;
    const cache = new StatCache(fs, ["AGENTS.override.md", "AGENTS.md"], { revalidateMs: 10, now: () => now });
    expect((await cache.probeDir(tree.path("d"))).files.map((found) => found.name)).toEqual(["AGENTS.md"]);
    await tree.write("d/AGENTS.override.md", "override");
    now += 11;
    expect((await cache.probeDir(tree.path("d"))).files.map((found) => found.name)).toEqual(["AGENTS.override.md", "AGENTS.md"]);
  });

  it("the default window keeps edits visible within 100 ms", () => {
    expect(DEFAULT_REVALIDATE_MS).toBeGreaterThan(0);
    expect(DEFAULT_REVALIDATE_MS).toBeLessThanOrEqual(100);
  });

  it("close() clears the cache and is idempotent", async () => {
    const tree = await deep();
    const session = await openSession(tree, { cwd: tree.path("repo") });
    await session.resolve(tree.path("repo/a/b/c/d/e/file.ts"));
    expect(session.cache.size).toBeGreaterThan(0);
    const first = session.close();
    expect(session.close()).toBe(first);
    await first;
    expect(session.cache.size).toBe(0);
  });
});
