/**
 * Continue CLI's configuration as far as `install continue` touches it (pure, no I/O): where its
 * `config.yaml` lives, and agentsmd's entry in that file's `mcpServers` list, added or taken out
 * with the rest of the document (comments, order, other servers) left as it was.
 *
 * Continue CLI 1.5.47 runs no hook (its hook service is never called), so agentsmd reaches it as
 * an MCP server: `agentsmd mcp --preset continue`, whose tools return what cn does not load itself.
 */
import { isMap, isSeq, parseDocument, type Document } from "yaml";
import { ConfigError } from "../../core/errors.js";
import { join } from "../../core/paths.js";
import { quote } from "../../core/quote.js";
import { continueHome } from "../../presets/continue.js";
import type { Env } from "../host/definition.js";

/** The `name` of agentsmd's entry in `mcpServers`. */
export const SERVER_NAME = "agentsmd";

/**
 * The config cn runs with when no `--config` is given.
 */
export function continueConfigPath(home: string, env: Env): string {
  return join(continueHome(home, env), "config.yaml");
}

/** agentsmd's `mcpServers` entry: a stdio server cn spawns with these words (no shell). */
export interface ServerEntry {
  command: string;
  args: readonly string[];
}

function parse(text: string, file: string): Document {
  const doc = parseDocument(text);
  const problem = doc.errors[0];
  if (problem)
    throw new ConfigError(`${quote(file)} is not valid YAML: ${problem.message.split("\n")[0]}`, {
      path: file,
      fix: `correct ${quote(file)} (cn cannot load it either), then run the install again`,
    });
  if (doc.contents !== null && !isMap(doc.contents))
    throw new ConfigError(`${quote(file)} is not a YAML mapping`, { path: file, fix: `make ${quote(file)} a Continue config (name, version, models...)` });
  return doc;
}

/** The `mcpServers` list (absent: null), refused when it is something else. */
function serverList(doc: Document, file: string) {
  const list = doc.get("mcpServers", true);
  if (list === undefined || list === null) return null;
  if (!isSeq(list))
    throw new ConfigError(`${quote(file)}: mcpServers is not a list`, { path: file, fix: `write mcpServers in ${quote(file)} as a YAML list of servers` });
  return list;
}

function isOurs(item: unknown): boolean {
  return isMap(item) && item.get("name") === SERVER_NAME;
}

/**
 * `text` with agentsmd's server in `mcpServers` (the list created when absent, an older entry of
 * agentsmd's replaced in place); the same text when it already holds exactly this entry.
 */
export function withAgentsmdServer(text: string, file: string, entry: ServerEntry): string {
  const doc = parse(text, file);
  const wanted = { name: SERVER_NAME, command: entry.command, args: [...entry.args] };
  const list = serverList(doc, file);
  if (list === null) {
    if (doc.contents === null) doc.contents = doc.createNode({});
    doc.set("mcpServers", doc.createNode([wanted]));
    return doc.toString();
  }
  const at = list.items.findIndex((item) => isOurs(item));
  if (at >= 0) {
    const current: unknown = (list.items[at] as { toJSON(): unknown }).toJSON();
    if (JSON.stringify(current) === JSON.stringify(wanted)) return text;
    list.items[at] = doc.createNode(wanted);
  } else list.items.push(doc.createNode(wanted));
  return doc.toString();
}

/**
 * `text` without agentsmd's server (and without `mcpServers` when nothing else was in it); the
 * same text when it holds none.
 */
export function withoutAgentsmdServer(text: string, file: string): string {
  const doc = parse(text, file);
  const list = serverList(doc, file);
  if (list === null || !list.items.some((item) => isOurs(item))) return text;
  list.items = list.items.filter((item) => !isOurs(item));
  if (list.items.length === 0) doc.delete("mcpServers");
  return doc.toString();
}

/** The entry agentsmd's install wrote, as cn will run it, or null (doctor, tests). */
export function agentsmdServerOf(text: string, file: string): ServerEntry | null {
  const doc = parse(text, file);
  const item = serverList(doc, file)?.items.find((each) => isOurs(each));
  if (!item) return null;
  const json = (item as { toJSON(): unknown }).toJSON() as { command?: unknown; args?: unknown };
  return typeof json.command === "string" ? { command: json.command, args: Array.isArray(json.args) ? json.args.map(String) : [] } : null;
}
