/**
 * Optional frontmatter in an AGENTS.md itself (a proposal for the AGENTS.md standard): `applyTo` or `globs` limit
 * the file to matching paths, relative to its own directory. Agents that do not know it see a
 * harmless header. Pure.
 */
import { parseFrontmatter } from "./frontmatter.js";
import { cleanGlob, compileGlobs, splitGlobList } from "./match.js";
import { relativeBelow } from "./apply.js";

const KEYS = ["applyTo", "globs"] as const;

/**
 * The globs an instruction file limits itself to, or `null` when it applies to its whole directory
 * (no header, no such key, or a header that does not parse).
 */
export function agentsScope(text: string): string[] | null {
  if (!/^(\uFEFF)?---[ \t]*\r?\n/.test(text)) return null;
  const header = parseFrontmatter(text, KEYS);
  if (header.error) return null;
  for (const key of KEYS) {
    const value = header.data[key];
    if (value === undefined || value === null) continue;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a YAML map here still becomes "[object Object]": to be refused with a problem
    const globs = Array.isArray(value) ? value.map((item) => cleanGlob(String(item))) : splitGlobList(String(value));
    return globs.filter(Boolean);
  }
  return null;
}

/**
 * Whether an instruction file scoped by `globs` applies to `target` (absolute): the path below the
 * file's directory `dir` must match.
 */
export function scopeMatches(globs: readonly string[], dir: string, target: string): boolean {
  const relative = relativeBelow(target, dir);
  return relative !== null && compileGlobs(globs)(relative) !== null;
}
