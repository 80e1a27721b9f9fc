/**
 * Optional file watching for a session (`agentsmd/watch`): one plain `fs.watch` per directory the
 * session scanned (io/file-system.ts `watchDirectory`), and the stat cache trusts its entries until
 * an event invalidates them, so a seen resolve asks the disk nothing. Without a watcher, mtime
 * revalidation keeps results correct anyway.
 *
 * Why not chokidar (the owner's usual choice): measured on 2,000 directories of 8 files each
 * (Node 20, Linux), chokidar 5 with `depth: 0`, an `ignored` filter and polling off costs about
 * 2.4 KB of heap per watched directory and seconds to start (it lists every directory and keeps an
 * entry per child); a bare `fs.watch` costs about 0.75 KB and no listing. The performance target is
 * 1 KB per directory (bench row `watch-memory`).
 *
 * What an event does (`name` is the entry in the watched directory `dir`):
 * - a candidate instruction file (or the first segment of a candidate such as `.github/x.md`):
 *   the file and the probe of the directory that lists it are forgotten;
 * - `rename` of anything else: its stat is forgotten; when it is (or was) a directory, everything
 *   known at or below it is forgotten and its watches are closed, and directory chains are
 *   planned again on their next scan (a directory that appeared extends chains that stopped above it);
 * - `change` of anything else (a source file written): nothing.
 * A watch is set before the session probes the chain it belongs to (the scan hook runs first), so
 * a change after the probe always reaches it. When a watch cannot be set (EMFILE, ENOSPC: the
 * inotify limit, EACCES) or breaks, every watch closes and the session falls back to stat
 * validation, with a `watch-unavailable` diagnostic; never a crash.
 */
import type { StatCache } from "../io/cache.js";
import { watchDirectory, type DirectoryWatch } from "../io/file-system.js";
import { FsError } from "../core/errors.js";
import type { Diagnostic } from "../core/schema.js";
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
  /** False once the watcher fell back to stat validation (a watch could not be set or broke). */
  active(): boolean;
  /** Resolves after pending invalidations and notifications ran (tests, benchmarks). */
  settled(): Promise<void>;
  /** Stops watching and restores the cache's revalidation window. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_DEBOUNCE_MS = 20;

/**
 * What the watcher sees of a session (an `AgentsSession` is one): the cache it invalidates, where
 * the initial scope lies, the directories and files known so far, and two events: directory
 * chains scanned from now on (with the target they were scanned for), and the session closing.
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
  onScan(listener: (dirs: readonly string[], target?: string) => void): () => void;
  onClose(fn: () => Promise<void> | void): void;
  /** Records a non-fatal problem in `session.diagnostics`. */
  addDiagnostic?(diagnostic: Diagnostic): void;
}

/** The watch primitive (tests inject failures). */
export type WatchDirectory = typeof watchDirectory;

/**
 * Watches what `session` knows and scans from now on. `session.close()` closes the watcher too.
 * @example
 * const session = await createSession({ cwd });
 * const watcher = await watchSession(session, { debounceMs: 20, onChange: (paths) => console.log(paths) });
 * // ... or: await createSession({ cwd, watch: true })
 * await session.close(); // closes the watcher
 */
