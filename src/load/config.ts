/**
 * Configuration: defaults <- preset <- config file <- env <- explicit options; validated, frozen.
 * An unset env var never erases a configured value (each layer only sets what it defines).
 */
import { isAbsolute, resolve } from "node:path";
import { formatIssues, safeParseConfig, type AgentsConfig } from "../core/config-schema.js";
import type { Diagnostic } from "../core/schema.js";
import { ConfigError } from "../core/errors.js";
import { budgetOf, type Preset } from "../presets/preset.js";
import { getPreset, presetNames } from "../presets/table.js";
import { nodeFileSystem, readTextFile, type FileSystem } from "../io/file-system.js";
import { quote } from "../core/quote.js";

import type { MutableConfig, ResolvedConfig } from "../core/schema.js";
export type { ResolvedConfig };

/** Default cache revalidation window: edits are seen within this many ms without watching. */
export const DEFAULT_REVALIDATE_MS = 50;

export const DEFAULT_PRESET = "codelia";

export interface ConfigInput {
  /** Preset name (beats every other source). */
  preset?: string;
  /** Explicit options (beat env). */
  config?: AgentsConfig;
  /** A JSON config file (beaten by env). */
  configFile?: string;
  /** Already-parsed config file contents, with the name to report errors against. */
  fileConfig?: { path: string; config: AgentsConfig };
  env?: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Reads the config file and the agent's own configuration. @default nodeFileSystem */
  fs?: FileSystem;
  /** Home directory of the agent's own configuration (Preset.agentConfig); without it that layer is skipped. */
  home?: string;
}

export interface ConfigResult {
  config: ResolvedConfig;
  preset: Preset;
  /** The merged raw config (what a state file records). */
  raw: AgentsConfig;
  /** Whether the agent's own configuration is read (false with `agentConfig: false`). */
  agentConfig: boolean;
  /** File names only a repository's agent settings gave: never looked for in the home layer (presets/agent-config.ts). */
  projectNames?: { names: string[]; file: string; product: string } | undefined;
  diagnostics: Diagnostic[];
}

/**
 * Reads and validates a JSON config file. Errors name the file, the key path and what was expected.
 * @example const config = await loadConfigFile("/repo/agentsmd.json");
 */
export async function loadConfigFile(path: string, fs?: FileSystem): Promise<AgentsConfig> {
  const text = await readTextFile(path, 1024 * 1024, fs).catch((error: unknown) => {
    if ((error as { code?: unknown }).code === "ENOTREG") {
      throw new ConfigError(`config file ${path} is not a regular file (a directory?)`, {
        path,
        cause: error,
        fix: "pass the JSON file itself to --config, e.g. DIR/agentsmd.json",
      });
    }
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`, { path, cause: error, fix: "check the path given to --config" });
  });
  if (text === null) throw new ConfigError(`config file ${path} does not exist`, { path, fix: "check the path given to --config" });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(error as Error).message}`, { path, cause: error, fix: "fix the JSON syntax" });
  }
  return parseConfig(data, path);
}

/** Configs agentsmd makes from its own constants: valid by construction (tests check them against the schema). */
const BUILT_IN = new WeakSet<object>();

/**
 * Marks a config agentsmd itself passes (frozen, so it stays as tested): `parseConfig` returns it
 * without building the schema, which a hook process would otherwise pay at every call (docs/performance.md#the-hook-process).
 */
export function builtInConfig<T extends AgentsConfig>(config: T): T {
  BUILT_IN.add(freeze(config));
  return config;
}

/**
 * Validates a config object; `source` names where it came from in the error.
 * @example parseConfig({ initial: { maxFiles: 8 } }, "my options")
 */
export function parseConfig(data: unknown, source: string): AgentsConfig {
  if (typeof data === "object" && data !== null && BUILT_IN.has(data)) return data;
  const result = safeParseConfig(data);
  if (!result.success) {
    throw new ConfigError(`invalid config in ${source}:\n${formatIssues(result.error)}`, {
      path: source,
      cause: result.error,
      fix: "see `agentsmd schema` for the accepted keys and types",
    });
  }
  return result.data;
}

