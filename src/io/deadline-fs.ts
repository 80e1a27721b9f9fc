/**
 * A file system whose reads check a deadline first: every directory walked, file probed or read
 * on the way to an answer is a point where a hook event past its deadline stops (core/deadline.ts).
 * Writes are never stopped (a lock taken is always released). One guard per inner file system and
 * process, armed per event: a session a plugin keeps between calls holds the guard's file system,
 * and the next call arms it with its own deadline. A hook process runs one event; in a plugin,
 * overlapping calls share the last deadline set.
 */
import { NO_DEADLINE, type Deadline } from "../core/deadline.js";
import type { FileSystem } from "./file-system.js";

export class DeadlineGuard {
  /** The deadlines of the calls under way, in the order they were armed. */
  readonly #armed = new Set<{ deadline: Deadline }>();
  #deadline: Deadline = NO_DEADLINE;
  /** The inner file system, its reads checking the armed deadline. */
  readonly fs: FileSystem;

  constructor(inner: FileSystem) {
    const check = () => this.#deadline.check();
    this.fs = {
      stat: (path) => (check(), inner.stat(path)),
      lstat: (path) => (check(), inner.lstat(path)),
      read: (path, maxBytes) => (check(), inner.read(path, maxBytes)),
      readdir: (path) => (check(), inner.readdir(path)),
      readdirUnsorted: (path) => (check(), inner.readdirUnsorted(path)),
      realpath: (path) => (check(), inner.realpath(path)),
      writeAtomic: (path, data, options) => inner.writeAtomic(path, data, options),
      mkdir: (path) => inner.mkdir(path),
      createExclusive: (path, data) => inner.createExclusive(path, data),
      remove: (path) => inner.remove(path),
      ...(inner.knownEntries ? { knownEntries: (dir: string) => inner.knownEntries!(dir) } : {}),
    };
    guards.set(this.fs, this);
  }

  /**
   * Checks against `deadline` until the returned release is called (once is enough; more are
   * no-ops): what follows a handed-over answer (the state save) finishes whatever the time.
   * Overlapping calls (a plugin's) are checked against the newest deadline still armed.
   */
  arm(deadline: Deadline): () => void {
    const token = { deadline };
    this.#armed.add(token);
    this.#deadline = deadline;
    return () => {
      this.#armed.delete(token);
      this.#deadline = [...this.#armed].at(-1)?.deadline ?? NO_DEADLINE;
    };
  }

  /** Throws DeadlineExceeded when the armed deadline has passed. */
  check(): void {
    this.#deadline.check();
  }
}

/** A guard by its own file system. */
const guards = new WeakMap<FileSystem, DeadlineGuard>();
/** The one guard made for an inner file system. */
const made = new WeakMap<FileSystem, DeadlineGuard>();

/**
 * The guard of `fs`: `fs` itself when it is a guard's file system, else the one guard made for it.
 */
export function guardOf(fs: FileSystem): DeadlineGuard {
  let guard = guards.get(fs) ?? made.get(fs);
  if (!guard) made.set(fs, (guard = new DeadlineGuard(fs)));
  return guard;
}

/**
 * The deadline check of a guarded file system (a no-op for any other): for the CPU loops of a
 * session that sees only its file system (rule matching).
 */
export function deadlineCheckOf(fs: FileSystem): () => void {
  const guard = guards.get(fs);
  return guard ? () => guard.check() : () => {};
}
