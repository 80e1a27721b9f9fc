/**
 * `agentsmd install gemini` / `uninstall gemini`.
 *
 * - user scope (default): a Gemini CLI extension, `~/.gemini/extensions/agentsmd/`
 *   (`$GEMINI_CLI_HOME/.gemini/…` when set) holding `gemini-extension.json` and
 *   `hooks/hooks.json`. Gemini CLI 0.61 loads extension hooks in every folder, trusted or not,
 *   without a prompt, also in non-interactive runs (observed; e2e/gemini-cli).
 * - project scope: the same hooks merged into `<project>/.gemini/settings.json`; Gemini runs them
 *   only in a trusted folder and warns once about a new project hook.
 *
 * Timeouts are milliseconds in Gemini CLI (`gemini hooks migrate --from-claude` copies Claude's
 * seconds unchanged, which times every hook out).
 */
import { join } from "../../core/paths.js";
import { VERSION } from "../../core/version.js";
import { readTextFile, removeEmptyDir, removeFile } from "../../io/file-system.js";
import { installEdit, uninstallEdit } from "../host/user-file.js";
import { geminiDir } from "../../presets/gemini.js";
import { hooksOnlyText, type HookSpec, type SettingsInstallResult } from "../host/install-hooks.js";
import {
  familyHookCommand,
  familyInstallSettings,
  familyProjectSettings,
  familyUninstallSettings,
  type FamilyInstallOptions,
} from "../host/gemini-family-install.js";
import { GEMINI_AFTER_TOOL_MATCHER, GEMINI_FAMILY } from "./input.js";

/** Milliseconds Gemini CLI waits for one hook run. */
const GEMINI_HOOK_TIMEOUT_MS = 30_000;

/** The events agentsmd registers with Gemini CLI. */
export const GEMINI_HOOK_SPECS: readonly HookSpec[] = [
  { event: "SessionStart", timeout: GEMINI_HOOK_TIMEOUT_MS },
  { event: "BeforeAgent", timeout: GEMINI_HOOK_TIMEOUT_MS },
  { event: "AfterTool", matcher: GEMINI_AFTER_TOOL_MATCHER, timeout: GEMINI_HOOK_TIMEOUT_MS },
  { event: "PreCompress", timeout: GEMINI_HOOK_TIMEOUT_MS },
];

/** The extension's name (its folder under `extensions/`). */
const GEMINI_EXTENSION_NAME = "agentsmd";

export type GeminiInstallOptions = FamilyInstallOptions;

/**
 * The extension folder of a Gemini home.
 */
export function geminiExtensionDir(home: string, env: Readonly<Record<string, string | undefined>>): string {
  return join(join(geminiDir(home, env), "extensions"), GEMINI_EXTENSION_NAME);
}

/** The files of the extension and their text. */
function geminiExtensionFiles(command: string): { manifest: string; hooks: string } {
  const manifest = {
    name: GEMINI_EXTENSION_NAME,
    version: VERSION,
    description: "agentsmd: the AGENTS.md files that apply to what the agent touches, delivered once (https://www.npmjs.com/package/agentsmd)",
  };
  return {
    manifest: `${JSON.stringify(manifest, null, 2)}\n`,
    hooks: hooksOnlyText(GEMINI_HOOK_SPECS, command, "gemini"),
  };
}

/**
 * Registers agentsmd with Gemini CLI. Idempotent.
 */
export async function installGemini(options: GeminiInstallOptions): Promise<SettingsInstallResult> {
  const command = await familyHookCommand(GEMINI_FAMILY, options);
  if (options.scope === "project")
    return familyInstallSettings(GEMINI_FAMILY, familyProjectSettings(GEMINI_FAMILY, options.projectDir), GEMINI_HOOK_SPECS, command, options);
  const dir = geminiExtensionDir(options.home, options.env);
  const files = geminiExtensionFiles(command);
  const manifest = await installEdit(join(dir, "gemini-extension.json"), () => files.manifest, options);
  const hooks = await installEdit(join(join(dir, "hooks"), "hooks.json"), () => files.hooks, options);
  return { file: dir, changed: manifest.changed || hooks.changed, command };
}

/**
 * Takes agentsmd out of Gemini CLI: the extension folder goes, or the settings file gets its
 * earlier bytes back.
 */
export async function uninstallGemini(options: Omit<GeminiInstallOptions, "command">): Promise<SettingsInstallResult> {
  if (options.scope === "project") return familyUninstallSettings(GEMINI_FAMILY, familyProjectSettings(GEMINI_FAMILY, options.projectDir), options);
  const dir = geminiExtensionDir(options.home, options.env);
  let changed = false;
  // The folder is agentsmd's own: its two files go whatever they hold now.
  for (const file of [join(join(dir, "hooks"), "hooks.json"), join(dir, "gemini-extension.json")]) {
    const result = await uninstallEdit(file, () => "", { ...options, isEmpty: () => true });
    changed ||= result.changed;
    // Without an install record (installed by hand, or the record was lost) that left an empty file.
    if ((await readTextFile(file, 1024).catch(() => null)) === "") await removeFile(file);
  }
  // The extension's own folder goes when empty; `extensions/` and `.gemini/` only when install created them (user-file.ts).
  for (const folder of [join(dir, "hooks"), dir]) if (!(await removeEmptyDir(folder))) break;
  return { file: dir, changed };
}
