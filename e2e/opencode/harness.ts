/**
 * Runs the real OpenCode CLI (`opencode-ai`, pinned in e2e/opencode/package.json) non-interactively
 * against the scripted model server, fully offline, inside a throwaway fixture (e2e/lib/opencode-family.ts):
 * `opencode.json` with a custom OpenAI-compatible provider pointed at the server, local plugins in
 * `<repo>/.opencode/plugin/`, HOME and every XDG dir inside the fixture.
 *
 * The CLI is installed on first use with `npm ci --prefix e2e/opencode` (what CI runs up front).
 *
 * @example
 * const fixture = await createOpenCodeFixture({
 *   files: { "src/a.ts": "export {}\n" },
 *   plugins: { "marker.js": "export const Marker = async () => ({})" },
 * });
 * try {
 *   const run = await fixture.run({
 *     prompt: "read it",
 *     script: [{ toolCalls: [{ tool: "read", args: { filePath: fixture.path("src/a.ts") } }] }, { text: "done" }],
 *   });
 *   run.mainRequests; // what the model saw, step by step
 * } finally {
 *   await fixture.cleanup();
 * }
 */
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { familyEnv, isNativeExecutable, pinnedBinary, platformBinaries, type FamilyFixture, type FamilyHost, type FamilyXdg } from "../lib/opencode-family.js";

export { type PluginCall } from "../lib/opencode-family.js";

export const OPENCODE_VERSION = "1.18.33";
/** The recording plugin (see fixtures/recorder-plugin.js); pass its source in `plugins`. */
const RECORDER_PLUGIN_FILE = fileURLToPath(new URL("./fixtures/recorder-plugin.js", import.meta.url));

const HERE = dirname(fileURLToPath(import.meta.url));

export type OpenCodeFixture = FamilyFixture;

/**
 * The native OpenCode binary from e2e/opencode/node_modules, or `null` when not installed.
 * Prefers the platform package itself, so it works even when npm skipped `opencode-ai`'s
 * postinstall script (which only copies that binary to `opencode-ai/bin/opencode.exe`).
 */
function findOpenCodeBinary(modulesDir = join(HERE, "node_modules")): string | null {
  if (process.env.AGENTSMD_E2E_OPENCODE_BIN) return process.env.AGENTSMD_E2E_OPENCODE_BIN;
  const candidates = [...platformBinaries(modulesDir, "opencode", "opencode"), join(modulesDir, "opencode-ai", "bin", "opencode.exe")];
  return candidates.find(isNativeExecutable) ?? null;
}

/** The pinned OpenCode binary, installed on first use (e2e/lib/opencode-family.ts `pinnedBinary`). */
const requireOpenCodeBinary: () => Promise<string> = pinnedBinary({
  name: "OpenCode",
  folder: "opencode",
  pkg: "opencode-ai",
  version: OPENCODE_VERSION,
  override: "AGENTSMD_E2E_OPENCODE_BIN",
  find: () => findOpenCodeBinary(),
});

/** The environment that keeps OpenCode offline, quiet and inside the fixture (e2e/lib/opencode-family.ts `familyEnv`). */
function openCodeEnv(home: string, xdg: FamilyXdg, extra: Record<string, string> = {}): Record<string, string> {
  return familyEnv(home, xdg, "OPENCODE", extra);
}

/** OpenCode in the family fixture. */
export const OPENCODE_HOST: FamilyHost = {
  name: "opencode",
  binary: requireOpenCodeBinary,
  configFile: "opencode.json",
  schema: "https://opencode.ai/config.json",
  pluginDir: join(".opencode", "plugin"),
  env: openCodeEnv,
  logDir: (xdg) => join(xdg.data, "opencode", "log"),
};

/** Source of fixtures/recorder-plugin.js, for `plugins: { "recorder.js": await recorderPluginSource() }`. */
export function recorderPluginSource(): Promise<string> {
  return readFile(RECORDER_PLUGIN_FILE, "utf8");
}
