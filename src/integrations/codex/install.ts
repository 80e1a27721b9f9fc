/**
 * `agentsmd install codex [--trust]` / `uninstall codex` / the doctor's Codex check.
 *
 * Install merges agentsmd's command hooks (SessionStart, UserPromptSubmit, PostToolUse on the shell
 * and apply_patch tools) into `$CODEX_HOME/hooks.json` (default `~/.codex`), leaving everything else
 * as it is; idempotent. `--trust` records Codex's trust for exactly those hooks: through
 * `codex app-server` (`hooks/list`, `config/batchWrite`) when a codex binary is found, else by
 * writing the same `[hooks.state."<key>"] trusted_hash` tables into `config.toml`.
 *
 * Uninstall restores each file agentsmd changed byte for byte (integrations/host/user-file keeps
 * the original bytes) when nobody changed it since; otherwise it removes only agentsmd's handlers
 * and trust entries. Files agentsmd created are removed.
 */
import { delimiter } from "node:path";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { ConfigError } from "../../core/errors.js";
import { join } from "../../core/paths.js";
import { nodeFileSystem, readTextFile } from "../../io/file-system.js";
import { installEdit, uninstallEdit } from "../host/user-file.js";
import { cliHookCommand } from "../host/install-hooks.js";
import { addHookGroups, commandHandlerOf, parseSettingsText, removeHookGroups, settingsText, type HookGroup, type Json } from "../host/hook-settings.js";
import { CODEX_EVENTS } from "./input.js";
import { codexHookHash, codexHookKey, listHooks, startAppServer, type CommandHandler } from "./trust.js";

/** Seconds Codex waits for one agentsmd hook run. */
const CODEX_HOOK_TIMEOUT_SECONDS = 30;
/** The PostToolUse matcher: Codex's shell tool and apply_patch. */
export const CODEX_TOOL_MATCHER = "Bash|apply_patch";
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/**
 * Codex's home: `$CODEX_HOME`, else `~/.codex`.
 */
export function codexHomeDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return env.CODEX_HOME && env.CODEX_HOME.length > 0 ? env.CODEX_HOME : join(home, ".codex");
}

/**
 * True for a handler agentsmd added (its command ends in `hook codex`).
 */
export const isAgentsmdCodexHandler: (handler: unknown) => boolean = commandHandlerOf("codex");

/**
 * The command the hooks run: `node` from PATH and this package's lean hook executable.
 */
export function defaultCodexHookCommand(): string {
  return cliHookCommand("codex");
}

/** agentsmd's groups: SessionStart (every source), UserPromptSubmit, PostToolUse on the shell and apply_patch. */
function codexGroups(command: string): HookGroup[] {
  const handler = { type: "command", command, timeout: CODEX_HOOK_TIMEOUT_SECONDS };
  return CODEX_EVENTS.map((event) => (event === "PostToolUse" ? { event, matcher: CODEX_TOOL_MATCHER, handler } : { event, handler }));
}

/**
 * Adds agentsmd's groups to a parsed hooks.json (a copy is returned) through the shared hooks-block
 * editor; already there and identical: unchanged, in place (so trust keys keep their positions).
 */
export function addCodexHooks(input: unknown, command: string, path = "hooks.json"): { file: Json; changed: boolean } {
  const { settings, changed } = addHookGroups(input, codexGroups(command), isAgentsmdCodexHandler, path);
  return { file: settings, changed };
}

/**
 * Removes every agentsmd handler; groups and events left empty go too, and `hooks` if empty.
 */
export function removeCodexHooks(input: unknown, path = "hooks.json"): { file: Json; changed: boolean } {
  const { settings, changed } = removeHookGroups(input, isAgentsmdCodexHandler, path);
  return { file: settings, changed };
}

/** One agentsmd handler in a hooks.json, with its trust key and current hash. */
export interface OurHook {
  event: string;
  key: string;
  hash: string;
  command: string;
}

/**
 * agentsmd's handlers in a parsed hooks.json, keyed as Codex keys them (`keySource` is the
 * hooks.json path as Codex sees it).
 */
function ourHooks(file: Json, keySource: string): OurHook[] {
  const out: OurHook[] = [];
  const hooks = (file.hooks ?? {}) as Json;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, g) => {
      const handlers = (group as Json | null)?.hooks;
      if (!Array.isArray(handlers)) return;
      const matcher = typeof (group as Json).matcher === "string" ? ((group as Json).matcher as string) : undefined;
      handlers.forEach((handler, h) => {
        if (!isAgentsmdCodexHandler(handler)) return;
        const hd = handler as CommandHandler;
        // Codex ignores the matcher of events that have none (SessionStart has sources, UserPromptSubmit none)
        const effective = event === "UserPromptSubmit" || event === "Stop" ? undefined : matcher;
        out.push({ event, key: codexHookKey(keySource, event, g, h), hash: codexHookHash(event, effective, hd), command: hd.command });
      });
    });
  }
  return out;
}

