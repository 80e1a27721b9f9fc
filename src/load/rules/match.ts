/**
 * Glob matching for scoped rules, on POSIX paths relative to the rule's base directory: the linear
 * matcher of core/glob.ts (picomatch's syntax with `{dot: true}`; a rule's globs come from the
 * repository, and picomatch's RegExps backtrack polynomially on `*a*a*a…`). Pure; compiled once per rule.
 */
import { compileGlob, GlobSyntaxError } from "../../core/glob.js";

export interface GlobOptions {
  /** A glob without `/` matches the file name at any depth. @default false */
  matchBase?: boolean;
}

/** Answers the glob that matched a relative path, or `null`. */
export type GlobMatcher = (relativePath: string) => string | null;

/**
 * Splits a comma list of globs, keeping commas inside braces (`**\/*.{ts,tsx}`), trimming each item
 * and one pair of matching quotes around it.
 */
export function splitGlobList(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === "{") depth++;
    else if (char === "}" && depth > 0) depth--;
    if (char === "," && depth === 0) {
      items.push(current);
      current = "";
    } else current += char;
  }
  items.push(current);
  return items.map(cleanGlob).filter((item) => item.length > 0);
}

/**
 * One glob as written, made root-relative: quotes, `./` and a leading `/` removed.
 */
export function cleanGlob(glob: string): string {
  let text = glob.trim();
  if (text.length >= 2 && (text[0] === '"' || text[0] === "'") && text.endsWith(text[0])) text = text.slice(1, -1).trim();
  while (text.startsWith("./")) text = text.slice(2);
  if (text.startsWith("/") && !text.startsWith("//")) text = text.slice(1);
  return text;
}

/** A negated glob (`!pattern`, not the extglob `!(...)`) vetoes a match. */
function isNegated(glob: string): boolean {
  return glob.startsWith("!") && !glob.startsWith("!(");
}

/**
 * Compiles globs: a path matches when any positive glob matches and no `!` glob does. Globs are
 * matched as picomatch `{dot: true}` does (a dot file is a file like any other), in linear time.
 */
export function compileGlobs(globs: readonly string[], options: GlobOptions = {}): GlobMatcher {
  const positive: Array<{ glob: string; test: (path: string) => boolean }> = [];
  const vetoes: Array<(path: string) => boolean> = [];
  for (const glob of globs) {
    if (glob.length === 0) continue;
    if (isNegated(glob)) vetoes.push(matcherFor(glob.slice(1), options.matchBase === true));
    else positive.push({ glob, test: matcherFor(glob, options.matchBase === true) });
  }
  return (path) => {
    if (path.length === 0) return null;
    const hit = positive.find((entry) => entry.test(path));
    if (!hit || vetoes.some((veto) => veto(path))) return null;
    return hit.glob;
  };
}

/** A glob without `/` under matchBase is tested against the file name only. */
function matcherFor(glob: string, matchBase: boolean): (path: string) => boolean {
  const test = safeMatcher(glob);
  if (!matchBase || glob.includes("/")) return test;
  return (path) => test(path.slice(path.lastIndexOf("/") + 1));
}

/** A glob the matcher refuses matches nothing (doctor reports it) instead of throwing at match time. */
function safeMatcher(glob: string): (path: string) => boolean {
  try {
    return compileGlob(glob, { dot: true });
  } catch {
    return () => false;
  }
}

/**
 * Why a glob is refused (for `doctor`), or null when it is taken.
 */
export function globProblem(glob: string): string | null {
  try {
    compileGlob(isNegated(glob) ? glob.slice(1) : glob);
    return null;
  } catch (error) {
    if (error instanceof GlobSyntaxError) return error.message;
    throw error;
  }
}