function envList(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function envBool(name: string, value: string): boolean {
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name}=${JSON.stringify(value)} is not a boolean`, { path: name, fix: `set ${name} to true or false` });
}

function envInt(name: string, value: string): number {
  if (!/^\d+$/.test(value.trim()))
    throw new ConfigError(`${name}=${JSON.stringify(value)} is not a positive integer`, { path: name, fix: `set ${name} to a number like 16` });
  return Number(value.trim());
}

/** Env vars and their aliases; the later name of a pair wins when both are set. */
const ENV_KEYS = {
  root: ["CODELIA_AGENTS_ROOT", "AGENTSMD_ROOT"],
  markers: ["CODELIA_AGENTS_MARKERS", "AGENTSMD_MARKERS"],
  enabled: ["CODELIA_AGENTS_ENABLED", "AGENTSMD_ENABLED"],
  maxFiles: ["CODELIA_AGENTS_INITIAL_MAX_FILES", "AGENTSMD_INITIAL_MAX_FILES"],
  maxBytes: ["CODELIA_AGENTS_INITIAL_MAX_BYTES", "AGENTSMD_INITIAL_MAX_BYTES"],
  resolverEnabled: ["CODELIA_AGENTS_RESOLVER_ENABLED", "AGENTSMD_RESOLVER_ENABLED"],
  maxFilesPerResolve: ["CODELIA_AGENTS_MAX_FILES_PER_RESOLVE", "AGENTSMD_MAX_FILES_PER_RESOLVE"],
} as const;

function envValue(env: Readonly<Record<string, string | undefined>>, names: readonly string[]): [string, string] | undefined {
  let found: [string, string] | undefined;
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") found = [name, value];
  }
  return found;
}

/**
 * The config layer env vars define. Unset or empty vars define nothing.
 */
export function configFromEnv(env: Readonly<Record<string, string | undefined>>): AgentsConfig {
  const out: AgentsConfig = {};
  const root = envValue(env, ENV_KEYS.root);
  const markers = envValue(env, ENV_KEYS.markers);
  if (root || markers) out.root = { ...(root ? { projectRootOverride: root[1].trim() } : {}), ...(markers ? { markers: envList(markers[1]) } : {}) };
  const enabled = envValue(env, ENV_KEYS.enabled);
  if (enabled) out.enabled = envBool(enabled[0], enabled[1]);
  const maxFiles = envValue(env, ENV_KEYS.maxFiles);
  const maxBytes = envValue(env, ENV_KEYS.maxBytes);
  if (maxFiles || maxBytes)
    out.initial = { ...(maxFiles ? { maxFiles: envInt(maxFiles[0], maxFiles[1]) } : {}), ...(maxBytes ? { maxBytes: envInt(maxBytes[0], maxBytes[1]) } : {}) };
  const resolverEnabled = envValue(env, ENV_KEYS.resolverEnabled);
  const perResolve = envValue(env, ENV_KEYS.maxFilesPerResolve);
  if (resolverEnabled || perResolve)
    out.resolver = {
      ...(resolverEnabled ? { enabled: envBool(resolverEnabled[0], resolverEnabled[1]) } : {}),
      ...(perResolve ? { maxFilesPerResolve: envInt(perResolve[0], perResolve[1]) } : {}),
    };
  // No variable set (the usual case) builds no schema at all (core/config-schema.ts).
  const result = safeParseConfig(out);
  if (result.success) return result.data;
  // Name the variable each problem came from, with its value.
  const sources: Record<string, [string, string] | undefined> = {
    "root.projectRootOverride": root,
    "root.markers": markers,
    enabled,
    "initial.maxFiles": maxFiles,
    "initial.maxBytes": maxBytes,
    "resolver.enabled": resolverEnabled,
    "resolver.maxFilesPerResolve": perResolve,
  };
  const named = result.error.issues.map((issue) => {
    const source = sources[issue.path.filter((part) => typeof part === "string").join(".")];
    return { name: source?.[0], line: `${source ? `${source[0]}=${JSON.stringify(source[1])}` : issue.path.join(".")}: ${issue.message}` };
  });
  throw new ConfigError(`invalid environment variable:\n${named.map((each) => each.line).join("\n")}`, {
    ...(named[0]?.name ? { path: named[0].name } : {}),
    cause: result.error,
    fix: "fix or unset the variable; see `agentsmd schema` for the accepted values",
  });
}

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Deep merge where `undefined` never overwrites and arrays replace.
 */
function mergeConfigs(...layers: Array<AgentsConfig | undefined>): AgentsConfig {
  const out: Plain = {};
  for (const layer of layers) {
    if (!layer) continue;
    mergeInto(out, layer);
  }
  return out;
}

function mergeInto(target: Plain, source: Plain): void {
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined || key === "__proto__" || key === "constructor" || key === "prototype") continue;
    if (isPlain(value)) {
      const current = isPlain(target[key]) ? target[key] : {};
      target[key] = current;
      mergeInto(current, value);
    } else {
      target[key] = Array.isArray(value) ? [...(value as unknown[])] : value;
    }
  }
}

function freeze<T>(value: T): T {
  if (isPlain(value) || Array.isArray(value)) {
    for (const item of Object.values(value as object)) freeze(item);
    Object.freeze(value);
  }
  return value;
}

/**
 * Resolves the effective configuration.
 * @example
 * const { config } = await resolveConfig({ cwd: process.cwd(), env: process.env, preset: "codex" });
 * config.initial.maxBytes; // 32768
 */
export async function resolveConfig(input: ConfigInput): Promise<ConfigResult> {
  const env = input.env ?? {};
  const fileConfig = input.fileConfig?.config ?? (input.configFile ? await loadConfigFile(input.configFile, input.fs) : undefined);
  const explicit = input.config ? parseConfig(input.config, "options") : undefined;
  const envConfig = configFromEnv(env);
  const presetName = input.preset ?? explicit?.preset ?? env.AGENTSMD_PRESET ?? fileConfig?.preset ?? DEFAULT_PRESET;
  const preset = getPreset(presetName);
  if (!preset) {
    throw new ConfigError(`unknown preset "${presetName}"`, { fix: `use one of: ${presetNames().join(", ")}` });
  }
  const diagnostics: Diagnostic[] = [];
  // Lowest first: the agent's own configuration, agentsmd's file, its section for this preset, env, options.
  const agentConfigOn = explicit?.agentConfig ?? envConfig.agentConfig ?? fileConfig?.agentConfig ?? true;
  const useAgentConfig = agentConfigOn && input.home !== undefined;
  const agent =
    useAgentConfig && preset.agentConfig ? await preset.agentConfig({ cwd: input.cwd, home: input.home!, env, fs: input.fs ?? nodeFileSystem }) : undefined;
  if (agent) {
    diagnostics.push(...agent.diagnostics);
    for (const source of agent.sources) {
      diagnostics.push({
        level: "info",
        code: "agent-config",
        message: `${source.keys.join(", ")} from ${quote(source.file)} (the agent's own configuration)`,
        path: source.file,
      });
    }
  }
  const { presets: fileSections, ...fileRest } = fileConfig ?? {};
  const { presets: explicitSections, ...explicitRest } = explicit ?? {};
  const raw = mergeConfigs(agent?.config, fileRest, fileSections?.[preset.name], envConfig, explicitRest, explicitSections?.[preset.name]);
  raw.preset = preset.name;
  const config: MutableConfig = {
    preset: preset.name,
    enabled: raw.enabled ?? true,
    root: {
      markers: [...(raw.root?.markers ?? preset.root.markers)],
      stopAtFsRoot: raw.root?.stopAtFsRoot ?? preset.root.stopAtFsRoot,
    },
    initial: {
      maxFiles: raw.initial?.maxFiles ?? preset.initial.maxFiles,
      maxBytes: raw.initial?.maxBytes ?? budgetOf(preset.initial.maxBytes),
    },
    resolver: {
      enabled: raw.resolver?.enabled ?? preset.resolver.enabled,
      maxFilesPerResolve: raw.resolver?.maxFilesPerResolve ?? preset.resolver.maxFilesPerResolve,
      outsideRoot: raw.resolver?.outsideRoot ?? "ignore",
    },
    files: {
      names: [...(raw.files?.names ?? preset.files.names)],
      select: raw.files?.select ?? preset.files.select,
      symlinks: raw.files?.symlinks ?? "inside-root",
    },
    lazy: {
      maxFiles: raw.lazy?.maxFiles ?? preset.lazy.maxFiles,
      maxBytes: raw.lazy?.maxBytes ?? budgetOf(preset.lazy.maxBytes),
      exclude: [...(raw.lazy?.exclude ?? preset.lazy.exclude)],
    },
    cache: { revalidateMs: raw.cache?.revalidateMs ?? DEFAULT_REVALIDATE_MS },
    imports: {
      enabled: preset.imports?.locked ? preset.imports.enabled : (raw.imports?.enabled ?? preset.imports?.enabled ?? false),
      allowOutsideRoot: raw.imports?.allowOutsideRoot ?? false,
      allow: [...(raw.imports?.allow ?? [])],
    },
  };
  if (preset.imports?.locked && raw.imports?.enabled !== undefined && raw.imports.enabled !== preset.imports.enabled) {
    diagnostics.push({
      level: "warning",
      code: "imports-locked",
      message: `imports.enabled: preset ${preset.name} always has imports ${preset.imports.enabled ? "on" : "off"} (the agent it reproduces does), so the setting is ignored`,
    });
  }
  const override = raw.root?.projectRootOverride;
  if (override !== undefined) config.root.projectRootOverride = isAbsolute(override) ? resolve(override) : resolve(input.cwd, override);
  preset.adapt?.(config, raw, diagnostics);
  return { config: freeze(config), preset, raw, agentConfig: agentConfigOn, projectNames: agent?.projectNames, diagnostics };
}
