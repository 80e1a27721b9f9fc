/**
 * The `instructions` setting of the OpenCode family's CLIs, read the way each reads it: one
 * reader, parameterised by a {@link FamilyConfigLayout} (OpenCode 1.18.33's `Config.loadInstanceState`
 * and `Instruction.systemPaths`, found in its pinned binary; Kilo Code 7.7.7's, a fork with other
 * names, in presets/kilo.ts).
 *
 * Config layers, in load order (the lists concatenate, first occurrence kept):
 * 0. (Kilo) its legacy rule files, as absolute entries;
 * 1. the global config dir (`$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`): `config.json`,
 *    `opencode.json`, `opencode.jsonc`, merged so a later file's list replaces an earlier one's; an
 *    invalid global file makes the CLI ignore the whole global config;
 * 2. `$OPENCODE_CONFIG` (a file);
 * 3. `opencode.json` then `opencode.jsonc` in each directory from the worktree down to cwd
 *    (not with the project switch);
 * 4. the config files of each `.opencode` directory from cwd up to the worktree (not with the
 *    project switch), then `~/.opencode`, then `$OPENCODE_CONFIG_DIR`;
 * 5. `$OPENCODE_CONFIG_CONTENT` (JSON text);
 * 6. the managed dir (`/etc/opencode`; `/Library/Application Support/opencode` on macOS).
 * Each text is JSONC (trailing commas allowed) after `{env:NAME}` substitution.
 *
 * Entries: `http(s)://` URLs are fetched by the CLI, not files, so agentsmd skips them (and says
 * so); `~/x` is `<home>/x`; an absolute entry globs its last segment inside its directory (no dot
 * files); any other entry is a glob matched in every directory from cwd up to the worktree, dot
 * files included (in the global config dir instead under the project switch); it is not relative
 * to the config file that lists it. Matches are files (or symlinks), a directory's entries last
 * listed first as the CLI's glob yields them. Across several directories under `**` the CLI reports
 * matches as its asynchronous directory reads complete, an order that is not fixed; agentsmd goes
 * breadth first (the same files; e2e/opencode/corpus).
 */
import { compileSegmentGlob } from "../core/glob.js";
import type { Diagnostic } from "../core/schema.js";
import { isAbsolute } from "node:path";
import { absolute, isInside, join, nameOf, parentOf } from "../core/paths.js";
import { namedReadable, plantedAlong, plantedMessage, realPathOf } from "../io/real-path.js";
import { configDirNamer, envFor, envReferences, type Namer } from "../core/confine.js";
import { quote } from "../core/quote.js";
import type { FileSystem } from "../io/file-system.js";
import { parseJsonObject, readConfigText } from "./config-file.js";

/** Bounds of one entry's glob: directories listed, files matched, brace alternatives. */
const MAX_GLOB_DIRS = 2000;
const MAX_GLOB_MATCHES = 1000;
const MAX_BRACE_PATTERNS = 64;

type Env = Readonly<Record<string, string | undefined>>;

export interface OpenCodeContext {
  cwd: string;
  /** The CLI's worktree: the git root, or `/` without one. */
  worktree: string;
  home: string;
  env: Env;
  fs: FileSystem;
  /**
   * The project (the session's import root: the worktree, else the git root above cwd, else
   * cwd): what a repository's config may name. @default the worktree, else cwd
   */
  scope?: string;
}

/**
 * Where a CLI of the OpenCode family keeps its configuration: what differs between OpenCode and
 * Kilo Code in how they find the config texts that set `instructions`.
 */
export interface FamilyConfigLayout {
  /** The CLI's name, in messages. */
  product: string;
  /** The global config directory (`Global.Path.config`). */
  globalDir(home: string, env: Env): string;
  /** The global directory's files, in load order; a later file's list replaces an earlier one's. */
  globalFiles: readonly string[];
  /** Project config files: for each base name, `<base>.json` then `<base>.jsonc` in each directory, the worktree first. */
  projectBases: readonly string[];
  /** Config directory names, looked for nearest first from cwd up to the worktree, then in the home. */
  configDirs: readonly string[];
  /** The files read in each config directory and in the managed directory, in order. */
  dirFiles: readonly string[];
  /** The legacy flag that drops the project files and config layers (relative entries are then matched in {@link disabledProjectDir}). */
  projectSwitch: string;
  /** The variables naming an extra config file, an extra config directory, a config text. */
  vars: { config: string; configDir: string; content: string };
  /** The managed (administrator) directory. */
  managedDir(env: Env): string;
  /** Where relative entries are matched under the project switch. */
  disabledProjectDir(home: string, env: Env): string;
  /**
   * Kilo's file scope: a listed file not trusted (below) is read only when its real path lies
   * inside the project (the worktree, else cwd); otherwise the CLI drops it. A file is trusted when
   * an absolute entry (any entry under the project switch) of a home-level config lists it: the
   * global config, `$<config>`, a config directory outside the project, `$<configDir>`,
   * `$<content>`, the managed directory. @default false: every listed file is read
   */
  fileScope?: boolean;
  /** Entries the CLI adds before every config layer (Kilo's legacy rule files). @default none */
  legacy?(context: OpenCodeContext): Promise<InstructionSource | undefined>;
}

