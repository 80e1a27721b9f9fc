/**
 * Real paths of input paths that may not exist yet: the real path of the deepest existing
 * ancestor, followed by the rest as written. What a confinement check compares (not the lexical
 * path: a symlinked directory inside the root may lead anywhere). And files another user planted
 * in a directory anyone may write (`plantedFile`): never the project's.
 */
import type { FileInfo, FileSystem } from "./file-system.js";
import { isInside, join, nameOf, parentOf, pathInputProblem } from "../core/paths.js";

/**
 * The real path `path` would have: symlinks of every existing component resolved. `path` must be
 * absolute and normalised (core/paths.ts `absolute`) and within the input limits
 * (`pathInputProblem`). Existence is monotone along a path, so the deepest existing ancestor is
 * found by binary search: log2(depth) calls however long the made-up part is.
 * @example await realPathOf(nodeFileSystem, "/repo/link/new/file.ts") // "/elsewhere/new/file.ts" when /repo/link -> /elsewhere
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
 * @example await canonicalTargets(nodeFileSystem, "/r", ["/r/loop/pkg/x.ts"]) // ["/r/pkg/x.ts"]
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
 * Real paths of paths below a root whose real path is known, each from its directory's: a path
 * whose last component is no symlink has its parent's real path plus its name. realpath(3) of a
 * path d levels deep reads every prefix (d readlinks of up to d components each), so one call per
 * instruction file of a chain with a file at every level cost depth³ in the kernel (`show` at 1,000
 * levels: 37 s); here each directory costs one lstat (none when a survey's listing says it is no
 * symlink), and a symlink, or anything uncertain, is asked of `realpath` itself. One instance
 * serves one batch of probes (a chain probed at once, one touch): what it knows is as fresh as that
 * batch, so it is never kept past it.
 * @example const reals = new ChainRealPaths(fs, { root: "/r", real: "/data/r" });
 * await reals.of("/r/a/AGENTS.md") // "/data/r/a/AGENTS.md" when neither a nor AGENTS.md is a symlink
 */
export class ChainRealPaths {
  readonly #fs: Pick<FileSystem, "lstat" | "realpath" | "knownEntries">;
  readonly #root: { root: string; real: string };
  readonly #dirs = new Map<string, Promise<string>>();

  constructor(fs: Pick<FileSystem, "lstat" | "realpath" | "knownEntries">, root: { root: string; real: string }) {
    this.#fs = fs;
    this.#root = root;
  }

  /** The real path of `path` (absolute, normalised); rejects as `realpath` does for a path that is not there. */
  async of(path: string): Promise<string> {
    if (path === this.#root.root) return this.#root.real;
    const parent = parentOf(path);
    const name = nameOf(path);
    if (parent === path || name === "." || name === ".." || !isInside(path, this.#root.root)) return this.#fs.realpath(path);
    const [plain, parentReal] = await Promise.all([this.#plain(parent, name, path), this.#dir(parent).catch(() => null)]);
    return plain && parentReal !== null ? join(parentReal, name) : this.#fs.realpath(path);
  }

  /** True when `path` exists and is no symlink (false when unsure: the caller asks realpath). */
  async #plain(parent: string, name: string, path: string): Promise<boolean> {
    const listed = this.#fs.knownEntries?.(parent)?.get(name);
    if (listed !== undefined) return listed !== "symlink";
    const info = await this.#fs.lstat(path).catch(() => null);
    return info !== null && !info.symlink;
  }

  #dir(dir: string): Promise<string> {
    if (dir === this.#root.root) return Promise.resolve(this.#root.real);
    let real = this.#dirs.get(dir);
    if (!real) {
      real = this.of(dir);
      this.#dirs.set(dir, real);
    }
    return real;
  }
}

// Files planted in a shared directory: a root marker or instruction file that another user put in
// a directory anyone may write (`/tmp`, mode 1777) is not the project's, whatever its name. In the
// spirit of git's `safe.directory`: such a file is ignored unless you or root own it.

/** The user agentsmd runs as; undefined where the platform has no user ids (Windows). */
const SELF: number | undefined = process.getuid?.();

/**
 * True when `info.uid` is neither this process's user nor root and `dir` is writable by others.
 * @example plantedIn({ uid: 1001 }, { mode: 0o1777 }, 1000) // true
 */
export function plantedIn(file: Pick<FileInfo, "uid">, dir: Pick<FileInfo, "mode"> | null, self: number | undefined = SELF): boolean {
  if (self === undefined || file.uid === undefined || file.uid === self || file.uid === 0) return false;
  return dir?.mode !== undefined && (dir.mode & 0o002) !== 0;
}

/**
 * Whether the file at `path` (stat'ed as `info`) was planted by another user in a directory anyone
 * may write. Costs a stat of the parent only for a file owned by someone else.
 * @example if (await plantedFile(fs, "/tmp/AGENTS.md", info)) skip();
 */
export async function plantedFile(fs: Pick<FileSystem, "stat">, path: string, info: Pick<FileInfo, "uid">): Promise<boolean> {
  if (!plantedIn(info, { mode: 0o002 })) return false;
  return plantedIn(info, await fs.stat(parentOf(path)).catch(() => null));
}

/** The sentence a diagnostic gives for a planted file. */
export function plantedMessage(path: string, uid: number | undefined): string {
  return `${path} belongs to another user (uid ${uid ?? "?"}) in ${parentOf(path)}, a directory anyone may write: ignored`;
}
