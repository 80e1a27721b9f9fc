/**
 * `agentsmd install droid` / `uninstall droid`: agentsmd's hooks in a Factory Droid settings file,
 * `~/.factory/settings.json` (user scope, every directory) or `<project>/.factory/settings.json`
 * (project scope). Claude-style hook entries; timeouts in seconds.
 */
import { join } from "../../core/paths.js";
import { factoryDir } from "../../presets/droid.js";
import { cliHookCommand, installSettingsHooks, uninstallSettingsHooks, type HookSpec, type SettingsInstallResult } from "../host/install-hooks.js";
import { projectHookPrefix } from "../host/hook-command.js";
import { DROID_POST_TOOL_MATCHER } from "./input.js";

type DroidInstallScope = "user" | "project";

/** Seconds Droid waits for one hook run. */
const DROID_HOOK_TIMEOUT_SECONDS = 30;

/** The events agentsmd registers with Droid (SessionStart without a matcher: startup, resume, clear and compact). */
export const DROID_HOOK_SPECS: readonly HookSpec[] = [
  { event: "SessionStart", timeout: DROID_HOOK_TIMEOUT_SECONDS },
  { event: "PostToolUse", matcher: DROID_POST_TOOL_MATCHER, timeout: DROID_HOOK_TIMEOUT_SECONDS },
  { event: "UserPromptSubmit", timeout: DROID_HOOK_TIMEOUT_SECONDS },
];

export interface DroidInstallOptions {
  scope: DroidInstallScope;
  projectDir: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The whole command the hooks run. */
  command?: string;
}

/**
 * The settings file of a scope.
 */
export function droidSettingsPath(options: Omit<DroidInstallOptions, "command">): string {
  return options.scope === "project" ? join(join(options.projectDir, ".factory"), "settings.json") : join(factoryDir(options.home), "settings.json");
}

/** Registers agentsmd's hooks with Droid. Idempotent. */
export async function installDroid(options: DroidInstallOptions): Promise<SettingsInstallResult> {
  return installSettingsHooks({
    file: droidSettingsPath(options),
    specs: DROID_HOOK_SPECS,
    command: options.command ?? (options.scope === "project" ? `${await projectHookPrefix(options.projectDir)} hook droid` : cliHookCommand("droid")),
    host: "droid",
    env: options.env,
    home: options.home,
  });
}

/** Takes agentsmd's hooks out of the settings file: its exact earlier bytes when unchanged since. */
export function uninstallDroid(options: Omit<DroidInstallOptions, "command">): Promise<SettingsInstallResult> {
  return uninstallSettingsHooks({ file: droidSettingsPath(options), host: "droid", env: options.env, home: options.home });
}
