/**
 * Tree scan for `doctor` and `tree`: every instruction file below a directory, with bounded
 * concurrency (one `readdir` per directory, never a stat per entry). `.git` is never entered;
 * directories ignored by `.gitignore` (the files from the git root down, plus
 * `.git/info/exclude`) are skipped; excluded directories (`node_modules`, `dist`...) are not
 * entered either, but their top level is listed once, so an instruction file put there is found.
 * Symlinks are reported, never followed.
 */
import type { FileSystem, FileKind } from "../io/file-system.js";
import type { Diagnostic } from "../core/schema.js";
import { ancestors, join, nameOf, parentOf } from "../core/paths.js";
import { isIgnored, parseGitignore, type IgnoreFrame } from "./gitignore.js";
import { FsError } from "../core/errors.js";

export interface ScanOptions {
  fs: FileSystem;
  /** Absolute directory to scan. */
  root: string;
  /**
   * Instruction file names. A name with one slash (`.claude/CLAUDE.md`) is found inside that
   * subdirectory and governs the directory above it.
   */
  names: Iterable<string>;
  /** Directory names not entered (their top level is still listed). @default DEFAULT_EXCLUDES */
  exclude: readonly string[];
  /** Honour `.gitignore` files. @default true */
  gitignore?: boolean;
  /** Directories listed at once. @default 64 */
  concurrency?: number;
  /** Sees every directory listed (excluded directories' single listing included): a caller can test every file without a second walk. */
  onEntries?: (dir: string, entries: ReadonlyArray<{ name: string; kind: FileKind | "symlink" }>) => void;
}

/** One instruction file found. */
export interface ScannedFile {
  path: string;
  /** The directory it governs (the parent of `.claude/` for `.claude/CLAUDE.md`). */
  scope: string;
  /** The candidate name it matched (`AGENTS.md`, `.claude/CLAUDE.md`...). */
  name: string;
  /** What the directory listing says it is; a symlink is not followed. */
  kind: FileKind | "symlink";
  /** The excluded directory name it sits under, when found by listing an excluded directory. */
  excludedBy?: string;
  /** Ignored by a `.gitignore` (agents load it anyway). */
  gitignored?: boolean;
}

export interface ScanResult {
  root: string;
  /** Instruction files, sorted by path. */
  files: ScannedFile[];
  /** Directories listed (the root included; excluded directories' single listing included). */
  dirs: number;
  /** Directories skipped because a `.gitignore` ignores them. */
  ignoredDirs: number;
  /** Excluded directories met (listed once, not entered), sorted. */
  excludedDirs: string[];
  /** Symlinks to directories (not followed), sorted. */
  symlinkDirs: string[];
  diagnostics: Diagnostic[];
}

interface Task {
  dir: string;
  frames: readonly IgnoreFrame[];
}

/** Splits the configured names into plain names and `subdir/name` pairs. */
function nameTable(names: Iterable<string>): { plain: Set<string>; nested: Map<string, Set<string>> } {
  const plain = new Set<string>();
  const nested = new Map<string, Set<string>>();
  for (const name of names) {
    const slash = name.indexOf("/");
    if (slash === -1) plain.add(name);
    else if (slash === name.lastIndexOf("/")) {
      const dir = name.slice(0, slash);
      if (!nested.has(dir)) nested.set(dir, new Set());
      nested.get(dir)!.add(name.slice(slash + 1));
    }
  }
  return { plain, nested };
}

async function readText(fs: FileSystem, path: string): Promise<string | null> {
  try {
    const info = await fs.stat(path);
    if (!info || info.kind !== "file") return null;
    const read = await fs.read(path, 1024 * 1024);
    return Buffer.from(read.bytes).toString("utf8");
  } catch {
    return null;
  }
}

/**
 * The `.gitignore` frames that apply above `root`: from the nearest ancestor holding `.git`
 * down to `root`'s parent, plus that repository's `.git/info/exclude`.
 */
