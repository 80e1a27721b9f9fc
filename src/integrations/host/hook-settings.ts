/**
 * The hooks block that Claude Code, Codex, Gemini CLI and Qwen Code share in their settings:
 * `{ "hooks": { "<Event>": [ { "matcher"?: "...", "hooks": [ { "type": "command", "command": "...", ... } ] } ] } }`.
 * agentsmd's handlers are recognised by a predicate (their command); everything else (other
 * hooks, other keys, their order) is left as it is. Pure: text in, text out (see user-file.ts for
 * the file side).
 */
import { ConfigError } from "../../core/errors.js";

export type Json = Record<string, unknown>;

/** One matcher group agentsmd wants under an event. */
export interface HookGroup {
  event: string;
  /** Omitted: the group has no matcher key (every source, every prompt). */
  matcher?: string;
  /** The handler object: `{ type: "command", command, timeout }` or the host's variant. */
  handler: Json;
}

/**
 * A settings document as an object: `undefined` (no file) and a blank file are `{}`; anything
 * but a JSON object is a ConfigError naming the file.
 */
export function parseSettingsText(text: string | null, file: string): Json | undefined {
  if (text === null) return undefined;
  if (text.trim() === "") return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`, {
      path: file,
      cause: error,
      fix: `fix the JSON syntax of ${file}; it was left unchanged`,
    });
  }
  return asObject(data, file);
}

/** The text agentsmd writes for a settings document (two-space JSON and a final newline). */
export const settingsText = (settings: Json): string => `${JSON.stringify(settings, null, 2)}\n`;

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

/** Removes our handlers from a list of matcher groups; groups left empty by that go too. */
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

function holdsOurs(group: unknown, ours: (handler: unknown) => boolean): boolean {
  const handlers = (group as Json | null)?.hooks;
  return Array.isArray(handlers) && handlers.some(ours);
}

/**
 * Adds agentsmd's groups (a copy is returned). A group already present and identical stays in
 * place; one that differs (another command, an older timeout) is replaced, at the end of its event.
 */
export function addHookGroups(
  input: unknown,
  groups: readonly HookGroup[],
  ours: (handler: unknown) => boolean,
  file = "settings.json",
): { settings: Json; changed: boolean } {
  const settings = structuredClone(asObject(input, file));
  const hooks = hooksOf(settings, file);
  for (const { event, matcher, handler } of groups) {
    const current = groupsOf(hooks, event, file);
    const desired: Json = matcher === undefined ? { hooks: [handler] } : { matcher, hooks: [handler] };
    const present = current.filter((group) => holdsOurs(group, ours));
    if (present.length === 1 && JSON.stringify(present[0]) === JSON.stringify(desired)) continue;
    hooks[event] = [...withoutOurs(current, ours), desired];
  }
  settings.hooks = hooks;
  return { settings, changed: JSON.stringify(settings) !== JSON.stringify(input ?? {}) };
}

/**
 * Removes every agentsmd handler; matcher groups, events and the `hooks` key left empty by that go
 * too. Nothing else changes.
 */
export function removeHookGroups(input: unknown, ours: (handler: unknown) => boolean, file = "settings.json"): { settings: Json; changed: boolean } {
  const settings = structuredClone(asObject(input, file));
  if (settings.hooks === undefined) return { settings, changed: false };
  const hooks = hooksOf(settings, file);
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    const kept = withoutOurs(groups, ours);
    if (kept.length === groups.length && JSON.stringify(kept) === JSON.stringify(groups)) continue;
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  if (Object.keys(hooks).length === 0) delete settings.hooks;
  return { settings, changed: JSON.stringify(settings) !== JSON.stringify(input) };
}

/**
 * A predicate for agentsmd's command handlers: `type: "command"` and a command that ends in
 * `hook <host>` (with `field` naming the key that holds the command).
 */
export function commandHandlerOf(host: string, field = "command"): (handler: unknown) => boolean {
  const pattern = new RegExp(`(^|\\s)hook\\s+${host.replace(/[^a-z0-9-]/gi, "")}\\s*$`);
  return (handler) =>
    typeof handler === "object" &&
    handler !== null &&
    (handler as Json).type === "command" &&
    typeof (handler as Json)[field] === "string" &&
    pattern.test((handler as Json)[field] as string);
}
