/**
 * Installing agentsmd's hooks block into a host's JSON settings file (Gemini CLI's project
 * settings, Qwen Code's settings): the block through host/hook-settings.ts, the file through
 * host/user-file.ts, so uninstall gives the exact earlier bytes back when nothing else changed.
 */
import { userHookPrefix } from "./hook-command.js";
import { addHookGroups, commandHandlerOf, parseSettingsText, removeHookGroups, settingsText, type HookGroup } from "./hook-settings.js";
import { installEdit, uninstallEdit, type UserFileOptions } from "./user-file.js";

/** One event agentsmd registers: its matcher (none: every source) and the timeout in the host's unit. */
export interface HookSpec {
  event: string;
  matcher?: string;
  timeout: number;
}

/** What install and uninstall report. */
export interface SettingsInstallResult {
  file: string;
  changed: boolean;
  command?: string;
}

/**
 * The command a user-scope hook runs for `agentsmd hook <host>`: `node` from PATH and this
 * package's lean hook executable (dist/hook/hook.cjs, one pre-bundled file: src/hook/bin.ts)
 * by absolute path, so it works from any directory and after a Node version switch, without the
 * CLI's start-up (see host/hook-command.ts).
 */
export function cliHookCommand(host: string): string {
  return `${userHookPrefix()} hook ${host}`;
}

/**
 * The matcher groups of `specs`, each running `command`.
 */
function hookGroupsOf(specs: readonly HookSpec[], command: string): HookGroup[] {
  return specs.map((spec) => ({
    event: spec.event,
    ...(spec.matcher !== undefined ? { matcher: spec.matcher } : {}),
    handler: { type: "command", command, timeout: spec.timeout },
  }));
}

/**
 * The text of a settings document holding only agentsmd's hooks (a Gemini extension's hooks.json).
 */
export function hooksOnlyText(specs: readonly HookSpec[], command: string, host: string): string {
  return settingsText(addHookGroups({}, hookGroupsOf(specs, command), commandHandlerOf(host)).settings);
}

export interface SettingsInstallOptions extends UserFileOptions {
  file: string;
  /** `agentsmd hook <host>`: whose handlers are agentsmd's. */
  host: string;
}

/**
 * Merges agentsmd's hooks into a settings file (created when missing). Idempotent.
 */
export async function installSettingsHooks(options: SettingsInstallOptions & { specs: readonly HookSpec[]; command: string }): Promise<SettingsInstallResult> {
  const ours = commandHandlerOf(options.host);
  const result = await installEdit(
    options.file,
    (text) => {
      const current = parseSettingsText(text, options.file);
      const { settings, changed } = addHookGroups(current, hookGroupsOf(options.specs, options.command), ours, options.file);
      return changed || current === undefined ? settingsText(settings) : text!;
    },
    options,
  );
  return { file: options.file, changed: result.changed, command: options.command };
}

/**
 * Takes agentsmd's hooks out of a settings file: the exact earlier bytes when it is unchanged
 * since install (a file install created goes), else only agentsmd's handlers.
 */
export async function uninstallSettingsHooks(options: SettingsInstallOptions): Promise<SettingsInstallResult> {
  const ours = commandHandlerOf(options.host);
  const result = await uninstallEdit(
    options.file,
    (text) => {
      const { settings, changed } = removeHookGroups(parseSettingsText(text, options.file), ours, options.file);
      return changed ? settingsText(settings) : text;
    },
    options,
  );
  return { file: options.file, changed: result.changed };
}

/**
 * The entries of `specs` as setup lists them.
 */
export function hookSpecEntries(specs: readonly HookSpec[]): string[] {
  return specs.map((spec) => (spec.matcher !== undefined ? `${spec.event} (${spec.matcher})` : spec.event));
}
