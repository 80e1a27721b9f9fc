/**
 * Real paths of input paths that may not exist yet: the real path of the deepest existing
 * ancestor, followed by the rest as written. What a confinement check compares (not the lexical
 * path: a symlinked directory inside the root may lead anywhere).
 */
import type { FileSystem } from "./file-system.js";
import { isInside, pathInputProblem } from "../core/paths.js";

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
