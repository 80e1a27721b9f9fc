/**
 * Preset `opencode`: OpenCode 1.x, V1 engine (published 1.18.33; docs/loading-rules.md#opencode).
 *
 * - Global: exactly one file, the first existing (in any form) of `<config dir>/AGENTS.md`
 *   (`$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`) and `~/.claude/CLAUDE.md`.
 * - Project: for each name in the order AGENTS.md, CLAUDE.md, CONTEXT.md, every match from cwd up
 *   to the worktree (the git root; `/` without one); the first name with any match wins and the
 *   other names are skipped entirely. Rendered nearest first, `Instructions from: <path>\n<body>`.
 * - Nested on read (`touch`): from the file's directory up to but not including cwd, the first
 *   existing of AGENTS.md, CLAUDE.md, CONTEXT.md per directory, deepest first, inside a
 *   `<system-reminder>`; nothing for files outside cwd; no size limit.
 * - Config `instructions` (opencode-instructions.ts): the files and globs OpenCode's own config
 *   lists, after the project files in its order, each file once (`--no-agent-config`: only
 *   agentsmd's `opencode.instructions`). URLs are fetched by OpenCode and skipped here.
 * - `$OPENCODE_CONFIG_DIR` replaces the global config dir for the global AGENTS.md (not for
 *   the global config files).
 * - `OPENCODE_DISABLE_CLAUDE_CODE` / `OPENCODE_DISABLE_CLAUDE_CODE_PROMPT` ("true", "yes", "on",
 *   "1" or "y") drop every CLAUDE.md; `OPENCODE_DISABLE_PROJECT_CONFIG` ("true" or "1") drops the
 *   project files.
 *
 * Proven byte for byte against OpenCode 1.18.33's system prompt by e2e/opencode/preset.e2e.test.ts.
 *
 * Also registers `opencode-plugin`, the rules `agentsmd/opencode` resolves with inside OpenCode
 * (see src/integrations/opencode.ts).
 */
import { DEFAULT_EXCLUDES, SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, type ListedContext, type Preset, type PresetEnv } from "./preset.js";
import {
  OPENCODE_CONFIG_LAYOUT,
  listFamilyInstructions,
  type WalkObserver,
  opencodeXdgConfigDir,
  projectSwitchOn,
  readFamilyInstructions,
  type FamilyConfigLayout,
  type InstructionSource,
} from "./opencode-instructions.js";
import { type RenderBlock, type Renderer } from "../core/render.js";
import type { FileSystem } from "../io/file-system.js";
import { chain, isInside, join } from "../core/paths.js";
import { quote } from "../core/quote.js";
import { AGENT_OUTSIDE_CODE } from "../core/confine.js";

/** OpenCode's instruction file names, in priority order (1.18.33). */
export const OPENCODE_NAMES: readonly string[] = ["AGENTS.md", "CLAUDE.md", "CONTEXT.md"];

/**
 * What differs between the CLIs of the OpenCode family (OpenCode, Kilo Code) in how they pick
 * instruction files: the switches' names and the global candidates. The algorithm is one.
 */
export interface OpenCodeFamily {
  /** Runtime flags that drop every CLAUDE.md (any of them). */
  claudeSwitches: readonly string[];
  /** Where its configuration lives (config `instructions`), and its legacy flag that drops the project files. */
  config: FamilyConfigLayout;
  /** Candidates of the global layer, in order (the first existing one is used). */
  globalCandidates(context: PresetEnv): string[];
  /** Candidates passed over after a look at the disk (Kilo's Claude Code handoff). @default none */
  omit?(context: PresetEnv, fs: FileSystem): Promise<readonly string[]>;
}

const RUNTIME_TRUE: ReadonlySet<string> = new Set(["true", "yes", "on", "1", "y"]);

/**
 * The family's RuntimeFlags (Effect `Config.boolean`, the Claude Code switches): exactly "true",
 * "yes", "on", "1" or "y". OpenCode refuses to start on a value outside these and "false", "no",
 * "off", "0", "n" (an empty value included).
 */
