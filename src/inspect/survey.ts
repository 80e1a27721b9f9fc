/**
 * Shared ground for `explain`, `doctor` and `tree`: every instruction file name any registered
 * preset reads, a memoising file system for read-only surveys, and "which presets load this file
 * at startup" computed by real sessions (so each preset's own rules, hooks included, decide).
 */
import type { FileInfo, FileSystem, ReadResult } from "../io/file-system.js";
import { getPreset, presetNames } from "../presets/table.js";
import { createSession, type SessionOptions } from "../session/session.js";
import type { InitialLoad } from "../load/initial.js";
import type { InitialFile } from "../core/schema.js";

/**
 * Every instruction file name a registered preset reads (files, touch groups), plus `extra`,
 * in first-seen order.
 * @example knownInstructionNames() // ["AGENTS.md", "AGENTS.override.md", ..., "GEMINI.md"]
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
 * @example const fs = memoFileSystem(nodeFileSystem);
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
  const listed = new Map<string, ReadonlySet<string>>();
  const absentByListing = (path: string, levels = 2): boolean => {
    const slash = path.lastIndexOf("/");
    if (slash <= 0 || levels === 0) return false;
    const dir = path.slice(0, slash);
    const names = listed.get(dir);
    if (names) return !names.has(path.slice(slash + 1));
    return absentByListing(dir, levels - 1); // `.claude/CLAUDE.md`: the grandparent's listing decides
  };
  return {
    ...inner,
    stat: (path) => (absentByListing(path) ? ABSENT : memo(stats, path, () => inner.stat(path))),
    lstat: (path) => memo(lstats, path, () => inner.lstat(path)),
    realpath: (path) => memo(reals, path, () => inner.realpath(path)),
    readdir: (path) =>
      memo(lists, path, async () => {
        const entries = await inner.readdir(path);
        listed.set(path, new Set(entries.map((entry) => entry.name)));
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
 * @example const loads = await startupLoads({ home, env: {}, fs }, ["codex", "claude"], ["/repo", "/repo/pkg"]);
 */
export async function startupLoads(
  base: SessionOptions,
  presets: readonly string[],
  dirs: readonly string[],
  concurrency = 16,
): Promise<Map<string, Map<string, StartupLoad>>> {
  const out = new Map<string, Map<string, StartupLoad>>();
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
        .set(dir, { preset, cwd: dir, root: session.root, hasProject: session.hasProject, files: session.initialFiles, load: session.initialLoad });
      await session.close();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, jobs.length)) }, worker));
  return out;
}
