/**
 * The files the host's config `instructions` list, kept per plugin instance (one broad
 * glob walked up to 2,000 directories at every tool call, 0.4 s at 400). The host re-runs those
 * globs every step, so a file created later must count from the next tool call on; the listing is
 * taken again only when a directory it depended on (io/dir-stamps.ts) can have changed:
 * - watching (the plugin's `watch` option, the default): one `fs.watch` per such directory, set
 *   before the directory is stamped and listed; an entry appearing, vanishing or renamed there
 *   marks the listing stale. A tool call with nothing changed asks the disk only for the
 *   directories above its own targets (one stat each, against their stamps), so the host's own
 *   write counts even before its change event arrives. A watch that cannot be set or breaks
 *   (EMFILE, ENOSPC: the inotify limit) closes them all and the listing falls back to stamps;
 * - not watching: one stat per directory against its stamp (no listing, no glob matching); a
 *   directory modified within the last two seconds is listed again.
 */
import { ABSENT_CODES, watchDirectory, type DirectoryWatch, type FileSystem } from "../../io/file-system.js";
import { DirStamps, stampHolds, stampsHold, type DirStamp } from "../../io/dir-stamps.js";
import { FsError } from "../../core/errors.js";
import { parentOf } from "../../core/paths.js";
import type { WalkObserver } from "../../presets/opencode-instructions.js";

/** The watch primitive (tests inject failures). */
export type WatchDirectory = typeof watchDirectory;

export interface ListedPathsOptions {
  fs: FileSystem;
  /** Watch the directories the listing depended on. */
  watch: boolean;
  watchDir?: WatchDirectory;
}

interface Listing {
  paths: string[];
  stamps: ReadonlyMap<string, DirStamp>;
}

/** Rounds a listing is taken again when a directory changed while it was being taken. */
const MAX_ATTEMPTS = 3;

export class ListedPaths {
  readonly #list: (observer: WalkObserver) => Promise<string[]>;
  readonly #fs: FileSystem;
  readonly #watchDir: WatchDirectory;
  #watching: boolean;
  #watches = new Map<string, DirectoryWatch>();
  #current: Listing | undefined;
  #pending: Promise<string[]> | undefined;
  /** A watched directory's entries changed since the current listing began. */
  #stale = false;
  #closed = false;

  /** `list` takes the listing, telling `observer` of each directory it lists and path it probes. */
  constructor(list: (observer: WalkObserver) => Promise<string[]>, options: ListedPathsOptions) {
    this.#list = list;
    this.#fs = options.fs;
    this.#watching = options.watch;
    this.#watchDir = options.watchDir ?? watchDirectory;
  }

  /**
   * The listed files now. `touched`: the paths of the tool call being answered (the host may have
   * just changed them).
   */
  async paths(touched: readonly string[] = []): Promise<string[]> {
    if (this.#pending) return this.#pending;
    const current = this.#current;
    if (current && (await this.#holds(current, touched))) return current.paths;
    if (this.#pending) return this.#pending;
    const pending = this.#take().finally(() => {
      this.#pending = undefined;
    });
    this.#pending = pending;
    return pending;
  }

  /** Directories watched now (tests). */
  watchedDirs(): string[] {
    return [...this.#watches.keys()];
  }

  /** False once watching fell back to stamps (or was off). */
  watching(): boolean {
    return this.#watching;
  }

  /** Closes every watch. */
  close(): void {
    this.#closed = true;
    this.#closeWatches(this.#watches);
    this.#watches = new Map();
  }

  async #holds(current: Listing, touched: readonly string[]): Promise<boolean> {
    if (!this.#watching) return stampsHold(this.#fs, current.stamps);
    if (this.#stale) return false;
    const dirs = new Set<string>();
    for (const path of touched) {
      const dir = nearestStamped(current.stamps, path);
      if (dir !== undefined) dirs.add(dir);
    }
    const checks = await Promise.all([...dirs].map((dir) => stampHolds(this.#fs, dir, current.stamps.get(dir)!)));
    return checks.every(Boolean) && !this.#stale && this.#watching;
  }

  async #take(): Promise<string[]> {
    for (let attempt = 1; ; attempt++) {
      this.#stale = false;
      const previous = this.#watches;
      this.#watches = new Map();
      const watching = this.#watching && !this.#closed;
      const stamps = new DirStamps(this.#fs, watching ? (dir) => this.#watch(dir) : undefined);
      let paths: string[];
      try {
        paths = await this.#list(stamps);
      } catch (error) {
        // Its watches may be partial now: nothing is kept, the next call lists again.
        this.#current = undefined;
        throw error;
      } finally {
        // The new watches are set (one inotify watch per directory is shared), the old ones go.
        this.#closeWatches(previous);
      }
      const taken = await stamps.settled();
      // A directory found absent was watched through its ancestor only after its own watch failed:
      // one that appeared in between shows in its stamp.
      const absent = [...taken].filter(([, stamp]) => stamp === "absent");
      const changed = watching && this.#watching && !(await Promise.all(absent.map(([dir, stamp]) => stampHolds(this.#fs, dir, stamp)))).every(Boolean);
      if ((changed || this.#stale) && attempt < MAX_ATTEMPTS) continue;
      this.#current = { paths, stamps: taken };
      if (changed) this.#stale = true;
      return paths;
    }
  }

  #watch(dir: string): void {
    if (!this.#watching || this.#closed || this.#watches.has(dir)) return;
    try {
      const watch = this.#watchDir(
        dir,
        (kind) => {
          if (kind === "rename") this.#stale = true;
        },
        () => this.#degrade(),
      );
      this.#watches.set(dir, watch);
    } catch (error) {
      // An absent directory is watched through its nearest existing ancestor (stamped next).
      if (error instanceof FsError && ABSENT_CODES.has(error.code)) return;
      this.#degrade();
    }
  }

  /** A watch could not be set or broke: every watch closes, stamps decide from now on. */
  #degrade(): void {
    if (!this.#watching) return;
    this.#watching = false;
    this.#closeWatches(this.#watches);
    this.#watches = new Map();
  }

  #closeWatches(watches: ReadonlyMap<string, DirectoryWatch>): void {
    for (const watch of watches.values()) watch.close();
  }
}

/** The nearest directory above `path` that the listing stamped. */
function nearestStamped(stamps: ReadonlyMap<string, DirStamp>, path: string): string | undefined {
  for (let dir = parentOf(path); ; dir = parentOf(dir)) {
    if (stamps.has(dir)) return dir;
    if (parentOf(dir) === dir) return undefined;
  }
}
