/**
 * The clean-up list of an e2e suite: what a test pushes (a fixture's removal, a server's close) runs
 * after that test, last pushed first, a failing one not stopping the rest.
 */
import { afterEach } from "vitest";

/** Registers the suite's afterEach and returns the list its tests push onto. */
export function cleanupAfterEach(): Array<() => Promise<void>> {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
  });
  return cleanups;
}
