/**
 * Persisted sessions: read/validate a state file, write it atomically, and a cross-process lock
 * (exclusive lock file, stale-lock recovery) so concurrent processes never lose an update.
 */
import { dirname } from "node:path";
import { StateError } from "./errors.js";
import { ageMs, createExclusive, ensureDir, readTextFile, removeFile, writeFileAtomic } from "./file-system.js";
import { parseSessionState } from "./session.js";
import type { SessionState } from "./schema.js";

/** Largest state file accepted. */
export const MAX_STATE_BYTES = 64 * 1024 * 1024;

/** Reads and validates a state file; null when it does not exist. Never modifies the file. */
export async function readStateFile(path: string): Promise<SessionState | null> {
  let text: string | null;
  try {
    text = await readTextFile(path, MAX_STATE_BYTES);
  } catch (error) {
    throw new StateError(`cannot read state file ${path}: ${(error as Error).message}`, { path, cause: error, fix: "check the path and permissions, or delete the file" });
  }
  if (text === null) return null;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new StateError(`state file ${path} is not valid JSON (truncated or corrupt): ${(error as Error).message}`, {
      path,
      cause: error,
      fix: `delete ${path} to start a new session`,
    });
  }
  try {
    return parseSessionState(data, `state file ${path}`);
  } catch (error) {
    if (error instanceof StateError) throw new StateError(error.message, { path, cause: error.cause, fix: `delete ${path} to start a new session` });
    throw error;
  }
}

/** Writes a state file atomically (temp file + fsync + rename). */
export async function writeStateFile(path: string, state: SessionState): Promise<void> {
  await ensureDir(dirname(path));
  await writeFileAtomic(path, `${JSON.stringify(state)}\n`);
}

export interface LockOptions {
  /** Give up after this long. @default 10000 */
  timeoutMs?: number;
  /** A lock older than this is considered abandoned by a dead process. @default 30000 */
  staleMs?: number;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

/**
 * Runs `fn` while holding `<path>.lock`. Stale locks (dead owner, or older than `staleMs`) are
 * broken.
 * @example await withLock(stateFile, async () => { ... read, modify, write ... });
 */
export async function withLock<T>(path: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lock = `${path}.lock`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  await ensureDir(dirname(path));
  const started = Date.now();
  let delay = 2;
  for (;;) {
    if (await createExclusive(lock, `${process.pid}\n`)) break;
    const owner = Number.parseInt((await readTextFile(lock, 64).catch(() => null))?.trim() ?? "", 10);
    const age = await ageMs(lock);
    if ((Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) || (age !== null && age > staleMs)) {
      await removeFile(lock);
      continue;
    }
    if (Date.now() - started > timeoutMs) {
      throw new StateError(`timed out waiting for the lock ${lock}`, { path: lock, fix: `if no agentsmd process is running, delete ${lock}` });
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 50);
  }
  try {
    return await fn();
  } finally {
    await removeFile(lock);
  }
}
