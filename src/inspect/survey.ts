/**
 * Shared ground for `explain`, `doctor` and `tree`: every instruction file name any registered
 * preset reads, a memoising file system for read-only surveys, and "which presets load this file
 * at startup" computed by real sessions (so each preset's own rules, hooks included, decide).
 */
import { homedir } from "node:os";
import type { FileInfo, FileKind, FileSystem, ReadResult } from "../io/file-system.js";
import { getPreset, presetNames } from "../presets/table.js";
import { DEFAULT_EXCLUDES } from "../presets/preset.js";
import { createSession, type SessionOptions } from "../session/session.js";
import { resolveConfig, type ResolvedConfig } from "../load/config.js";
import type { InitialLoad } from "../load/initial.js";
import type { AgentsConfig, Diagnostic, InitialFile } from "../core/schema.js";
import { AGENT_OUTSIDE_CODE } from "../core/confine.js";
import { join } from "../core/paths.js";
import { scanTree, type ScanResult } from "./scan.js";

/**
 * Every instruction file name a registered preset reads (files, touch groups), plus `extra`,
 * in first-seen order.
 */
export function knownInstructionNames(extra: Iterable<string> = []): string[] {
  const names = new Set<string>();
  for (const name of presetNames()) {
    const preset = getPreset(name)!;
    for (const each of preset.files.names) names.add(each);
    for (const group of preset.lazy.groups ?? []) for (const each of group) names.add(each);
  }
  for (const each of extra) names.add(each);
  return [...names];
}

/** The answer for a name its directory's listing lacks. */
const ABSENT: Promise<null> = Promise.resolve(null);

/**
 * A file system that answers each question once (a survey reads a tree that is not changing).
 * Reads are kept at the largest size asked and served sliced for smaller budgets.
 */
export function memoFileSystem(inner: FileSystem): FileSystem {
  const stats = new Map<string, Promise<FileInfo | null>>();
  const lstats = new Map<string, Promise<(FileInfo & { symlink: boolean }) | null>>();
  const reals = new Map<string, Promise<string>>();
  const lists = new Map<string, ReturnType<FileSystem["readdir"]>>();
  const reads = new Map<string, { max: number; result: Promise<ReadResult> }>();
  const memo = <T>(map: Map<string, Promise<T>>, key: string, run: () => Promise<T>): Promise<T> => {
    let hit = map.get(key);
    if (!hit) {
      hit = run();
      map.set(key, hit);
    }
    return hit;
  };
  // Listings the survey already has (the scan lists every directory once): a name absent from its
  // directory's listing is absent without asking the disk. At depth d every absolute-path stat
  // costs d component lookups in the kernel, so probing each known name in each of d directories
  // was quadratic (tree at depth 2,000: 20 s); with the listings only files that exist are stat'ed.
  const listed = new Map<string, ReadonlyMap<string, FileKind | "symlink">>();
  const absentByListing = (path: string, levels = 2): boolean => {
    const slash = path.lastIndexOf("/");
    if (slash <= 0 || levels === 0) return false;
    const dir = path.slice(0, slash);
    const names = listed.get(dir);
    if (names) return !names.has(path.slice(slash + 1));
    return absentByListing(dir, levels - 1); // `.claude/CLAUDE.md`: the grandparent's listing decides
  };
  // A listed entry that is not a symlink has its parent's real path plus its name: no call. A
  // realpath(3) of a path d levels deep lstats every prefix (d² kernel lookups), and the survey
  // asks one per instruction file: cubic in depth when every level holds one.
  const realpath = async (path: string): Promise<string> => {
    const slash = path.lastIndexOf("/");
    const dir = slash > 0 ? path.slice(0, slash) : "";
    const kind = listed.get(dir)?.get(path.slice(slash + 1));
    if (kind === undefined || kind === "symlink") return inner.realpath(path);
    const real = await memo(reals, dir, () => realpath(dir));
    return real.endsWith("/") ? real + path.slice(slash + 1) : `${real}/${path.slice(slash + 1)}`;
  };
  return {
    ...inner,
    knownEntries: (dir) => listed.get(dir),
    stat: (path) => (absentByListing(path) ? ABSENT : memo(stats, path, () => inner.stat(path))),
    lstat: (path) => memo(lstats, path, () => inner.lstat(path)),
    realpath: (path) => memo(reals, path, () => realpath(path)),
    readdir: (path) =>
      memo(lists, path, async () => {
        const entries = await inner.readdir(path);
        listed.set(path, new Map(entries.map((entry) => [entry.name, entry.kind])));
        return entries;
      }),
    async read(path, maxBytes) {
      const known = reads.get(path);
      if (known) {
        const result = await known.result.catch(() => undefined);
        if (result && (known.max >= maxBytes || !result.truncated)) {
          const bytes = result.bytes.subarray(0, Math.min(maxBytes, result.bytes.length));
          return { ...result, bytes, truncated: result.size > bytes.length };
        }
        if (!result) return known.result;
      }
      const entry = { max: maxBytes, result: inner.read(path, maxBytes) };
      reads.set(path, entry);
      return entry.result;
    },
  };
}