/** One config text that set `instructions`. */
export interface InstructionSource {
  file: string;
  entries: string[];
  /** A home-level config as the CLI sees it (see {@link FamilyConfigLayout.fileScope}); false for the project's. @default false */
  trusted?: boolean;
  /**
   * Who wrote it (core/confine.ts): "user" for the user's own configuration (the global config,
   * the home's config directory, the environment's, the managed directory), "repository" for any
   * config found walking from cwd up. What a repository's lists is read only inside the project.
   * @default "user" (agentsmd's own config)
   */
  namer?: Namer;
}

export interface ListedInstructions {
  /** Absolute paths, in the order the CLI lists them (deduplicated; the caller drops those already loaded). */
  paths: string[];
  /** For each path, the entry and file that listed it first. */
  origin: Map<string, { entry: string; file: string }>;
  /** Config texts that set `instructions` (for `explain`). */
  sources: InstructionSource[];
  /** URL entries (the CLI fetches them; agentsmd does not). */
  urls: string[];
  /** Files the CLI's file scope drops (untrusted, real path outside the project). */
  outOfScope: string[];
  /** Files only a repository's config lists, outside the project, that the CLI itself reads: never read here (a finding). */
  agentOutside: Array<{ path: string; entry: string; file: string }>;
  diagnostics: Diagnostic[];
}

/**
 * Told of each directory a listing is about to read and each path it is about to probe, before
 * it does (io/dir-stamps.ts `DirStamps`: the plugins keep a listing while those stay unchanged).
 */
export interface WalkObserver {
  listing(dir: string): Promise<void>;
  probing(path: string): Promise<void>;
}

/** OpenCode's global config directory (`Global.Path.config`). */
export function opencodeXdgConfigDir(home: string, env: Env): string {
  const xdg = env.XDG_CONFIG_HOME;
  return xdg && xdg.length > 0 ? join(xdg, "opencode") : join(join(home, ".config"), "opencode");
}

/**
 * The managed directory of a CLI: `$<override>` when set, else `/etc/<name>` (`/Library/Application Support/<name>` on macOS).
 */
export function managedConfigDir(name: string, override: string, env: Env): string {
  const dir = env[override];
  if (dir) return dir;
  return process.platform === "darwin" ? `/Library/Application Support/${name}` : `/etc/${name}`;
}

/** OpenCode 1.18.33's configuration layout. */
export const OPENCODE_CONFIG_LAYOUT: FamilyConfigLayout = {
  product: "OpenCode",
  globalDir: opencodeXdgConfigDir,
  globalFiles: ["config.json", "opencode.json", "opencode.jsonc"],
  projectBases: ["opencode"],
  projectSwitch: "OPENCODE_DISABLE_PROJECT_CONFIG",
  configDirs: [".opencode"],
  dirFiles: ["opencode.json", "opencode.jsonc"],
  vars: { config: "OPENCODE_CONFIG", configDir: "OPENCODE_CONFIG_DIR", content: "OPENCODE_CONFIG_CONTENT" },
  managedDir: (env) => managedConfigDir("opencode", "OPENCODE_TEST_MANAGED_CONFIG_DIR", env),
  disabledProjectDir: (home, env) => env.OPENCODE_CONFIG_DIR ?? opencodeXdgConfigDir(home, env),
};

/**
 * True when `layout`'s project switch is on: the family's legacy flag parsing, "true" or "1" in any case.
 */
export function projectSwitchOn(layout: Pick<FamilyConfigLayout, "projectSwitch">, env: Env): boolean {
  const value = env[layout.projectSwitch]?.toLowerCase();
  return value === "true" || value === "1";
}

