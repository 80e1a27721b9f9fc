/**
 * Session set-up shared by createSession and restoreSession: options -> config -> root -> the
 * name groups and the stat cache a session probes with.
 */
import { homedir } from "../io/require.js";
import { StatCache } from "../io/cache.js";
import { resolveConfig, type ResolvedConfig } from "../load/config.js";
import { nodeFileSystem } from "../io/file-system.js";
import type { Excludes, ListedFiles, Preset, PreparedGroups } from "../presets/preset.js";
import { findProjectRoot, type RootReason } from "../load/root.js";
import { DiagnosticSink } from "../load/discover.js";
import { importRootOf } from "../load/imports.js";
import { absolute, parentOf, pathInputProblem, homeFromEnv } from "../core/paths.js";
import { PathError } from "../core/errors.js";
import { quote } from "../core/quote.js";
import type { AgentsConfig, RuleFormat } from "../core/schema.js";
import type { SessionOptions } from "./options.js";

/** What a session is built from. */
export interface Parts {
  options: Required<Pick<SessionOptions, "cwd" | "home" | "env" | "fs">>;
  config: ResolvedConfig;
  raw: AgentsConfig;
  preset: Preset;
  root: string;
  rootReason: RootReason;
  /** false: the preset found no project (no marker and `scope.noMarker: "none"`). */
  project: boolean;
  /** Where imports of project files stay (load/imports.ts `importRootOf`). */
  importRoot: string;
  sink: DiagnosticSink;
  cache: StatCache;
  /** Name groups the preset decided for this session (`Preset.prepare`). */
  prepared?: PreparedGroups | undefined;
  /** Files the agent's configuration lists beside the chain (`Preset.listed`). */
  listed?: ListedFiles | undefined;
  /** Files the agent's settings exclude (`Preset.excludes`). */
  excludes?: Excludes | undefined;
  /** The integration consuming the session: which agent a rule's `targets` name. */
  host?: string | undefined;
  /** The scoped-rule formats the consuming host reads itself (never delivered). */
  nativeRuleFormats?: readonly RuleFormat[] | undefined;
  /** File names only a repository's agent settings gave: not for the home layer. */
  projectNames?: { names: string[]; file: string; product: string } | undefined;
}

/** Resolves options into the parts of a session (no initial load yet). */
export async function buildParts(options: SessionOptions, rawOverride?: AgentsConfig): Promise<Parts> {
  const env = options.env ?? process.env;
  // process.cwd() throws when the directory was deleted: only ask for it when it is needed.
  const cwd = options.cwd === undefined ? process.cwd() : absolute(options.cwd, () => process.cwd());
  const cwdProblem = pathInputProblem(cwd);
  if (cwdProblem !== null) {
    throw new PathError(`the working directory ${quote(cwd.length > 200 ? `${cwd.slice(0, 200)}...` : cwd)} ${cwdProblem}`, {
      fix: "start the session in an existing directory",
    });
  }
  // Normalised: stopAtFsRoot compares it with the lexical ancestors of cwd.
  const home = absolute(options.home ?? homeFromEnv(env, homedir), cwd);
  const fs = options.fs ?? nodeFileSystem;
  const resolved = await resolveConfig({
    cwd,
    env,
    fs,
    home,
    ...(options.preset !== undefined ? { preset: options.preset } : {}),
    ...(rawOverride !== undefined ? { fileConfig: { path: "session state", config: rawOverride } } : {}),
    ...(options.config !== undefined ? { config: options.config } : {}),
    ...(options.configFile !== undefined ? { configFile: options.configFile } : {}),
  });
  const sink = new DiagnosticSink();
  sink.addAll(resolved.diagnostics);
  const rootResult = await findProjectRoot({
    cwd,
    markers: resolved.config.root.markers,
    projectRootOverride: resolved.config.root.projectRootOverride,
    stopAtFsRoot: resolved.config.root.stopAtFsRoot,
    home,
    fs,
  });
  sink.addAll(rootResult.diagnostics);
  const { scope } = resolved.preset;
  if (rootResult.reason === "no-marker" && scope.noMarker === "fs-root") rootResult.root = fsRootOf(cwd);
  // Qwen Code walks up to the directory above the marker's.
  if (rootResult.reason === "marker" && scope.rootAt === "above-marker") rootResult.root = parentOf(rootResult.root);
  const project = !(rootResult.reason === "no-marker" && scope.noMarker === "none");
  // Probe the union of every name the session may select, so one probe per directory serves all.
  const excludes = resolved.preset.excludes
    ? await resolved.preset.excludes({ cwd, root: rootResult.root, home, env, fs, agentConfig: resolved.agentConfig, raw: resolved.raw })
    : undefined;
  if (excludes) sink.addAll(excludes.diagnostics);
  const prepared =
    resolved.raw.files?.names === undefined && resolved.preset.prepare
      ? await resolved.preset.prepare({ cwd, root: rootResult.root, home, env, fs, ...(excludes ? { exclude: excludes.matches } : {}) })
      : undefined;
  // Imports stay here; so do instruction files under files.symlinks "inside-root" (the git root or
  // cwd for a preset whose root is the file-system root, as Claude Code's; ancestors above it load
  // as that agent loads them), and whatever a repository's config names (core/confine.ts).
  const importRoot = await importRootOf({ root: rootResult.root, project, cwd, home, fs });
  const listed = resolved.preset.listed
    ? await resolved.preset.listed({ cwd, root: rootResult.root, home, env, fs, agentConfig: resolved.agentConfig, raw: resolved.raw, scope: importRoot })
    : undefined;
  if (listed) sink.addAll(listed.diagnostics);
  const names = [
    ...new Set([
      ...resolved.config.files.names,
      ...(resolved.preset.lazy.groups ?? []).flat(),
      ...(prepared?.groups ?? []).flat(),
      ...(prepared?.lazyGroups ?? []).flat(),
    ]),
  ];
  // files.symlinks "inside-root": files are confined to the real path of that root (one realpath per session).
  const confine =
    resolved.config.files.symlinks === "inside-root" ? { root: importRoot, real: await fs.realpath(importRoot).catch(() => importRoot) } : undefined;
  const cache = new StatCache(fs, names, { revalidateMs: resolved.config.cache.revalidateMs, confine, exclude: excludes?.matches });
  return {
    options: { cwd, home, env, fs },
    config: resolved.config,
    raw: resolved.raw,
    preset: resolved.preset,
    root: rootResult.root,
    // An override the preset set (Claude Code reads every ancestor: root /), not the user.
    rootReason: rootResult.reason === "override" && resolved.raw.root?.projectRootOverride === undefined ? "preset" : rootResult.reason,
    project,
    importRoot,
    sink,
    cache,
    prepared,
    listed,
    excludes,
    host: options.host,
    nativeRuleFormats: options.nativeRuleFormats,
    projectNames: resolved.projectNames,
  };
}

/** The file-system root above `dir` ("/" on POSIX). */
function fsRootOf(dir: string): string {
  let current = dir;
  for (let parent = parentOf(current); parent !== current; parent = parentOf(current)) current = parent;
  return current;
}
