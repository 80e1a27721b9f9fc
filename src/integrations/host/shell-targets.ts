/**
 * The file-system half of shell-command targets: `shellCommandPaths` marks globs, "revision or
 * path" words and git `REV:PATH`; here globs are expanded (bounded), such words kept only when
 * they exist, and `REV:PATH` resolved from the repository root.
 */
import { posix } from "node:path";
import { pathInputProblem } from "../../core/paths.js";
import { compileSegmentGlob } from "../../core/glob.js";
import type { FileSystem } from "../../io/file-system.js";
import { deadlineCheckOf } from "../../io/deadline-fs.js";

import { plainShellTargets, type ShellPath } from "./shell-paths.js";

/** Most paths one glob expands to. */
export const MAX_GLOB_MATCHES = 64;
/** Most directories read while expanding the globs of one command. */
const MAX_GLOB_READDIRS = 64;
/** Most ancestors probed for `.git` when resolving `REV:PATH`. */
const MAX_GIT_ROOT_DEPTH = 64;

const GLOB_CHARS = /[*?[]/;

/**
 * A matcher for one path segment of a bash glob (no `globstar`, so `**` is `*`): `*`, `?`,
 * `[abc]`, `[a-z]`, `[!x]` / `[^x]`; a name starting with `.` matches only a pattern starting with
 * `.`. Linear in pattern × name (core/glob.ts): the command is the model's, the names the
 * repository's, and a RegExp of `*a*a*a…` backtracks polynomially.
 */
export function segmentMatcher(pattern: string): (name: string) => boolean {
  return compileSegmentGlob(pattern, { dot: false, expand: false });
}

/**
 * Expands an absolute glob segment by segment, as bash does without `globstar` (`**` is `*`);
 * names starting with `.` match only a pattern that starts with `.`.
 */
export async function expandGlob(pattern: string, fs: FileSystem, budget = { readdirs: MAX_GLOB_READDIRS }): Promise<string[]> {
  // Nothing longer or deeper than a path can be matches no file: no file-system call (docs/security.md).
  if (pathInputProblem(pattern) !== null) return [];
  const segments = pattern.split("/").filter((s) => s !== "");
  const check = deadlineCheckOf(fs);
  let bases = ["/"];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    const last = i === segments.length - 1;
    const next: string[] = [];
    if (!GLOB_CHARS.test(segment)) {
      // A run of literal segments is joined once per base, not once per segment.
      let end = i;
      while (end + 1 < segments.length && !GLOB_CHARS.test(segments[end + 1] as string)) end++;
      const literal = segments.slice(i, end + 1).join("/");
      for (const base of bases) next.push(posix.join(base, literal));
      i = end;
    } else {
      const match = segmentMatcher(segment);
      for (const base of bases) {
        if (budget.readdirs <= 0) break;
        budget.readdirs--;
        let entries: Array<{ name: string; kind: string }>;
        try {
          entries = await fs.readdir(base);
        } catch {
          continue;
        }
        for (const entry of entries.map((e) => e.name).sort()) {
          check();
          if (!match(entry)) continue;
          if (!last && entry !== "." && entry !== "..") {
            const info = await fs.stat(posix.join(base, entry)).catch(() => null);
            if (info?.kind !== "directory") continue;
          }
          next.push(posix.join(base, entry));
          if (next.length >= MAX_GLOB_MATCHES) break;
        }
      }
    }
    bases = next;
    if (bases.length === 0) return [];
  }
  if (!GLOB_CHARS.test(segments[segments.length - 1] ?? "")) {
    // the last segment was literal: keep only what exists, as the shell would have matched
    const kept: string[] = [];
    for (const b of bases) if (await fs.stat(b).catch(() => null)) kept.push(b);
    return kept;
  }
  return bases;
}

async function gitRootOf(from: string, fs: FileSystem): Promise<string | null> {
  let dir = from;
  for (let i = 0; i < MAX_GIT_ROOT_DEPTH; i++) {
    if (await fs.stat(posix.join(dir, ".git")).catch(() => null)) return dir;
    const parent = posix.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  return null;
}

/** Settles the marked paths of a shell command against the file system. */
export async function settleShellPaths(paths: readonly ShellPath[], fs: FileSystem): Promise<string[]> {
  // Nothing to settle: no file-system call (the Codex quiet stage reads such commands without one).
  const plain = plainShellTargets(paths);
  if (plain !== null) return plain;
  const out: string[] = [];
  const budget = { readdirs: MAX_GLOB_READDIRS };
  for (const p of paths) {
    if (p.glob) {
      out.push(...(await expandGlob(p.path, fs, budget)));
    } else if (p.gitRoot) {
      const root = await gitRootOf(p.gitRoot.from, fs);
      if (root !== null) out.push(posix.normalize(posix.join(root, p.gitRoot.relative)));
    } else if (p.ifExists) {
      if (await fs.stat(p.path).catch(() => null)) out.push(p.path);
    } else {
      out.push(p.path);
    }
  }
  return [...new Set(out)];
}