function runtimeFlag(env: PresetEnv["env"], name: string): boolean {
  return RUNTIME_TRUE.has(env[name] ?? "");
}

/** True when `family`'s Claude Code switches are on under `env`. */
export function claudeDisabled(family: Pick<OpenCodeFamily, "claudeSwitches">, env: PresetEnv["env"]): boolean {
  return family.claudeSwitches.some((name) => runtimeFlag(env, name));
}

/** True when `family`'s project switch is on under `env`. */
function projectDisabled(family: Pick<OpenCodeFamily, "config">, env: PresetEnv["env"]): boolean {
  return projectSwitchOn(family.config, env);
}

/** The names `family` looks for under `env`. */
export function familyNames(family: Pick<OpenCodeFamily, "claudeSwitches">, env: PresetEnv["env"]): string[] {
  return OPENCODE_NAMES.filter((name) => name !== "CLAUDE.md" || !claudeDisabled(family, env));
}

/**
 * The directory of OpenCode's global AGENTS.md: `$OPENCODE_CONFIG_DIR` when set, else the global
 * config dir (`$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`).
 */
export function opencodeConfigDir({ home, env }: PresetEnv): string {
  const dir = env.OPENCODE_CONFIG_DIR;
  return dir && dir.length > 0 ? dir : opencodeXdgConfigDir(home, env);
}

/** OpenCode 1.18.33's switches and global candidates. */
export const OPENCODE_FAMILY: OpenCodeFamily = {
  claudeSwitches: ["OPENCODE_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT"],
  config: OPENCODE_CONFIG_LAYOUT,
  globalCandidates(context) {
    const candidates = [join(opencodeConfigDir(context), "AGENTS.md")];
    if (!claudeDisabled(OPENCODE_FAMILY, context.env)) candidates.push(join(join(context.home, ".claude"), "CLAUDE.md"));
    return candidates;
  },
};

/** Candidates of OpenCode's global layer, in order (the first existing one is used). */
function opencodeGlobalCandidates(context: PresetEnv): string[] {
  return OPENCODE_FAMILY.globalCandidates(context);
}

/** The project chain the family walks: cwd up to and including the worktree. */
function projectDirs(cwd: string, worktree: string): string[] {
  return isInside(cwd, worktree) ? chain(worktree, cwd) : [cwd];
}

/** True when something (of any kind) exists at `path`, as the family's `existsSafe`. */
async function exists(fs: FileSystem, path: string): Promise<boolean> {
  return (await fs.stat(path).catch(() => null)) !== null;
}

/** The project name the family uses: the first name with a match anywhere on the chain. */
async function chosenName(fs: FileSystem, dirs: readonly string[], names: readonly string[]): Promise<string | undefined> {
  for (const name of names) {
    const hits = await Promise.all(dirs.map((dir) => exists(fs, join(dir, name))));
    if (hits.some(Boolean)) return name;
  }
  return undefined;
}

export interface SystemPathsInput {
  cwd: string;
  worktree: string;
  home: string;
  env: PresetEnv["env"];
  fs: FileSystem;
}

/**
 * The files a CLI of `family` puts in its system prompt right now (recomputed every step): the
 * global file (the first existing candidate not omitted), then the project files nearest first.
 * Config `instructions` are not included.
 */
export async function familySystemPaths(family: OpenCodeFamily, input: SystemPathsInput): Promise<string[]> {
  const out: string[] = [];
  const omitted = (await family.omit?.(input, input.fs)) ?? [];
  for (const candidate of family.globalCandidates(input)) {
    if (omitted.includes(candidate)) continue;
    if (await exists(input.fs, candidate)) {
      out.push(candidate);
      break;
    }
  }
  if (projectDisabled(family, input.env)) return out;
  const dirs = projectDirs(input.cwd, input.worktree);
  const name = await chosenName(input.fs, dirs, familyNames(family, input.env));
  if (name === undefined) return out;
  const nearestFirst = [...dirs].reverse();
  const hits = await Promise.all(nearestFirst.map((dir) => exists(input.fs, join(dir, name))));
  nearestFirst.forEach((dir, index) => {
    if (hits[index]) out.push(join(dir, name));
  });
  return out;
}

