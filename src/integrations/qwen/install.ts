/**
 * `agentsmd install qwen` / `uninstall qwen`: agentsmd's hooks in a Qwen Code settings file.
 *
 * - user scope (default): `~/.qwen/settings.json` (`$QWEN_HOME/settings.json` when set); Qwen Code
 *   0.24 runs these hooks in every folder, without a prompt, also in non-interactive runs (observed);
 * - project scope: `<project>/.qwen/settings.json`.
 *
 * Timeouts are seconds in Qwen Code (millisecond values are read as such only when large).
 */
import { join } from "../../core/paths.js";
import { qwenDir } from "../../presets/qwen.js";
import { cliHookCommand, installSettingsHooks, uninstallSettingsHooks, type HookSpec, type SettingsInstallResult } from "../host/install-hooks.js";
import { commandHandlerOf } from "../host/hook-settings.js";
import { projectHookPrefix } from "../host/hook-command.js";
import { QWEN_POST_TOOL_MATCHER } from "./input.js";

export type QwenInstallScope = "user" | "project";
export const QWEN_INSTALL_SCOPES: readonly QwenInstallScope[] = ["user", "project"];

/** Seconds Qwen Code waits for one hook run. */
export const QWEN_HOOK_TIMEOUT_SECONDS = 30;

/** The events agentsmd registers with Qwen Code (SessionStart without a matcher: startup, resume, clear and compact). */
export const QWEN_HOOK_SPECS: readonly HookSpec[] = [
  { event: "SessionStart", timeout: QWEN_HOOK_TIMEOUT_SECONDS },
  { event: "PostToolUse", matcher: QWEN_POST_TOOL_MATCHER, timeout: QWEN_HOOK_TIMEOUT_SECONDS },
  { event: "UserPromptSubmit", timeout: QWEN_HOOK_TIMEOUT_SECONDS },
];

export const isQwenHandler = commandHandlerOf("qwen");

export interface QwenInstallOptions {
  scope: QwenInstallScope;
  projectDir: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The whole command the hooks run. @default see host/hook-command.ts */
  command?: string;
}

/**
 * The command user-scope hooks run: `node` from PATH and this package's lean hook executable.
 */
export function defaultQwenCommand(): string {
  return cliHookCommand("qwen");
}

/**
 * The settings file of a scope.
 */
export function qwenSettingsPath(options: Omit<QwenInstallOptions, "command">): string {
  return options.scope === "project" ? join(join(options.projectDir, ".qwen"), "settings.json") : join(qwenDir(options.home, options.env), "settings.json");
}

/**
 * Registers agentsmd's hooks with Qwen Code. Idempotent.
 */
export async function installQwen(options: QwenInstallOptions): Promise<SettingsInstallResult> {
  return installSettingsHooks({
    file: qwenSettingsPath(options),
    specs: QWEN_HOOK_SPECS,
    command:
      options.command ?? (options.scope === "project" ? `${await projectHookPrefix(options.projectDir, "QWEN_PROJECT_DIR")} hook qwen` : defaultQwenCommand()),
    host: "qwen",
    env: options.env,
    home: options.home,
  });
}

/**
 * Takes agentsmd's hooks out of the settings file: its exact earlier bytes when unchanged since.
 */
export function uninstallQwen(options: Omit<QwenInstallOptions, "command">): Promise<SettingsInstallResult> {
  return uninstallSettingsHooks({ file: qwenSettingsPath(options), host: "qwen", env: options.env, home: options.home });
}
