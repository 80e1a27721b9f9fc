/**
 * The session's scope rules: which directories and instruction files apply to a target (the chain
 * root -> target dir, the preset's scope, `lazy.exclude`, identity dedupe), and which files of the
 * initial scope exist now. One job: finding candidates. It reads metadata only and admits nothing;
 * the ledger it is given answers which files the model has.
 */
import type { StatCache, DirProbe, Found } from "../io/cache.js";
import type { ChainRealPaths } from "../io/real-path.js";
import type { ResolvedConfig } from "../load/config.js";
import type { Preset } from "../presets/preset.js";
import { findProjectRoot } from "../load/root.js";
import { initialDirs } from "../load/initial.js";
import { identityKey, selectFiles, type DiagnosticSink, type NameGroups } from "../load/discover.js";
import { absolute, chain, isInside, nameOf, parentOf, pathInputProblem } from "../core/paths.js";
import { quote } from "../core/quote.js";
import type { AdmissionLedger } from "./ledger.js";

/** What the scope is decided from (set once, when the session is built). */
export interface ScopeInit {
  cwd: string;
  root: string;
  home: string;
  /** false when the preset found no project: nothing applies but user layers. */
  hasProject: boolean;
  config: ResolvedConfig;
  preset: Preset;
  cache: StatCache;
  sink: DiagnosticSink;
  /** Admitted paths (identity dedupe compares with them). */
  ledger: Pick<AdmissionLedger, "paths">;
  /** Name groups for the initial scope and `resolve`. */
  groups: NameGroups;
  /** Name groups for directories reached by `touch`. */
  lazyGroups: NameGroups;
}

/** What the chain to a directory found, with what keeps it true (see `SessionScope#remember`). */
interface FoundMemo {
  readonly found: Found[];
  readonly generation: number;
  validUntil: number;
  /**
   * When every probe the answer came from was made in one walk: the directories, and since when
   * what the walk found was true (Date.now() before it began, less the window). After the window, a
   * stat of each of them and of each file they hold (`StatCache#revalidate`) vouches for the whole
   * answer at once.
   */
  readonly walk?: { readonly dirs: readonly string[]; readonly since: number };
}

/**
 * What one `touch` of many targets has walked: directory -> true when its candidates were offered,
 * false when an excluded directory at or above it cut it off; the identities found in offered
 * directories (device:inode -> the highest directories holding it), for identity dedupe along a
 * chain; and the touch's real paths (`StatCache#realPaths`). A touch of d targets on one chain
 * thus walks each directory once, not the chain per target.
 */
export interface Walked {
  dirs: Map<string, boolean>;
  identities: Map<string, string[]>;
  reals: ChainRealPaths | undefined;
}

/** Directories whose chain answer is memoised at once (about 100 bytes each). */
const FOUND_MEMO_LIMIT = 4096;

/** Targets whose answer is memoised at once (a few hundred bytes each, the target's spelling included). */
const TARGET_MEMO_LIMIT = 1024;

/**
 * Candidates for a target, root side first.
 */
export class SessionScope {
  readonly #init: ScopeInit;
  readonly #chains = new Map<string, readonly string[]>();
  /** Chain memo: target dir -> what `applicable` found, for resolve and for touch (lazy groups). */
  readonly #found = { strict: new Map<string, FoundMemo>(), lazy: new Map<string, FoundMemo>() };
  /** Target memo: a target as given -> what `applicable` found for it (resolve), kept as the chain memo is, and the target's own stat with it. */
  readonly #targets = new Map<string, FoundMemo>();
  /** path -> device:inode of loaded files (`dedupe: "identity"`). */
  readonly #identities = new Map<string, string>();
  #scanListeners: Array<(dirs: readonly string[], target?: string) => void> | undefined;

  constructor(init: ScopeInit) {
    this.#init = init;
  }

  /** Real paths for one batch of probes (one touch of many targets): see `StatCache#realPaths`. */
  realPaths(): ChainRealPaths | undefined {
    return this.#init.cache.realPaths();
  }

