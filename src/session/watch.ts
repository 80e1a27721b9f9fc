/**
 * Optional file watching for a session (`agentsmd/watch`): chokidar (loaded on demand) watches the
 * candidate instruction files of every directory the session scanned, including candidates and
 * directories that do not exist yet, and invalidates the stat cache on every change. While the
 * watcher is ready the cache trusts its entries until invalidated, so a warm resolve asks the
 * disk nothing; without a watcher mtime revalidation keeps results correct anyway.
 *
 * How: each interesting file path `dir/name` is wanted in its directory. An existing directory is
 * watched one level deep, with everything but the wanted names ignored (so source files being
 * edited cost nothing). A directory that does not exist yet is reached through its nearest
 * existing ancestor, which is watched for the next path segment; when that segment appears the
 * plan is extended, and the cache entries below it are dropped again once the new watches settle
 * (a file created between the mkdir and the new watch is not missed).
 */
import type { FSWatcher } from "chokidar";
import type { StatCache } from "../io/cache.js";
import { initialDirs } from "../load/initial.js";
import { isInside, join, nameOf, parentOf } from "../core/paths.js";

export interface WatchOptions {
  /** Quiet period in ms before `onChange` hears about a batch of changes. @default 20 */
  debounceMs?: number;
  /** Called, debounced, with the instruction files (and directories) that changed. */
  onChange?: (paths: string[]) => void;
  /** Called with watcher errors; they are never thrown. @default ignored */
  onError?: (error: Error) => void;
}

export interface SessionWatcher {
  /** Resolves once the initial watches are in place (watchSession already awaited it). */
  readonly ready: Promise<void>;
  /** Directories watched now. */
  watchedDirs(): string[];
  /** Resolves after pending invalidations and notifications ran (tests, benchmarks). */
  settled(): Promise<void>;
  /** Stops watching and restores the cache's revalidation window. Idempotent. */
  close(): Promise<void>;
}

export const DEFAULT_DEBOUNCE_MS = 20;

async function loadChokidar(): Promise<typeof import("chokidar")> {
  try {
    return await import("chokidar");
  } catch (error) {
    throw new Error("agentsmd/watch needs the chokidar package: npm install chokidar", { cause: error });
  }
}

/**
 * What the watcher sees of a session (an `AgentsSession` is one): the cache it invalidates, where
 * the initial scope lies, the directories and files known so far, and two events: directory
 * chains scanned from now on, and the session closing.
 */
export interface WatchedSession {
  readonly cache: StatCache;
  readonly config: { readonly cache: { readonly revalidateMs: number } };
  readonly hasProject: boolean;
  readonly root: string;
  readonly cwd: string;
  readonly preset: { readonly startup: { readonly dirs: Parameters<typeof initialDirs>[2] } };
  readonly coveredDirs: ReadonlySet<string>;
  admitted(): ReadonlyArray<{ path: string }>;
  onScan(listener: (dirs: readonly string[]) => void): () => void;
  onClose(fn: () => Promise<void> | void): void;
}

/**
 * Watches what `session` knows and scans from now on. `session.close()` closes the watcher too.
 * @example
 * const session = await createSession({ cwd });
 * const watcher = await watchSession(session, { debounceMs: 20, onChange: (paths) => console.log(paths) });
 * // ... or: await createSession({ cwd, watch: true })
 * await session.close(); // closes the watcher
 */
