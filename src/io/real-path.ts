/**
 * Real paths of input paths that may not exist yet: the real path of the deepest existing
 * ancestor, followed by the rest as written. What a confinement check compares (not the lexical
 * path: a symlinked directory inside the root may lead anywhere). And files another user planted
 * in a directory anyone may write (`plantedFile`): never the project's.
 */
import type { FileInfo, FileSystem } from "./file-system.js";
import { isInside, parentOf, pathInputProblem } from "../core/paths.js";

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
