/**
 * Registering agentsmd in a host's JSON settings file (Claude Code's `hooks` shape, which Gemini
 * CLI and Qwen Code share), and taking it out again exactly.
 *
 * - install merges one matcher group per event into `hooks`, leaving every other key, hook and
 *   their order as they are; running it again changes nothing;
 * - the edit goes through host/user-file.ts, so uninstall puts the old bytes back when the file is
 *   still exactly what install wrote (a file install created is deleted), else removes only the
 *   agentsmd handlers.
 */
import { fileURLToPath } from "node:url";
import { ConfigError } from "../../core/errors.js";
import { installEdit, uninstallEdit, type UserFileOptions } from "./user-file.js";

type Json = Record<string, unknown>;

/** One event agentsmd registers: its matcher (none: every source) and the host's timeout value (in the host's unit). */
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
 * A recogniser for agentsmd's handlers of one host: a command ending in `hook <host>`.
 * @example ownsHandler("gemini")({ type: "command", command: "node /x/bin.js hook gemini" }) // true
 */
export function ownsHandler(host: string): (handler: unknown) => boolean {
  const ours = new RegExp(`(^|\\s)hook\\s+${host.replace(/[^a-z0-9-]/g, "")}\\s*$`);
  return (handler) =>
    typeof handler === "object" &&
    handler !== null &&
    (handler as Json).type === "command" &&
    typeof (handler as Json).command === "string" &&
    ours.test((handler as Json).command as string);
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command a host runs for `agentsmd hook <host>`: this very CLI by absolute path (works from
 * any directory, whatever PATH the host gives its hooks).
 * @example cliHookCommand("qwen") // "/usr/bin/node /…/agentsmd/dist/cli/bin.js hook qwen"
 */
export function cliHookCommand(host: string): string {
  const bin = fileURLToPath(new URL("../../cli/bin.js", import.meta.url));
  return `${shellWord(process.execPath)} ${shellWord(bin)} hook ${host}`;
}

function asObject(value: unknown, file: string): Json {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ConfigError(`${file} does not hold a JSON object`, { path: file, fix: `fix or remove ${file}` });
  return value as Json;
}

function hooksOf(settings: Json, file: string): Json {
  const hooks = settings.hooks ?? {};
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks))
    throw new ConfigError(`${file}: "hooks" is not an object`, { path: file, fix: `fix the "hooks" key of ${file}` });
  return hooks as Json;
}

function groupsOf(hooks: Json, event: string, file: string): unknown[] {
  const groups = hooks[event] ?? [];
  if (!Array.isArray(groups))
    throw new ConfigError(`${file}: hooks.${event} is not an array`, { path: file, fix: `fix hooks.${event} in ${file} (an array of matcher groups)` });
  return groups;
}

function withoutOurs(groups: readonly unknown[], ours: (handler: unknown) => boolean): unknown[] {
  const out: unknown[] = [];
  for (const group of groups) {
    const handlers = (group as { hooks?: unknown } | null)?.hooks;
    if (!Array.isArray(handlers) || !handlers.some(ours)) {
      out.push(group);
      continue;
    }
    const kept = handlers.filter((handler) => !ours(handler));
    if (kept.length > 0) out.push({ ...(group as Json), hooks: kept });
  }
  return out;
}

/**
 * The `hooks` object agentsmd registers (also the content of a Gemini extension's hooks.json).
 * @example hookGroups([{ event: "AfterTool", matcher: "^read_file$", timeout: 30000 }], "agentsmd hook gemini")
 */
export function hookGroups(specs: readonly HookSpec[], command: string): Json {
  const hooks: Json = {};
  for (const spec of specs) {
    const handler = { type: "command", command, timeout: spec.timeout };
    hooks[spec.event] = [spec.matcher === undefined ? { hooks: [handler] } : { matcher: spec.matcher, hooks: [handler] }];
  }
  return hooks;
}