/** A Codex config file's text, or null when there is none (bounded). */
function readBytes(path: string): Promise<string | null> {
  return readTextFile(path, MAX_CONFIG_BYTES);
}

const serialize = settingsText;
const parseJsonFile = parseSettingsText;

function parseConfig(text: string | null, path: string): Json {
  if (text === null || text.trim() === "") return {};
  try {
    return parseToml(text);
  } catch (error) {
    throw new ConfigError(`${path} is not valid TOML: ${(error as Error).message}`, {
      path,
      cause: error,
      fix: `fix the TOML syntax of ${path}; it was left unchanged`,
    });
  }
}

function trustedHashes(config: Json): Record<string, string | undefined> {
  const state = ((config.hooks as Json | undefined)?.state ?? {}) as Record<string, { trusted_hash?: unknown } | undefined>;
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(state)) out[key] = typeof value?.trusted_hash === "string" ? value.trusted_hash : undefined;
  return out;
}

/**
 * config.toml text with `trusted_hash` set for each entry: new tables are appended (the rest of the
 * file stays byte for byte); an existing entry with another hash makes a full rewrite.
 */
export function withTrust(text: string | null, entries: ReadonlyArray<{ key: string; hash: string }>, path = "config.toml"): string {
  const config = parseConfig(text, path);
  const current = trustedHashes(config);
  const missing = entries.filter((e) => !(e.key in current));
  const changed = entries.filter((e) => e.key in current && current[e.key] !== e.hash);
  if (changed.length === 0) {
    if (missing.length === 0) return text ?? "";
    const tables = missing.map((e) =>
      stringifyToml({ hooks: { state: { [e.key]: { trusted_hash: e.hash } } } })
        .replace(/^\[hooks\]\n|^\[hooks\.state\]\n/gm, "")
        .trim(),
    );
    const base = text ?? "";
    const appended = `${base}${base === "" || base.endsWith("\n") ? "" : "\n"}${base === "" ? "" : "\n"}${tables.join("\n\n")}\n`;
    try {
      const check = trustedHashes(parseToml(appended));
      if (missing.every((e) => check[e.key] === e.hash)) return appended;
    } catch {
      /* e.g. an inline `hooks.state = {...}`: rewrite below */
    }
  }
  const hooks = ((config.hooks ??= {}) as Json) ?? {};
  const state = ((hooks.state ??= {}) as Record<string, Json>) ?? {};
  for (const e of entries) state[e.key] = { ...(state[e.key] ?? {}), trusted_hash: e.hash };
  return `${stringifyToml(config)}\n`;
}

/**
 * config.toml text without the given `hooks.state` entries (tables in Codex's own form are cut out
 * line by line; anything else makes a full rewrite).
 */
export function withoutTrust(text: string, keys: readonly string[], path = "config.toml"): string {
  const config = parseConfig(text, path);
  const present = keys.filter((k) => k in trustedHashes(config));
  if (present.length === 0) return text;
  const lines = text.split("\n");
  const headers = new Set(present.map((k) => `[hooks.state.${JSON.stringify(k)}]`));
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!headers.has((lines[i] as string).trim())) {
      out.push(lines[i] as string);
      continue;
    }
    while (i + 1 < lines.length && !(lines[i + 1] as string).trim().startsWith("[")) i++;
  }
  let cut = out.join("\n").replace(/\n{3,}/g, "\n\n");
  // a `[hooks.state]` header left with nothing under it goes too
  if (Object.keys(trustedHashes(parseConfig(cut, path))).length === 0) cut = cut.replace(/^\[hooks\.state\]\n(?:[ \t]*\n)*/m, "");
  try {
    const left = trustedHashes(parseToml(cut));
    if (present.every((k) => !(k in left))) return cut.replace(/^\n+/, "");
  } catch {
    /* rewrite below */
  }
  const state = ((config.hooks as Json).state ?? {}) as Json;
  for (const k of present) delete state[k];
  if (Object.keys(state).length === 0) delete (config.hooks as Json).state;
  if (Object.keys(config.hooks as Json).length === 0) delete config.hooks;
  return `${stringifyToml(config)}\n`;
}

/**
 * The codex executable on PATH, or null.
 */
async function findCodexBinary(env: Readonly<Record<string, string | undefined>>): Promise<string | null> {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "codex");
    const info = await nodeFileSystem.stat(candidate).catch(() => null);
    if (info?.kind === "file") return candidate;
  }
  return null;
}

