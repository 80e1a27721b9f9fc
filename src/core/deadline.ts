/**
 * A deadline per hook event and per plugin call. One JavaScript thread cannot be interrupted by a
 * timer while it computes, so the deadline is cooperative: the loops that grow with their input
 * (directories walked, glob candidates, targets, rules, text scanned) call `check()`, which throws
 * {@link DeadlineExceeded} once the time is up. Nothing is admitted before it is handed over, so a
 * step stopped this way leaves no file marked delivered. Pure: the clock is injected.
 */

/** The variable that sets the deadline in milliseconds (`0`: none). */
export const DEADLINE_ENV = "AGENTSMD_DEADLINE_MS";

/** The deadline of one hook event or plugin call when {@link DEADLINE_ENV} does not set one. */
export const DEFAULT_DEADLINE_MS = 5000;

/**
 * Past the deadline, a call stalled where no check runs (a blocked read) is ended after this much
 * more: the hook process exits (hook/process.ts).
 */
export const STALL_GRACE_MS = 2000;

/** Thrown by {@link Deadline.check} once the deadline has passed. */
export class DeadlineExceeded extends Error {
  constructor(readonly limitMs: number) {
    super(`gave up after the ${limitMs} ms deadline (${DEADLINE_ENV}): nothing was marked delivered; the next event tries again`);
  }
}

export class Deadline {
  readonly #at: number;
  readonly #now: () => number;
  /** The allowance in milliseconds (Infinity: none). */
  readonly limitMs: number;

  /**
   * @param limitMs milliseconds from now (Infinity: never)
   * @param now a monotonic clock in milliseconds
   */
  constructor(limitMs: number, now: () => number) {
    this.limitMs = limitMs;
    this.#now = now;
    this.#at = now() + limitMs;
  }

  /** True once the deadline has passed. */
  get expired(): boolean {
    return this.limitMs !== Infinity && this.#now() >= this.#at;
  }

  /** Milliseconds left (0 once passed, Infinity without a deadline). */
  get remainingMs(): number {
    return this.limitMs === Infinity ? Infinity : Math.max(0, this.#at - this.#now());
  }

  /**
   * Throws {@link DeadlineExceeded} once the deadline has passed.
   */
  check(): void {
    if (this.expired) throw new DeadlineExceeded(this.limitMs);
  }
}

/** A deadline that never passes. */
export const NO_DEADLINE = new Deadline(Infinity, () => 0);

/**
 * The deadline's milliseconds from the environment: {@link DEADLINE_ENV} when it is a whole number
 * (0: none), else {@link DEFAULT_DEADLINE_MS}.
 */
export function deadlineMsOf(env: Readonly<Record<string, string | undefined>>): number {
  const text = env[DEADLINE_ENV]?.trim();
  if (text === undefined || !/^\d+$/.test(text)) return DEFAULT_DEADLINE_MS;
  const ms = Number(text);
  return ms === 0 ? Infinity : ms;
}