/**
 * The files OpenCode puts in its system prompt right now (recomputed every step by OpenCode):
 * the global file, then the project files nearest first. Config `instructions` are not included.
 */
export function opencodeSystemPaths(input: SystemPathsInput): Promise<string[]> {
  return familySystemPaths(OPENCODE_FAMILY, input);
}

/**
 * The family's project name rule as a preset's `prepare`: the first name with any match on the
 * chain, nothing when the project switch is on; every name (one per directory) for nested files.
 */
export function familyPrepare(family: OpenCodeFamily): NonNullable<Preset["prepare"]> {
  return async ({ cwd, root, env, fs }) => {
    const names = familyNames(family, env);
    const lazyGroups = names.map((name) => [name]);
    if (projectDisabled(family, env)) return { groups: [], lazyGroups };
    const name = await chosenName(fs, projectDirs(cwd, root), names);
    return { groups: [[name ?? names[0]!]], lazyGroups };
  };
}

/**
 * The files a CLI of `family` lists through its config `instructions` right now, in its order
 * (what it puts in its system prompt after the project files), as the in-process plugins see
 * them. `entries` are the config's entries when the caller read them already (the CLI reads its
 * config once per run; the globs every step); `observer` hears of what the globs list and probe.
 */
export async function familyListedPaths(
  family: OpenCodeFamily,
  input: SystemPathsInput,
  entries?: readonly string[],
  observer?: WalkObserver,
): Promise<string[]> {
  const own = entries ?? (await readFamilyInstructions(family.config, input)).entries;
  return (await listFamilyInstructions(family.config, input, own, [], observer)).paths;
}

/**
 * The family's config `instructions` as a preset's `listed`: the CLI's own list, or the list of
 * agentsmd's own config (`own`, e.g. `opencode.instructions`) when that sets one.
 */
export function familyListed(
  family: OpenCodeFamily,
  ownList?: { key: string; list(raw: ListedContext["raw"]): readonly string[] | undefined },
): NonNullable<Preset["listed"]> {
  const product = family.config.product;
  return async (context) => {
    const where = {
      cwd: context.cwd,
      worktree: context.root,
      home: context.home,
      env: context.env,
      fs: context.fs,
      ...(context.scope ? { scope: context.scope } : {}),
    };
    const own = ownList?.list(context.raw);
    const agent = context.agentConfig && own === undefined ? await readFamilyInstructions(family.config, where) : { entries: [], sources: [], diagnostics: [] };
    const sources: InstructionSource[] = own !== undefined ? [{ file: `agentsmd's config (${ownList!.key})`, entries: [...own] }] : agent.sources;
    const listed = await listFamilyInstructions(family.config, where, own ?? agent.entries, sources);
    const diagnostics = [...agent.diagnostics, ...listed.diagnostics];
    for (const source of agent.sources)
      diagnostics.push({
        level: "info",
        code: "agent-config",
        message: `instructions ${source.entries.map((entry) => quote(entry)).join(", ")} from ${quote(source.file)} (the agent's own configuration)`,
        path: source.file,
      });
    for (const url of listed.urls)
      diagnostics.push({
        level: "info",
        code: "agent-config",
        message: `instructions entry ${quote(url)} is a URL: ${product} fetches it on every step, agentsmd reads files only, so it is skipped`,
      });
    for (const path of listed.outOfScope)
      diagnostics.push({
        level: "info",
        code: "agent-config",
        message: `${quote(path)} is listed by instructions but lies outside the project; ${product} reads it only when a home-level config lists it by an absolute path, so it is skipped`,
        path,
      });
    for (const { path, entry, file } of listed.agentOutside)
      diagnostics.push({
        level: "warning",
        code: AGENT_OUTSIDE_CODE,
        message: `${product} itself will put ${quote(path)} into its prompt: the instructions entry ${quote(entry)} of ${quote(file)}, a repository's config, names it outside the project; agentsmd does not read it`,
        path,
        fix: `remove this entry from ${quote(file)}`,
      });
    const reasons = new Map<string, string>();
    for (const [path, origin] of listed.origin)
      reasons.set(path, `listed by the instructions entry ${quote(origin.entry)} of ${own !== undefined ? origin.file : quote(origin.file)}`);
    return { paths: listed.paths, reasons, diagnostics };
  };
}

