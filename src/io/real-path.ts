/**
 * Real paths of input paths that may not exist yet: the real path of the deepest existing
 * ancestor, followed by the rest as written. What a confinement check compares (not the lexical
 * path: a symlinked directory inside the root may lead anywhere). And files another user planted
 * in a directory anyone may write (`plantedFile`): never the project's.
 */
import type { FileInfo, FileSystem } from "./file-system.js";
import { isInside, join, nameOf, parentOf, pathInputProblem } from "../core/paths.js";
import { unchangedSince } from "./unchanged.js";
import { mayReadNamed, type Namer } from "../core/confine.js";
import { quote } from "../core/quote.js";

/**
 * The real path `path` would have: symlinks of every existing component resolved. `path` must be
 * absolute and normalised (core/paths.ts `absolute`) and within the input limits
 * (`pathInputProblem`). Existence is monotone along a path, so the deepest existing ancestor is
 * found by binary search: log2(depth) calls however long the made-up part is.
 */
export async function realPathOf(fs: Pick<FileSystem, "realpath">, path: string): Promise<string> {
  const whole = await fs.realpath(path).catch(() => null);
  if (whole !== null) return whole;
  const cuts: number[] = [];
  for (let index = path.indexOf("/", 1); index !== -1; index = path.indexOf("/", index + 1)) cuts.push(index);
  let low = -1; // "/" resolves
  let high = cuts.length; // path itself does not
  let lowReal = "/";
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    const real = await fs.realpath(path.slice(0, cuts[middle])).catch(() => null);
    if (real !== null) {
      low = middle;
      lowReal = real;
    } else high = middle;
  }
  const rest = path.slice(low === -1 ? 1 : cuts[low]! + 1);
  return lowReal.endsWith("/") ? lowReal + rest : `${lowReal}/${rest}`;
}

/**
 * Each target spelled by its real location under `root` when symlinks lead it back inside the
 * root (`root/loop/loop/pkg/x.ts` with `loop -> .` becomes `root/pkg/x.ts`), so one file is one
 * path however a tool spelled it and is delivered once; targets whose real location is outside the
 * root, or that cannot be paths, stay as given (the session confines or rejects them). Duplicates
 * are dropped. One realpath per target (plus log2(depth) for a target that does not exist).
 */
export async function canonicalTargets(fs: Pick<FileSystem, "realpath">, root: string, targets: readonly string[]): Promise<string[]> {
  const rootReal = await fs.realpath(root).catch(() => root);
  const out = new Set<string>();
  for (const target of targets) {
    if (!target.startsWith("/") || pathInputProblem(target) !== null) {
      out.add(target);
      continue;
    }
    const real = await realPathOf(fs, target);
    if (real === target || !isInside(real, rootReal)) {
      out.add(target);
      continue;
    }
    const below = real.slice(rootReal.length).replace(/^\/+/, "");
    out.add(below === "" ? root : root.endsWith("/") ? root + below : `${root}/${below}`);
  }
  return [...out];
}

/**
 * What earlier batches of probes saw of the entries below a root: each path (directory or file)
 * seen to be no symlink, with when. A later batch trusts a sighting inside the cache's trust
 * window, and after it while a fresh stat of the entry's directory shows no change since
 * (io/unchanged.ts): a seen resolve after the window then re-stats the chain's directories, which
 * its probes do anyway, instead of an lstat per level. The stat cache keeps one per session and
 * forgets paths when it is told they changed (a watcher's events).
 */
export class PlainSightings {
  readonly #seen = new Map<string, Sighting>();
  readonly #limit: number;
  #batches = 0;

  /** `limit`: paths kept at once (a session reaching more starts over: about 100 bytes each). */
  constructor(limit = 16_384) {
    this.#limit = limit;
  }