export interface CodexInstallOptions {
  /** `$CODEX_HOME` or `~/.codex`. */
  codexHome: string;
  /** Home directory (for the install records). */
  home: string;
  /** Environment: XDG_STATE_HOME for the install records, PATH for codex; CODEX_HOME is set from `codexHome` for codex. */
  env: Readonly<Record<string, string | undefined>>;
  /** The command the hooks run (default: this CLI, `… hook codex`). */
  command?: string;
  /** Record trust for agentsmd's hooks. */
  trust?: boolean;
  /** The codex executable for `--trust` (default: `codex` on PATH); null: no codex, compute the hashes here. */
  codexBin?: string | null;
  /** Directory passed to `hooks/list`. */
  cwd?: string;
  /** Where install records live (see integrations/host/user-file). */
  recordDir?: string;
}

export interface CodexInstallResult {
  hooksFile: string;
  configFile: string;
  command: string;
  changed: boolean;
  hooks: OurHook[];
  /** What `--trust` recorded. */
  trusted: Array<{ key: string; hash: string; event: string }>;
  /** Where the keys and hashes came from: Codex's own `hooks/list`, or agentsmd's computation. */
  trustedVia: "app-server" | "config.toml" | null;
  /** Hooks whose hash Codex reported differently from agentsmd's own computation (diagnostic). */
  hashMismatches: string[];
}

/**
 * Installs (and with `trust`, trusts) agentsmd's Codex hooks. Idempotent; every file is edited
 * through the shared install records, so uninstall gives it back byte for byte.
 *
 * With a codex binary, the keys and hashes come from Codex itself (`codex app-server` `hooks/list`),
 * and a second `hooks/list` confirms Codex now reports them trusted. agentsmd writes the
 * `[hooks.state."<key>"]` tables itself (appended, the rest of config.toml untouched) rather than
 * through `config/batchWrite`, which re-serialises the user's whole file (it moved comments).
 */
export async function installCodex(options: CodexInstallOptions): Promise<CodexInstallResult> {
  const home = options.codexHome;
  const hooksFile = join(home, "hooks.json");
  const configFile = join(home, "config.toml");
  const command = options.command ?? defaultCodexHookCommand();
  const records = { env: options.env, home: options.home, ...(options.recordDir ? { recordDir: options.recordDir } : {}) };

  let installed: Json = {};
  const edit = await installEdit(
    hooksFile,
    (text) => {
      const current = parseJsonFile(text, hooksFile);
      const { file, changed } = addCodexHooks(current, command, hooksFile);
      installed = file;
      return changed || current === undefined ? serialize(file) : (text as string);
    },
    records,
  );
  // After the edit, which created a missing home (recorded, so uninstall can take it away again).
  const realHome = await nodeFileSystem.realpath(home);
  const hooks = ourHooks(installed, join(realHome, "hooks.json"));

  const result: CodexInstallResult = { hooksFile, configFile, command, changed: edit.changed, hooks, trusted: [], trustedVia: null, hashMismatches: [] };
  if (!options.trust) return result;
  parseConfig(await readBytes(configFile), configFile); // refuse a broken config.toml before anything else
  const codexBin = options.codexBin === undefined ? await findCodexBinary(options.env) : options.codexBin;
  let entries = hooks.map((h) => ({ key: h.key, hash: h.hash, event: h.event }));
  const writeTables = () => installEdit(configFile, (text) => withTrust(text, entries, configFile), records);
  if (!codexBin) {
    await writeTables();
    return { ...result, trusted: entries, trustedVia: "config.toml" };
  }
  const env = { ...options.env, CODEX_HOME: home } as NodeJS.ProcessEnv;
  const listOurs = async () => {
    const server = await startAppServer(codexBin, env);
    try {
      const listed = await listHooks(server, options.cwd ?? home);
      return listed.filter(
        (l) =>
          l.command !== null &&
          isAgentsmdCodexHandler({ type: "command", command: l.command }) &&
          (l.sourcePath === hooksFile || l.sourcePath === join(realHome, "hooks.json")),
      );
    } finally {
      server.close();
    }
  };
  const mine = await listOurs();
  result.hashMismatches = mine.filter((l) => hooks.find((h) => h.key === l.key)?.hash !== l.currentHash).map((l) => l.key);
  entries = mine.map((l) => ({ key: l.key, hash: l.currentHash, event: hooks.find((h) => h.key === l.key)?.event ?? l.eventName }));
  await writeTables();
  const after = await listOurs();
  const untrusted = after.filter((l) => l.trustStatus !== "trusted");
  if (untrusted.length > 0 || after.length !== hooks.length)
    throw new ConfigError(
      `Codex does not report agentsmd's hooks as trusted after writing ${configFile} (${untrusted.map((l) => `${l.key}: ${l.trustStatus}`).join(", ") || `${after.length} of ${hooks.length} hooks listed`})`,
      {
        path: configFile,
        fix: "open Codex, type /hooks and trust the agentsmd hooks there",
      },
    );
  return { ...result, trusted: entries, trustedVia: "app-server" };
}

