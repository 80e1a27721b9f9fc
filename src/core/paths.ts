/**
 * Pure path algebra on absolute POSIX-style paths (no I/O).
 */
import { isAbsolute, resolve, sep, dirname, basename } from "node:path";
import { ConfigError } from "./errors.js";
import { quote } from "./quote.js";

/**
 * Absolute, normalised path; relative paths resolve against `base` (a function is called only for
 * a relative path, so an absolute path never needs a process cwd that may have been deleted).
 */
export function absolute(path: string, base: string | (() => string)): string {
  if (isNormalAbsolute(path)) return path; // hot path: path.resolve costs ~1 µs on a long path
  return isAbsolute(path) ? resolve(path) : resolve(typeof base === "string" ? base : base(), path);
}

/**
 * An absolute POSIX path that path.resolve would return unchanged (no `//`, `.`, `..`, trailing `/`).
 * One pass over the characters: `includes("//")` on a deep path stops at every other character
 * (`/a/a/a...`), which made this the hot spot of a touch of 2,000 targets 2,000 levels deep.
 */
function isNormalAbsolute(path: string): boolean {
  if (sep !== "/" || path.charCodeAt(0) !== 47) return false;
  // Every segment after the leading "/" is non-empty and neither "." nor "..".
  let start = 1;
  for (let index = 1; index <= path.length; index++) {
    if (index < path.length && path.charCodeAt(index) !== 47) continue;
    const length = index - start;
    if (length === 0) return path.length === 1;
    if (path.charCodeAt(start) === 46 && (length === 1 || (length === 2 && path.charCodeAt(start + 1) === 46))) return false;
    start = index + 1;
  }
  return true;
}

/** True when `path` is `dir` or lies below it. */
export function isInside(path: string, dir: string): boolean {
  if (path === dir) return true;
  const length = dir.length;
  // A slice compared with === rather than startsWith(dir + sep): Node 20's startsWith costs about
  // 1 µs on a 200-character path, ten times the slice, and this runs for every probe of a chain.
  if (path.length <= length || path.slice(0, length) !== dir) return false;
  return dir.charCodeAt(length - 1) === SEP || path.charCodeAt(length) === SEP;
}

const SEP = sep.charCodeAt(0);

/**
 * `dir` and every ancestor, nearest first, up to the file-system root.
 */
export function ancestors(dir: string): string[] {
  const out = [dir];
  let current = dir;
  for (;;) {
    const parent = dirname(current);
    if (parent === current) return out;
    out.push(parent);
    current = parent;
  }
}

/**
 * The directories from `root` down to `dir`, root first. Empty when `dir` is not inside `root`.
 */
export function chain(root: string, dir: string): string[] {
  if (!isInside(dir, root)) return [];
  const out: string[] = [];
  let current = dir;
  while (current !== root) {
    out.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  out.push(root);
  return out.reverse();
}

/** The directory holding `path`. */
export function parentOf(path: string): string {
  return dirname(path);
}

export function nameOf(path: string): string {
  return basename(path);
}

export function join(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

/**
 * An XDG base directory: `env[name]` when it is an absolute path (the XDG spec says to ignore a
 * relative one), else `home/fallback`.
 */
export function xdgDir(env: Readonly<Record<string, string | undefined>>, name: string, home: string, fallback: string): string {
  const value = env[name];
  return value && value.startsWith("/") ? value : join(home, fallback);
}

/**
 * A directory an option of the user's own names: an absolute path (normalised), or `~` / `~/x`
 * under `home` (a JSON config has no shell to expand it); null for any other relative path.
 */
function userDir(value: string, home: string): string | null {
  if (value === "~") return home;
  if (value.startsWith("~/")) return absolute(value.slice(2), home);
  return isAbsolute(value) ? absolute(value, "/") : null;
}

/**
 * A directory option (`stateDir`) made absolute by {@link userDir}. A relative one is refused with
 * the option and the fix named: resolved against the process's cwd it scattered state over every
 * directory the agent was started from, and against the project it would write state into the
 * repository, where a checked-in config could choose it.
 */
export function optionDir(option: string, value: string, home: string, about: { owner: string; where: string }): string {
  const dir = userDir(value, home);
  if (dir !== null) return dir;
  throw new ConfigError(`invalid ${about.owner}: ${option} ${quote(value)} is a relative path, and state is kept per user, not per directory`, {
    fix: `give ${option} an absolute path or one starting with ~/ (e.g. "~/.local/state/agentsmd") in ${about.where}, or leave it out for the default`,
  });
}

/** Path segments of `path` below `root` (empty when equal or outside). */
export function segmentsBelow(path: string, root: string): string[] {
  if (path === root || !isInside(path, root)) return [];
  const rest = path.slice(root.endsWith(sep) ? root.length : root.length + 1);
  return rest.split(sep);
}

/** Longest path accepted as input, in UTF-8 bytes (Linux PATH_MAX is 4096 with the NUL). */
export const MAX_PATH_BYTES = 4095;
/** Most segments a path accepted as input may have (what fits in PATH_MAX with one-character names). */
export const MAX_PATH_DEPTH = 2048;

/**
 * Why `path` cannot be taken as a path input, or null when it can: longer than
 * {@link MAX_PATH_BYTES}, deeper than {@link MAX_PATH_DEPTH}, empty, or holding a NUL byte.
 * Checked before any work, so a hostile 200 KB path costs nothing.
 */
export function pathInputProblem(path: string): string | null {
  if (path.length === 0) return "is empty";
  // UTF-8 is at most 3 bytes per UTF-16 unit: a cheap bound before the exact count.
  const bytes = path.length * 3 <= MAX_PATH_BYTES ? path.length : Buffer.byteLength(path);
  if (bytes > MAX_PATH_BYTES) return `is ${bytes} bytes long; paths are at most ${MAX_PATH_BYTES} bytes (PATH_MAX)`;
  // One pass (an indexOf per "/" costs a call per segment: the hot spot of deep touches).
  let depth = 0;
  let nul = false;
  for (let index = 0; index < path.length; index++) {
    const code = path.charCodeAt(index);
    if (code === 47) depth++;
    else if (code === 0) nul = true;
  }
  if (nul) return "holds a NUL byte, which no file name can";
  if (depth > MAX_PATH_DEPTH) return `has ${depth} segments; paths are at most ${MAX_PATH_DEPTH} deep`;
  return null;
}

/**
 * The home directory from the environment: `$HOME` when it is an absolute path, else `fallback()`
 * (the OS account's home). An empty or relative `HOME=` must not send state files to `/.local/state`
 * or under the working directory (docs/security.md).
 */
export function homeFromEnv(env: Readonly<Record<string, string | undefined>>, fallback: () => string): string {
  const home = env.HOME;
  return home !== undefined && home.startsWith("/") ? home : fallback();
}
