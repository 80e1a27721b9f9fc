/**
 * The quiet certificate's format, shared by the engine that writes it (host/quiet-certificate.ts)
 * and the hook's quiet stage that reads it (hook/quiet.ts, a bundle of a few KB: no zod, no
 * session code). Pure.
 *
 * A certificate sits beside a conversation's state file (`<state>.quiet.json`) and says: for the
 * state whose check is `state`, under this agentsmd version and this environment, a tool event
 * whose target lies in a `quiet` directory of `dirs` answers nothing and changes nothing, as long
 * as every premise (a path and what lstat or stat said of it) still holds: those of `all`, and
 * those of each directory on the target directory's chain up to the session's root. Directories
 * are a tree (each names its parent's entry), stored once however many certified directories
 * share them: a certificate grows with the distinct directories, not depth x directories. Only
 * the engine decides what goes in.
 */
import { isAbsolute, sep } from "node:path";
import { checksum } from "../../core/checksum.js";
import type { ConversationId } from "./state-file.js";

/** Bumped whenever what a certificate means changes: an older one is then ignored. */
const QUIET_FORMAT = 5;

/** A path's premise: `-` absent, else its kind and what identifies its version. */
export type Identity = string;

export interface QuietCertificate {
  format: typeof QUIET_FORMAT;
  /** The agentsmd version that wrote it (another version's engine may answer otherwise). */
  version: string;
  host: string;
  /** The check of the state text it was made for (host/state-file.ts `stateCheckOf`). */
  state: string;
  /** `envPrint` of the hook's environment (a profile and its config read variables). */
  env: string;
  /** Instruction file names: a target of such a name may be admitted by the read itself. */
  names: string[];
  /** Premises of every directory (the scoped-rule directories, absent). */
  all: Record<string, Identity>;
  /** Directory (real path) -> its entry: the certified ones and every directory on their chains. */
  dirs: Record<string, QuietDir>;
}

/** A directory of a certificate. */
export interface QuietDir {
  /** The parent directory's entry; none at the session's root. */
  up?: string;
  /** What lstat said of the directory (unchanged: no instruction file came or went there). */
  id: Identity;
  /** Instruction files under it (before the next directory of a chain) a certified target weighs -> what stat said. */
  files?: Record<string, Identity>;
  /**
   * A tool target in this directory is certified quiet (else the entry is only on others' chains),
   * and so is one in a directory below it where no instruction file name (`names`) is present at
   * any level in between (`belowPremises`).
   */
  quiet?: true;
}

/**
 * Every premise a target in `dir` relies on (the directory's chain up to the root: each
 * directory's lstat, its files' stat), or null when `dir` is not certified quiet or its chain is
 * broken (a missing entry, a loop).
 */
export function chainPremises(dirs: QuietCertificate["dirs"], dir: string, anyEntry = false): Map<string, Identity> | null {
  if (!Object.hasOwn(dirs, dir) || (!anyEntry && dirs[dir]?.quiet !== true)) return null;
  const premises = new Map<string, Identity>();
  for (let at: string | undefined = dir; at !== undefined; at = dirs[at]!.up) {
    const entry: QuietDir | undefined = Object.hasOwn(dirs, at) ? dirs[at] : undefined;
    if (entry === undefined || premises.has(at) || typeof entry.id !== "string") return null;
    premises.set(at, entry.id);
    for (const [file, identity] of Object.entries(entry.files ?? {})) premises.set(file, identity);
  }
  return premises;
}

/** The most directory levels below a directory of the tree, and absence premises, a target may rely on. */
const BELOW_LEVELS = 64;
const BELOW_PREMISES = 512;

/**
 * The premises of a target in `dir` on or below a certified directory's chain. Every directory of
 * the tree is one a certified directory's chain passes through, so its files there are the
 * instruction files that apply at that level (a chain only grows downward: `touch` weighs the same
 * files of a level for every target below it), each admitted at the version its premise names.
 * So: `dir` itself when it is in the tree (its chain's premises), else the nearest ancestor in the
 * tree (its chain's premises) and, at each level under it down to `dir`, every instruction file name
 * absent (none new, none to admit). Null when no ancestor within BELOW_LEVELS is in the tree or the
 * premises would exceed BELOW_PREMISES. `dir` is a real path (no link on it), as the quiet stage
 * takes a target's directory.
 */
export function belowPremises(dirs: QuietCertificate["dirs"], dir: string, names: readonly string[]): Map<string, Identity> | null {
  if (!isAbsolute(dir) || names.length === 0 || names.some((name) => name === "" || name.includes("\0"))) return null;
  if (Object.hasOwn(dirs, dir)) return chainPremises(dirs, dir, true);
  const levels: string[] = [];
  for (let at = dir; levels.length <= BELOW_LEVELS;) {
    levels.push(at);
    const up = parentDir(at);
    if (up === null) return null;
    const premises = Object.hasOwn(dirs, up) ? chainPremises(dirs, up, true) : null;
    if (premises !== null) {
      if (premises.size + levels.length * names.length > BELOW_PREMISES) return null;
      for (const level of levels) for (const name of names) premises.set(`${level}${sep}${name}`, "-");
      return premises;
    }
    at = up;
  }
  return null;
}