/** The project as the family's file scope sees it: the worktree, else (a worktree of `/`) cwd. */
function scopeRoot({ cwd, worktree }: Pick<OpenCodeContext, "cwd" | "worktree">): string {
  return worktree === "/" ? cwd : worktree;
}

/** Directories from `start` up to `stop` (inclusive) or the file-system root. */
function upward(start: string, stop: string): string[] {
  const out: string[] = [];
  for (let dir = start; ;) {
    out.push(dir);
    if (dir === stop) break;
    const parent = parentOf(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return out;
}

async function exists(fs: FileSystem, path: string): Promise<boolean> {
  return (await fs.lstat(path).catch(() => null)) !== null;
}

type Parsed = { entries: string[] | undefined } | "invalid" | null;

/**
 * `{env:NAME}` as the CLI substitutes it (an unset or empty variable gives ""), in the user's own
 * configuration only: in a repository's the reference stays as written (core/confine.ts `envFor`),
 * so no value of the environment reaches a path, `explain` or the model.
 */
function substituteEnv(text: string, env: Env | undefined): string {
  return env === undefined ? text : text.replace(/\{env:([^}]+)\}/g, (_, name: string) => env[name] || "");
}

const NOT_APPLIED = "its instructions are not applied";

/** The `instructions` of one config text; "invalid" when the CLI would refuse the text. */
function parseText(layout: FamilyConfigLayout, text: string, file: string, env: Env, diagnostics: Diagnostic[], namer: Namer): Parsed {
  const references = namer === "repository" ? envReferences(text) : [];
  if (references.length > 0)
    diagnostics.push({
      level: "info",
      code: "agent-config-env",
      message: `${quote(file)} refers to ${references.map((reference) => quote(reference)).join(", ")}: ${layout.product} puts the variable's value there, agentsmd leaves a repository's config as written (its variables are yours)`,
      path: file,
    });
  const data = parseJsonObject(substituteEnv(text, envFor(namer, env)), file, diagnostics, `${layout.product} refuses it, and ${NOT_APPLIED}`);
  if (data === undefined) return "invalid";
  const value = data.instructions;
  if (value === undefined) return { entries: undefined };
  if (Array.isArray(value) && value.every((entry) => typeof entry === "string")) return { entries: value };
  diagnostics.push({
    level: "warning",
    code: "agent-config-invalid",
    message: `${quote(file)}: instructions is not a list of strings; ${layout.product} refuses the file, and it is ignored`,
    path: file,
    fix: 'make instructions a list of paths or globs, e.g. ["CONTRIBUTING.md", "docs/*.md"]',
  });
  return "invalid";
}

async function readConfig(
  layout: FamilyConfigLayout,
  fs: FileSystem,
  file: string,
  env: Env,
  diagnostics: Diagnostic[],
  namer: Namer,
  levels = 0,
): Promise<Parsed> {
  const text = await readConfigText(file, fs, diagnostics, NOT_APPLIED, levels);
  return text === null ? null : parseText(layout, text, file, env, diagnostics, namer);
}

/**
 * The `instructions` entries a CLI of the family (by `layout`) ends up with for a session in
 * `cwd`, and the files that set them.
 */
export async function readFamilyInstructions(
  layout: FamilyConfigLayout,
  context: OpenCodeContext,
): Promise<{ entries: string[]; sources: InstructionSource[]; diagnostics: Diagnostic[] }> {
  const { fs, env, cwd, worktree, home } = context;
  const diagnostics: Diagnostic[] = [];
  const sources: InstructionSource[] = [];
  const entries: string[] = [];
  const add = (file: string, list: string[], trusted: boolean, namer: Namer) => {
    sources.push({ file, entries: list, trusted, namer });
    for (const entry of list) if (!entries.includes(entry)) entries.push(entry);
  };
  // `levels`: directories above the file that must not be planted either (a config directory).
  const layer = async (file: string, trusted: boolean, namer: Namer, levels = 0) => {
    const parsed = await readConfig(layout, fs, file, env, diagnostics, namer, levels);
    if (parsed !== null && parsed !== "invalid" && parsed.entries !== undefined) add(file, parsed.entries, trusted, namer);
  };
  const scope = scopeRoot(context);
  // Each directory of the walk listed once (what the survey's listings answer), not a stat per name.
  const listings = new Map<string, Promise<Set<string>>>();
  const has = (dir: string, name: string) => {
    let names = listings.get(dir);
    if (!names) {
      names = fs.readdirUnsorted(dir).then(
        (entries) => new Set(entries.map((entry) => entry.name)),
        () => new Set<string>(),
      );
      listings.set(dir, names);
    }
    return names.then((set) => set.has(name));
  };
  // 0. Legacy entries (Kilo's rule files).
  const legacy = await layout.legacy?.(context);
  if (legacy) {
    // Kilo trusts a rule file outside its project; only the home's are the user's.
    const namer = (entry: string): Namer => (isInside(entry, home) && !isInside(entry, cwd) ? "user" : "repository");
    for (const who of ["user", "repository"] as const) {
      const mine = legacy.entries.filter((entry) => namer(entry) === who);
      const outside = mine.filter((entry) => !isInside(entry, scope));
      if (outside.length > 0) add(legacy.file, outside, true, who);
      const inside = mine.filter((entry) => isInside(entry, scope));
      if (inside.length > 0) add(legacy.file, inside, false, who);
    }
  }
  // 1. Global: a later file's list replaces an earlier one's; one invalid file voids them all.
  const globalDir = layout.globalDir(home, env);
  let global: InstructionSource | undefined;
  for (const name of layout.globalFiles) {
    const file = join(globalDir, name);
    const parsed = await readConfig(layout, fs, file, env, diagnostics, "user");
    if (parsed === "invalid") {
      global = undefined;
      break;
    }
    if (parsed !== null && parsed.entries !== undefined) global = { file, entries: parsed.entries };
  }
  if (global) add(global.file, global.entries, true, "user");
  // 2. The extra config file.
  const custom = env[layout.vars.config];
  if (custom) await layer(custom, true, "user");
  const project = !projectSwitchOn(layout, env);
  // 3. Project files, worktree first; `<base>.json` before `<base>.jsonc` in a directory.
  if (project) {
    for (const base of layout.projectBases) {
      for (const dir of upward(cwd, worktree).reverse()) {
        for (const name of [`${base}.json`, `${base}.jsonc`]) {
          const file = join(dir, name);
          if (await has(dir, name)) await layer(file, false, "repository");
        }
      }
    }
  }
  // 4. Config directories nearest first, then the home's, then the extra config dir (each once).
  const configDir = env[layout.vars.configDir];
  const dirs: string[] = [globalDir];
  const found = async (dir: string) => {
    for (const name of layout.configDirs) if (await has(dir, name)) dirs.push(join(dir, name));
  };
  if (project) for (const dir of upward(cwd, worktree)) await found(dir);
  await found(home);
  if (configDir) dirs.push(configDir);
  for (const dir of [...new Set(dirs)]) {
    if (!layout.configDirs.some((name) => dir.endsWith(name)) && dir !== configDir) continue;
    // Kilo trusts a config directory outside its project; only the home's (or the environment's) are the user's.
    const namer = configDirNamer(dir, { home, own: [globalDir, configDir], names: layout.configDirs });
    for (const name of layout.dirFiles) await layer(join(dir, name), dir === configDir || !isInside(dir, scope), namer, 1);
  }
  // 5. The config text in the environment.
  const content = env[layout.vars.content];
  if (content) {
    const parsed = parseText(layout, content, layout.vars.content, env, diagnostics, "user");
    if (parsed !== "invalid" && parsed !== null && parsed.entries !== undefined) add(layout.vars.content, parsed.entries, true, "user");
  }
  // 6. Managed settings.
  const managed = layout.managedDir(env);
  if (await exists(fs, managed)) for (const name of layout.dirFiles) await layer(join(managed, name), true, "user");
  return { entries, sources, diagnostics };
}

const isUrl = (entry: string) => entry.startsWith("https://") || entry.startsWith("http://");

/**
 * The files `instructions` entries name, in the order a CLI of the family (by `layout`) lists them.
 * `observer` hears of every directory the globs list and every path they probe.
 */
export async function listFamilyInstructions(
  layout: FamilyConfigLayout,
  context: OpenCodeContext,
  entries: readonly string[],
  sources: InstructionSource[] = [],
  observer?: WalkObserver,
): Promise<ListedInstructions> {
  const { fs, env, cwd, worktree, home } = context;
  const out: ListedInstructions = { paths: [], origin: new Map(), sources, urls: [], outOfScope: [], agentOutside: [], diagnostics: [] };
  const project = !projectSwitchOn(layout, env);
  const trusted = new Set<string>();
  // Paths some config of the user's own lists (core/confine.ts); the rest a repository named.
  const userNamed = new Set<string>();
  const configDir = layout.disabledProjectDir(home, env);
  const fileOf = (entry: string) => sources.find((source) => source.entries.includes(entry))?.file ?? "agentsmd config";
  // One budget for every entry together: a repository's config may list hundreds of globs, and the
  // plugins list them at every tool call (200 entries made each Kilo tool call 37 s). A plain file entry needs no listing.
  let dirsLeft = MAX_GLOB_DIRS;
  let warned = false;
  for (const entry of entries) {
    if (isUrl(entry)) {
      out.urls.push(entry);
      continue;
    }
    const pattern = entry.startsWith("~/") ? absolute(join(home, entry.slice(2)), home) : entry;
    const bound = { dirs: dirsLeft, truncated: false };
    let matches: string[];
    if (isAbsolute(pattern)) {
      // Only the last segment is a glob; it is looked for in the directory above it, without dot files.
      const dir = absolute(parentOf(pattern), "/");
      matches = nameOf(pattern) === "" ? [] : await globIn(fs, dir, nameOf(pattern), false, bound, observer);
    } else {
      matches = [];
      for (const dir of project ? upward(cwd, worktree) : [configDir]) matches.push(...(await globIn(fs, dir, pattern, true, bound, observer)));
    }
    dirsLeft = Math.max(0, bound.dirs);
    if (bound.truncated && !warned) {
      warned = true;
      out.diagnostics.push({
        level: "warning",
        code: "instructions-glob-bounded",
        message: `instructions entry ${quote(entry)} reaches more than ${MAX_GLOB_DIRS} directories or ${MAX_GLOB_MATCHES} files (with the entries before it); agentsmd stopped there`,
        fix: `narrow the glob (${layout.product} walks all of it on every step)`,
      });
    }
    const trusts = (isAbsolute(pattern) || !project) && sources.some((source) => source.trusted && source.entries.includes(entry));
    // agentsmd's own list (no sources given, or its `opencode.instructions`) is the user's too.
    const listers = sources.filter((source) => source.entries.includes(entry));
    const byUser = listers.length === 0 || listers.some((source) => (source.namer ?? "user") === "user");
    for (const path of matches) {
      if (trusts) trusted.add(path);
      if (byUser) userNamed.add(path);
      if (out.origin.has(path)) continue;
      out.origin.set(path, { entry, file: fileOf(entry) });
      out.paths.push(path);
    }
  }
  // What the CLI reads (Kilo's file scope: trusted, or inside its project), then what agentsmd
  // reads of that: what the user's own config lists, or what lies inside the project, never a
  // file another user planted in a directory anyone may write.
  const agentRoot = layout.fileScope ? await realPathOf(fs, scopeRoot(context)) : undefined;
  const projectReal = await realPathOf(fs, context.scope ?? scopeRoot(context));
  const kept: string[] = [];
  for (const path of out.paths) {
    const namer: Namer = userNamed.has(path) ? "user" : "repository";
    const named = await namedReadable(fs, path, namer, projectReal);
    if (agentRoot !== undefined && !trusted.has(path) && !isInside(namer === "user" ? await realPathOf(fs, path) : named.real, agentRoot)) {
      out.outOfScope.push(path);
      continue;
    }
    if (!named.readable) {
      const origin = out.origin.get(path)!;
      out.agentOutside.push({ path, entry: origin.entry, file: origin.file });
      continue;
    }
    const planted = await plantedAlong(fs, path);
    if (planted !== undefined) {
      out.diagnostics.push({
        level: "warning",
        code: "planted-in-shared-dir",
        message: `${plantedMessage(planted.path, planted.uid)} (listed by instructions)`,
        path,
        fix: "move the file to a directory you own, or chown it",
      });
      continue;
    }
    kept.push(path);
  }
  out.paths = kept;
  return out;
}

/** One segment of a config glob (the repository's): the linear matcher, not a backtracking RegExp. */
function matcher(segment: string, dot: boolean): (name: string) => boolean {
  try {
    return compileSegmentGlob(segment, { dot });
  } catch {
    return () => false;
  }
}

const MAGIC = /[*?[\]{}()!+@]/;

/**
 * `{a,b}` alternatives expanded (nested ones too), as minimatch does before matching; at most
 * {@link MAX_BRACE_PATTERNS} patterns.
 */
export function expandBraces(pattern: string): string[] {
  const open = pattern.indexOf("{");
  if (open < 0) return [pattern];
  let depth = 0;
  const commas: number[] = [];
  for (let at = open; at < pattern.length; at++) {
    const char = pattern[at];
    if (char === "\\") at++;
    else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) {
      if (commas.length === 0) return [pattern];
      const pre = pattern.slice(0, open);
      const post = pattern.slice(at + 1);
      const bounds = [open, ...commas, at];
      const out: string[] = [];
      for (let index = 0; index + 1 < bounds.length; index++) {
        for (const expanded of expandBraces(pre + pattern.slice(bounds[index]! + 1, bounds[index + 1]) + post)) {
          if (out.length >= MAX_BRACE_PATTERNS) return out;
          out.push(expanded);
        }
      }
      return out;
    } else if (char === "," && depth === 1) commas.push(at);
  }
  return [pattern];
}

