/**
 * agentsmd's entries in a `crush.json`, pure (text in, document out; install.ts does the file).
 * Crush's hooks are flat entries, `{ "hooks": { "<Event>": [ { "name"?, "matcher"?, "command",
 * "timeout"? } ] } }`, its event keys matched in any case and snake_case. agentsmd's entries are
 * recognised by their command (ending in `hook crush`); every other entry, key and their order stay
 * as they are. Crush reads its config as strict JSON (`json.Valid`): a file with comments is as
 * broken for Crush as for agentsmd, and is refused unchanged.
 */
import { ConfigError } from "../../core/errors.js";
import type { Json } from "../host/hook-settings.js";

/** One entry agentsmd wants under an event. */
export interface CrushHookEntry {
  event: string;
  entry: Json;
}

/** The key Crush folds an event name to (`pre_tool_use` and `PreToolUse` are one event). */
const folded = (event: string) => event.replaceAll("_", "").toLowerCase();

/** True for an entry running `agentsmd hook crush` (any prefix: node and a script, npx, a local bin). */
export function isOurEntry(entry: unknown): boolean {
  const command = (entry as Json | null)?.command;
  return typeof entry === "object" && entry !== null && !Array.isArray(entry) && typeof command === "string" && /(^|\s)hook\s+crush\s*$/.test(command);
}

function objectOf(value: unknown, file: string, what: string, fix: string): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ConfigError(`${file}: ${what} is not a JSON object`, { path: file, fix });
  return value as Json;
}

/** The hooks object of a document (a copy), checked. */
function hooksOf(document: Json, file: string): Json {
  const hooks = objectOf(
    document.hooks ?? {},
    file,
    '"hooks"',
    `fix the "hooks" key of ${file} (an object of event names to arrays of entries); it was left unchanged`,
  );
  for (const [event, list] of Object.entries(hooks))
    if (!Array.isArray(list))
      throw new ConfigError(`${file}: hooks.${event} is not an array`, {
        path: file,
        fix: `fix hooks.${event} in ${file} (an array of hook entries); it was left unchanged`,
      });
  return { ...hooks };
}

/**
 * The document of a `crush.json` text: null (no file) and a blank file are `{}`; anything but a
 * JSON object is a ConfigError naming the file and the fix.
 */
export function parseCrushConfig(text: string | null, file: string): Json {
  if (text === null || text.trim() === "") return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON (Crush reads it as strict JSON, no comments): ${(error as Error).message}`, {
      path: file,
      cause: error,
      fix: `fix the JSON syntax of ${file} (Crush refuses it too); it was left unchanged`,
    });
  }
  return objectOf(data, file, "the document", `fix or remove ${file}; it was left unchanged`);
}

/**
 * Adds agentsmd's entries (a new document is returned). An entry already present, alone and
 * identical under the event's own key, stays in place; otherwise agentsmd's entries under any
 * spelling of the event go and the wanted one is appended.
 */
export function addCrushHooks(document: Json, entries: readonly CrushHookEntry[], file: string): { document: Json; changed: boolean } {
  const hooks = hooksOf(document, file);
  for (const { event, entry } of entries) {
    const keys = Object.keys(hooks).filter((key) => folded(key) === folded(event));
    const ours = keys.flatMap((key) => (hooks[key] as unknown[]).filter(isOurEntry).map((found) => ({ key, found })));
    if (ours.length === 1 && ours[0]!.key === event && JSON.stringify(ours[0]!.found) === JSON.stringify(entry)) continue;
    for (const key of keys) {
      const kept = (hooks[key] as unknown[]).filter((each) => !isOurEntry(each));
      if (kept.length > 0 || key === event) hooks[key] = kept;
      else delete hooks[key];
    }
    hooks[event] = [...((hooks[event] as unknown[] | undefined) ?? []), entry];
  }
  const next = { ...document, hooks };
  return { document: next, changed: JSON.stringify(next) !== JSON.stringify(document) };
}

/** Removes every agentsmd entry; events and a `hooks` key left empty by that go too. Nothing else changes. */
export function removeCrushHooks(document: Json, file: string): { document: Json; changed: boolean } {
  if (document.hooks === undefined) return { document, changed: false };
  const hooks = hooksOf(document, file);
  for (const [event, list] of Object.entries(hooks)) {
    const kept = (list as unknown[]).filter((each) => !isOurEntry(each));
    if (kept.length === (list as unknown[]).length) continue;
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  const next: Json = { ...document, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return { document: next, changed: JSON.stringify(next) !== JSON.stringify(document) };
}