/** The parent of an absolute path, null at the file-system root. */
function parentDir(path: string): string | null {
  const cut = path.lastIndexOf(sep);
  if (cut < 0 || path.length <= 1) return null;
  return cut === 0 ? sep : path.slice(0, cut);
}

/** What lstat or stat gave, as far as a premise needs it. */
export interface StatFacts {
  kind: "file" | "directory" | "other";
  symlink?: boolean;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs?: number | undefined;
}

/**
 * A premise's identity of what a stat gave (null: nothing there). ctime too: nobody can set it
 * back, so an edit that restores a file's mtime still shows.
 */
export function identityOf(info: StatFacts | null): Identity {
  if (info === null) return "-";
  return `${info.symlink ? "l" : info.kind[0]}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs ?? ""}`;
}

/**
 * A fingerprint of a hook's whole environment: a profile (Claude Code's `AGENTSMD_CLAUDE_AGENTS_MD`),
 * the config and the state directory read variables, so a certificate holds only under the one
 * it was made in.
 */
export function envPrint(env: Readonly<Record<string, string | undefined>>): string {
  const keys = Object.keys(env)
    .filter((key) => env[key] !== undefined)
    .sort();
  return checksum(JSON.stringify(keys.map((key) => [key, env[key]])));
}

/** The certificate file beside a state file (`x.json` -> `x.quiet.json`; encoded ids hold no dot). */
export function quietPath(statePath: string): string {
  return `${statePath.slice(0, -".json".length)}.quiet.json`;
}

/**
 * A directory as written: its parent's index in the list (-1: none), its name below the parent
 * (absolute when it has no parent or is not below it), its identity, its files (named below it
 * the same way), 1 when certified quiet. Parents come first; names are relative so that a
 * directory's path is written once, not in every entry below it.
 */
type WrittenDir = [up: number, name: string, id: Identity, files: Array<[string, Identity]>, quiet: 0 | 1];

