/**
 * `agentsmd install auggie` / `uninstall auggie`: agentsmd's PostToolUse hook in an Auggie
 * settings file, `~/.augment/settings.json` (user scope, every workspace) or
 * `<project>/.augment/settings.json` (project scope). Claude-style hook entries; Auggie's
 * timeouts are in milliseconds. Auggie runs a hook with the workspace root as cwd, so a
 * project-scope command relative to the project works as written.
 */
import { join } from "../../core/paths.js";
import { augmentDir } from "../../presets/auggie.js";
import { cliHookCommand, installSettingsHooks, uninstallSettingsHooks, type HookSpec, type SettingsInstallResult } from "../host/install-hooks.js";
import { projectHookPrefix } from "../host/hook-command.js";
import { AUGGIE_POST_TOOL_MATCHER } from "./input.js";

type AuggieInstallScope = "user" | "project";

/** Milliseconds Auggie waits for one hook run (its unit; 30 would be 30 ms). */
const AUGGIE_HOOK_TIMEOUT_MS = 30_000;

/** The one event whose answer reaches Auggie's model. */
export const AUGGIE_HOOK_SPECS: readonly HookSpec[] = [{ event: "PostToolUse", matcher: AUGGIE_POST_TOOL_MATCHER, timeout: AUGGIE_HOOK_TIMEOUT_MS }];

export interface AuggieInstallOptions {
  scope: AuggieInstallScope;
  projectDir: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The whole command the hook runs. */
  command?: string;
}

/**
 * The settings file of a scope.
 */
export function auggieSettingsPath(options: Omit<AuggieInstallOptions, "command">): string {
  return options.scope === "project" ? join(join(options.projectDir, ".augment"), "settings.json") : join(augmentDir(options.home), "settings.json");
}

/** Registers agentsmd's hook with Auggie. Idempotent. */
export async function installAuggie(options: AuggieInstallOptions): Promise<SettingsInstallResult> {
  return installSettingsHooks({
    file: auggieSettingsPath(options),
    specs: AUGGIE_HOOK_SPECS,
    command: options.command ?? (options.scope === "project" ? `${await projectHookPrefix(options.projectDir)} hook auggie` : cliHookCommand("auggie")),
    host: "auggie",
    env: options.env,
    home: options.home,
  });
}

/** Takes agentsmd's hook out of the settings file: its exact earlier bytes when unchanged since. */
export function uninstallAuggie(options: Omit<AuggieInstallOptions, "command">): Promise<SettingsInstallResult> {
  return uninstallSettingsHooks({ file: auggieSettingsPath(options), host: "auggie", env: options.env, home: options.home });
}