interface Walk {
  dir: string;
  segments: readonly string[];
}

/**
 * Files matching a relative glob under `cwd` as OpenCode's glob (isaacs glob, nodir, no symlinked
 * directory under `**`) finds them: a directory's entries last listed first, directories breadth
 * first; `.` and `..` segments resolve lexically.
 */
async function globIn(
  fs: FileSystem,
  cwd: string,
  pattern: string,
  dot: boolean,
  bound: { dirs: number; truncated: boolean },
  observer?: WalkObserver,
): Promise<string[]> {
  if (pattern === "" || pattern.endsWith("/")) return [];
  const matches: string[] = [];
  const seen = new Set<string>();
  const listings = new Map<string, Promise<Array<{ name: string; kind: string }>>>();
  const list = (dir: string) => {
    let listing = listings.get(dir);
    if (!listing) {
      if (bound.dirs-- <= 0) {
        bound.truncated = true;
        return Promise.resolve([]);
      }
      // OpenCode's glob (path-scurry on Bun) yields a directory's entries last listed first.
      listing = (observer ? observer.listing(dir) : Promise.resolve())
        .then(() => fs.readdirUnsorted(dir))
        .then(
          (entries) => entries.reverse(),
          () => [],
        );
      listings.set(dir, listing);
    }
    return listing;
  };
  const emit = (path: string) => {
    if (seen.has(path)) return;
    if (matches.length >= MAX_GLOB_MATCHES) {
      bound.truncated = true;
      return;
    }
    seen.add(path);
    matches.push(path);
  };
  const queue: Walk[] = expandBraces(pattern).map((each) => ({ dir: cwd, segments: each.split("/").filter((segment) => segment !== "") }));
  const visible = (name: string) => dot || !name.startsWith(".");
  const visit = async (start: string, all: readonly string[]): Promise<void> => {
    // Literal segments resolve without listing a directory.
    let dir = start;
    let segments = all;
    while (segments.length > 1 && !MAGIC.test(segments[0]!)) {
      const head = segments[0]!;
      dir = head === "." ? dir : head === ".." ? parentOf(dir) : join(dir, head);
      segments = segments.slice(1);
    }
    const [head, ...rest] = segments;
    if (head === undefined) return;
    if (!MAGIC.test(head)) {
      if (head === "." || head === "..") return;
      await observer?.probing(join(dir, head));
      const info = await fs.lstat(join(dir, head)).catch(() => null);
      if (info && info.kind !== "directory") emit(join(dir, head));
      return;
    }
    const entries = await list(dir);
    if (head === "**") {
      // Zero directories (the rest matched here), then every subdirectory, not through a symlink.
      if (rest.length === 0) for (const entry of entries) if (entry.kind !== "directory" && visible(entry.name)) emit(join(dir, entry.name));
      if (rest.length > 0) await visit(dir, rest);
      for (const entry of entries) if (entry.kind === "directory" && visible(entry.name)) queue.push({ dir: join(dir, entry.name), segments });
      return;
    }
    const test = matcher(head, dot);
    for (const entry of entries) {
      if (!test(entry.name)) continue;
      if (rest.length === 0) {
        if (entry.kind !== "directory") emit(join(dir, entry.name));
      } else if (entry.kind === "directory" || entry.kind === "symlink") queue.push({ dir: join(dir, entry.name), segments: rest });
    }
  };
  for (let next = 0; next < queue.length && !bound.truncated; next++) await visit(queue[next]!.dir, queue[next]!.segments);
  return matches;
}