/** `path` named below `dir` when it lies there (a relative name never is absolute), else as it is. */
function nameBelow(path: string, dir: string | undefined): string {
  if (dir === undefined) return path;
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  return path.length > prefix.length && path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

function pathOf(name: string, dir: string | undefined): string {
  return dir === undefined || isAbsolute(name) ? name : dir.endsWith(sep) ? dir + name : dir + sep + name;
}

/** The directories as written, parents first; an entry whose chain is broken (a parent missing, a loop) is left out. */
function writtenDirs(dirs: QuietCertificate["dirs"]): WrittenDir[] {
  const index = new Map<string, number>();
  const paths: string[] = [];
  const out: WrittenDir[] = [];
  const visiting = new Set<string>();
  const place = (path: string): number => {
    const known = index.get(path);
    if (known !== undefined) return known;
    const entry = Object.hasOwn(dirs, path) ? dirs[path] : undefined;
    if (entry === undefined || visiting.has(path)) return -2;
    visiting.add(path);
    const up = entry.up === undefined ? -1 : place(entry.up);
    visiting.delete(path);
    if (up === -2) return -2;
    const files = Object.entries(entry.files ?? {}).map(([file, id]): [string, Identity] => [nameBelow(file, path), id]);
    index.set(path, out.length);
    paths.push(path);
    out.push([up, nameBelow(path, up < 0 ? undefined : paths[up]), entry.id, files, entry.quiet ? 1 : 0]);
    return out.length - 1;
  };
  for (const path of Object.keys(dirs)) place(path);
  return out;
}

/** The directories of their written form; null when it is not one. */
function readDirs(written: unknown): QuietCertificate["dirs"] | null {
  if (!Array.isArray(written)) return null;
  const paths: string[] = [];
  const dirs: QuietCertificate["dirs"] = {};
  for (const item of written as unknown[]) {
    if (!Array.isArray(item) || item.length !== 5) return null;
    const [up, name, id, files, quiet] = item as WrittenDir;
    if (typeof up !== "number" || up < -1 || up >= paths.length || typeof name !== "string" || typeof id !== "string" || !Array.isArray(files)) return null;
    const parent = up < 0 ? undefined : paths[up];
    const path = pathOf(name, parent);
    const entry: QuietDir = parent === undefined ? { id } : { up: parent, id };
    for (const file of files) {
      if (!Array.isArray(file) || typeof file[0] !== "string" || typeof file[1] !== "string") return null;
      (entry.files ??= {})[pathOf(file[0], path)] = file[1];
    }
    if (quiet === 1) entry.quiet = true;
    paths.push(path);
    dirs[path] = entry;
  }
  return dirs;
}

/**
 * What a certificate is written as: its head (a JSON list of the directories certified quiet, which
 * the launcher reads before it loads any bundle: hook/quiet-gate.ts), its JSON (directories in their
 * written form), then a line with the checksum of both.
 */
export function certificateText(cert: Omit<QuietCertificate, "format">): string {
  const head = JSON.stringify(Object.keys(cert.dirs).filter((dir) => cert.dirs[dir]!.quiet === true));
  const body = `${head}\n${JSON.stringify({ format: QUIET_FORMAT, ...cert, dirs: writtenDirs(cert.dirs) })}`;
  return `${body}\n${checksum(body)}\n`;
}

/**
 * The directories a certificate's head line names, or null when it is not a list of absolute
 * paths. Only a filter: the launcher loads the quiet stage when a target may lie directly in one.
 */
export function certificateHead(line: string): string[] | null {
  let head: unknown;
  try {
    head = JSON.parse(line);
  } catch {
    return null;
  }
  return Array.isArray(head) && head.every((dir) => typeof dir === "string" && isAbsolute(dir)) ? (head as string[]) : null;
}

/**
 * The certificate a text holds, when its checksum holds and it is of this format and `version`;
 * null otherwise (written by hand, truncated, another version).
 */
export function readCertificate(text: string, version: string): QuietCertificate | null {
  const data = parseCertificate(text, version);
  return data && certificateHolds(text) ? data : null;
}

/**
 * A certificate's content before its checksum is checked (cheap refusals first: most calls the
 * quiet stage leaves to the full path are not in any certified directory); use only together with
 * `certificateHolds`.
 */
export function parseCertificate(text: string, version: string): QuietCertificate | null {
  const cut = text.lastIndexOf("\n", text.length - 2);
  const start = text.indexOf("\n");
  if (start < 0 || start >= cut || !text.endsWith("\n")) return null;
  let data: QuietCertificate;
  try {
    data = JSON.parse(text.slice(start + 1, cut)) as QuietCertificate;
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null || data.format !== QUIET_FORMAT || data.version !== version) return null;
  const dirs = readDirs(data.dirs);
  return dirs === null ? null : { ...data, dirs };
}

/** Whether a certificate's text is as written: its checksum line holds. */
export function certificateHolds(text: string): boolean {
  const cut = text.lastIndexOf("\n", text.length - 2);
  return cut >= 0 && text.endsWith("\n") && text.slice(cut + 1, -1) === checksum(text.slice(0, cut));
}

/** What a host's quiet stage reads of its event: which conversation, which paths. */
export interface QuietEvent {
  conversation: ConversationId;
  /** Absolute paths the tool touched (none: the event goes to the full path). */
  targets: string[];
}

/**
 * What the launcher (hook/quiet-gate.ts) looks for in a host's raw event text before it loads the
 * host's quiet stage: necessary conditions only, so a wrong guess costs time, never an answer.
 */
export interface QuietGate {
  /** The name of the only event the quiet stage answers, as a JSON string (`"PostToolUse"`). */
  toolEvent: string;
  /** The keys of the conversation's id and of its subagent's id. */
  conversation: string;
  agent?: string;
  /**
   * The key of the directory the host's relative tool paths are taken against (its string, or the
   * first of its list: Auggie's `workspace_roots`), when it sends them relative.
   */
  base?: string;
  /** The state directory when this variable names an absolute one: `<value>/<folder>` (the host's `stateDir`), else XDG's. */
  stateEnv?: { name: string; folder: string };
}

/** The gate of a Claude-style host (host/claude-style-quiet.ts's fields) whose state is in XDG's directory. */
export const CLAUDE_STYLE_GATE: QuietGate = { toolEvent: '"PostToolUse"', conversation: "session_id", agent: "agent_id" };

/**
 * A host's part of the quiet stage (its definition's `hook.quiet`): the conversation and targets
 * of a tool event the host's own normalisation would read the same way, or null for anything
 * else (another event, another host's payload, a shape it is not sure of: the full path decides).
 * No zod, no I/O: it runs before the host's bundle loads.
 */
export interface QuietHost {
  host: string;
  event(raw: unknown, env: Readonly<Record<string, string | undefined>>): QuietEvent | null;
  /** The profile's own state directory, when it has one (Claude Code's plugin data). */
  stateDir?(env: Readonly<Record<string, string | undefined>>): string | undefined;
}

/** Set by the build (scripts/build-hook.mjs) in the hook bundles; elsewhere package.json says it. */
declare const AGENTSMD_BUILD_VERSION: string | undefined;

/** This agentsmd's version: a bundle's own constant (no package.json read, no node:module), else core/version.ts. */
export async function agentsmdVersion(): Promise<string> {
  return typeof AGENTSMD_BUILD_VERSION === "string" ? AGENTSMD_BUILD_VERSION : (await import("../../core/version.js")).VERSION;
}