/**
 * OpenCode's config `instructions` as files (see opencode-instructions.ts): the agent's own list,
 * or agentsmd's `opencode.instructions` when set.
 */
const opencodeListed: NonNullable<Preset["listed"]> = familyListed(OPENCODE_FAMILY, {
  key: "opencode.instructions",
  list: (raw) => raw.opencode?.instructions,
});

function instructionsFrom(blocks: readonly RenderBlock[]): string[] {
  // OpenCode drops files whose text is empty (whitespace-only text is kept).
  return blocks.filter((block) => block.content !== "").map((block) => `Instructions from: ${quote(block.path)}\n${block.content}`);
}

/**
 * OpenCode's framing: the system-prompt entries joined by a newline (global first, then the
 * project nearest first, then the files config `instructions` lists), and the `<system-reminder>`
 * a read gets for nested files.
 */
const opencodeRenderer: Renderer = {
  initial({ blocks }) {
    const user = blocks.filter((block) => block.layer === "user");
    const project = blocks.filter((block) => block.layer !== "user" && block.layer !== "config").reverse();
    const listed = blocks.filter((block) => block.layer === "config");
    return instructionsFrom([...user, ...project, ...listed]).join("\n");
  },
  inline(blocks) {
    const entries = instructionsFrom(blocks);
    if (entries.length === 0) return "";
    return `<system-reminder>\n${entries.join("\n\n")}\n</system-reminder>`;
  },
};

const UNLIMITED = Number.MAX_SAFE_INTEGER;

export const opencodePreset: Preset = {
  name: "opencode",
  description: "OpenCode 1.x (V1): global file + first name type with any match from cwd up to the worktree; nested files on read below cwd",
  root: { markers: [".git"], stopAtFsRoot: true },
  files: { names: OPENCODE_NAMES, select: "first" },
  initial: { maxFiles: UNLIMITED, maxBytes: UNLIMITED },
  resolver: { enabled: true, maxFilesPerResolve: UNLIMITED },
  lazy: { maxFiles: UNLIMITED, maxBytes: UNLIMITED, exclude: [] },
  scope: { ...SPEC_SCOPE, noMarker: "fs-root", nested: "below-cwd", touchOrder: "nearest-first" },
  startup: { ...SPEC_STARTUP, keep: "root-first" },
  text: { ...SPEC_TEXT, skipBlank: false },
  dedupe: "path",
  renderer: opencodeRenderer,
  // The first candidate that exists at all is the global file (OpenCode's existsSafe): an empty file
  // or a directory there yields nothing, and ~/.claude/CLAUDE.md is not tried.
  userLayers: (context) => [{ candidates: opencodeGlobalCandidates(context), select: "first-non-empty", trim: false, keepEmpty: true, firstExisting: true }],
  listed: opencodeListed,
  prepare: familyPrepare(OPENCODE_FAMILY),
};

/**
 * What `agentsmd/opencode` resolves with inside OpenCode: OpenCode's names per directory with
 * `AGENTS.override.md` first, from the root down to any touched path (reads outside cwd
 * included), common build directories excluded. The plugin itself skips what OpenCode loads.
 */
export const opencodePluginPreset: Preset = {
  ...opencodePreset,
  name: "opencode-plugin",
  description: "agentsmd/opencode: AGENTS.override.md, AGENTS.md, CLAUDE.md, CONTEXT.md per directory, root to any touched path",
  files: { names: ["AGENTS.override.md", ...OPENCODE_NAMES], select: "first" },
  lazy: { maxFiles: UNLIMITED, maxBytes: UNLIMITED, exclude: DEFAULT_EXCLUDES },
  scope: { ...opencodePreset.scope, nested: "root" },
  prepare: undefined,
  // OpenCode loads its config instructions itself.
  listed: undefined,
};