export async function watchSession(session: WatchedSession, options: WatchOptions = {}, watchDir: WatchDirectory = watchDirectory): Promise<SessionWatcher> {
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const cache: StatCache = session.cache;
  const fs = cache.fs;
  const names = cache.names;
  const revalidateMs = session.config.cache.revalidateMs;
  /** Folders below a scanned directory that hold candidates, with every level between (".github" of ".github/x.md"). */
  const subdirs = [
    ...new Set(
      names.flatMap((name) =>
        name
          .split("/")
          .slice(0, -1)
          .map((_, index, parts) => parts.slice(0, index + 1).join("/")),
      ),
    ),
  ];

  const watches = new Map<string, DirectoryWatch>();
  /** Chains already planned (arrays memoised by the session); forgotten when the tree's shape changes. */
  let planned = new WeakSet<readonly string[]>();
  let closed = false;
  let degraded = false;
  let pendingPaths = new Set<string>();
  let notifyTimer: NodeJS.Timeout | undefined;
  const work = new Set<Promise<unknown>>();

  const reportError = (error: unknown): void => options.onError?.(error instanceof Error ? error : new Error(String(error)));

  const track = (promise: Promise<unknown>): void => {
    const tracked = promise.catch(reportError);
    work.add(tracked);
    void tracked.finally(() => work.delete(tracked));
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

  const closeAll = (): void => {
    for (const watch of watches.values()) watch.close();
    watches.clear();
  };

  /** A watch could not be set or broke: stop trusting the cache, say why, keep working by stat. */
  const degrade = (error: FsError): void => {
    if (degraded || closed) return;
    degraded = true;
    closeAll();
    cache.setRevalidateMs(revalidateMs);
    cache.clear();
    session.addDiagnostic?.({
      level: "warning",
      code: "watch-unavailable",
      message: `watching ${error.path ?? "a directory"} failed (${error.code}): instruction files are checked by stat again (within ${revalidateMs} ms)`,
      ...(error.path ? { path: error.path } : {}),
      fix:
        error.code === "ENOSPC"
          ? "raise the inotify watch limit (sysctl fs.inotify.max_user_watches) or leave watch off"
          : error.code === "EMFILE"
            ? "raise the open-file limit (ulimit -n) or leave watch off"
            : "check the permissions of the directory or leave watch off",
    });
    reportError(error);
  };

  /** Forgets what is known at or below `dir` and closes the watches there (it vanished, moved or appeared). */
  const reshaped = (dir: string): void => {
    for (const [each, watch] of watches) {
      if (isInside(each, dir)) {
        watch.close();
        watches.delete(each);
      }
    }
    cache.invalidateBelow(dir);
    planned = new WeakSet();
    notify(dir);
  };

  const onEvent = (dir: string, kind: "rename" | "change", name: string | null): void => {
    if (closed || degraded) return;
    if (name === null) {
      // The platform did not say what changed: forget the whole directory.
      reshaped(dir);
      return;
    }
    const path = join(dir, name);
    let candidate = false;
    for (const each of names) {
      // The probe listing `dir/AGENTS.md` is dir's; the one listing `dir/.github/x.md` is dir/..'s.
      if (path.endsWith(`/${each}`)) {
        cache.invalidateDir(path.slice(0, -each.length - 1));
        candidate = true;
      }
    }
    if (candidate) {
      cache.invalidate(path);
      notify(path);
    }
    if (kind === "change") return;
    cache.invalidate(path);
    if (watches.has(path)) {
      // A watched directory was renamed, removed or replaced.
      cache.invalidateDir(dir);
      reshaped(path);
      return;
    }
    for (const sub of subdirs) {
      const base = path.endsWith(`/${sub}`) ? path.slice(0, -sub.length - 1) : undefined;
      if (base === undefined || !watches.has(base)) continue;
      // A candidate's folder (".github") appeared or went: the probe of `base` lists its files.
      cache.invalidateDir(base);
      reshaped(path);
      for (const each of subdirs) watchOne(join(base, each));
      return;
    }
    if (candidate && name !== nameOf(dir)) return;
    // Did a directory appear here (a chain that stopped above may extend), or did this watched
    // directory itself go (inotify names it by its own base name)? One stat each decides.
    track(
      (async () => {
        if (name === nameOf(dir) && (await fs.stat(dir).catch(() => null))?.kind !== "directory") {
          reshaped(dir);
          return;
        }
        const info = await fs.stat(path).catch(() => null);
        if (info?.kind === "directory" && !closed && !degraded) reshaped(path);
      })(),
    );
  };

  /** Watches `dir` now (before the session probes it). False when it does not exist. */
  const watchOne = (dir: string): boolean => {
    if (watches.has(dir)) return true;
    try {
      watches.set(
        dir,
        watchDir(
          dir,
          (kind, name) => onEvent(dir, kind, name),
          (error) => degrade(error),
        ),
      );
      // Anything probed here before the watch existed may be stale.
      cache.invalidateDir(dir);
      return true;
    } catch (error) {
      const code = error instanceof FsError ? error.code : "";
      if (code === "ENOENT" || code === "ENOTDIR") return false;
      degrade(error instanceof FsError ? error : new FsError(String(error), { path: dir, code: "EUNKNOWN", cause: error }));
      return false;
    }
  };

  /** Watches the directories of a scanned chain (and candidates' folders in them). */
  const plan = (dirs: readonly string[], target?: string): void => {
    if (closed || degraded) return;
    let fresh = false;
    for (const dir of dirs) {
      if (watches.has(dir)) continue;
      if (!watchOne(dir)) {
        // The chain's first directory is gone: its nearest existing ancestor tells when it is back.
        if (dir === dirs[0]) for (let above = parentOf(dir); !watchOne(above) && !degraded && parentOf(above) !== above; above = parentOf(above));
        continue;
      }
      fresh = true;
      for (const sub of subdirs) watchOne(join(dir, sub));
      if (degraded) return;
    }
    // The target was stat'ed before its directory was watched: stat it again now the watch is set,
    // so the next resolve of it asks the disk nothing (a change from here on reaches the watch).
    if (fresh && target !== undefined) {
      cache.invalidate(target);
      track(cache.statEntry(target));
    }
  };

  plan([...initialDirs(session.hasProject ? session.root : null, session.cwd, session.preset.startup.dirs), ...session.coveredDirs]);
  plan(session.admitted().map((entry) => parentOf(entry.path)));
  const stopScan = session.onScan((dirs, target) => {
    if (planned.has(dirs)) return;
    planned.add(dirs);
    plan(dirs, target);
  });
  // Everything probed before the watches existed may be stale: start from a clean slate.
  cache.clear();
  if (!degraded && !closed) cache.setRevalidateMs(Number.POSITIVE_INFINITY);

  let closing: Promise<void> | undefined;
  const handle: SessionWatcher = {
    ready: Promise.resolve(),
    watchedDirs: () => [...watches.keys()],
    active: () => !degraded && !closed,
    async settled() {
      while (work.size > 0) await Promise.all([...work]);
    },
    close() {
      closing ??= (async () => {
        closed = true;
        stopScan();
        if (notifyTimer) clearTimeout(notifyTimer);
        closeAll();
        if (!degraded) cache.setRevalidateMs(revalidateMs);
        await handle.settled();
      })();
      return closing;
    },
  };
  session.onClose(() => handle.close());
  return handle;
}
