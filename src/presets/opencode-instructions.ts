/**
 * OpenCode's `instructions` setting, read the way OpenCode 1.18.33 reads it (its bundled
 * `Config.loadInstanceState` and `Instruction.systemPaths`, found in the pinned binary):
 *
 * Config layers, in load order (the lists concatenate, first occurrence kept):
 * 1. the global config dir (`$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`): `config.json`,
 *    `opencode.json`, `opencode.jsonc`, merged so a later file's list replaces an earlier one's; an
 *    invalid global file makes OpenCode ignore the whole global config;
 * 2. `$OPENCODE_CONFIG` (a file);
 * 3. `opencode.json` then `opencode.jsonc` in each directory from the worktree down to cwd
 *    (not with `OPENCODE_DISABLE_PROJECT_CONFIG`);
 * 4. `opencode.json` then `opencode.jsonc` in each `.opencode` directory from cwd up to the worktree
 *    (not with `OPENCODE_DISABLE_PROJECT_CONFIG`), then `~/.opencode`, then `$OPENCODE_CONFIG_DIR`;
 * 5. `$OPENCODE_CONFIG_CONTENT` (JSON text);
 * 6. the managed dir (`/etc/opencode`; `/Library/Application Support/opencode` on macOS).
 * Each text is JSONC (trailing commas allowed) after `{env:NAME}` substitution.
 *
 * Entries: `http(s)://` URLs are fetched by OpenCode, not files, so agentsmd skips them (and says
 * so); `~/x` is `<home>/x`; an absolute entry globs its last segment inside its directory (no dot
 * files); any other entry is a glob matched in every directory from cwd up to the worktree, dot
 * files included (in the global config dir instead under `OPENCODE_DISABLE_PROJECT_CONFIG`); it
 * is not relative to the config file that lists it. Matches are files (or symlinks), a
 * directory's entries last listed first as OpenCode's glob yields them. Across several directories
 * under `**` OpenCode reports matches as its asynchronous directory reads complete, an order that
 * is not fixed; agentsmd goes breadth first (the same files; e2e/opencode/corpus).
 */
import { createRequire } from "node:module";
import type { ParseError } from "jsonc-parser";
import type Picomatch from "picomatch";
import type { Diagnostic } from "../core/schema.js";
import { isAbsolute } from "node:path";
import { absolute, join, nameOf, parentOf } from "../core/paths.js";
import { quote } from "../core/quote.js";
import { readTextFile, type FileSystem } from "../io/file-system.js";

const load = createRequire(import.meta.url);

/** Largest OpenCode config file read. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** Bounds of one entry's glob: directories listed, files matched, brace alternatives. */
const MAX_GLOB_DIRS = 2000;
const MAX_GLOB_MATCHES = 1000;
const MAX_BRACE_PATTERNS = 64;

export interface OpenCodeContext {
  cwd: string;
  /** OpenCode's worktree: the git root, or `/` without one. */
  worktree: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  fs: FileSystem;
}

/** One config text that set `instructions`. */
export interface InstructionSource {
  file: string;
  entries: string[];
}

export interface ListedInstructions {
  /** Absolute paths, in the order OpenCode lists them (deduplicated; the caller drops those already loaded). */
  paths: string[];
  /** For each path, the entry and file that listed it first. */
  origin: Map<string, { entry: string; file: string }>;
  /** Config texts that set `instructions` (for `explain`). */
  sources: InstructionSource[];
  /** URL entries (OpenCode fetches them; agentsmd does not). */
  urls: string[];
  diagnostics: Diagnostic[];
}

/** OpenCode's legacy boolean flags: "true" or "1", any case. */
function flag(env: OpenCodeContext["env"], name: string): boolean {
  const value = env[name]?.toLowerCase();
  return value === "true" || value === "1";
}

/** OpenCode's global config directory (`Global.Path.config`). */
export function opencodeXdgConfigDir(home: string, env: OpenCodeContext["env"]): string {
  const xdg = env.XDG_CONFIG_HOME;
  return xdg && xdg.length > 0 ? join(xdg, "opencode") : join(join(home, ".config"), "opencode");
}

function managedDir(env: OpenCodeContext["env"]): string {
  const override = env.OPENCODE_TEST_MANAGED_CONFIG_DIR;
  if (override) return override;
  return process.platform === "darwin" ? "/Library/Application Support/opencode" : "/etc/opencode";
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

/** `{env:NAME}` as OpenCode substitutes it (an unset or empty variable gives ""). */
function substituteEnv(text: string, env: OpenCodeContext["env"]): string {
  return text.replace(/\{env:([^}]+)\}/g, (_, name: string) => env[name] || "");
}