  /** Absolute path of a target, relative paths against cwd. */
  absolute(target: string): string {
    return absolute(target, this.#init.cwd);
  }

  /** The directory a target governs from: itself when it is an existing directory, else its parent. */
  async targetDir(target: string): Promise<string> {
    const path = this.absolute(target);
    if (pathInputProblem(path) !== null) return parentOf(path);
    const entry = await this.#init.cache.statEntry(path);
    return entry.info?.kind === "directory" ? path : parentOf(path);
  }

  /** An empty file has nothing to apply: skipped like the initial load skips it (metadata only, no read). */
  isEmpty(sizeBytes: number): boolean {
    return sizeBytes === 0 && this.#init.preset.text.skipBlank;
  }

  /** Subscribes to the directory chains scanned from now on (before they are probed), with the target. Returns the unsubscribe function. */
  onScan(listener: (dirs: readonly string[], target?: string) => void): () => void {
    (this.#scanListeners ??= []).push(listener);
    return () => {
      this.#scanListeners = this.#scanListeners?.filter((each) => each !== listener);
      if (this.#scanListeners?.length === 0) this.#scanListeners = undefined;
    };
  }

  /** The instruction files of the initial scope (root -> cwd) as they are on disk now. */
  async initialFiles(): Promise<Found[]> {
    const { hasProject, root, cwd, preset, cache, groups, sink } = this.#init;
    const out: Found[] = [];
    const reals = cache.realPaths();
    const dirs = initialDirs(hasProject ? root : null, cwd, preset.startup.dirs);
    reals?.expect(dirs);
    for (const dir of dirs) {
      for (const found of selectFiles(await cache.probeDir(dir, reals), groups, sink)) out.push(found);
    }
    return out;
  }

  /**
   * What `applicable(target)` answers when nothing it depends on can have changed since it last
   * answered for this very spelling of `target` (the cache's generation, every probe and the
   * target's own stat inside the window); undefined otherwise. No I/O, no path work: a seen resolve
   * at agent pace touches little else (after a pause every line of code run is a cache miss).
   */
  seen(target: string): Found[] | undefined {
    const memo = this.#targets.get(target);
    if (memo === undefined || memo.generation !== this.#init.cache.generation) return undefined;
    return memo.validUntil === Number.POSITIVE_INFINITY || this.#init.cache.now() <= memo.validUntil ? memo.found : undefined;
  }

  /**
   * What `seen(target)` answers when it holds until the cache's generation moves, with no window
   * to outlive (a watcher invalidates the cache); undefined otherwise. No clock.
   */
  seenUntilChanged(target: string): Found[] | undefined {
    const memo = this.#targets.get(target);
    return memo !== undefined && memo.generation === this.#init.cache.generation && memo.validUntil === Number.POSITIVE_INFINITY ? memo.found : undefined;
  }

  /**
   * Every instruction file that applies to `target`, root first (the chain root -> target dir).
   * With `lazy` (inline loading) the chain stops at excluded directories, the directories are
   * recorded as seen, and the lazy name groups select. With `walked` as well, only the files in
   * directories this walk has not offered yet (see {@link Walked}): what a touch of many targets
   * needs, since the rest were offered for an earlier target.
   */
  async applicable(target: string, mode: { lazy?: boolean; walked?: Walked } = {}): Promise<Found[]> {
    const { cache, config, preset, cwd } = this.#init;
    if (!this.#init.hasProject) return [];
    const path = this.#checkedPath(target);
    if (path === null) return [];
    // Gemini CLI: just-in-time files only for targets inside the workspace (cwd).
    if (preset.scope.nested === "inside-cwd" && !isInside(path, cwd)) return [];
    const now = cache.now();
    // Fast path: when every cache entry is fresh, nothing below awaits the disk.
    const known = cache.peekPath(path, now) ?? (await cache.statEntry(path));
    let dir = known.info?.kind === "directory" ? path : parentOf(path);
    // A directory already on a memoised chain existed when it was first resolved: no new stat.
    if (!known.info && !this.#chains.has(dir) && !mode.walked?.dirs.has(dir)) dir = await this.#deepestExisting(dir, now);
    let root = this.#init.root;
    if (!isInside(dir, root)) {
      if (config.resolver.outsideRoot !== "own-root") return [];
      root = (
        await findProjectRoot({
          cwd: dir,
          markers: config.root.markers,
          stopAtFsRoot: config.root.stopAtFsRoot,
          home: this.#init.home,
          fs: cache.fs,
        })
      ).root;
    }
    if (mode.lazy && mode.walked && root === this.#init.root) return this.#beyond(path, dir, mode.walked, now);
    // An unchanged chain answers from the memo without walking it (see FoundMemo).
    const memos = mode.lazy ? this.#found.lazy : this.#found.strict;
    const memo = root === this.#init.root ? memos.get(dir) : undefined;
    if (memo && memo.generation === cache.generation && (now <= memo.validUntil || (await this.#stillHolds(memo)))) {
      if (!mode.lazy && preset.dedupe !== "identity") this.#rememberTarget(target, path, memo);
      return memo.found;
    }
    let dirs = this.#chainTo(root, dir);
    if (this.#scanListeners) for (const listener of this.#scanListeners) listener(dirs, path);
    if (preset.scope.nested === "below-cwd") {
      // Only directories strictly below cwd; targets outside cwd get nothing.
      if (dir === cwd || !isInside(dir, cwd)) return [];
      dirs = dirs.slice(dirs.indexOf(cwd) + 1);
    }
    if (mode.lazy) dirs = this.#withoutExcluded(dirs, root);
    // What the walk finds was true at its start, or (what the window let it trust) up to a window before.
    const since = Date.now() - cache.revalidateMs;
    const { out, generation, walked } = await this.#select(dirs, mode.lazy ? this.#init.lazyGroups : this.#init.groups, now, cache.realPaths());
    if (preset.dedupe === "identity") return this.#withoutAliases(out);
    if (root === this.#init.root) {
      const memo = this.#remember(memos, dir, out, dirs, generation, walked ? since : undefined);
      if (memo && !mode.lazy) this.#rememberTarget(target, path, memo);
    }
    return out;
  }

  /**
   * The files `groups` select in `dirs`, in order; unseen directories are probed in parallel (one
   * round trip, not one per level). `generation`: the cache's, read once the probes were asked;
   * `walked`: every directory was probed now (none answered from the window).
   */
  async #select(
    dirs: readonly string[],
    groups: NameGroups,
    now: number,
    reals: ChainRealPaths | undefined,
  ): Promise<{ out: Found[]; generation: number; walked: boolean }> {
    const { cache } = this.#init;
    reals?.expect(dirs);
    const probes = new Array<DirProbe>(dirs.length);
    let pending: Array<Promise<unknown>> | undefined;
    for (let index = 0; index < dirs.length; index++) {
      const fresh = cache.peekDir(dirs[index]!, now);
      if (fresh) probes[index] = fresh;
      else (pending ??= []).push(cache.probeDir(dirs[index]!, reals).then((probe) => (probes[index] = probe)));
    }
    const generation = cache.generation;
    if (pending) await Promise.all(pending);
    const out: Found[] = [];
    for (const probe of probes) for (const found of selectFiles(probe, groups, this.#init.sink)) out.push(found);
    return { out, generation, walked: pending?.length === dirs.length };
  }

  /**
   * The lazy candidates in the directories of the chain root -> `dir` that `walked` has not met
   * (root first), recorded in it. The walk goes up from `dir` to the first directory met before:
   * an offered one was inside the chain and not excluded, so only the new directories are cut at
   * an excluded name; below a cut-off one, nothing applies.
   */
  async #beyond(path: string, dir: string, walked: Walked, now: number): Promise<Found[]> {
    const { root, cwd, preset } = this.#init;
    const belowCwd = preset.scope.nested === "below-cwd";
    if (belowCwd && (dir === cwd || !isInside(dir, cwd))) return [];
    const fresh: string[] = [];
    let above: boolean | undefined;
    for (let each = dir; ;) {
      above = walked.dirs.get(each);
      if (above !== undefined || (belowCwd && each === cwd)) break;
      fresh.push(each);
      const parent = parentOf(each);
      if (each === root || parent === each) break;
      each = parent;
    }
    if (fresh.length === 0) return [];
    fresh.reverse();
    const dirs = above === false ? [] : this.#withoutExcluded(fresh, root);
    for (const each of fresh) walked.dirs.set(each, false);
    for (const each of dirs) walked.dirs.set(each, true);
    if (this.#scanListeners) for (const listener of this.#scanListeners) listener(fresh, path);
    if (dirs.length === 0) return [];
    const { out } = await this.#select(dirs, this.#init.lazyGroups, now, walked.reals);
    return preset.dedupe === "identity" ? this.#withoutAliases(out, walked) : out;
  }

  /**
   * Memoises what the chain to `dir` found. Trusted while the cache's generation is the one read
   * before the probes were awaited (nothing was invalidated or found different since) and every
   * probe used is inside the cache's trust window.
   */
  #remember(
    memos: Map<string, FoundMemo>,
    dir: string,
    found: Found[],
    dirs: readonly string[],
    generation: number,
    since: number | undefined,
  ): FoundMemo | undefined {
    const { cache } = this.#init;
    if (generation !== cache.generation) return undefined;
    const window = cache.revalidateMs;
    let validUntil = Number.POSITIVE_INFINITY;
    if (window !== Number.POSITIVE_INFINITY) for (const each of dirs) validUntil = Math.min(validUntil, cache.checkedAt(each) + window);
    // Bounded: a session touching many directories starts over.
    if (memos.size >= FOUND_MEMO_LIMIT) memos.clear();
    const memo: FoundMemo = since === undefined ? { found, generation, validUntil } : { found, generation, validUntil, walk: { dirs, since } };
    memos.set(dir, memo);
    return memo;
  }

  /**
   * After the window: whether the memoised answer still holds, asked of the disk in one round of
   * stats (a seen resolve at agent pace: the probes, their real paths and the selection are not
   * redone when nothing changed). Its window starts again when it does.
   */
  async #stillHolds(memo: FoundMemo): Promise<boolean> {
    const { cache } = this.#init;
    if (memo.walk === undefined || !(await cache.revalidate(memo.walk.dirs, memo.walk.since))) return false;
    if (memo.generation !== cache.generation) return false;
    memo.validUntil = cache.revalidateMs === Number.POSITIVE_INFINITY ? memo.validUntil : cache.now() + cache.revalidateMs;
    return true;
  }

  /**
   * Memoises the chain's answer for `target` as given (see `seen`): trusted as the chain memo is,
   * and no longer than the target's own stat (`path`), which decided the chain's directory.
   */
  #rememberTarget(target: string, path: string, chain: FoundMemo): void {
    const { cache } = this.#init;
    const stat = cache.peekPath(path, cache.now());
    if (!stat || chain.generation !== cache.generation) return;
    const validUntil = cache.revalidateMs === Number.POSITIVE_INFINITY ? chain.validUntil : Math.min(chain.validUntil, stat.checkedAt + cache.revalidateMs);
    if (this.#targets.size >= TARGET_MEMO_LIMIT) this.#targets.clear();
    this.#targets.set(target, { found: chain.found, generation: chain.generation, validUntil });
  }

  /**
   * `dedupe: "identity"` (Gemini CLI): drops a file whose device + inode is already loaded
   * under another path, or appears earlier in `found`, or (with `walked`) in an offered directory
   * at or above its own (earlier on its chain).
   */
  async #withoutAliases(found: Found[], walked?: Walked): Promise<Found[]> {
    if (found.length === 0) return found;
    const loaded = new Set<string>();
    for (const path of this.#init.ledger.paths()) {
      let key = this.#identities.get(path);
      if (key === undefined) {
        const entry = await this.#init.cache.statEntry(path);
        key = entry.info ? identityKey(entry.info) : "";
        this.#identities.set(path, key);
      }
      if (key !== "") loaded.add(key);
    }
    const seen = new Set<string>();
    return found.filter((each) => {
      const key = identityKey(each.info);
      // A loaded identity is never offered again, edited or not (Gemini CLI keeps it until /memory reload).
      const met = walked ? onChain(walked, key, each) : false;
      const keep = !loaded.has(key) && !seen.has(key) && !met;
      seen.add(key);
      return keep;
    });
  }

  /**
   * An input path made absolute, or null (with a `path-rejected` warning) when it cannot be a path:
   * too long, too deep, a NUL byte (core/paths.ts `pathInputProblem`). Checked before any work.
   */
  #checkedPath(target: string): string | null {
    let problem = pathInputProblem(target);
    const path = problem === null ? this.absolute(target) : target;
    // An absolute, normalised target is its own absolute path: checked once.
    if (problem === null && path !== target) problem = pathInputProblem(path);
    if (problem === null) return path;
    this.#init.sink.add({
      level: "warning",
      code: "path-rejected",
      message: `the path ${quote(target.length > 200 ? `${target.slice(0, 200)}...` : target)} ${problem}: nothing is resolved for it`,
      fix: "pass the path of a file or directory that can exist",
    });
    return null;
  }

  /**
   * `dir` when it exists as a directory, else its deepest ancestor that does. Existence is monotone
   * along a path, so a binary search over the ancestors finds it in log2(depth) uncached stats: a
   * made-up deep path costs memory and calls in proportion to the directories that exist, never
   * to its length (docs/security.md: every ancestor used to be stored).
   */
  async #deepestExisting(dir: string, now: number): Promise<string> {
    const { cache } = this.#init;
    // Only a fresh positive cache entry is trusted; a miss asks the disk without caching, so a
    // directory created later (watch mode trusts its cache) is seen at once.
    if (cache.peekPath(dir, now)?.info?.kind === "directory") return dir;
    if ((await cache.fs.stat(dir).catch(() => null))?.kind === "directory") return dir;
    const cuts: number[] = [];
    for (let index = dir.indexOf("/", 1); index !== -1; index = dir.indexOf("/", index + 1)) cuts.push(index);
    let low = -1; // "/" exists
    let high = cuts.length; // dir itself does not
    while (high - low > 1) {
      const middle = (low + high) >> 1;
      const info = await cache.fs.stat(dir.slice(0, cuts[middle])).catch(() => null);
      if (info?.kind === "directory") low = middle;
      else high = middle;
    }
    return low === -1 ? "/" : dir.slice(0, cuts[low]);
  }

  /** chain(root, dir), memoised for the session root (hot path: no string work on a warm resolve). */
  #chainTo(root: string, dir: string): readonly string[] {
    if (root !== this.#init.root) return chain(root, dir);
    let dirs = this.#chains.get(dir);
    if (!dirs) {
      dirs = chain(root, dir);
      this.#chains.set(dir, dirs);
    }
    return dirs;
  }

  /** Cuts the chain at the first excluded directory name below the root. */
  #withoutExcluded(dirs: readonly string[], root: string): readonly string[] {
    const excluded = this.#init.config.lazy.exclude;
    if (excluded.length === 0) return dirs;
    for (let index = 0; index < dirs.length; index++) {
      const dir = dirs[index]!;
      if (dir !== root && excluded.includes(nameOf(dir))) return dirs.slice(0, index);
    }
    return dirs;
  }
}

/**
 * True when `found`'s identity was met in an offered directory at or above its own; records it.
 * Only the highest such directories are kept (one below another adds nothing).
 */
function onChain(walked: Walked, key: string, found: Found): boolean {
  const dir = found.path.slice(0, found.path.length - found.name.length - 1);
  const dirs = walked.identities.get(key);
  if (!dirs) {
    walked.identities.set(key, [dir]);
    return false;
  }
  if (dirs.some((each) => isInside(dir, each))) return true;
  dirs.push(dir);
  return false;
}
