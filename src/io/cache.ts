/**
 * A stat cache validated by mtime. A directory's probe result ("which instruction files are
 * here") is trusted for `revalidateMs`; after that, present files are re-stat'ed (an edit changes
 * their mtime) and absent ones are re-checked through a stat of the directory (a creation changes
 * its timestamps: io/unchanged.ts) when that saves calls, or when the files' real paths depend on
 * it (confinement: the same stat vouches for what an earlier batch saw below it, io/real-path.ts).
 * Concurrent lookups of one key share one in-flight promise.
 *
 * `generation` changes whenever what the cache answers may have changed (an invalidation, a
 * re-probe that found something different, a new trust window): a caller that memoises an answer
 * built from probes (the session's chain memo) trusts it while the generation is the same and the
 * probes it used are inside the window. A lookup in flight when an invalidation arrives is not
 * stored (the watcher may have reported a change the lookup did not see).
 */
import { isAbsent, type FileInfo, type FileSystem } from "./file-system.js";
import { FsError } from "../core/errors.js";
import { isInside, join, parentOf } from "../core/paths.js";
import { ChainRealPaths, PlainSightings, plantedFile } from "./real-path.js";
import { mayReadNamed } from "../core/confine.js";
import { unchangedSince } from "./unchanged.js";

export interface Found {
  name: string;
  path: string;
  info: FileInfo;
  /** Set when the file resolves (through symlinks) outside the confining root: its real path. */
  outside?: string;
  /** Set when another user planted it in a directory anyone may write (io/real-path.ts): never loaded. */
  planted?: true;
}

/** What probing one directory for instruction files found. */
export interface DirProbe {
  /** Regular files among the candidates, in candidate order (selection happens later). */
  files: Found[];
  /** Candidates that exist but are not regular files (directory, FIFO, socket, device), that resolve outside the root (`outside`), or that another user planted (`planted`). */
  irregular: Found[];
  /** Candidates that could not be probed (EACCES, EIO...). */
  errors: FsError[];
}

interface DirEntry {
  readonly dir: string;
  probe: DirProbe;
  checkedAt: number;
  /**
   * Date.now() when the candidates were last looked for (-Infinity when a look cannot be vouched
   * for later: a survey's listing): a stat of the directory showing no change since then
   * (io/unchanged.ts) vouches that the absent ones are still absent.
   */
  seenAt: number;
}

interface PathEntry {
  info: FileInfo | null;
  error: FsError | null;
  checkedAt: number;
}

const EMPTY_PROBE: DirProbe = Object.freeze({ files: [], irregular: [], errors: [] });

/**
 * Milliseconds on a monotonic clock. process.hrtime rather than performance.now: the `performance`
 * global loads perf_hooks (a dozen internal modules) on first use, which a hook process (one per
 * tool call) would pay every time.
 */
export function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1e3 + nanoseconds / 1e6;
}

export interface StatCacheOptions {
  /** How long a result is trusted without asking the disk. `Infinity` when a watcher invalidates. */
  revalidateMs: number;
  now?: () => number;
  /**
   * `files.symlinks: "inside-root"`: the real path of the project root and the lexical root. A file
   * found in a directory inside `root` whose real path lies outside `real` is reported in
   * `irregular` with `outside` set, never in `files`. A candidate is lstat'ed rather than stat'ed
   * (the same answer for anything but a symlink, which is then stat'ed too). Costs one realpath per
   * file found; a batch of probes given one `realPaths()` one realpath for its chain, or an lstat
   * per directory, and none for what an earlier batch saw while the directories are unchanged (see
   * there).
   */
  confine?: { root: string; real: string } | undefined;
  /** Paths never reported, as if absent (files the agent's settings exclude). */
  exclude?: ((path: string) => boolean) | undefined;
}

export class StatCache {
  readonly #fs: FileSystem;
  readonly #names: readonly string[];
  #revalidateMs: number;
  readonly #now: () => number;
  readonly #confine: { root: string; real: string } | undefined;
  readonly #exclude: ((path: string) => boolean) | undefined;
  readonly #dirs = new Map<string, DirEntry>();
  readonly #paths = new Map<string, PathEntry>();
  readonly #inflight = new Map<string, Promise<unknown>>();
  /** Entries of the confining root's tree seen to be no symlink (confinement's real paths). */
  readonly #sightings: PlainSightings | undefined;
  #generation = 0;
  /** Counts invalidations: a lookup started before one does not store its result. */
  #invalidations = 0;

  constructor(fs: FileSystem, names: readonly string[], options: StatCacheOptions) {
    this.#fs = fs;
    this.#names = names;
    this.#revalidateMs = options.revalidateMs;
    this.#now = options.now ?? monotonicMs;
    this.#confine = options.confine;
    this.#exclude = options.exclude;
    this.#sightings = options.confine ? new PlainSightings() : undefined;
  }

