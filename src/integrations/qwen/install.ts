/**
 * `agentsmd install qwen` / `uninstall qwen`: agentsmd's hooks in a Qwen Code settings file.
 *
 * - user scope (default): `~/.qwen/settings.json` (`$QWEN_HOME/settings.json` when set); Qwen Code
 *   0.24 runs these hooks in every folder, without a prompt, also in non-interactive runs (observed);
 * - project scope: `<project>/.qwen/settings.json`.
 *
 * Timeouts are seconds in Qwen Code (millisecond values are read as such only when large).
 */
import {
  familyHookCommand,
  familyInstallSettings,
  familyProjectSettings,
  familyUninstallSettings,
  type FamilyInstallOptions,
} from "../host/gemini-family-install.js";
import { join } from "../../core/paths.js";
import { type HookSpec, type SettingsInstallResult } from "../host/install-hooks.js";
import { QWEN_FAMILY, QWEN_POST_TOOL_MATCHER } from "./input.js";

/** Seconds Qwen Code waits for one hook run. */
const QWEN_HOOK_TIMEOUT_SECONDS = 30;

/** The events agentsmd registers with Qwen Code (SessionStart without a matcher: startup, resume, clear and compact). */
export const QWEN_HOOK_SPECS: readonly HookSpec[] = [
  { event: "SessionStart", timeout: QWEN_HOOK_TIMEOUT_SECONDS },
  { event: "PostToolUse", matcher: QWEN_POST_TOOL_MATCHER, timeout: QWEN_HOOK_TIMEOUT_SECONDS },
  { event: "UserPromptSubmit", timeout: QWEN_HOOK_TIMEOUT_SECONDS },
];

export type QwenInstallOptions = FamilyInstallOptions;

/**
 * The settings file of a scope.
 */
export function qwenSettingsPath(options: Omit<QwenInstallOptions, "command">): string {
  return options.scope === "project"
    ? familyProjectSettings(QWEN_FAMILY, options.projectDir)
    : join(QWEN_FAMILY.userDir(options.home, options.env), "settings.json");
}

/**
 * Registers agentsmd's hooks with Qwen Code. Idempotent.
 */
export async function installQwen(options: QwenInstallOptions): Promise<SettingsInstallResult> {
  return familyInstallSettings(QWEN_FAMILY, qwenSettingsPath(options), QWEN_HOOK_SPECS, await familyHookCommand(QWEN_FAMILY, options), options);
}

/**
 * Takes agentsmd's hooks out of the settings file: its exact earlier bytes when unchanged since.
 */
export function uninstallQwen(options: Omit<QwenInstallOptions, "command">): Promise<SettingsInstallResult> {
  return familyUninstallSettings(QWEN_FAMILY, qwenSettingsPath(options), options);
}
