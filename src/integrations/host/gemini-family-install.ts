/**
 * Installing the hooks of a Gemini-family host (host/gemini-family.ts): the command a scope's hooks
 * run and the settings files they go into. Apart from the profile side, so the hook process never
 * loads install code.
 */
import { join } from "../../core/paths.js";
import { projectHookPrefix } from "./hook-command.js";
import { cliHookCommand, installSettingsHooks, uninstallSettingsHooks, type HookSpec, type SettingsInstallResult } from "./install-hooks.js";
import type { GeminiFamilyHost } from "./gemini-family.js";

type Env = Readonly<Record<string, string | undefined>>;

type FamilyInstallScope = "user" | "project";

export interface FamilyInstallOptions {
  scope: FamilyInstallScope;
  projectDir: string;
  home: string;
  env: Env;
  /** The whole command the hooks run. @default see host/hook-command.ts */
  command?: string;
}

/**
 * The command a scope's hooks run: the caller's, else relative to the project (project scope),
 * else `node` from PATH and this package's lean hook executable.
 */
export async function familyHookCommand(family: GeminiFamilyHost, options: FamilyInstallOptions): Promise<string> {
  if (options.command !== undefined) return options.command;
  return options.scope === "project"
    ? `${await projectHookPrefix(options.projectDir, family.projectDirVariable)} hook ${family.host}`
    : cliHookCommand(family.host);
}

/**
 * A workspace's settings file.
 */
export function familyProjectSettings(family: GeminiFamilyHost, projectDir: string): string {
  return join(join(projectDir, family.settingsFolder), "settings.json");
}

/** Merges the hooks into a settings file (idempotent). */
export function familyInstallSettings(
  family: GeminiFamilyHost,
  file: string,
  specs: readonly HookSpec[],
  command: string,
  options: Pick<FamilyInstallOptions, "home" | "env">,
): Promise<SettingsInstallResult> {
  return installSettingsHooks({ file, specs, command, host: family.host, env: options.env, home: options.home });
}

/** Takes the hooks out of a settings file: its exact earlier bytes when unchanged since. */
export function familyUninstallSettings(
  family: GeminiFamilyHost,
  file: string,
  options: Pick<FamilyInstallOptions, "home" | "env">,
): Promise<SettingsInstallResult> {
  return uninstallSettingsHooks({ file, host: family.host, env: options.env, home: options.home });
}