/** The `instructions` of one config text; "invalid" when OpenCode would refuse the text. */
function parseText(text: string, file: string, env: OpenCodeContext["env"], diagnostics: Diagnostic[]): Parsed {
  const { parse } = load("jsonc-parser") as typeof import("jsonc-parser");
  const errors: ParseError[] = [];
  const data = parse(substituteEnv(text, env), errors, { allowTrailingComma: true }) as unknown;
  if (errors.length > 0 || typeof data !== "object" || data === null || Array.isArray(data)) {
    diagnostics.push({
      level: "warning",
      code: "agent-config-invalid",
      message: `${quote(file)} is not a JSON object; OpenCode refuses it, and its instructions are not applied`,
      path: file,
      fix: `fix the JSON of ${quote(file)}`,
    });
    return "invalid";
  }
  const value = (data as { instructions?: unknown }).instructions;
  if (value === undefined) return { entries: undefined };
  if (Array.isArray(value) && value.every((entry) => typeof entry === "string")) return { entries: value as string[] };
  diagnostics.push({
    level: "warning",
    code: "agent-config-invalid",
    message: `${quote(file)}: instructions is not a list of strings; OpenCode refuses the file, and it is ignored`,
    path: file,
    fix: 'make instructions a list of paths or globs, e.g. ["CONTRIBUTING.md", "docs/*.md"]',
  });
  return "invalid";
}

async function readConfig(fs: FileSystem, file: string, env: OpenCodeContext["env"], diagnostics: Diagnostic[]): Promise<Parsed> {
  let text: string | null;
  try {
    text = await readTextFile(file, MAX_CONFIG_BYTES, fs);
  } catch (error) {
    diagnostics.push({
      level: "warning",
      code: "agent-config-unreadable",
      message: `cannot read ${quote(file)}: ${(error as Error).message}; its instructions are not applied`,
      path: file,
      fix: `check ${quote(file)} (a regular file of at most 1 MiB)`,
    });
    return null;
  }
  return text === null ? null : parseText(text, file, env, diagnostics);
}

/**
 * The `instructions` entries OpenCode ends up with for a session in `cwd`, and the files that set them.
 * @example (await readOpenCodeInstructions({ cwd, worktree, home, env, fs: nodeFileSystem })).sources
 */
export async function readOpenCodeInstructions(
  context: OpenCodeContext,
): Promise<{ entries: string[]; sources: InstructionSource[]; diagnostics: Diagnostic[] }> {
  const { fs, env, cwd, worktree, home } = context;
  const diagnostics: Diagnostic[] = [];
  const sources: InstructionSource[] = [];
  const entries: string[] = [];
  const add = (file: string, list: string[]) => {
    sources.push({ file, entries: list });
    for (const entry of list) if (!entries.includes(entry)) entries.push(entry);
  };
  const layer = async (file: string) => {
    const parsed = await readConfig(fs, file, env, diagnostics);
    if (parsed !== null && parsed !== "invalid" && parsed.entries !== undefined) add(file, parsed.entries);
  };
  // 1. Global: a later file's list replaces an earlier one's; one invalid file voids them all.
  const globalDir = opencodeXdgConfigDir(home, env);
  let global: InstructionSource | undefined;
  for (const name of ["config.json", "opencode.json", "opencode.jsonc"]) {
    const file = join(globalDir, name);
    const parsed = await readConfig(fs, file, env, diagnostics);
    if (parsed === "invalid") {
      global = undefined;
      break;
    }
    if (parsed !== null && parsed.entries !== undefined) global = { file, entries: parsed.entries };
  }
  if (global) add(global.file, global.entries);
  // 2. $OPENCODE_CONFIG.
  if (env.OPENCODE_CONFIG) await layer(env.OPENCODE_CONFIG);
  const project = !flag(env, "OPENCODE_DISABLE_PROJECT_CONFIG");
  // 3. Project files, worktree first; opencode.json before opencode.jsonc in a directory.
  if (project) {
    for (const dir of upward(cwd, worktree).reverse()) {
      for (const name of ["opencode.json", "opencode.jsonc"]) {
        const file = join(dir, name);
        if (await exists(fs, file)) await layer(file);
      }
    }
  }
  // 4. .opencode directories nearest first, ~/.opencode, $OPENCODE_CONFIG_DIR (each once).
  const configDir = env.OPENCODE_CONFIG_DIR;
  const dirs: string[] = [globalDir];
  const found = async (dir: string) => (await exists(fs, dir)) && dirs.push(dir);
  if (project) for (const dir of upward(cwd, worktree)) await found(join(dir, ".opencode"));
  await found(join(home, ".opencode"));
  if (configDir) dirs.push(configDir);
  for (const dir of [...new Set(dirs)]) {
    if (!dir.endsWith(".opencode") && dir !== configDir) continue;
    for (const name of ["opencode.json", "opencode.jsonc"]) await layer(join(dir, name));
  }
  // 5. $OPENCODE_CONFIG_CONTENT.
  const content = env.OPENCODE_CONFIG_CONTENT;
  if (content) {
    const parsed = parseText(content, "OPENCODE_CONFIG_CONTENT", env, diagnostics);
    if (parsed !== "invalid" && parsed !== null && parsed.entries !== undefined) add("OPENCODE_CONFIG_CONTENT", parsed.entries);
  }
  // 6. Managed settings.
  const managed = managedDir(env);
  if (await exists(fs, managed)) for (const name of ["opencode.json", "opencode.jsonc"]) await layer(join(managed, name));
  return { entries, sources, diagnostics };
}