async function outerFrames(fs: FileSystem, root: string): Promise<IgnoreFrame[]> {
  const chainUp = ancestors(root);
  let gitRoot: string | undefined;
  for (const dir of chainUp) {
    if (await fs.stat(join(dir, ".git")).catch(() => null)) {
      gitRoot = dir;
      break;
    }
  }
  if (!gitRoot) return [];
  const frames: IgnoreFrame[] = [];
  const exclude = await readText(fs, join(gitRoot, ".git/info/exclude"));
  if (exclude) frames.push({ dir: gitRoot, rules: parseGitignore(exclude) });
  const above = chainUp
    .slice(chainUp.indexOf(gitRoot))
    .reverse()
    .filter((dir) => dir !== root);
  for (const dir of above) {
    const text = await readText(fs, join(dir, ".gitignore"));
    if (text) frames.push({ dir, rules: parseGitignore(text) });
  }
  return frames;
}

/**
 * Scans `options.root`.
 */
export async function scanTree(options: ScanOptions): Promise<ScanResult> {
  const { fs, root } = options;
  const { plain, nested } = nameTable(options.names);
  const exclude = new Set(options.exclude);
  const useGitignore = options.gitignore ?? true;
  const concurrency = Math.max(1, options.concurrency ?? 64);
  const result: ScanResult = { root, files: [], dirs: 0, ignoredDirs: 0, excludedDirs: [], symlinkDirs: [], diagnostics: [] };

  const list = async (dir: string) => {
    result.dirs++;
    try {
      return await fs.readdir(dir);
    } catch (error) {
      const code = error instanceof FsError ? error.code : "EUNKNOWN";
      result.diagnostics.push({ level: "warning", code: `scan-${code}`, message: `cannot list ${dir}: ${(error as Error).message}; skipped`, path: dir });
      return [];
    }
  };

  /** Records the instruction files among a directory's entries. */
  const collect = (dir: string, entries: ReadonlyArray<{ name: string; kind: FileKind | "symlink" }>, frames: readonly IgnoreFrame[], excludedBy?: string) => {
    const inner = nested.get(nameOf(dir));
    for (const entry of entries) {
      if (entry.kind === "directory") continue;
      let name: string | undefined;
      let scope = dir;
      if (inner?.has(entry.name) && dir !== root) {
        name = `${nameOf(dir)}/${entry.name}`;
        scope = parentOf(dir);
      } else if (plain.has(entry.name)) name = entry.name;
      if (!name) continue;
      const path = join(dir, entry.name);
      const file: ScannedFile = { path, scope, name, kind: entry.kind };
      if (excludedBy) file.excludedBy = excludedBy;
      if (useGitignore && frames.length > 0 && isIgnored(frames, path, false)) file.gitignored = true;
      result.files.push(file);
    }
  };

  const visit = async (task: Task): Promise<Task[]> => {
    const entries = await list(task.dir);
    let frames = task.frames;
    if (useGitignore && entries.some((entry) => entry.name === ".gitignore" && entry.kind === "file")) {
      const text = await readText(fs, join(task.dir, ".gitignore"));
      if (text) frames = [...frames, { dir: task.dir, rules: parseGitignore(text) }];
    }
    collect(task.dir, entries, frames);
    options.onEntries?.(task.dir, entries);
    const children: Task[] = [];
    for (const entry of entries) {
      if (entry.kind === "symlink") {
        const path = join(task.dir, entry.name);
        const info = await fs.stat(path).catch(() => null);
        if (info?.kind === "directory") result.symlinkDirs.push(path);
        continue;
      }
      if (entry.kind !== "directory" || entry.name === ".git") continue;
      const path = join(task.dir, entry.name);
      if (useGitignore && frames.length > 0 && isIgnored(frames, path, true)) {
        result.ignoredDirs++;
        continue;
      }
      if (exclude.has(entry.name)) {
        result.excludedDirs.push(path);
        collect(path, await list(path), frames, entry.name);
        continue;
      }
      children.push({ dir: path, frames });
    }
    return children;
  };

  const start: Task = { dir: root, frames: useGitignore ? await outerFrames(fs, root) : [] };
  await new Promise<void>((resolve, reject) => {
    const stack: Task[] = [start];
    let running = 0;
    const pump = () => {
      while (running < concurrency && stack.length > 0) {
        const task = stack.pop()!;
        running++;
        visit(task).then((children) => {
          running--;
          for (const child of children) stack.push(child);
          if (running === 0 && stack.length === 0) resolve();
          else pump();
        }, reject);
      }
    };
    pump();
  });
  result.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  result.excludedDirs.sort();
  result.symlinkDirs.sort();
  return result;
}
