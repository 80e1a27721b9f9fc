/**
 * Each agent's own configuration, read the way the agent reads it, so `show --preset X` equals
 * what the real agent loads on a machine where that agent is configured:
 * - Codex: `$CODEX_HOME/config.toml` (else `~/.codex/config.toml`): `project_doc_max_bytes`,
 *   `project_doc_fallback_filenames`, `project_root_markers` (agentsmd's `codex` keys, same names).
 * - Gemini CLI: `context.fileName` (a name or a list) in the user settings
 *   (`~/.gemini/settings.json`) and the workspace settings (`<cwd>/.gemini/settings.json`, which
 *   wins), comments allowed as Gemini allows them.
 * agentsmd's own config file, env and options still win over these. Turned off by
 * `agentConfig: false` (CLI `--no-agent-config`).
 */
import type { AgentsConfig, Diagnostic } from "../core/schema.js";
import { join } from "../core/paths.js";
import { quote } from "../core/quote.js";
import type { FileSystem } from "../io/file-system.js";
import { loadDependency as load, parseJsonObject, readConfigText } from "./config-file.js";

export interface AgentConfigContext {
  cwd: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  fs: FileSystem;
}

/** Settings taken from an agent's own configuration, and where they came from. */
export interface AgentConfigLayer {
  config: AgentsConfig;
  /** One entry per file that contributed, with the keys it set (for `explain`). */
  sources: Array<{ file: string; keys: string[] }>;
  /**
   * File names only a repository's settings gave (core/confine.ts): looked for in the project,
   * never in the home layer, which only the user's own settings name. `file` the settings file,
   * `product` the agent (which itself looks for them in the home too: a finding).
   */
  projectNames?: { names: string[]; file: string; product: string };
  diagnostics: Diagnostic[];
}

const NOT_APPLIED = "its settings are not applied";

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((entry) => typeof entry === "string");

/** `$CODEX_HOME` when set and non-empty, else `~/.codex` (as Codex resolves it). */
export function codexHome(home: string, env: Readonly<Record<string, string | undefined>>): string {
  return env.CODEX_HOME && env.CODEX_HOME.length > 0 ? env.CODEX_HOME : join(home, ".codex");
}

/**
 * The project-doc settings of Codex's `config.toml`.
 */
export async function readCodexConfig(context: AgentConfigContext): Promise<AgentConfigLayer> {
  const file = join(codexHome(context.home, context.env), "config.toml");
  const diagnostics: Diagnostic[] = [];
  const text = await readConfigText(file, context.fs, diagnostics, NOT_APPLIED);
  if (text === null) return { config: {}, sources: [], diagnostics };
  let data: Record<string, unknown>;
  try {
    // Loaded only when there is a file to parse: hooks of other presets never pay for it.
    const { parse: parseToml } = load("smol-toml") as typeof import("smol-toml");
    data = parseToml(text);
  } catch (error) {
    diagnostics.push({
      level: "warning",
      code: "agent-config-invalid",
      message: `${quote(file)} is not valid TOML (${(error as Error).message.split("\n")[0]}); Codex will refuse it too, and its settings are not applied`,
      path: file,
      fix: `fix the TOML syntax of ${quote(file)}`,
    });
    return { config: {}, sources: [], diagnostics };
  }
  const codex: NonNullable<AgentsConfig["codex"]> = {};
  const bad = (key: string, expected: string) =>
    diagnostics.push({
      level: "warning",
      code: "agent-config-invalid",
      message: `${quote(file)}: ${key} is not ${expected}; ignored`,
      path: file,
      fix: `make ${key} ${expected}`,
    });
  const max = data.project_doc_max_bytes;
  if (max !== undefined) {
    if (typeof max === "number" && Number.isInteger(max) && max >= 0) codex.project_doc_max_bytes = max;
    else if (typeof max === "bigint" && max >= 0n && max <= BigInt(Number.MAX_SAFE_INTEGER)) codex.project_doc_max_bytes = Number(max);
    else bad("project_doc_max_bytes", "a non-negative integer");
  }
  for (const key of ["project_doc_fallback_filenames", "project_root_markers"] as const) {
    const value = data[key];
    if (value === undefined) continue;
    if (isStringList(value)) codex[key] = value;
    else bad(key, "a list of strings");
  }
  const keys = Object.keys(codex);
  return { config: keys.length > 0 ? { codex } : {}, sources: keys.length > 0 ? [{ file, keys }] : [], diagnostics };
}

/**
 * Gemini CLI's `context.fileName` from its user and workspace settings (the workspace wins).
 */
export async function readGeminiSettings(context: AgentConfigContext, geminiDir: string): Promise<AgentConfigLayer> {
  const diagnostics: Diagnostic[] = [];
  let names: string[] | undefined;
  let source: string | undefined;
  let userNames: string[] = [];
  const workspace = join(context.cwd, ".gemini/settings.json");
  for (const file of [join(geminiDir, "settings.json"), workspace]) {
    // The workspace's directory too: a `.gemini` another user made in a directory anyone may write is not the project's.
    const text = await readConfigText(file, context.fs, diagnostics, NOT_APPLIED, file === workspace ? 1 : 0);
    if (text === null) continue;
    const data = parseJsonObject(text, file, diagnostics, NOT_APPLIED);
    if (data === undefined) continue;
    const value = ((data.context ?? {}) as { fileName?: unknown }).fileName;
    if (value === undefined) continue;
    if (typeof value === "string" && value.length > 0) names = [value];
    else if (isStringList(value) && value.length > 0) names = value;
    else {
      diagnostics.push({
        level: "warning",
        code: "agent-config-invalid",
        message: `${quote(file)}: context.fileName is not a name or a list of names; ignored`,
        path: file,
        fix: 'set context.fileName to a name or a list, e.g. ["GEMINI.md", "AGENTS.md"]',
      });
      continue;
    }
    source = file;
    if (file !== workspace) userNames = names;
  }
  if (!names || !source) return { config: {}, sources: [], diagnostics };
  const projectOnly = source === workspace ? names.filter((name) => !userNames.includes(name)) : [];
  return {
    config: { files: { names } },
    sources: [{ file: source, keys: ["context.fileName"] }],
    ...(projectOnly.length > 0 ? { projectNames: { names: projectOnly, file: workspace, product: "Gemini CLI" } } : {}),
    diagnostics,
  };
}
