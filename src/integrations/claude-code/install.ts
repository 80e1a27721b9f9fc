/**
 * `agentsmd install claude-code` / `uninstall claude-code`: merge the hook entries into a Claude
 * Code settings file without touching anything else, idempotently, and remove exactly them again.
 *
 * An agentsmd handler is recognised by its command ending in `hook claude-code`; everything else
 * in the file (other hooks, other keys, their order) is left as it is.
 */
import { fileURLToPath } from "node:url";
import { ConfigError } from "../../core/errors.js";
import { nodeFileSystem } from "../../io/file-system.js";
import { installEdit, uninstallEdit } from "../host/user-file.js";
import { join, parentOf } from "../../core/paths.js";
import { CLAUDE_FILE_TOOLS, claudeConfigDir } from "../../presets/claude.js";

export type InstallScope = "user" | "project" | "local";
export const INSTALL_SCOPES: readonly InstallScope[] = ["user", "project", "local"];

/** Events and matchers agentsmd registers (no matcher: every source / every prompt). */
export const CLAUDE_HOOK_EVENTS: ReadonlyArray<{ event: string; matcher?: string }> = [
  { event: "SessionStart" },
  { event: "PostToolUse", matcher: [...CLAUDE_FILE_TOOLS].join("|") },
  { event: "UserPromptSubmit" },
];

/** Seconds Claude Code waits for one hook run. */
export const HOOK_TIMEOUT_SECONDS = 30;

const OURS = /(^|\s)hook\s+claude-code\s*$/;

type Json = Record<string, unknown>;

interface Handler {
  type: "command";
  command: string;
  timeout: number;
}

/**
 * True for a hook handler that agentsmd added.
 * @example isAgentsmdHandler({ type: "command", command: "npx agentsmd hook claude-code" }) // true
 */
export function isAgentsmdHandler(handler: unknown): boolean {
  return (
    typeof handler === "object" &&
    handler !== null &&
    (handler as Json).type === "command" &&
    typeof (handler as Json).command === "string" &&
    OURS.test((handler as Json).command as string)
  );
}

/**
 * The settings file of a scope.
 * @example settingsPath("local", { projectDir: "/repo", home: "/home/me", env: {} }) // "/repo/.claude/settings.local.json"
 */
export function settingsPath(scope: InstallScope, context: { projectDir: string; home: string; env: Readonly<Record<string, string | undefined>> }): string {
  if (scope === "user") return join(claudeConfigDir(context.home, context.env), "settings.json");
  return join(join(context.projectDir, ".claude"), scope === "project" ? "settings.json" : "settings.local.json");
}

function quote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command a hook runs: the project's own `node_modules/.bin/agentsmd` for project and local
 * scope when it is installed there (portable across machines), else this very CLI by absolute path.
 * @example await defaultHookCommand("project", "/repo") // '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/agentsmd hook claude-code'
 */
export async function defaultHookCommand(scope: InstallScope, projectDir: string): Promise<string> {
  if (scope !== "user") {
    const local = await nodeFileSystem.stat(join(projectDir, "node_modules/.bin/agentsmd")).catch(() => null);
    if (local) return `"$CLAUDE_PROJECT_DIR"/node_modules/.bin/agentsmd hook claude-code`;
  }
  const bin = fileURLToPath(new URL("../../cli/bin.js", import.meta.url));
  return `${quote(process.execPath)} ${quote(bin)} hook claude-code`;
}

function groupsOf(hooks: Json, event: string, file: string): unknown[] {
  const groups = hooks[event] ?? [];
  if (!Array.isArray(groups))
    throw new ConfigError(`${file}: hooks.${event} is not an array`, { path: file, fix: `fix hooks.${event} in ${file} (an array of matcher groups)` });
  return groups;
}

function hooksOf(settings: Json, file: string): Json {
  const hooks = settings.hooks ?? {};
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks))
    throw new ConfigError(`${file}: "hooks" is not an object`, { path: file, fix: `fix the "hooks" key of ${file}` });
  return hooks as Json;
}

