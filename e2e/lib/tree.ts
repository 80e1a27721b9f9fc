/**
 * Build small file trees from data, in a fresh temp directory, for end-to-end tests.
 *
 * A tree maps POSIX-style relative paths to entries. Parent directories are created as needed.
 * The base directory is `realpath`ed, so paths built from it match what a program sees after
 * resolving its own cwd (macOS `/var` -> `/private/var`, a symlinked `$TMPDIR`, ...).
 *
 * Example:
 * ```ts
 * const t = await createTree({
 *   "repo/.git": dir(),
 *   "repo/AGENTS.md": "ROOT DOC\n",
 *   "repo/sub/AGENTS.md": bytes(0x68, 0xc3, 0xa9),
 *   "repo/sub/CLAUDE.md": symlink("../AGENTS.md"),
 * });
 * t.path("repo/sub"); // absolute path
 * await t.cleanup();
 * ```
 */
import { mkdir, mkdtemp, realpath, rm, symlink as fsSymlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { run } from "./exec.js";

/** A regular file with these exact bytes. */
export interface FileEntry {
  kind: "file";
  content: Uint8Array;
}
/** A directory (possibly empty). */
export interface DirEntry {
  kind: "dir";
}
/** A symbolic link; `target` is written verbatim (relative targets resolve from the link's dir). */
export interface SymlinkEntry {
  kind: "symlink";
  target: string;
}
/** A named pipe (POSIX only; made with `mkfifo`). Readers that open it block, so loaders must skip it. */
export interface FifoEntry {
  kind: "fifo";
}
/** A plain string is shorthand for a UTF-8 file. */
type TreeEntry = string | FileEntry | DirEntry | SymlinkEntry | FifoEntry;
export type TreeSpec = Readonly<Record<string, TreeEntry>>;

/** A UTF-8 file. */
function file(text: string): FileEntry {
  return { kind: "file", content: new TextEncoder().encode(text) };
}
/** A file with raw bytes (e.g. invalid UTF-8). */
export function bytes(...values: number[]): FileEntry {
  return { kind: "file", content: Uint8Array.from(values) };
}
/** An empty directory. */
export function dir(): DirEntry {
  return { kind: "dir" };
}
/** A symlink to `target` (may dangle). */
export function symlink(target: string): SymlinkEntry {
  return { kind: "symlink", target };
}
/** A named pipe (not supported on Windows). */
export function fifo(): FifoEntry {
  return { kind: "fifo" };
}

export interface BuiltTree {
  /** Absolute, realpath'ed base directory. */
  readonly root: string;
  /** Absolute path of a tree-relative path (`""` or `"."` is the base). */
  path(rel: string): string;
  /** Removes the whole tree. Idempotent. */
  cleanup(): Promise<void>;
}

function normalizeEntry(entry: TreeEntry): Exclude<TreeEntry, string> {
  return typeof entry === "string" ? file(entry) : entry;
}

function checkRelative(rel: string): void {
  if (rel === "" || path.posix.isAbsolute(rel) || rel.split("/").some((p) => p === ".." || p === "")) {
    throw new Error(`createTree: entry path must be relative without "..", got ${JSON.stringify(rel)}`);
  }
}

/**
 * Writes `spec` under `base` (which must exist). Directories first, then files and fifos, then symlinks,
 * so a symlink can point at anything in the same spec.
 */
export async function writeTree(base: string, spec: TreeSpec): Promise<void> {
  const entries = Object.entries(spec).map(([rel, e]) => {
    checkRelative(rel);
    return [rel, normalizeEntry(e)] as const;
  });
  const order = { dir: 0, file: 1, fifo: 1, symlink: 2 } as const;
  entries.sort((a, b) => order[a[1].kind] - order[b[1].kind]);
  for (const [rel, entry] of entries) {
    const abs = path.join(base, ...rel.split("/"));
    switch (entry.kind) {
      case "dir":
        await mkdir(abs, { recursive: true });
        break;
      case "file":
        await mkdir(path.dirname(abs), { recursive: true });
        await writeFile(abs, entry.content);
        break;
      case "symlink":
        await mkdir(path.dirname(abs), { recursive: true });
        await fsSymlink(entry.target, abs);
        break;
      case "fifo": {
        await mkdir(path.dirname(abs), { recursive: true });
        const r = await run("mkfifo", [abs]);
        if (r.code !== 0) throw new Error(`createTree: mkfifo ${abs} failed: ${r.stderr.toString()}`);
        break;
      }
    }
  }
}

/** Creates a fresh realpath'ed temp directory holding `spec`. */
export async function createTree(spec: TreeSpec, options: { prefix?: string } = {}): Promise<BuiltTree> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), options.prefix ?? "agentsmd-e2e-")));
  let removed: Promise<void> | undefined;
  const tree: BuiltTree = {
    root: base,
    path: (rel) => (rel === "" || rel === "." ? base : path.join(base, ...rel.split("/"))),
    cleanup: () => (removed ??= rm(base, { recursive: true, force: true })),
  };
  try {
    await writeTree(base, spec);
  } catch (error) {
    await tree.cleanup();
    throw error;
  }
  return tree;
}

/** A project and a HOME side by side: the `repo/` and `home/` entries of a tree. */
export interface RepoHomeTree {
  tree: BuiltTree;
  /** Absolute path of `repo/`. */
  repo: string;
  /** Absolute path of `home/`, the HOME the agent runs with. */
  home: string;
  /** Absolute path of a path relative to the project. */
  path(rel: string): string;
}

/** Builds `spec` (its paths under `repo/` and `home/`, both made if absent) and names the two. */
export async function createRepoHomeTree(spec: TreeSpec, options: { prefix?: string } = {}): Promise<RepoHomeTree> {
  const tree = await createTree({ repo: dir(), home: dir(), ...spec }, options);
  const repo = tree.path("repo");
  return { tree, repo, home: tree.path("home"), path: (rel) => (rel === "" ? repo : path.join(repo, ...rel.split("/"))) };
}
