/**
 * `agentsmd install claude-code` / `uninstall claude-code`: merge the hook entries into a Claude
 * Code settings file without touching anything else, idempotently, and remove exactly them again.
 *
 * An agentsmd handler is recognised by its command ending in `hook claude-code`; everything else
 * in the file (other hooks, other keys, their order) is left as it is.
 */
import { installEdit, uninstallEdit } from "../host/user-file.js";
import { projectHookPrefix, userHookPrefix } from "../host/hook-command.js";
import { addHookGroups, commandHandlerOf, parseSettingsText, removeHookGroups, settingsText, type HookGroup, type Json } from "../host/hook-settings.js";
import { join } from "../../core/paths.js";
import { CLAUDE_FILE_TOOLS, claudeConfigDir } from "../../presets/claude.js";

export type InstallScope = "user" | "project" | "local";

/** Events and matchers agentsmd registers (no matcher: every source / every prompt). */
export const CLAUDE_HOOK_EVENTS: ReadonlyArray<{ event: string; matcher?: string }> = [
  { event: "SessionStart" },
  { event: "PostToolUse", matcher: [...CLAUDE_FILE_TOOLS].join("|") },
  { event: "UserPromptSubmit" },
];

/** Seconds Claude Code waits for one hook run. */
const HOOK_TIMEOUT_SECONDS = 30;

interface Handler {
  type: "command";
  command: string;
  timeout: number;
}

/**
 * True for a hook handler that agentsmd added.
 */
export const isAgentsmdHandler: (handler: unknown) => boolean = commandHandlerOf("claude-code");

/**
 * The settings file of a scope.
 * @example settingsPath("local", { projectDir: "/repo", home: "/home/me", env: {} }) // "/repo/.claude/settings.local.json"
 */
export function settingsPath(scope: InstallScope, context: { projectDir: string; home: string; env: Readonly<Record<string, string | undefined>> }): string {
  if (scope === "user") return join(claudeConfigDir(context.home, context.env), "settings.json");
  return join(join(context.projectDir, ".claude"), scope === "project" ? "settings.json" : "settings.local.json");
}

/**
 * The command a hook runs: for project and local scope relative to the project
 * (`"$CLAUDE_PROJECT_DIR"/node_modules/…` when agentsmd is installed there, else the command name),
 * for user scope `node` from PATH and this package's lean hook executable (host/hook-command.ts).
 */
export async function defaultHookCommand(scope: InstallScope, projectDir: string): Promise<string> {
  const prefix = scope === "user" ? userHookPrefix() : await projectHookPrefix(projectDir, "CLAUDE_PROJECT_DIR");
  return `${prefix} hook claude-code`;
}

function desiredGroups(command: string): HookGroup[] {
  const handler: Handler = { type: "command", command, timeout: HOOK_TIMEOUT_SECONDS };
  return CLAUDE_HOOK_EVENTS.map(({ event, matcher }) => ({ event, ...(matcher !== undefined ? { matcher } : {}), handler: { ...handler } }));
}

/**
 * Adds the agentsmd hooks to a parsed settings object (a copy is returned). Already present and
 * identical: unchanged, in place; present but different (another command): replaced.
 * @example const { settings, changed } = addClaudeHooks({}, "agentsmd hook claude-code");
 */
export function addClaudeHooks(input: unknown, command: string, file = "settings.json"): { settings: Json; changed: boolean } {
  return addHookGroups(input, desiredGroups(command), isAgentsmdHandler, file);
}

/**
 * Removes every agentsmd hook handler; matcher groups, events and the `hooks` key that this
 * leaves empty are removed too. Nothing else changes.
 * @example removeClaudeHooks(JSON.parse(text)).settings
 */
export function removeClaudeHooks(input: unknown, file = "settings.json"): { settings: Json; changed: boolean } {
  return removeHookGroups(input, isAgentsmdHandler, file);
}

export interface InstallResult {
  file: string;
  scope: InstallScope;
  changed: boolean;
  command?: string;
}

interface InstallOptions {
  scope: InstallScope;
  projectDir: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Where install records live (see integrations/host/user-file). */
  recordDir?: string;
}

/**
 * Writes the hooks into the settings file of `scope` (created if missing; a symlinked file is
 * edited through the link). Idempotent; the file's original bytes are recorded for uninstall.
 * @example await installClaudeCode({ scope: "project", projectDir: "/repo", home: os.homedir(), env: process.env })
 */
export async function installClaudeCode(options: InstallOptions & { command?: string }): Promise<InstallResult> {
  const file = settingsPath(options.scope, options);
  const command = options.command ?? (await defaultHookCommand(options.scope, options.projectDir));
  const result = await installEdit(
    file,
    (text) => {
      const current = parseSettingsText(text, file);
      const { settings, changed } = addClaudeHooks(current, command, file);
      return changed || current === undefined ? settingsText(settings) : text!;
    },
    options,
  );
  return { file, scope: options.scope, changed: result.changed, command };
}

/**
 * Removes the agentsmd hooks from the settings file of `scope`: the file's original bytes come
 * back when nothing else changed since install (a file install created is removed), else only
 * agentsmd's handlers are taken out.
 * @example await uninstallClaudeCode({ scope: "user", projectDir: process.cwd(), home: os.homedir(), env: process.env })
 */
export async function uninstallClaudeCode(options: InstallOptions): Promise<InstallResult> {
  const file = settingsPath(options.scope, options);
  const result = await uninstallEdit(
    file,
    (text) => {
      const { settings, changed } = removeClaudeHooks(parseSettingsText(text, file), file);
      return changed ? settingsText(settings) : text;
    },
    options,
  );
  return { file, scope: options.scope, changed: result.changed };
}