const isUrl = (entry: string) => entry.startsWith("https://") || entry.startsWith("http://");

/**
 * The files OpenCode's `instructions` entries name, in its order.
 * @example (await listOpenCodeInstructions(context, ["CONTRIBUTING.md", "docs/*.md"], sources)).paths
 */
export async function listOpenCodeInstructions(
  context: OpenCodeContext,
  entries: readonly string[],
  sources: InstructionSource[] = [],
): Promise<ListedInstructions> {
  const { fs, env, cwd, worktree, home } = context;
  const out: ListedInstructions = { paths: [], origin: new Map(), sources, urls: [], diagnostics: [] };
  const project = !flag(env, "OPENCODE_DISABLE_PROJECT_CONFIG");
  const configDir = env.OPENCODE_CONFIG_DIR ?? opencodeXdgConfigDir(home, env);
  const fileOf = (entry: string) => sources.find((source) => source.entries.includes(entry))?.file ?? "agentsmd config";
  for (const entry of entries) {
    if (isUrl(entry)) {
      out.urls.push(entry);
      continue;
    }
    const pattern = entry.startsWith("~/") ? absolute(join(home, entry.slice(2)), home) : entry;
    const bound = { dirs: MAX_GLOB_DIRS, truncated: false };
    let matches: string[];
    if (isAbsolute(pattern)) {
      // Only the last segment is a glob; it is looked for in the directory above it, without dot files.
      const dir = absolute(parentOf(pattern), "/");
      matches = nameOf(pattern) === "" ? [] : await globIn(fs, dir, nameOf(pattern), false, bound);
    } else {
      matches = [];
      for (const dir of project ? upward(cwd, worktree) : [configDir]) matches.push(...(await globIn(fs, dir, pattern, true, bound)));
    }
    if (bound.truncated)
      out.diagnostics.push({
        level: "warning",
        code: "instructions-glob-bounded",
        message: `instructions entry ${quote(entry)} reaches more than ${MAX_GLOB_DIRS} directories or ${MAX_GLOB_MATCHES} files; agentsmd stopped there`,
        fix: "narrow the glob (OpenCode walks all of it on every step)",
      });
    for (const path of matches) {
      if (out.origin.has(path)) continue;
      out.origin.set(path, { entry, file: fileOf(entry) });
      out.paths.push(path);
    }
  }
  return out;
}

let picomatchModule: typeof Picomatch | undefined;
function matcher(segment: string, dot: boolean): (name: string) => boolean {
  picomatchModule ??= load("picomatch") as typeof Picomatch;
  try {
    return picomatchModule(segment, { dot });
  } catch {
    return () => false;
  }
}

const MAGIC = /[*?[\]{}()!+@]/;

/**
 * `{a,b}` alternatives expanded (nested ones too), as minimatch does before matching; at most
 * {@link MAX_BRACE_PATTERNS} patterns.
 * @example expandBraces("{docs,guides}/*.md") // ["docs/*.md", "guides/*.md"]
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
async function globIn(fs: FileSystem, cwd: string, pattern: string, dot: boolean, bound: { dirs: number; truncated: boolean }): Promise<string[]> {
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
      listing = fs.readdirUnsorted(dir).then(
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