/** Removes agentsmd handlers from a list of matcher groups; groups left empty by that go too. */
function withoutOurs(groups: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const group of groups) {
    const handlers = (group as { hooks?: unknown } | null)?.hooks;
    if (!Array.isArray(handlers) || !handlers.some(isAgentsmdHandler)) {
      out.push(group);
      continue;
    }
    const kept = handlers.filter((handler) => !isAgentsmdHandler(handler));
    if (kept.length > 0) out.push({ ...(group as Json), hooks: kept });
  }
  return out;
}

function desiredGroup(matcher: string | undefined, command: string): Json {
  const handler: Handler = { type: "command", command, timeout: HOOK_TIMEOUT_SECONDS };
  return matcher === undefined ? { hooks: [handler] } : { matcher, hooks: [handler] };
}

/**
 * Adds the agentsmd hooks to a parsed settings object (a copy is returned). Already present and
 * identical: unchanged, in place; present but different (another command): replaced.
 * @example const { settings, changed } = addClaudeHooks({}, "agentsmd hook claude-code");
 */
export function addClaudeHooks(input: unknown, command: string, file = "settings.json"): { settings: Json; changed: boolean } {
  const settings = structuredClone(asObject(input, file));
  const hooks = hooksOf(settings, file);
  for (const { event, matcher } of CLAUDE_HOOK_EVENTS) {
    const groups = groupsOf(hooks, event, file);
    const desired = desiredGroup(matcher, command);
    const ours = groups.filter((group) => Array.isArray((group as Json | null)?.hooks) && ((group as Json).hooks as unknown[]).some(isAgentsmdHandler));
    if (ours.length === 1 && JSON.stringify(ours[0]) === JSON.stringify(desired)) continue;
    hooks[event] = [...withoutOurs(groups), desired];
  }
  settings.hooks = hooks;
  return { settings, changed: JSON.stringify(settings) !== JSON.stringify(input ?? {}) };
}

/**
 * Removes every agentsmd hook handler; matcher groups, events and the `hooks` key that this
 * leaves empty are removed too. Nothing else changes.
 * @example removeClaudeHooks(JSON.parse(text)).settings
 */
export function removeClaudeHooks(input: unknown, file = "settings.json"): { settings: Json; changed: boolean } {
  const settings = structuredClone(asObject(input, file));
  if (settings.hooks === undefined) return { settings, changed: false };
  const hooks = hooksOf(settings, file);
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    const kept = withoutOurs(groups);
    if (kept.length === groups.length && JSON.stringify(kept) === JSON.stringify(groups)) continue;
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  if (Object.keys(hooks).length === 0) delete settings.hooks;
  return { settings, changed: JSON.stringify(settings) !== JSON.stringify(input) };
}

function asObject(value: unknown, file: string): Json {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ConfigError(`${file} does not hold a JSON object`, { path: file, fix: `fix or remove ${file}` });
  return value as Json;
}

/** Parses a settings file's text (null: no file). A blank file counts as `{}`. */
function parseSettings(text: string | null, file: string): Json | undefined {
  if (text === null) return undefined;
  if (text.trim() === "") return {};
  try {
    return asObject(JSON.parse(text), file);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`, {
      path: file,
      cause: error,
      fix: `fix the JSON syntax of ${file}; it was left unchanged`,
    });
  }
}

const serialize = (settings: Json): string => `${JSON.stringify(settings, null, 2)}\n`;

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
      const current = parseSettings(text, file);
      const { settings, changed } = addClaudeHooks(current, command, file);
      return changed || current === undefined ? serialize(settings) : text!;
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
      const { settings, changed } = removeClaudeHooks(parseSettings(text, file), file);
      return changed ? serialize(settings) : text;
    },
    options,
  );
  return { file, scope: options.scope, changed: result.changed };
}
