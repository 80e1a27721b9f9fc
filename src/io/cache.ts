/**
 * A stat cache validated by mtime. A directory's probe result ("which instruction files are
 * here") is trusted for `revalidateMs`; after that, present files are re-stat'ed (an edit changes
 * their mtime) and absent ones are re-checked through the directory's mtime (a creation changes it)
 * when that saves calls. Concurrent lookups of one key share one in-flight promise.
 */
import { isAbsent, type FileInfo, type FileSystem } from "./file-system.js";
import { FsError } from "../core/errors.js";
import { isInside, join } from "../core/paths.js";

export interface Found {
  name: string;
  path: string;
  info: FileInfo;
  /** Set when the file resolves (through symlinks) outside the confining root: its real path. */
  outside?: string;
}

/** What probing one directory for instruction files found. */
export interface DirProbe {
  /** Regular files among the candidates, in candidate order (selection happens later). */
  files: Found[];
  /** Candidates that exist but are not regular files (directory, FIFO, socket, device), or that resolve outside the root (`outside`). */
  irregular: Found[];
  /** Candidates that could not be probed (EACCES, EIO...). */
  errors: FsError[];
}

interface DirEntry {
  probe: DirProbe;
  checkedAt: number;
  /** mtime of the directory when probed, or -1 when not recorded (single-name probes skip it). */
  dirMtimeMs: number;
}

interface PathEntry {
  info: FileInfo | null;
  error: FsError | null;
  checkedAt: number;
}

const EMPTY_PROBE: DirProbe = Object.freeze({ files: [], irregular: [], errors: [] }) as DirProbe;

export interface StatCacheOptions {
  /** How long a result is trusted without asking the disk. `Infinity` when a watcher invalidates. */
  revalidateMs: number;
  now?: () => number;
  /**
   * `files.symlinks: "inside-root"`: the real path of the project root and the lexical root. A file
   * found in a directory inside `root` whose real path lies outside `real` is reported in
   * `irregular` with `outside` set, never in `files`. Costs one realpath per file found.
   */
  confine?: { root: string; real: string } | undefined;
}

export class StatCache {
  readonly #fs: FileSystem;
  readonly #names: readonly string[];
  #revalidateMs: number;
  readonly #now: () => number;
  readonly #confine: { root: string; real: string } | undefined;
  readonly #dirs = new Map<string, DirEntry>();
  readonly #paths = new Map<string, PathEntry>();
  readonly #inflight = new Map<string, Promise<unknown>>();

  constructor(fs: FileSystem, names: readonly string[], options: StatCacheOptions) {
    this.#fs = fs;
    this.#names = names;
    this.#revalidateMs = options.revalidateMs;
    this.#now = options.now ?? performance.now.bind(performance);
    this.#confine = options.confine;
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

  /** Which candidate names exist in `dir`. */
  probeDir(dir: string): Promise<DirProbe> {
    const now = this.#now();
    const fresh = this.peekDir(dir, now);
    if (fresh) return Promise.resolve(fresh);
    return this.#shared(`d:${dir}`, () => this.#probeDir(dir));
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
      let info: FileInfo | null = null;
      let error: FsError | null = null;
      try {
        info = await this.#fs.stat(path);
      } catch (caught) {
        error = caught instanceof FsError ? caught : new FsError(String(caught), { path, code: "EUNKNOWN", cause: caught });
      }
      const entry = { info, error, checkedAt: this.#now() };
      this.#paths.set(path, entry);
      return entry;
    });
  }

  /** Forget what is known about `path` (as a file, and as a directory). */
  invalidate(path: string): void {
    this.#dirs.delete(path);
    this.#paths.delete(path);
  }

  /** Forget the probe of the directory holding a changed file. */
  invalidateDir(dir: string): void {
    this.#dirs.delete(dir);
  }

  clear(): void {
    this.#dirs.clear();
    this.#paths.clear();
  }

  get size(): number {
    return this.#dirs.size + this.#paths.size;
  }

  #shared<T>(key: string, run: () => Promise<T>): Promise<T> {
    const pending = this.#inflight.get(key) as Promise<T> | undefined;
    if (pending) return pending;
    const promise = run().finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, promise);
    return promise;
  }

  async #probeDir(dir: string): Promise<DirProbe> {
    const previous = this.#dirs.get(dir);
    const multi = this.#names.length > 1;
    let dirMtimeMs = -1;
    if (multi) {
      // One stat of the directory tells whether any candidate appeared or vanished.
      const info = await this.#fs.stat(dir).catch(() => null);
      if (!info || info.kind !== "directory") {
        this.#dirs.set(dir, { probe: EMPTY_PROBE, checkedAt: this.#now(), dirMtimeMs: -1 });
        return EMPTY_PROBE;
      }
      dirMtimeMs = info.mtimeMs;
      if (previous && previous.dirMtimeMs === dirMtimeMs) {
        const probe = await this.#restat(dir, previous.probe);
        this.#dirs.set(dir, { probe, checkedAt: this.#now(), dirMtimeMs });
        return probe;
      }
    }
    const results = await Promise.all(this.#names.map((name) => this.#probeOne(dir, name)));
    const probe = collect(results);
    this.#dirs.set(dir, { probe, checkedAt: this.#now(), dirMtimeMs });
    return probe;
  }

  async #probeOne(dir: string, name: string): Promise<Found | FsError | null> {
    const path = join(dir, name);
    try {
      const info = await this.#fs.stat(path);
      if (!info) return null;
      if (this.#confine && isInside(dir, this.#confine.root)) {
        const real = await this.#fs.realpath(path).catch((error: unknown) => {
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
  async #restat(dir: string, probe: DirProbe): Promise<DirProbe> {
    const known = new Set([...probe.files, ...probe.irregular].map((found) => found.name));
    for (const error of probe.errors) if (error.path) known.add(error.path.slice(dir.length + (dir.endsWith("/") ? 0 : 1)));
    if (known.size === 0) return probe;
    const results = await Promise.all(this.#names.map((name) => (known.has(name) ? this.#probeOne(dir, name) : Promise.resolve(null))));
    return collect(results);
  }
}

function collect(results: Array<Found | FsError | null>): DirProbe {
  if (results.every((result) => result === null)) return EMPTY_PROBE;
  const probe: DirProbe = { files: [], irregular: [], errors: [] };
  for (const result of results) {
    if (result === null) continue;
    if (result instanceof FsError) probe.errors.push(result);
    else if (result.info.kind === "file" && result.outside === undefined) probe.files.push(result);
    else probe.irregular.push(result);
  }
  return probe;
}
