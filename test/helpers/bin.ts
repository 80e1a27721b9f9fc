/**
 * The built CLI (`dist/cli/bin.js`) as a separate process, for what only real processes show:
 * cross-process locking, SIGKILL in the middle of a write, dropped privileges, a deleted cwd.
 *
 * @example
 * beforeAll(ensureBuilt, 120_000);
 * const run = await runBin(["--json", "resolve", file, "--state", state], { cwd: tree.root });
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { withLock } from "../../src/io/state-store.js";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = join(REPO, "dist/cli/bin.js");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** The hook bundle `npm run build` makes (scripts/build-hook.mjs), the package's bin (scripts/build-bin.mjs) and the last plugin bundle (scripts/build-plugins.mjs). */
const HOOK_BUNDLE = join(REPO, "dist/hook/agentsmd-hook.cjs");
const PACKAGE_BIN = join(REPO, "dist/cli/agentsmd.cjs");
const PLUGIN_BUNDLE = join(REPO, "dist/plugin/pi.js");

function older(file: string, newest = newestMtime(join(REPO, "src"))): boolean {
  return !existsSync(file) || statSync(file).mtimeMs < newest;
}

function stale(): boolean {
  return older(BIN) || older(HOOK_BUNDLE) || older(PACKAGE_BIN) || older(PLUGIN_BUNDLE);
}

/** Builds `dist/` (tsc, then the hook bundle, the package's bin and the plugin bundles) when it is missing or older than `src/` (one build at a time across test files). */
export async function ensureBuilt(): Promise<void> {
  if (!stale()) return;
  await withLock(
    join(tmpdir(), "agentsmd-test-build"),
    async () => {
      if (!stale()) return;
      try {
        await promisify(execFile)(process.execPath, [join(REPO, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: REPO });
      } catch (error) {
        // tsc still emits on type errors (those are the typecheck's business); fail only without output.
        if (older(BIN)) throw error;
      }
      await promisify(execFile)(process.execPath, [join(REPO, "scripts/build-hook.mjs")], { cwd: REPO });
      await promisify(execFile)(process.execPath, [join(REPO, "scripts/build-bin.mjs")], { cwd: REPO });
      await promisify(execFile)(process.execPath, [join(REPO, "scripts/build-plugins.mjs")], { cwd: REPO });
    },
    // The temp directory is everyone's: this lock guards no file there.
    { timeoutMs: 120_000, directory: "any" },
  );
}

export interface BinRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface BinOptions {
  cwd?: string;
  /** The child's environment besides PATH. */
  env?: Record<string, string>;
  /** Command prefix, e.g. ["setpriv", "--reuid=65534", ...] to drop privileges. */
  prefix?: string[];
  /** Run through `sh -c` with this script; `$BIN` and `$NODE` are set. Overrides argv. */
  shell?: string;
}

/** Spawns the built CLI and collects its output. */
export function runBin(argv: readonly string[], options: BinOptions = {}): Promise<BinRun> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...options.env };
  let child: ChildProcess;
  if (options.shell !== undefined) {
    child = spawn("sh", ["-c", options.shell], { cwd: options.cwd, env: { ...env, BIN, NODE: process.execPath } });
  } else {
    const [command, ...args] = [...(options.prefix ?? []), process.execPath, BIN, ...argv];
    child = spawn(command!, args, { cwd: options.cwd, env });
  }
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolvePromise, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
  });
}

/** A pid that belonged to a process that has exited (for stale-lock files). */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  const pid = child.pid!;
  await new Promise((resolvePromise) => child.once("close", resolvePromise));
  return pid;
}
