/**
 * Test helpers: temp trees on the real file system, special files (symlinks, FIFOs, sockets),
 * sessions that never look at the real home directory, and the CLI run in-process.
 *
 * @example
 * const tree = await createTree({ ".git/": null, "AGENTS.md": "root", "pkg/AGENTS.md": "pkg" });
 * const session = await openSession(tree, { cwd: tree.path("pkg") });
 * const { code, stdout } = await runCli(["--home", tree.home, "--cwd", tree.path("pkg"), "show"]);
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { onTestFinished } from "vitest";
import { main } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/io.js";
import { createSession, type AgentsSession, type SessionOptions } from "../../src/session/session.js";

/** A file's text or bytes; `null` makes a directory (as does a key ending in "/"). */
export type TreeSpec = Readonly<Record<string, string | Uint8Array | null>>;

export interface Tree {
  /** Absolute, realpath'ed base directory. */
  readonly root: string;
  /** An empty directory inside the tree, used as the home directory (never the real one). */
  readonly home: string;
  /** Absolute path of a tree-relative path ("" is the base). */
  path(rel?: string): string;
  /** Writes (or overwrites) a file, creating parent directories. */
  write(rel: string, content: string | Uint8Array): Promise<string>;
  /** Adds more entries. */
  add(spec: TreeSpec): Promise<void>;
  /** Removes a path (file or directory). */
  remove(rel: string): Promise<void>;
  /** Sets atime and mtime to `seconds` since the epoch (mtimeMs = seconds * 1000). */
  setMtime(rel: string, seconds: number): Promise<void>;
  /** Removes the whole tree. Idempotent. */
  cleanup(): Promise<void>;
}

/** Removing a deep tree (the security suite's depth-2,000 rows) outlasts the default 10 s hook timeout on a loaded machine. */
const CLEANUP_TIMEOUT_MS = 60_000;

function tryOnTestFinished(fn: () => Promise<void> | void): void {
  try {
    onTestFinished(fn, CLEANUP_TIMEOUT_MS);
  } catch {
    // Outside a running test (beforeAll...): the caller cleans up.
  }
}

/**
 * Builds a temp tree. It is removed when the current test finishes.
 * @example await createTree({ "a/AGENTS.md": "text", "a/.git": "gitdir: x", "b/": null })
 */
export async function createTree(spec: TreeSpec = {}): Promise<Tree> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "agentsmd-test-")));
  const home = join(root, ".test-home");
  await mkdir(home);
  let removed: Promise<void> | undefined;
  const path = (rel = "") => (rel === "" || rel === "." ? root : join(root, rel.replace(/\/+$/, "")));
  const tree: Tree = {
    root,
    home,
    path,
    async write(rel, content) {
      const target = path(rel);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
      return target;
    },
    async add(more) {
      for (const [rel, content] of Object.entries(more)) {
        if (content === null || rel.endsWith("/")) await mkdir(path(rel), { recursive: true });
        else await tree.write(rel, content);
      }
    },
    async remove(rel) {
      await rm(path(rel), { recursive: true, force: true });
    },
    async setMtime(rel, seconds) {
      await utimes(path(rel), seconds, seconds);
    },
    cleanup() {
      removed ??= rm(root, { recursive: true, force: true });
      return removed;
    },
  };
  await tree.add(spec);
  tryOnTestFinished(() => tree.cleanup());
  return tree;
}

/** A symlink at `rel` pointing at `target` (written verbatim; may dangle). */
export async function makeSymlink(tree: Tree, rel: string, target: string): Promise<string> {
  const at = tree.path(rel);
  await mkdir(dirname(at), { recursive: true });
  await symlink(target, at);
  return at;
}

/** A named pipe at `rel`, made with the system's `mkfifo`. Opening it for reading would block. */
export async function makeFifo(tree: Tree, rel: string): Promise<string> {
  const at = tree.path(rel);
  await mkdir(dirname(at), { recursive: true });
  execFileSync("mkfifo", [at]);
  return at;
}

/** A listening Unix socket at `rel`; closed when the test finishes. */
export async function makeSocket(tree: Tree, rel: string): Promise<string> {
  const at = tree.path(rel);
  await mkdir(dirname(at), { recursive: true });
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(at, () => resolve());
  });
  tryOnTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return at;
}

/**
 * A session on `tree` that never reads the real home or process env: `home` is the tree's home,
 * `env` is empty unless given. Closed when the test finishes.
 */
export async function openSession(tree: Tree, options: SessionOptions = {}): Promise<AgentsSession> {
  const session = await createSession({ cwd: tree.root, home: tree.home, env: {}, ...options });
  tryOnTestFinished(() => session.close());
  return session;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `main(argv, io)` in-process with captured output. `env` defaults to `{}`; the process cwd
 * is `cwd` (default: the tmp dir), which only relative path arguments see.
 */
export async function runCli(
  argv: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string; isTTY?: boolean } = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    readStdin: async () => options.stdin ?? "",
    env: options.env ?? {},
    cwd: options.cwd ?? tmpdir(),
    ...(options.isTTY !== undefined ? { isTTY: options.isTTY } : {}),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/**
 * A reader of the recorded hook events kept as `<name>.json` in `dir` (a test's `events/` folder).
 * @example const event = recordedEvents(new URL("./events/", import.meta.url)); await event("post-tool-view")
 */
export function recordedEvents(dir: URL): (name: string) => Promise<Record<string, unknown>> {
  return async (name) => JSON.parse(await readFile(new URL(`${name}.json`, dir), "utf8")) as Record<string, unknown>;
}
