/**
 * Runs the real Kilo Code CLI (`@kilocode/cli`, pinned in e2e/kilo/package.json) non-interactively
 * (`kilo run --format json`) against the scripted model server, fully offline, inside a throwaway
 * fixture (e2e/lib/opencode-family.ts): `kilo.json` with a custom OpenAI-compatible provider
 * pointed at the server, local plugins in `<repo>/.kilo/plugins/`, HOME and every XDG dir inside
 * the fixture.
 *
 * The CLI is installed on first use with `npm ci --prefix e2e/kilo` (what CI runs up front).
 *
 * @example
 * const fixture = await createKiloFixture({ files: { "AGENTS.md": "rules\n" } });
 * try {
 *   const run = await fixture.run({ prompt: "go", script: [{ text: "done" }] });
 *   run.mainRequests; // what the model saw, step by step
 * } finally {
 *   await fixture.cleanup();
 * }
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { familyEnv, isNativeExecutable, pinnedBinary, platformBinaries, type FamilyFixture, type FamilyHost, type FamilyXdg } from "../lib/opencode-family.js";

export const KILO_VERSION = "7.7.7";

const HERE = dirname(fileURLToPath(import.meta.url));

/** The native Kilo binary from e2e/kilo/node_modules (`$AGENTSMD_E2E_KILO_BIN` when set), or `null`. */
function findKiloBinary(modulesDir = join(HERE, "node_modules")): string | null {
  if (process.env.AGENTSMD_E2E_KILO_BIN) return process.env.AGENTSMD_E2E_KILO_BIN;
  return platformBinaries(modulesDir, "@kilocode/cli", "kilo").find(isNativeExecutable) ?? null;
}

/** The pinned Kilo binary, installed on first use (e2e/lib/opencode-family.ts `pinnedBinary`). */
const requireKiloBinary: () => Promise<string> = pinnedBinary({
  name: "Kilo",
  folder: "kilo",
  pkg: "@kilocode/cli",
  version: KILO_VERSION,
  override: "AGENTSMD_E2E_KILO_BIN",
  find: () => findKiloBinary(),
});

/** The environment that keeps Kilo offline, quiet and inside the fixture: the family's, and Kilo's own services off. */
export function kiloEnv(home: string, xdg: FamilyXdg, extra: Record<string, string> = {}): Record<string, string> {
  return familyEnv(home, xdg, "KILO", {
    KILO_DISABLE_SESSION_INGEST: "1",
    KILO_DISABLE_CODEBASE_INDEXING: "1",
    KILO_DISABLE_PRESENCE: "1",
    KILO_TELEMETRY_LEVEL: "off",
    KILO_NO_DAEMON: "1",
    ...extra,
  });
}

/** Kilo in the family fixture. */
export const KILO_HOST: FamilyHost = {
  name: "kilo",
  binary: requireKiloBinary,
  configFile: "kilo.json",
  schema: "https://app.kilo.ai/config.json",
  pluginDir: join(".kilo", "plugins"),
  env: kiloEnv,
  logDir: (xdg) => join(xdg.data, "kilo", "log"),
};

export type KiloFixture = FamilyFixture;
