/**
 * vitest's global set-up: builds dist/ once before any test file runs when it is missing or older
 * than src/ (the package has no install-time build, so a fresh `npm ci && npm test` starts without it).
 */
import { ensureBuilt } from "./helpers/bin.js";

export default async function setup(): Promise<void> {
  await ensureBuilt();
}