/** What one preset loads at startup for a session started in a directory. */
export interface StartupLoad {
  preset: string;
  cwd: string;
  root: string;
  hasProject: boolean;
  files: readonly InitialFile[];
  load: InitialLoad | undefined;
}

/**
 * Runs a session per (preset, directory) and keeps what it loads at startup. Sessions share one
 * memoising file system, so each file is read once whatever the number of sessions.
 */
export async function startupLoads(base: SessionOptions, presets: readonly string[], dirs: readonly string[]): Promise<Map<string, Map<string, StartupLoad>>>;
export async function startupLoads<T>(
  base: SessionOptions,
  presets: readonly string[],
  dirs: readonly string[],
  options: { keep: (load: StartupLoad) => T; concurrency?: number },
): Promise<Map<string, Map<string, T>>>;
export async function startupLoads(
  base: SessionOptions,
  presets: readonly string[],
  dirs: readonly string[],
  options: { keep?: (load: StartupLoad) => unknown; concurrency?: number } = {},
): Promise<Map<string, Map<string, unknown>>> {
  // `keep` takes what the caller needs, so thousands of sessions' loads are not all held at once.
  const keep = options.keep ?? ((load: StartupLoad) => load);
  const concurrency = options.concurrency ?? 16;
  const out = new Map<string, Map<string, unknown>>();
  const jobs: Array<{ preset: string; dir: string }> = [];
  for (const preset of presets) {
    out.set(preset, new Map());
    for (const dir of dirs) jobs.push({ preset, dir });
  }
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { preset, dir } = jobs[next++]!;
      const session = await createSession({ ...base, preset, cwd: dir });
      out
        .get(preset)!
        .set(dir, keep({ preset, cwd: dir, root: session.root, hasProject: session.hasProject, files: session.initialFiles, load: session.initialLoad }));
      await session.close();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, jobs.length)) }, worker));
  return out;
}

/** Each preset's resolved config (names, budgets, excludes) for sessions in `root`, and the merged raw config. */
export interface PresetConfigs {
  configs: Map<string, ResolvedConfig>;
  raw: AgentsConfig | undefined;
}

/**
 * Resolves every preset's config under the user's settings (agentsmd's file and the agents' own).
 */
export async function presetConfigs(options: {
  root: string;
  fs: FileSystem;
  session: Omit<SessionOptions, "cwd" | "preset">;
  presets: readonly string[];
}): Promise<PresetConfigs> {
  const env = options.session.env ?? {};
  const configs = new Map<string, ResolvedConfig>();
  let raw: AgentsConfig | undefined;
  for (const name of options.presets) {
    const resolved = await resolveConfig({
      cwd: options.root,
      env,
      fs: options.fs,
      home: options.session.home ?? (env.HOME || homedir()),
      preset: name,
      ...(options.session.config ? { config: options.session.config } : {}),
      ...(options.session.configFile ? { configFile: options.session.configFile } : {}),
    });
    configs.set(name, resolved.config);
    raw ??= resolved.raw;
  }
  return { configs, raw };
}

/**
 * The one scan `doctor` and `tree` share, so both count the same directories: every name a
 * preset reads (as configured), not entering a directory any preset excludes (its top level is
 * still listed).
 */
export async function scanInstructionTree(options: {
  fs: FileSystem;
  root: string;
  configs: Iterable<ResolvedConfig>;
  gitignore?: boolean;
  concurrency?: number;
  onEntries?: (dir: string, entries: ReadonlyArray<{ name: string; kind: FileKind | "symlink" }>) => void;
}): Promise<ScanResult> {
  const configs = [...options.configs];
  return scanTree({
    fs: options.fs,
    root: options.root,
    names: knownInstructionNames(configs.flatMap((config) => config.files.names)),
    exclude: [...new Set([...DEFAULT_EXCLUDES, ...configs.flatMap((config) => config.lazy.exclude)])],
    ...(options.gitignore !== undefined ? { gitignore: options.gitignore } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.onEntries ? { onEntries: options.onEntries } : {}),
  });
}