export async function watchSession(session: WatchedSession, options: WatchOptions = {}): Promise<SessionWatcher> {
  const { watch } = await loadChokidar();
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const settleMs = Math.max(debounceMs, 25);
  const cache: StatCache = session.cache;
  const fs = cache.fs;
  const names = cache.names;
  const revalidateMs = session.config.cache.revalidateMs;

  /** dir -> base names wanted in it (candidate files, known files, next segments toward missing dirs). */
  const wanted = new Map<string, Set<string>>();
  /** Directories handed to chokidar. */
  const watched = new Set<string>();
  /** Scanned directories (their candidate files are wanted). */
  const scanned = new Set<string>();
  const seenChains = new WeakSet<readonly string[]>();

  const want = (dir: string, base: string): boolean => {
    let set = wanted.get(dir);
    if (!set) wanted.set(dir, (set = new Set()));
    if (set.has(base)) return false;
    set.add(base);
    return true;
  };

  const watcher: FSWatcher = watch([], {
    ignoreInitial: true,
    persistent: false,
    depth: 0,
    ignored: (path: string) => !watched.has(path) && !wanted.get(parentOf(path))?.has(nameOf(path)),
  });

  let closed = false;
  let pendingPaths = new Set<string>();
  let notifyTimer: NodeJS.Timeout | undefined;
  const timers = new Set<NodeJS.Timeout>();
  const work = new Set<Promise<unknown>>();

  const track = <T>(promise: Promise<T>): Promise<T> => {
    const tracked = promise.catch((error: unknown) => {
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
      return undefined as T;
    });
    work.add(tracked);
    void tracked.finally(() => work.delete(tracked));
    return tracked;
  };

  const later = (ms: number, fn: () => void): void => {
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!closed) fn();
      done();
    }, ms);
    // Not unref'd: watchSession awaits these short timers, and an unref'd one would let a plain
    // script end mid-await (exit code 13). close() clears them.
    timers.add(timer);
    void track(finished);
  };

  /** Drops what the cache knows about a path, as a file and as the directory probe that lists it. */
  const invalidatePath = (path: string): void => {
    cache.invalidate(path);
    cache.invalidateDir(parentOf(path));
    // A candidate name with a slash (".agents/AGENTS.md") is probed from a directory further up.
    for (const name of names) if (name.includes("/") && path.endsWith(`/${name}`)) cache.invalidateDir(path.slice(0, -name.length - 1));
  };

  /** Forget every probe at or below `dir` (a directory appeared, vanished, or was just watched). */
  const invalidateBelow = (dir: string): void => {
    cache.invalidate(dir);
    for (const each of scanned) if (isInside(each, dir)) cache.invalidateDir(each);
    for (const [each, bases] of wanted) if (isInside(each, dir)) for (const base of bases) cache.invalidate(join(each, base));
  };

  /** Makes sure `dir` (or, while it does not exist, its nearest existing ancestor) is watched. */
  const plan = async (dirs: Iterable<string>): Promise<void> => {
    const fresh: string[] = [];
    for (const dir of dirs) {
      let current = dir;
      for (;;) {
        if (watched.has(current)) break;
        const info = await fs.stat(current).catch(() => null);
        if (info?.kind === "directory") {
          watched.add(current);
          fresh.push(current);
          break;
        }
        const parent = parentOf(current);
        if (parent === current) break;
        want(parent, nameOf(current));
        current = parent;
      }
    }
    if (closed || fresh.length === 0) return;
    watcher.add(fresh);
    // A change between our probe and the watch being in place would be missed: look again once settled.
    later(settleMs, () => {
      for (const dir of fresh) invalidateBelow(dir);
    });
  };

  /** Wants the candidate files of scanned directories, and known files. */
  const learn = (dirs: readonly string[], files: readonly string[] = []): void => {
    const toPlan = new Set<string>();
    for (const dir of dirs) {
      if (scanned.has(dir)) continue;
      scanned.add(dir);
      for (const name of names) {
        const path = join(dir, name);
        if (want(parentOf(path), nameOf(path)) || !watched.has(parentOf(path))) toPlan.add(parentOf(path));
      }
    }
    for (const path of files) if (want(parentOf(path), nameOf(path)) || !watched.has(parentOf(path))) toPlan.add(parentOf(path));
    if (toPlan.size > 0) void track(plan(toPlan));
  };

  const notify = (path: string): void => {
    if (!options.onChange) return;
    pendingPaths.add(path);
    if (notifyTimer) clearTimeout(notifyTimer);
    notifyTimer = setTimeout(() => {
      notifyTimer = undefined;
      const batch = [...pendingPaths];
      pendingPaths = new Set();
      if (!closed && batch.length > 0) options.onChange?.(batch);
    }, debounceMs);
    notifyTimer.unref?.();
  };

  watcher.on("all", (event, path) => {
    if (closed) return;
    if (event === "addDir" || event === "unlinkDir") {
      invalidateBelow(path);
      // Directories at or below it change between existing and missing: plan them again.
      const affected = [...wanted.keys()].filter((dir) => isInside(dir, path));
      if (event === "unlinkDir") {
        for (const dir of [...watched]) if (isInside(dir, path)) watched.delete(dir);
      }
      if (affected.length > 0) void track(plan(affected));
    } else {
      invalidatePath(path);
    }
    notify(path);
  });
  watcher.on("error", (error) => options.onError?.(error instanceof Error ? error : new Error(String(error))));

  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  learn(
    [...initialDirs(session.hasProject ? session.root : null, session.cwd, session.preset.startup.dirs), ...session.coveredDirs],
    session.admitted().map((entry) => entry.path),
  );
  const stopScan = session.onScan((dirs) => {
    if (seenChains.has(dirs)) return;
    seenChains.add(dirs);
    learn(dirs);
  });
  while (work.size > 0) await Promise.all([...work]);
  if (watched.size > 0) await ready;
  // Everything probed before the watches existed may be stale: start from a clean slate.
  cache.clear();
  if (!closed) cache.setRevalidateMs(Number.POSITIVE_INFINITY);

  let closing: Promise<void> | undefined;
  const handle: SessionWatcher = {
    ready: Promise.resolve(),
    watchedDirs: () => [...watched],
    async settled() {
      while (work.size > 0) await Promise.all([...work]);
    },
    close() {
      closing ??= (async () => {
        closed = true;
        stopScan();
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        work.clear();
        if (notifyTimer) clearTimeout(notifyTimer);
        cache.setRevalidateMs(revalidateMs);
        await watcher.close();
      })();
      return closing;
    },
  };
  session.onClose(() => handle.close());
  return handle;
}
