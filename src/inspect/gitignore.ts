/**
 * A small `.gitignore` reader for tree scans (`doctor`, `tree`): parse a file's patterns, then ask
 * whether a path is ignored under the stack of `.gitignore` files above it. Pure; matching uses
 * the linear matcher of core/glob.ts (the patterns are the repository's). Git semantics kept: blank lines and `#` comments skipped, `\#` / `\!` escapes,
 * trailing spaces dropped unless escaped, `!` re-includes, a trailing `/` matches directories only,
 * a pattern with a slash (other than a trailing one) is anchored to its file's directory, one
 * without matches the name at any depth; the last matching pattern of the deepest file that has
 * one decides. Not modelled: re-including a path below an ignored directory (git cannot either,
 * since it never descends there), `core.excludesFile`.
 */
import { compileGlob } from "../core/glob.js";

export interface IgnoreRule {
  /** The pattern as written (after unescaping and trimming). */
  pattern: string;
  negate: boolean;
  dirOnly: boolean;
  /** Matches a path relative to the rule's directory (anchored) or a base name (unanchored). */
  test(relative: string, name: string): boolean;
}

/** The rules of one `.gitignore`, and the directory they are relative to. */
export interface IgnoreFrame {
  dir: string;
  rules: readonly IgnoreRule[];
}

/** Git has no braces or extglobs: `{`, `(` are characters. */
const MATCH_OPTIONS = { dot: true, expand: false } as const;

/**
 * Parses the text of a `.gitignore`.
 */
export function parseGitignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw;
    // Trailing spaces are dropped unless the last one is escaped.
    line = line.replace(/(?<!\\)[ \t]+$/, "").replace(/\\ $/, " ");
    if (line === "" || line.startsWith("#")) continue;
    let negate = false;
    if (line.startsWith("!")) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith("\\!") || line.startsWith("\\#")) {
      line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith("/")) {
      dirOnly = true;
      line = line.replace(/\/+$/, "");
    }
    if (line === "") continue;
    const anchored = line.includes("/");
    const body = line.startsWith("/") ? line.slice(1) : line;
    const glob = body.replace(/\[!/g, "[^");
    const matcher = compileGlob(glob, MATCH_OPTIONS);
    rules.push({
      pattern: line,
      negate,
      dirOnly,
      test: anchored ? (relative) => matcher(relative) : (_relative, name) => matcher(name),
    });
  }
  return rules;
}

/**
 * Whether `path` (absolute, below every frame's directory) is ignored by the frames, given
 * outermost first.
 */
export function isIgnored(frames: readonly IgnoreFrame[], path: string, isDir: boolean): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  for (let index = frames.length - 1; index >= 0; index--) {
    const frame = frames[index]!;
    if (frame.rules.length === 0 || (frame.dir !== "/" && !path.startsWith(`${frame.dir}/`))) continue;
    const relative = frame.dir === "/" ? path.slice(1) : path.slice(frame.dir.length + 1);
    for (let at = frame.rules.length - 1; at >= 0; at--) {
      const rule = frame.rules[at]!;
      if (rule.dirOnly && !isDir) continue;
      if (rule.test(relative, name)) return !rule.negate;
    }
  }
  return false;
}