  /** A new batch starting now: `at` on the cache's clock, within a trust window of `windowMs`. */
  batch(at: number, windowMs: number): Batch {
    return { id: ++this.#batches, wall: Date.now(), at, windowMs };
  }

  get(path: string): Sighting | undefined {
    return this.#seen.get(path);
  }

  /** `path` was seen to be no symlink in `batch` (by an lstat made after the batch began). */
  saw(path: string, batch: Batch): void {
    if (this.#seen.size >= this.#limit && !this.#seen.has(path)) this.#seen.clear();
    this.#seen.set(path, { batch: batch.id, wall: batch.wall, at: batch.at });
  }

  /** Forget `path` (it changed, or is a symlink now); what lies below it is seen again with it (see `ChainRealPaths`). */
  forget(path: string): void {
    this.#seen.delete(path);
  }

  /** Forget `dir` and everything below it. */
  forgetBelow(dir: string): void {
    for (const path of this.#seen.keys()) if (isInside(path, dir)) this.#seen.delete(path);
  }

  clear(): void {
    this.#seen.clear();
  }

  get size(): number {
    return this.#seen.size;
  }
}

/** One batch of probes: its number, when it began (wall clock and the cache's clock) and the cache's trust window then. */
export interface Batch {
  readonly id: number;
  readonly wall: number;
  readonly at: number;
  readonly windowMs: number;
}

/**
 * A path seen to be no symlink: `batch` the batch whose lstat saw it (an entry seen before its
 * directory was last seen may belong to another directory by the same name: it is seen again);
 * `wall` when (Date.now() before the lstat), and `at` when it was last known to hold on the
 * cache's clock (moved on when a later batch vouches for it).
 */
interface Sighting {
  readonly batch: number;
  readonly wall: number;
  at: number;
}

/**
 * Real paths of paths below a root whose real path is known, each from its directory's: a path
 * whose last component is no symlink has its parent's real path plus its name. realpath(3) of a
 * path d levels deep reads every prefix (d readlinks of up to d components each), so one call per
 * instruction file of a chain with a file at every level cost depth³ in the kernel (`show` at 1,000
 * levels: 37 s); here each directory costs one lstat (none when a survey's listing says it is no
 * symlink), or, for the chain the batch announced (`expect`), one realpath of its deepest
 * directory vouches for every level when it answers the lexical path (asked only where it costs no
 * more than the lstats it saves, see `#vouch`), and a symlink, or anything uncertain, is asked of
 * `realpath` itself. A caller that lstat'ed a file itself (a probe) passes what it saw. One instance
 * serves one batch of probes (a chain probed at once, one touch): what it learns is as fresh as
 * that batch. With `sightings` (the stat cache's), an entry an earlier batch saw costs no lstat
 * while it is trusted: inside the window, or while a stat of its directory in this batch (`stamp`,
 * which the cache's probe of that directory shares) shows no change since, and only when its
 * directory was itself seen no later than it was.
 */
export class ChainRealPaths {
  readonly #fs: Pick<FileSystem, "lstat" | "realpath" | "stat" | "knownEntries">;
  readonly #root: { root: string; real: string };
  readonly #dirs = new Map<string, Promise<string>>();
  readonly #stamps = new Map<string, Promise<FileInfo | null>>();
  readonly #sightings: PlainSightings | undefined;
  readonly #batch: Batch;
  /** Each directory of an announced chain (`expect`) -> the deepest directory of that chain. */
  readonly #deepest = new Map<string, string>();
  /** Per deepest directory: whether its one realpath vouched for the levels above it (undefined: not asked, see `#vouch`). */
  readonly #vouches = new Map<string, Promise<boolean> | undefined>();

  constructor(
    fs: Pick<FileSystem, "lstat" | "realpath" | "stat" | "knownEntries">,
    root: { root: string; real: string },
    memory?: { sightings: PlainSightings; batch: Batch },
  ) {
    this.#fs = fs;
    this.#root = root;
    this.#sightings = memory?.sightings;
    this.#batch = memory?.batch ?? { id: 0, wall: 0, at: 0, windowMs: 0 };
  }

  /**
   * The real path of `path` (absolute, normalised); rejects as `realpath` does for a path that is
   * not there. `seen`: what an lstat of `path` made in this batch answered, when the caller made
   * one (a probe: then none is made here).
   */
  async of(path: string, seen?: { readonly symlink: boolean }): Promise<string> {
    if (path === this.#root.root) return this.#root.real;
    const parent = parentOf(path);
    const name = nameOf(path);
    if (parent === path || name === "." || name === ".." || !isInside(path, this.#root.root)) return this.#fs.realpath(path);
    const [plain, parentReal] = await Promise.all([
      seen ? this.#saw(path, !seen.symlink) : this.#plain(parent, name, path),
      this.#dir(parent).catch(() => null),
    ]);
    return plain && parentReal !== null ? join(parentReal, name) : this.#fs.realpath(path);
  }

  /**
   * The batch is about to probe `dirs`, a chain below the root, root side first: a level's real
   * path may then come from one realpath of the deepest (see `#vouch`) instead of an lstat per
   * level. Directories off the line to the deepest are derived level by level as before.
   */
  expect(dirs: readonly string[]): void {
    const deepest = dirs[dirs.length - 1];
    if (deepest === undefined || !isInside(deepest, this.#root.root)) return;
    // Whether each lies on the line to the deepest is checked when its real path is asked (`#dir`).
    for (const dir of dirs) if (!this.#deepest.has(dir)) this.#deepest.set(dir, deepest);
  }

  /** A stat of directory `dir` made in this batch (null when it cannot be stat'ed); one per directory per batch. */
  stamp(dir: string): Promise<FileInfo | null> {
    let info = this.#stamps.get(dir);
    if (!info) {
      info = this.#fs.stat(dir).catch(() => null);
      this.#stamps.set(dir, info);
    }
    return info;
  }

  /** True when `path` exists and is no symlink (false when unsure: the caller asks realpath). */
  async #plain(parent: string, name: string, path: string): Promise<boolean> {
    const listed = this.#fs.knownEntries?.(parent)?.get(name);
    if (listed !== undefined) return listed !== "symlink";
    const sightings = this.#sightings;
    if (sightings) {
      const seen = sightings.get(path);
      if (seen && (await this.#stillPlain(seen, parent))) return true;
    }
    const info = await this.#fs.lstat(path).catch(() => null);
    return this.#saw(path, info !== null && !info.symlink);
  }

  /** Records what an lstat of this batch told of `path` (see `PlainSightings`); returns `plain`. */
  #saw(path: string, plain: boolean): boolean {
    if (plain) this.#sightings?.saw(path, this.#batch);
    else this.#sightings?.forget(path);
    return plain;
  }

  /** Whether an earlier sighting of an entry of `parent` still holds (see the class doc). */
  async #stillPlain(seen: Sighting, parent: string): Promise<boolean> {
    if (parent !== this.#root.root) {
      // The directory first: a directory seen again (it changed, or was replaced by another of
      // the same name) is another directory for what was seen in it before.
      if ((await this.#dir(parent).catch(() => null)) === null) return false;
      const above = this.#sightings!.get(parent);
      if (above === undefined || above.batch > seen.batch) return false;
    }
    const batch = this.#batch;
    if (batch.at - seen.at <= batch.windowMs) return true;
    if (!unchangedSince(await this.stamp(parent), seen.wall)) return false;
    // Vouched for by a stat made in this batch: trusted inside the window from here. The moment
    // it was seen stays: a later stat compares with that (a later moment could only vouch less).
    seen.at = batch.at;
    return true;
  }

  #dir(dir: string): Promise<string> {
    if (dir === this.#root.root) return Promise.resolve(this.#root.real);
    let real = this.#dirs.get(dir);
    if (!real) {
      const deepest = this.#deepest.get(dir);
      const vouch = deepest === undefined || !isInside(deepest, dir) ? undefined : this.#vouch(deepest);
      real = vouch === undefined ? this.of(dir) : vouch.then((held) => (held ? this.#lexical(dir) : this.of(dir)));
      this.#dirs.set(dir, real);
    }
    return real;
  }

  /**
   * Whether one realpath of `deepest` vouches for every level of the chain to it: it does when it
   * answers the root's real path plus the path below the root, as no level can then be a symlink
   * (a link's target would show instead; a link to itself is a loop). Each level it vouches for is
   * recorded as seen, as an lstat would have been. Asked once per batch, and only where it replaces
   * enough lstats: realpath(3) reads every prefix of its path from `/` (a readlink each, d²/2
   * lookups in the kernel at depth d), so it is asked when the levels not known yet (neither this
   * batch's nor seen by an earlier one) are at least half of `deepest`'s depth; then it never costs
   * more than their lstats (g·d lookups), and a chain walked a level at a time (a touch per
   * directory, 2,000 deep) stays quadratic, not cubic. Undefined when not asked.
   */
  #vouch(deepest: string): Promise<boolean> | undefined {
    if (this.#vouches.has(deepest)) return this.#vouches.get(deepest);
    const unknown: string[] = [];
    for (let level = deepest; level !== this.#root.root && !this.#dirs.has(level) && this.#sightings?.get(level) === undefined; level = parentOf(level))
      unknown.push(level);
    let vouch: Promise<boolean> | undefined;
    if (unknown.length >= 2 && 2 * unknown.length >= depthOf(deepest)) {
      vouch = this.#fs.realpath(deepest).then(
        (real) => {
          if (real !== this.#lexical(deepest)) return false;
          if (this.#sightings) for (const level of unknown) this.#sightings.saw(level, this.#batch);
          return true;
        },
        () => false,
      );
    }
    this.#vouches.set(deepest, vouch);
    return vouch;
  }

  /** The real path of `dir` (inside the root) when no level below the root is a symlink. */
  #lexical(dir: string): string {
    const { root, real } = this.#root;
    const below = dir.slice(root.endsWith("/") ? root.length : root.length + 1);
    return real.endsWith("/") ? real + below : `${real}/${below}`;
  }
}

/** Components of an absolute path: what realpath(3) reads a prefix for. */
function depthOf(path: string): number {
  let depth = 0;
  for (let index = path.indexOf("/"); index !== -1 && index < path.length - 1; index = path.indexOf("/", index + 1)) depth++;
  return depth;
}

// Files planted in a shared directory: a root marker or instruction file that another user put in
// a directory anyone may write (`/tmp`, mode 1777) is not the project's, whatever its name. In the
// spirit of git's `safe.directory`: such a file is ignored unless you or root own it.

/** The user agentsmd runs as; undefined where the platform has no user ids (Windows). */
const SELF: number | undefined = process.getuid?.();

/**
 * True when `info.uid` is neither this process's user nor root and `dir` is writable by others.
 */
export function plantedIn(file: Pick<FileInfo, "uid">, dir: Pick<FileInfo, "mode"> | null, self: number | undefined = SELF): boolean {
  if (self === undefined || file.uid === undefined || file.uid === self || file.uid === 0) return false;
  return dir?.mode !== undefined && (dir.mode & 0o002) !== 0;
}

/**
 * Whether the file at `path` (stat'ed as `info`) was planted by another user in a directory anyone
 * may write. Costs a stat of the parent only for a file owned by someone else.
 */
export async function plantedFile(fs: Pick<FileSystem, "stat">, path: string, info: Pick<FileInfo, "uid">): Promise<boolean> {
  if (!plantedIn(info, { mode: 0o002 })) return false;
  return plantedIn(info, await fs.stat(parentOf(path)).catch(() => null));
}

/** The sentence a diagnostic gives for a planted file. */
export function plantedMessage(path: string, uid: number | undefined): string {
  return `${quote(path)} belongs to another user (uid ${uid ?? "?"}) in ${quote(parentOf(path))}, a directory anyone may write: ignored`;
}

/**
 * Whether a path `namer` named may be read (core/confine.ts `mayReadNamed`), decided on its real
 * path against `scopeReal`, the project's real path; `real` is what it resolved to.
 */
export async function namedReadable(
  fs: Pick<FileSystem, "realpath">,
  path: string,
  namer: Namer,
  scopeReal: string,
): Promise<{ readable: boolean; real: string }> {
  if (namer === "user") return { readable: true, real: path };
  const real = await realPathOf(fs, path);
  return { readable: mayReadNamed(namer, real, scopeReal), real };
}

/**
 * The first of `path` and its `levels` nearest ancestors that another user planted in a directory
 * anyone may write (a config inside `/tmp/.opencode/` planted as a directory), or undefined. A stat
 * per level, and of a parent only for an entry someone else owns.
 */
export async function plantedAlong(fs: Pick<FileSystem, "stat">, path: string, levels = 0): Promise<{ path: string; uid: number | undefined } | undefined> {
  for (let at = path, level = 0; level <= levels; level++, at = parentOf(at)) {
    const info = await fs.stat(at).catch(() => null);
    if (info && (await plantedFile(fs, at, info))) return { path: at, uid: info.uid };
    if (parentOf(at) === at) break;
  }
  return undefined;
}