export interface CodexUninstallResult {
  hooksFile: string;
  configFile: string;
  /** Files whose agentsmd part was taken out (restored byte for byte, removed, or edited). */
  changed: string[];
}

/**
 * Removes agentsmd's hooks and their trust entries from Codex's config: each file comes back byte
 * for byte when nobody changed it since install (files install created are removed), else only
 * agentsmd's part is taken out.
 */
export async function uninstallCodex(options: {
  codexHome: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  recordDir?: string;
}): Promise<CodexUninstallResult> {
  const home = options.codexHome;
  const hooksFile = join(home, "hooks.json");
  const configFile = join(home, "config.toml");
  const records = { env: options.env, home: options.home, ...(options.recordDir ? { recordDir: options.recordDir } : {}) };
  const realHome = await nodeFileSystem.realpath(home).catch(() => home);
  const parsed = parseJsonFile(await readBytes(hooksFile), hooksFile);
  const keys = parsed ? ourHooks(parsed, join(realHome, "hooks.json")).map((h) => h.key) : [];
  const changed: string[] = [];
  // config.toml first: a Codex home install created goes with hooks.json, once nothing is left in it.
  const config = await uninstallEdit(configFile, (text) => withoutTrust(text, keys, configFile), { ...records, isEmpty: (text) => text.trim() === "" });
  const hooks = await uninstallEdit(
    hooksFile,
    (text) => {
      const { file, changed: removed } = removeCodexHooks(parseJsonFile(text, hooksFile), hooksFile);
      return removed ? serialize(file) : text;
    },
    records,
  );
  if (hooks.changed) changed.push(hooksFile);
  if (config.changed) changed.push(configFile);
  return { hooksFile, configFile, changed };
}

export type CodexHookTrust = "trusted" | "untrusted" | "modified";

/**
 * agentsmd's hooks in Codex's user config and their trust, for `doctor`: empty when not installed.
 */
export async function codexHookStatus(options: { codexHome: string }): Promise<Array<OurHook & { trust: CodexHookTrust; trustedHash?: string }>> {
  const home = options.codexHome;
  const hooksFile = join(home, "hooks.json");
  const parsed = parseJsonFile(await readBytes(hooksFile), hooksFile);
  if (!parsed) return [];
  const realHome = await nodeFileSystem.realpath(home).catch(() => home);
  const hooks = ourHooks(parsed, join(realHome, "hooks.json"));
  const configFile = join(home, "config.toml");
  const trusted = trustedHashes(parseConfig(await readBytes(configFile), configFile));
  return hooks.map((h) => {
    const t = trusted[h.key];
    return { ...h, trust: t === undefined ? "untrusted" : t === h.hash ? "trusted" : "modified", ...(t === undefined ? {} : { trustedHash: t }) };
  });
}

/** A doctor finding about agentsmd's Codex hooks (same shape as inspect/doctor's Finding). */
export interface CodexHookFinding {
  code: "codex-hook-untrusted" | "codex-hook-modified";
  severity: "warning";
  path: string;
  message: string;
  fix: string;
}

/**
 * Doctor findings: agentsmd hooks installed in Codex but untrusted (Codex skips them silently), or
 * trusted under a hash that no longer matches (the command changed, e.g. after an upgrade).
 */
export async function codexHookFindings(options: { codexHome: string }): Promise<CodexHookFinding[]> {
  const status = await codexHookStatus(options);
  const hooksFile = join(options.codexHome, "hooks.json");
  const fix = "run `agentsmd install codex --trust`, or open Codex, type /hooks and trust the agentsmd hooks";
  const findings: CodexHookFinding[] = [];
  const untrusted = status.filter((s) => s.trust === "untrusted");
  const modified = status.filter((s) => s.trust === "modified");
  if (untrusted.length > 0)
    findings.push({
      code: "codex-hook-untrusted",
      severity: "warning",
      path: hooksFile,
      message: `${untrusted.length} agentsmd hook${untrusted.length === 1 ? " is" : "s are"} installed in Codex but not trusted, so Codex skips ${untrusted.length === 1 ? "it" : "them"} without a word: ${untrusted.map((s) => s.event).join(", ")}`,
      fix,
    });
  if (modified.length > 0)
    findings.push({
      code: "codex-hook-modified",
      severity: "warning",
      path: hooksFile,
      message: `${modified.length} agentsmd hook${modified.length === 1 ? " was" : "s were"} trusted with another command or timeout than ${modified.length === 1 ? "it has" : "they have"} now (stale hash, e.g. after an upgrade), so Codex skips ${modified.length === 1 ? "it" : "them"}: ${modified.map((s) => s.event).join(", ")}`,
      fix,
    });
  return findings;
}