  /**
   * Real paths for the confinement checks of one batch of probes (the directories of a chain
   * probed together, announced with `expect(dirs)`): one realpath of the chain's deepest directory
   * vouches for every level when no level is a symlink, else each directory's comes from its
   * parent's (an lstat per level), never a realpath(3) per file (d readlinks each); and what an
   * earlier batch saw costs nothing while its directories are unchanged, which the probes' own
   * stats of them tell after the window (a seen resolve: no lstat). Pass it to every `probeDir` of
   * the batch and drop it after; undefined when nothing is confined.
   */
  realPaths(): ChainRealPaths | undefined {
    const sightings = this.#sightings;
    if (!this.#confine || !sightings) return undefined;
    return new ChainRealPaths(this.#fs, this.#confine, { sightings, batch: sightings.batch(this.#now(), this.#revalidateMs) });
  }

  get fs(): FileSystem {
    return this.#fs;
  }

  /** The candidate names probed in each directory. */
  get names(): readonly string[] {
    return this.#names;
  }

  /** The current trust window in ms (`Infinity` while a watcher invalidates). */
  get revalidateMs(): number {
    return this.#revalidateMs;
  }

  /** Trust entries forever (a watcher will invalidate) or for `ms` again. */
  setRevalidateMs(ms: number): void {
    this.#revalidateMs = ms;
    this.#generation++;
  }

  /** Changes whenever an answer built from this cache may be out of date (see the module doc). */
  get generation(): number {
    return this.#generation;
  }

  /** When the probe of `dir` was made (-Infinity when there is none): with the window, how long it is trusted. */
  checkedAt(dir: string): number {
    return this.#dirs.get(dir)?.checkedAt ?? Number.NEGATIVE_INFINITY;
  }

  now(): number {
    return this.#now();
  }

  /** The fresh probe of `dir` without any I/O, or undefined when it must be (re)validated. */
  peekDir(dir: string, now: number): DirProbe | undefined {
    const entry = this.#dirs.get(dir);
    return entry && now - entry.checkedAt <= this.#revalidateMs ? entry.probe : undefined;
  }

  /** The fresh stat of `path` without I/O, or undefined. */
  peekPath(path: string, now: number): PathEntry | undefined {
    const entry = this.#paths.get(path);
    return entry && now - entry.checkedAt <= this.#revalidateMs ? entry : undefined;
  }

  /** Which candidate names exist in `dir` (`reals`: the batch's real paths, see `realPaths`). */
  probeDir(dir: string, reals?: ChainRealPaths): Promise<DirProbe> {
    const now = this.#now();
    const fresh = this.peekDir(dir, now);
    if (fresh) return Promise.resolve(fresh);
    return this.#shared(`d:${dir}`, () => this.#probeDir(dir, reals));
  }

  /** stat (following symlinks) of any path, cached. */
  async stat(path: string): Promise<FileInfo | null> {
    const entry = await this.statEntry(path);
    if (entry.error) throw entry.error;
    return entry.info;
  }

  statEntry(path: string): Promise<PathEntry> {
    const fresh = this.peekPath(path, this.#now());
    if (fresh) return Promise.resolve(fresh);
    return this.#shared(`p:${path}`, async () => {
      const invalidations = this.#invalidations;
      let info: FileInfo | null = null;
      let error: FsError | null = null;
      try {
        info = await this.#fs.stat(path);
      } catch (caught) {
        error = caught instanceof FsError ? caught : new FsError(String(caught), { path, code: "EUNKNOWN", cause: caught });
      }
      const entry = { info, error, checkedAt: this.#now() };
      if (invalidations === this.#invalidations) this.#paths.set(path, entry);
      return entry;
    });
  }

  /**
   * Vouches for the probes of `dirs` at once, after the window: true when a stat of each directory
   * shows no change since `since` (Date.now() taken before they were probed: io/unchanged.ts) and
   * each candidate they found stats as it did; then their window starts again. Everything a probe
   * derived (absent names, real paths, planted files) holds while its directory is unchanged, so
   * nothing else is asked. False, with nothing refreshed, when anything differs, a probe is gone or
   * held an error, or an invalidation came meanwhile: the caller probes as usual.
   */
  async revalidate(dirs: readonly string[], since: number): Promise<boolean> {
    const entries: DirEntry[] = [];
    const checks: Array<Promise<boolean>> = [];
    const invalidations = this.#invalidations;
    for (const dir of dirs) {
      const entry = this.#dirs.get(dir);
      if (!entry || entry.probe.errors.length > 0) return false;
      entries.push(entry);
      const seen = Math.min(since, entry.seenAt); // a probe joined in flight may have looked earlier
      checks.push(
        this.#fs.stat(dir).then(
          (info) => unchangedSince(info, seen),
          () => false,
        ),
      );
      for (const found of entry.probe.files)
        checks.push(
          this.#fs.stat(found.path).then(
            (info) => info !== null && sameInfo(info, found.info),
            () => false,
          ),
        );
      for (const found of entry.probe.irregular)
        checks.push(
          this.#fs.stat(found.path).then(
            (info) => info !== null && sameInfo(info, found.info),
            () => false,
          ),
        );
    }
    const answers = await Promise.all(checks);
    if (invalidations !== this.#invalidations || answers.includes(false)) return false;
    const now = this.#now();
    for (const entry of entries) if (this.#dirs.get(entry.dir) === entry) entry.checkedAt = now;
    return true;
  }

  /** Forget what is known about `path` (as a file, and as a directory). */
  invalidate(path: string): void {
    this.#dirs.delete(path);
    this.#paths.delete(path);
    this.#sightings?.forget(path);
    this.#inflight.delete(`d:${path}`);
    this.#inflight.delete(`p:${path}`);
    this.#changed();
  }

  /** Forget the probe of the directory holding a changed file. */
  invalidateDir(dir: string): void {
    this.#dirs.delete(dir);
    this.#inflight.delete(`d:${dir}`);
    this.#changed();
  }

  /** Forget everything known at or below `dir` (a directory appeared, vanished or was renamed). */
  invalidateBelow(dir: string): void {
    for (const key of this.#dirs.keys()) if (isInside(key, dir)) this.#dirs.delete(key);
    for (const key of this.#paths.keys()) if (isInside(key, dir)) this.#paths.delete(key);
    for (const key of this.#inflight.keys()) if (isInside(key.slice(2), dir)) this.#inflight.delete(key);
    this.#sightings?.forgetBelow(dir);
    this.#changed();
  }

  clear(): void {
    this.#dirs.clear();
    this.#paths.clear();
    this.#inflight.clear();
    this.#sightings?.clear();
    this.#changed();
  }

  /**
   * Where an instruction file the session delivered earlier leads now when that is outside what
   * the session's probes allow (a later read of it: refresh, compaction): its real path outside the
   * confinement root, or, above that root, outside its own directory; undefined when it may be
   * read (or nothing is confined). A realpath (two above the root) per call.
   */
  async leadsOutside(path: string): Promise<string | undefined> {
    const confine = this.#confine;
    if (!confine) return undefined;
    const real = await this.#fs.realpath(path).catch(() => null);
    if (real === null) return undefined;
    const dir = parentOf(path);
    const scope = isInside(dir, confine.root) ? confine.real : await this.#fs.realpath(dir).catch(() => dir);
    return mayReadNamed("repository", real, scope) ? undefined : real;
  }

  #changed(): void {
    this.#generation++;
    this.#invalidations++;
  }

  get size(): number {
    return this.#dirs.size + this.#paths.size;
  }

  #shared<T>(key: string, run: () => Promise<T>): Promise<T> {
    const pending = this.#inflight.get(key) as Promise<T> | undefined;
    if (pending) return pending;
    const promise = run().finally(() => {
      // An invalidation may have replaced this lookup with a newer one: leave that one alone.
      if (this.#inflight.get(key) === promise) this.#inflight.delete(key);
    });
    this.#inflight.set(key, promise);
    return promise;
  }

  async #probeDir(dir: string, reals: ChainRealPaths | undefined): Promise<DirProbe> {
    const invalidations = this.#invalidations;
    const previous = this.#dirs.get(dir);
    const store = (probe: DirProbe, seenAt: number): DirProbe => {
      if (invalidations !== this.#invalidations) return probe;
      if (previous && !sameProbe(previous.probe, probe)) this.#generation++;
      this.#dirs.set(dir, { dir, probe, checkedAt: this.#now(), seenAt });
      return probe;
    };
    const known = this.#fs.knownEntries?.(dir);
    if (known) {
      // A survey's listing: only the candidates it holds are stat'ed (`.claude/CLAUDE.md` by its first segment).
      const present = this.#names.map((name) => known.has(firstSegment(name)));
      if (!present.includes(true)) return store(EMPTY_PROBE, Number.NEGATIVE_INFINITY);
      return store(
        collect(await Promise.all(this.#names.map((name, at) => (present[at] ? this.#probeOne(dir, name, reals) : Promise.resolve(null))))),
        Number.NEGATIVE_INFINITY,
      );
    }
    const seenAt = Date.now();
    // One stat of the directory tells whether any candidate appeared or vanished since the last
    // look, and vouches for the real paths seen below it: made when it saves calls (several names)
    // or on a second look at a confined directory (its files' real paths need no lstat then).
    if (this.#names.length > 1 || (previous && this.#confine)) {
      const info = await (reals ? reals.stamp(dir) : this.#fs.stat(dir).catch(() => null));
      if (!info || info.kind !== "directory") return store(EMPTY_PROBE, Number.NEGATIVE_INFINITY);
      if (previous && unchangedSince(info, previous.seenAt)) return store(await this.#restat(dir, previous.probe, reals), previous.seenAt);
    }
    const results = await Promise.all(this.#names.map((name) => this.#probeOne(dir, name, reals)));
    return store(collect(results), seenAt);
  }

  async #probeOne(dir: string, name: string, reals: ChainRealPaths | undefined): Promise<Found | FsError | null> {
    const path = join(dir, name);
    if (this.#exclude?.(path)) return null;
    try {
      const confined = this.#confine !== undefined && isInside(dir, this.#confine.root);
      // Confined (and above the confinement root): an lstat first. For anything but a symlink it
      // is the stat, and it tells the batch's real paths that this name is no symlink (no second
      // call to ask it).
      const above = this.#confine !== undefined && !confined;
      const seen = confined || above ? await this.#fs.lstat(path) : undefined;
      if (seen === null) return null;
      const info = seen === undefined || seen.symlink ? await this.#fs.stat(path) : infoOfLstat(seen);
      if (!info) return null;
      if (await plantedFile(this.#fs, path, info)) return { name, path, info, planted: true };
      if (above && seen?.symlink) {
        // Above the project (a tree without .git seen from a subdirectory, Claude Code's
        // ancestors) a symlinked instruction file may lead only below its own directory: the
        // repository named its target (core/confine.ts).
        const [real, dirReal] = await Promise.all([this.#fs.realpath(path), this.#fs.realpath(dir)]);
        if (!mayReadNamed("repository", real, dirReal)) return { name, path, info, outside: real };
      }
      if (confined) {
        const real = await (reals ? reals.of(path, seen) : this.#fs.realpath(path)).catch((error: unknown) => {
          if (isAbsent(error)) return null; // deleted since the stat
          throw error;
        });
        if (real === null) return null;
        if (!isInside(real, this.#confine.real)) return { name, path, info, outside: real };
      }
      return { name, path, info };
    } catch (error) {
      return error instanceof FsError ? error : new FsError(String(error), { path, code: "EUNKNOWN", cause: error });
    }
  }

  /** Same directory listing: only the candidates that were there can have changed. */
  async #restat(dir: string, probe: DirProbe, reals: ChainRealPaths | undefined): Promise<DirProbe> {
    const known = new Set([...probe.files, ...probe.irregular].map((found) => found.name));
    for (const error of probe.errors) if (error.path) known.add(error.path.slice(dir.length + (dir.endsWith("/") ? 0 : 1)));
    if (known.size === 0) return probe;
    const results = await Promise.all(this.#names.map((name) => (known.has(name) ? this.#probeOne(dir, name, reals) : Promise.resolve(null))));
    return collect(results);
  }
}

/** An lstat's answer for an entry that is no symlink, as its stat answers it. */
function infoOfLstat({ symlink: _symlink, ...info }: FileInfo & { symlink: boolean }): FileInfo {
  return info;
}

/** Whether two probes of one directory found the same candidates at the same versions. */
function sameProbe(a: DirProbe, b: DirProbe): boolean {
  if (a === b) return true;
  return (
    sameFound(a.files, b.files) &&
    sameFound(a.irregular, b.irregular) &&
    a.errors.length === b.errors.length &&
    a.errors.every((error, index) => error.code === b.errors[index]!.code)
  );
}

function sameFound(a: readonly Found[], b: readonly Found[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    const x = a[index]!;
    const y = b[index]!;
    if (x.path !== y.path || x.outside !== y.outside || !sameInfo(x.info, y.info)) return false;
  }
  return true;
}

/** The same file at the same version (an edit moves mtime or size; a replacement the inode; a chown the owner). */
function sameInfo(a: FileInfo, b: FileInfo): boolean {
  return a.kind === b.kind && a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino && a.dev === b.dev && a.uid === b.uid;
}

function firstSegment(name: string): string {
  const slash = name.indexOf("/");
  return slash === -1 ? name : name.slice(0, slash);
}

function collect(results: Array<Found | FsError | null>): DirProbe {
  if (results.every((result) => result === null)) return EMPTY_PROBE;
  const probe: DirProbe = { files: [], irregular: [], errors: [] };
  for (const result of results) {
    if (result === null) continue;
    if (result instanceof FsError) probe.errors.push(result);
    else if (result.info.kind === "file" && result.outside === undefined && !result.planted) probe.files.push(result);
    else probe.irregular.push(result);
  }
  return probe;
}