/**
 * Adds agentsmd's groups to parsed settings (a copy is returned): present and identical stays in
 * place; present but different (another command) is replaced; agentsmd groups of events no longer
 * registered are removed.
 * @example addHooks({}, [{ event: "SessionStart", timeout: 30 }], "agentsmd hook qwen", ownsHandler("qwen")).changed // true
 */
export function addHooks(
  input: unknown,
  specs: readonly HookSpec[],
  command: string,
  ours: (handler: unknown) => boolean,
  file = "settings.json",
): { settings: Json; changed: boolean } {
  const settings = structuredClone(asObject(input, file));
  const hooks = hooksOf(settings, file);
  const desired = hookGroups(specs, command);
  for (const event of Object.keys(hooks)) {
    if (desired[event] !== undefined || !Array.isArray(hooks[event])) continue;
    const kept = withoutOurs(hooks[event] as unknown[], ours);
    if (kept.length === (hooks[event] as unknown[]).length) continue;
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  for (const [event, groups] of Object.entries(desired)) {
    const current = groupsOf(hooks, event, file);
    const group = (groups as unknown[])[0];
    const mine = current.filter((each) => Array.isArray((each as Json | null)?.hooks) && ((each as Json).hooks as unknown[]).some(ours));
    if (mine.length === 1 && JSON.stringify(mine[0]) === JSON.stringify(group)) continue;
    hooks[event] = [...withoutOurs(current, ours), group];
  }
  settings.hooks = hooks;
  return { settings, changed: JSON.stringify(settings) !== JSON.stringify(input ?? {}) };
}

/**
 * Removes every agentsmd handler; groups, events and a `hooks` key left empty go too.
 * @example removeHooks({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: "x hook qwen" }] }] } }, ownsHandler("qwen")).settings // {}
 */
export function removeHooks(input: unknown, ours: (handler: unknown) => boolean, file = "settings.json"): { settings: Json; changed: boolean } {
  const settings = structuredClone(asObject(input, file));
  if (settings.hooks === undefined) return { settings, changed: false };
  const hooks = hooksOf(settings, file);
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    const kept = withoutOurs(groups, ours);
    if (kept.length === groups.length) continue;
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  if (Object.keys(hooks).length === 0) delete settings.hooks;
  return { settings, changed: JSON.stringify(settings) !== JSON.stringify(input) };
}

/** Parses a settings file's text; `undefined` for no file, `{}` for an empty one. */
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

export interface WriteContext extends UserFileOptions {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
}

/**
 * Merges agentsmd's hooks into a settings file (created when missing; the original bytes are
 * recorded by host/user-file for uninstall). Idempotent.
 * @example await installSettingsHooks({ file, specs, command: "agentsmd hook qwen", ours: ownsHandler("qwen"), env, home })
 */
export async function installSettingsHooks(
  options: WriteContext & { file: string; specs: readonly HookSpec[]; command: string; ours: (handler: unknown) => boolean },
): Promise<SettingsInstallResult> {
  const result = await installEdit(
    options.file,
    (text) => {
      const current = parseSettings(text, options.file);
      const { settings, changed } = addHooks(current, options.specs, options.command, options.ours, options.file);
      return changed || current === undefined ? serialize(settings) : text!;
    },
    options,
  );
  return { file: options.file, changed: result.changed, command: options.command };
}

/**
 * Takes agentsmd's hooks out of a settings file: the exact earlier bytes when the file is
 * unchanged since install (a file install created goes), else only the agentsmd handlers.
 * @example await uninstallSettingsHooks({ file, ours: ownsHandler("qwen"), env, home })
 */
export async function uninstallSettingsHooks(options: WriteContext & { file: string; ours: (handler: unknown) => boolean }): Promise<SettingsInstallResult> {
  const result = await uninstallEdit(
    options.file,
    (text) => {
      const { settings, changed } = removeHooks(parseSettings(text, options.file), options.ours, options.file);
      return changed ? serialize(settings) : text;
    },
    options,
  );
  return { file: options.file, changed: result.changed };
}
