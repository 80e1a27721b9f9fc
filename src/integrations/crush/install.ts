/**
 * `agentsmd install crush` / `uninstall crush`: agentsmd's hooks in a Crush config,
 * `~/.config/crush/crush.json` (user scope, every project; `$XDG_CONFIG_HOME`,
 * `$CRUSH_GLOBAL_CONFIG` as Crush reads them) or the project's `crush.json` (`.crush.json` when
 * that is the one there). Crush runs a hook command with its working directory as cwd, so a
 * project-scope command relative to the project works when Crush starts at the root; the user
 * scope uses an absolute command. Uninstall gives the exact earlier bytes back
 * (host/user-file.ts) when nothing else changed since.
 */
import { join } from "../../core/paths.js";
import { nodeFileSystem, type FileSystem } from "../../io/file-system.js";
import { crushConfigDir } from "../../presets/crush.js";
import { settingsText } from "../host/hook-settings.js";
import { cliHookCommand, type SettingsInstallResult } from "../host/install-hooks.js";
import { projectHookPrefix } from "../host/hook-command.js";
import { installEdit, uninstallEdit } from "../host/user-file.js";
import { addCrushHooks, parseCrushConfig, removeCrushHooks, type CrushHookEntry } from "./config.js";
import { CRUSH_TOOL_MATCHER } from "./input.js";

type CrushInstallScope = "user" | "project";

/** Seconds Crush waits for one hook run (its unit; its default is 30). */
const CRUSH_HOOK_TIMEOUT_SECONDS = 30;

/** The events agentsmd registers: file tools before they run (the context reaches the model with their result), and PostCompact (where Crush runs it). */
export const CRUSH_HOOK_EVENTS = [
  { event: "PreToolUse", matcher: CRUSH_TOOL_MATCHER },
  { event: "PostCompact", matcher: undefined },
] as const;

/** The entries, each running `command`. */
function entriesOf(command: string): CrushHookEntry[] {
  return CRUSH_HOOK_EVENTS.map(({ event, matcher }) => ({
    event,
    entry: { name: "agentsmd", ...(matcher === undefined ? {} : { matcher }), command, timeout: CRUSH_HOOK_TIMEOUT_SECONDS },
  }));
}

export interface CrushInstallOptions {
  scope: CrushInstallScope;
  projectDir: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The whole command the hooks run. */
  command?: string;
  fs?: FileSystem;
}

/**
 * The config file of a scope: the project's `.crush.json` when it exists (Crush prefers it), else its `crush.json`.
 */
export async function crushConfigPath(options: Omit<CrushInstallOptions, "command">): Promise<string> {
  if (options.scope === "user") return join(crushConfigDir(options.home, options.env), "crush.json");
  const hidden = join(options.projectDir, ".crush.json");
  const fs = options.fs ?? nodeFileSystem;
  return (await fs.lstat(hidden).catch(() => null)) ? hidden : join(options.projectDir, "crush.json");
}

/** Registers agentsmd's hooks with Crush. Idempotent. */
export async function installCrush(options: CrushInstallOptions): Promise<SettingsInstallResult> {
  const file = await crushConfigPath(options);
  const command = options.command ?? (options.scope === "project" ? `${await projectHookPrefix(options.projectDir)} hook crush` : cliHookCommand("crush"));
  const result = await installEdit(
    file,
    (text) => {
      const { document, changed } = addCrushHooks(parseCrushConfig(text, file), entriesOf(command), file);
      return changed || text === null ? settingsText(document) : text;
    },
    { env: options.env, home: options.home, ...(options.fs ? { fs: options.fs } : {}) },
  );
  return { file, changed: result.changed, command };
}

/** Takes agentsmd's hooks out of the config: its exact earlier bytes when unchanged since. */
export async function uninstallCrush(options: Omit<CrushInstallOptions, "command">): Promise<SettingsInstallResult> {
  const file = await crushConfigPath(options);
  const result = await uninstallEdit(
    file,
    (text) => {
      const { document, changed } = removeCrushHooks(parseCrushConfig(text, file), file);
      return changed ? settingsText(document) : text;
    },
    { env: options.env, home: options.home, ...(options.fs ? { fs: options.fs } : {}) },
  );
  return { file, changed: result.changed };
}
