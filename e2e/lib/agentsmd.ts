/**
 * Run the built agentsmd CLI (`dist/cli/bin.js`) the way a user would, for end-to-end tests.
 * The e2e suites test the build output, so run `npm run build` first.
 *
 * Example:
 * ```ts
 * const r = await runAgentsmd(["show", "--preset", "codex", "--cwd", dir], { env: cleanEnv({ HOME: home }) });
 * r.stdout; // exact bytes
 * ```
 */
import { access, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { run, type RunOptions, type RunResult } from "./exec.js";
import { REPO_ROOT } from "./install.js";

/**
 * Absolute path of the built CLI entry point: `dist/cli/bin.js`, or `$AGENTSMD_E2E_BIN` when set
 * (to run a suite against another build, e.g. an installed release).
 */
export const AGENTSMD_BIN: string = process.env.AGENTSMD_E2E_BIN ? path.resolve(process.env.AGENTSMD_E2E_BIN) : path.join(REPO_ROOT, "dist", "cli", "bin.js");

/** Throws a clear error when the CLI has not been built. */
export async function assertAgentsmdBuilt(): Promise<void> {
  try {
    await access(AGENTSMD_BIN);
  } catch {
    throw new Error(`${AGENTSMD_BIN} does not exist: run \`npm run build\` in ${REPO_ROOT} before the e2e suites.`);
  }
  const built = (await stat(AGENTSMD_BIN)).mtimeMs;
  const source = await stat(path.join(REPO_ROOT, "src", "cli")).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  if (source > built + 1000) {
    // Not fatal: a directory mtime is only a hint. But say it, since a stale build is the usual cause of confusion.
    console.warn(`warning: ${AGENTSMD_BIN} looks older than src/cli; run \`npm run build\` if results surprise you.`);
  }
}

/**
 * Throws a clear error when a built module the suite loads (a plugin in dist/) is missing.
 * @example await assertBuilt(join(REPO_ROOT, "dist", "plugin", "kilo.js"));
 */
export async function assertBuilt(file: string): Promise<void> {
  await access(file).catch(() => {
    throw new Error(`${file} does not exist: run \`npm run build\` in ${REPO_ROOT} first.`);
  });
}

/** Runs `node dist/cli/bin.js ...args`. `cwd` defaults to the OS temp dir, never the repository. */
export function runAgentsmd(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return run(process.execPath, [AGENTSMD_BIN, ...args], { timeoutMs: 30_000, ...options, cwd: options.cwd ?? tmpdir() });
}

/**
 * Runs `agentsmd install ...args` as the README says, and throws with its output when it fails.
 * @example await runInstall(["install", "droid"], { cwd: fx.repo, env: homeEnv(fx.home) });
 */
export async function runInstall(args: readonly string[], options: RunOptions & { cwd: string }): Promise<RunResult> {
  const result = await runAgentsmd(args, options);
  if (result.code !== 0)
    throw new Error(`agentsmd ${args.join(" ")} failed (exit ${String(result.code)}):\n${result.stdout.toString()}\n${result.stderr.toString()}`);
  return result;
}
