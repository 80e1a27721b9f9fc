/**
 * Which rules apply to a path, and why. Pure: rules and paths in, matches out.
 */
import { compileLinearRegex, type LinearRegex } from "../../core/linear-regex.js";
import { compileGlobs, type GlobMatcher } from "./match.js";
import type { ScopedRule } from "./rule.js";

export interface RuleMatch {
  rule: ScopedRule;
  /** The glob that matched (as written), or `alwaysApply`/`regex` for rules without one. */
  reason: string;
}

const matchers = new WeakMap<ScopedRule, GlobMatcher>();

function matcherOf(rule: ScopedRule): GlobMatcher {
  let matcher = matchers.get(rule);
  if (!matcher) {
    matcher = compileGlobs(rule.globs, { matchBase: rule.matchBase });
    matchers.set(rule, matcher);
  }
  return matcher;
}

/**
 * The POSIX path of `path` relative to `base`, or `null` when it is not strictly below it.
 */
export function relativeBelow(path: string, base: string): string | null {
  const prefix = base.endsWith("/") ? base : `${base}/`;
  if (!path.startsWith(prefix)) return null;
  const rest = path.slice(prefix.length).replace(/\/+$/, "");
  if (rest.length === 0 || rest.split("/").some((part) => part === ".." || part === ".")) return null;
  return rest;
}

/** A rule agentsmd delivers at all: `always` or `glob`, and not excluded from coding agents. */
export function isDeliverable(rule: ScopedRule): boolean {
  if (rule.activation !== "always" && rule.activation !== "glob") return false;
  return !rule.excludeAgent?.includes("coding-agent");
}

/**
 * The glob of `rule` that matches `path` (absolute), or `null`. Content conditions (`regex`) are
 * not checked here: see {@link needsContent}.
 */
export function globMatch(rule: ScopedRule, path: string): string | null {
  if (rule.activation !== "glob" || rule.globs.length === 0) return null;
  const relative = relativeBelow(path, rule.base);
  return relative === null ? null : matcherOf(rule)(relative);
}

/** True when the rule also needs the touched file's content (Continue `regex`). */
export function needsContent(rule: ScopedRule): boolean {
  return (rule.regex?.length ?? 0) > 0;
}

const compiled = new Map<string, LinearRegex | null>();

/** A pattern compiled once; null when it is invalid or refused (it never matches). */
function regexOf(pattern: string): LinearRegex | null {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    try {
      regex = compileLinearRegex(pattern);
    } catch {
      regex = null;
    }
    if (compiled.size >= 256) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex;
}

/**
 * Whether text matches one of the rule's `regex` patterns, in time linear in the text (the
 * patterns are the repository's: core/linear-regex.ts, not a backtracking RegExp); an invalid or
 * refused pattern matches nothing. `check` is called as the text is scanned (a deadline throws from it).
 */
function contentMatches(rule: ScopedRule, text: string, check?: () => void): string | null {
  for (const pattern of rule.regex ?? []) {
    if (regexOf(pattern)?.test(text, check)) return pattern;
  }
  return null;
}

/**
 * The rules that apply to `path` by glob (and `content` when given, for `regex` rules), with why.
 * A `regex` rule without globs applies to any path below its base whose content matches. `check`
 * is called per rule and as content is scanned (a deadline throws from it).
 */
export function rulesForPath(rules: readonly ScopedRule[], path: string, content?: string, check?: () => void): RuleMatch[] {
  const found: RuleMatch[] = [];
  for (const rule of rules) {
    check?.();
    if (!isDeliverable(rule) || rule.activation !== "glob") continue;
    const glob = rule.globs.length ? globMatch(rule, path) : relativeBelow(path, rule.base) !== null ? "" : null;
    if (glob === null) continue;
    if (needsContent(rule)) {
      if (content === undefined) continue;
      const pattern = contentMatches(rule, content, check);
      if (pattern === null) continue;
      found.push({ rule, reason: glob ? `${glob} + regex ${pattern}` : `regex ${pattern}` });
    } else found.push({ rule, reason: glob });
  }
  return found;
}
