/**
 * Auggie's pinned client and how the suites run it: `auggie --print` against the fake Augment
 * backend (augment-backend.ts). Shared by the auggie suite and bench/turn.ts.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { homeEnv } from "../lib/exec.js";
import { ensureInstalled } from "../lib/install.js";
import type { AugmentBackend } from "./augment-backend.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The pinned version (e2e/auggie/package.json). */
export const AUGGIE_VERSION = JSON.parse(await readFile(path.join(HERE, "package.json"), "utf8")).dependencies["@augmentcode/auggie"] as string;

/** The client's entry script (run with node), installing the pinned package on first use. */
export async function auggieBin(): Promise<string> {
  return path.join(await ensureInstalled({ folder: "auggie", pkg: "@augmentcode/auggie", version: AUGGIE_VERSION }), "augment.mjs");
}

/** The environment of a run in `home` against `backend`. */
export function auggieEnv(home: string, backend: AugmentBackend): NodeJS.ProcessEnv {
  return { ...homeEnv(home), AUGMENT_SESSION_AUTH: backend.sessionAuth, AUGMENT_DISABLE_AUTO_UPDATE: "1" };
}
