/**
 * Real paths of input paths that may not exist yet: the real path of the deepest existing
 * ancestor, followed by the rest as written. What a confinement check compares (not the lexical
 * path: a symlinked directory inside the root may lead anywhere).
 */
import type { FileSystem } from "./file-system.js";

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