/**
 * The file a reach probe (and the property test's `explain`) targets in a directory: a name no
 * tree holds, so the directory is what is touched.
 */
export const PROBE_NAME = ".agentsmd-probe";

/** What one preset delivers in a session started at the scanned root. */
export interface PresetReach {
  /** Project files loaded at startup. */
  startup: Set<string>;
  /** Files `touch` delivers for a probe in some scanned directory (inline caps lifted). */
  touched: Set<string>;
  /** Both. */
  delivered: Set<string>;
  /** Files outside the project a repository's config names that the agent itself loads (core/confine.ts: never read here). */
  outside: Diagnostic[];
}

/**
 * For each preset, the files a session started in `root` loads at startup or delivers when a file
 * in one of `dirs` is touched: the same session calls `explain` makes, with one touch for all
 * directories and the inline caps lifted to `bytes` / `files` (what the tree holds) so that a cap
 * reached in one directory does not hide another's files.
 */
export async function presetReach(
  base: SessionOptions,
  presets: readonly string[],
  root: string,
  dirs: readonly string[],
  tree: { bytes: number; files: number },
): Promise<Map<string, PresetReach>> {
  const out = new Map<string, PresetReach>();
  const lazy = { ...(base.config?.lazy ?? {}), maxBytes: Math.max(1, tree.bytes + 1), maxFiles: Math.max(1, tree.files + 1) };
  for (const preset of presets) {
    const session = await createSession({ ...base, preset, cwd: root, config: { ...(base.config ?? {}), lazy } });
    try {
      const startup = new Set(session.initialFiles.filter((file) => file.layer === "project").map((file) => file.path));
      const blocks = await session.touch(
        dirs.map((dir) => join(dir, PROBE_NAME)),
        { admit: false },
      );
      const touched = new Set(blocks.filter((block) => block.layer !== "user").map((block) => block.path));
      const outside = session.diagnostics.filter((diagnostic) => diagnostic.code === AGENT_OUTSIDE_CODE);
      out.set(preset, { startup, touched, delivered: new Set([...startup, ...touched]), outside });
    } finally {
      await session.close();
    }
  }
  return out;
}

/**
 * Scopes whose chain holds more instruction files than this get no startup session in a survey
 * (`tree`, `doctor`'s budget check): a session's work grows with its chain, so a tree with a file
 * at every level of a deep chain would cost depth³ (500 levels: 108 s, 1.9 GB). Real chains hold a
 * handful; `explain` on one directory still runs its session whatever the chain.
 */
export const SURVEY_CHAIN_LIMIT = 64;

/** Bytes and files of instruction files. */
export interface ChainTotal {
  bytes: number;
  files: number;
}

/**
 * Each scope's totals summed over its chain inside the surveyed tree (its own included), from the
 * totals per scope. Every directory's running total is computed once, from its parent's, so the
 * work is linear in the directories on the chains however deep they are (a walk of ancestors per
 * scope would be quadratic).
 */
export function chainTotals(perScope: ReadonlyMap<string, ChainTotal>): Map<string, ChainTotal> {
  const NONE: ChainTotal = { bytes: 0, files: 0 };
  const running = new Map<string, ChainTotal>();
  const out = new Map<string, ChainTotal>();
  for (const scope of perScope.keys()) {
    // Up to the nearest directory already known (or the file-system root), then back down.
    const pending: string[] = [];
    let dir = scope;
    let above: ChainTotal = NONE;
    for (;;) {
      const known = running.get(dir);
      if (known) {
        above = known;
        break;
      }
      pending.push(dir);
      const slash = dir.lastIndexOf("/");
      if (slash <= 0) break;
      dir = dir.slice(0, slash);
    }
    for (let at = pending.length - 1; at >= 0; at--) {
      const own = perScope.get(pending[at]!);
      above = own ? { bytes: above.bytes + own.bytes, files: above.files + own.files } : above;
      running.set(pending[at]!, above);
    }
    out.set(scope, running.get(scope)!);
  }
  return out;
}
