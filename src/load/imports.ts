/**
 * `@path` imports in instruction files (Claude Code and Gemini CLI style; docs/imports.md).
 *
 * - `@path` at the start of the text or after whitespace imports the file, expanded in place
 *   between two markers that name it. The path is relative to the importing file, or `~/...`
 *   (home) or absolute; `\ ` escapes a space; trailing punctuation (`.,;:!?)]}'"`) is not part of it.
 * - Inside code spans and fenced code blocks nothing is an import.
 * - A bare word (`@alice`, `@README`: no `/`, no file extension) is a mention unless a file of that
 *   name sits next to the importing file; a mention stays as it is, silently.
 * - A path-like import that cannot be used (missing, a directory, binary, outside the allowed
 *   roots, a cycle, deeper than `maxDepth`, over the byte budget) stays literal and yields a
 *   diagnostic naming the importing file and the fix.
 *
 * `findImports` is pure; `expandImports` reads through the injected {@link FileSystem}.
 */
import type { FileSystem } from "../io/file-system.js";
import type { Diagnostic } from "../core/schema.js";
import { AGENTSMD_DEFAULT_MAX_BYTES, type CutMode, type Preset } from "../presets/preset.js";
import type { ImportMarker } from "../core/schema.js";
import { absolute, isInside, parentOf } from "../core/paths.js";
import { decodeLossy } from "../core/budget.js";
import { cutRead, readInstruction, type InstructionText } from "./read.js";
import { FsError } from "../core/errors.js";
import { expandGeminiImports } from "./gemini-imports.js";
import { mayHoldVariables, substituteKiloVariables } from "./kilo-variables.js";
import { quote } from "../core/quote.js";

/** Imports nest at most this deep (the importing file is depth 0). */
const DEFAULT_IMPORT_DEPTH = 5;

/** One `@path` token found in a text. */
export interface ImportToken {
  /** Index of the `@`. */
  start: number;
  /** Index just past the path (trailing punctuation excluded). */
  end: number;
  /** The path as written (escapes resolved, punctuation stripped). */
  path: string;
  /** No `/` and no file extension: a mention unless such a file exists. */
  bare: boolean;
}

const TRAILING_PUNCTUATION = /[.,;:!?)\]}'"]+$/;
const EXTENSION = /\.[A-Za-z][A-Za-z0-9]{0,9}$/;

function isSpace(char: string | undefined): boolean {
  return char === " " || char === "\t" || char === "\n" || char === "\r";
}

/**
 * Spans of `text` that are code: fenced blocks (``` or ~~~, closed by a fence of the same
 * character at least as long, or running to the end) and inline code spans (a backtick run closed
 * by a run of the same length). Returned as sorted, non-overlapping [start, end) pairs.
 */
export function codeRegions(text: string): Array<[number, number]> {
  const regions: Array<[number, number]> = [];
  let lineStart = 0;
  let proseStart = 0;
  const inline = (from: number, to: number) => {
    let index = from;
    while (index < to) {
      const open = text.indexOf("`", index);
      if (open === -1 || open >= to) return;
      let runEnd = open;
      while (runEnd < to && text[runEnd] === "`") runEnd++;
      const length = runEnd - open;
      let search = runEnd;
      let closed = -1;
      while (search < to) {
        const next = text.indexOf("`", search);
        if (next === -1 || next >= to) break;
        let nextEnd = next;
        while (nextEnd < to && text[nextEnd] === "`") nextEnd++;
        if (nextEnd - next === length) {
          closed = nextEnd;
          break;
        }
        search = nextEnd;
      }
      if (closed === -1) {
        index = runEnd; // an unmatched run is literal text
        continue;
      }
      regions.push([open, closed]);
      index = closed;
    }
  };
  while (lineStart < text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(text.slice(lineStart, lineEnd));
    if (!fence || (fence[1]![0] === "`" && text.slice(lineStart + fence[0].length, lineEnd).includes("`"))) {
      lineStart = lineEnd + 1;
      continue;
    }
    inline(proseStart, lineStart);
    const marker = fence[1]!;
    const closing = new RegExp(`^ {0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}[ \\t]*$`);
    let cursor = lineEnd + 1;
    let blockEnd = text.length;
    while (cursor < text.length) {
      const next = text.indexOf("\n", cursor);
      const end = next === -1 ? text.length : next;
      if (closing.test(text.slice(cursor, end).replace(/\r$/, ""))) {
        blockEnd = end;
        break;
      }
      cursor = end + 1;
    }
    regions.push([lineStart, blockEnd]);
    lineStart = blockEnd + 1;
    proseStart = Math.min(lineStart, text.length);
  }
  inline(proseStart, text.length);
  return regions.sort((a, b) => a[0] - b[0]);
}

/**
 * Every `@path` import token of `text` outside code, in order.
 */
export function findImports(text: string): ImportToken[] {
  if (!text.includes("@")) return [];
  const regions = codeRegions(text);
  const tokens: ImportToken[] = [];
  let region = 0;
  let index = text.indexOf("@");
  while (index !== -1) {
    while (region < regions.length && regions[region]![1] <= index) region++;
    const inCode = region < regions.length && regions[region]![0] <= index;
    if (inCode || (index > 0 && !isSpace(text[index - 1]))) {
      index = text.indexOf("@", index + 1);
      continue;
    }
    let end = index + 1;
    let path = "";
    while (end < text.length && !isSpace(text[end])) {
      if (text[end] === "\\" && text[end + 1] === " ") {
        path += " ";
        end += 2;
        continue;
      }
      path += text[end];
      end++;
    }
    const stripped = path.replace(TRAILING_PUNCTUATION, "");
    end -= path.length - stripped.length;
    if (isImportPath(stripped)) {
      tokens.push({ start: index, end, path: stripped, bare: !stripped.includes("/") && !EXTENSION.test(stripped) });
    }
    index = text.indexOf("@", Math.max(end, index + 1));
  }
  return tokens;
}

function isImportPath(path: string): boolean {
  if (path.length === 0 || path.includes("://")) return false;
  if (path[0] === "~") return path.startsWith("~/");
  return /^[A-Za-z0-9_./]/.test(path);
}

/**
 * The absolute path an import names: `~/` against `home`, absolute as is, else against the
 * importing file's directory.
 */
export function resolveImportPath(path: string, from: string, home: string): string {
  if (path.startsWith("~/")) return absolute(path.slice(2), home);
  return absolute(path, parentOf(from));
}

export interface ImportOptions {
  fs: FileSystem;
  home: string;
  /** Directories (or files) an import may resolve into (after symlinks); empty: anywhere. */
  allowedRoots: readonly string[];
  /** @default 5 */
  maxDepth?: number;
  /** Most bytes all imports together may add; an import that does not fit stays literal. @default unlimited */
  maxBytes?: number;
  /** @default "agentsmd" */
  marker?: ImportMarker;
}

/** One import that was expanded. */
export interface ImportRecord {
  /** Absolute path of the imported file. */
  path: string;
  /** The file holding the `@path`. */
  from: string;
  /** Nesting level: 1 for an import of the top file. */
  depth: number;
  /** Bytes of the imported file's own text. */
  bytes: number;
}

export interface ExpandResult {
  content: string;
  imports: ImportRecord[];
  /** Bytes the expansion added (imported text plus markers, minus the replaced tokens). */
  addedBytes: number;
  diagnostics: Diagnostic[];
}

/** Largest single imported file read when no budget bounds it. */
const MAX_IMPORT_BYTES = 4 * 1024 * 1024;

interface Walk {
  options: ImportOptions;
  maxDepth: number;
  roots: Promise<string[]>;
  budget: number;
  imports: ImportRecord[];
  diagnostics: Diagnostic[];
}

/**
 * Expands the imports of `text` (the content of the file `from`).
 */
export async function expandImports(text: string, from: string, options: ImportOptions): Promise<ExpandResult> {
  const walk: Walk = {
    options,
    maxDepth: options.maxDepth ?? DEFAULT_IMPORT_DEPTH,
    roots: Promise.all(options.allowedRoots.map((root) => options.fs.realpath(root).catch(() => root))),
    budget: options.maxBytes ?? Number.POSITIVE_INFINITY,
    imports: [],
    diagnostics: [],
  };
  const own = await options.fs.realpath(from).catch(() => from);
  const content = await expandText(walk, text, from, [own], 0);
  return { content, imports: walk.imports, addedBytes: Buffer.byteLength(content) - Buffer.byteLength(text), diagnostics: walk.diagnostics };
}

async function expandText(walk: Walk, text: string, from: string, chain: readonly string[], depth: number): Promise<string> {
  const tokens = findImports(text);
  if (tokens.length === 0) return text;
  let out = "";
  let last = 0;
  for (const token of tokens) {
    out += text.slice(last, token.start);
    last = token.end;
    const literal = text.slice(token.start, token.end);
    const expanded = await expandOne(walk, token, from, chain, depth);
    out += expanded ?? literal;
  }
  return out + text.slice(last);
}

function problem(walk: Walk, code: string, from: string, token: ImportToken, why: string, fix: string): null {
  walk.diagnostics.push({
    level: "warning",
    code,
    message: `${from}: @${token.path} ${why}; it stays as literal text`,
    path: from,
    fix,
  });
  return null;
}

async function expandOne(walk: Walk, token: ImportToken, from: string, chain: readonly string[], depth: number): Promise<string | null> {
  const { fs, home } = walk.options;
  const target = resolveImportPath(token.path, from, home);
  let info;
  try {
    info = await fs.stat(target);
  } catch (error) {
    if (token.bare) return null;
    return problem(walk, "import-unreadable", from, token, `cannot be read (${(error as FsError).code ?? "error"})`, `check the permissions of ${target}`);
  }
  if (!info) {
    if (token.bare) return null; // a mention such as @alice
    return problem(
      walk,
      "import-missing",
      from,
      token,
      `names ${target}, which does not exist`,
      "fix the path, create the file, or wrap the text in backticks if it is not an import",
    );
  }
  if (info.kind !== "file") {
    if (token.bare) return null;
    return problem(walk, "import-not-a-file", from, token, `names ${target}, which is not a regular file`, "import a file, not a directory");
  }
  const real = await fs.realpath(target).catch(() => target);
  const roots = await walk.roots;
  if (roots.length > 0 && !roots.some((root) => isInside(real, root))) {
    return problem(
      walk,
      "import-outside-root",
      from,
      token,
      `resolves to ${real}, outside ${roots.join(", ")}`,
      "move the file into the project, or list its directory in imports.allow of agentsmd's config (never a default)",
    );
  }
  if (chain.includes(real)) {
    const cycle = [...chain.slice(chain.indexOf(real)), real].join(" -> ");
    return problem(walk, "import-cycle", from, token, `closes an import cycle (${cycle})`, "remove one of the imports in the cycle");
  }
  if (depth + 1 > walk.maxDepth) {
    return problem(
      walk,
      "import-too-deep",
      from,
      token,
      `would be import level ${depth + 1}; at most ${walk.maxDepth} levels are expanded`,
      "flatten the import chain",
    );
  }
  const room = Math.min(walk.budget, MAX_IMPORT_BYTES);
  let read;
  try {
    read = await fs.read(target, room);
  } catch (error) {
    return problem(walk, "import-unreadable", from, token, `cannot be read (${(error as FsError).code ?? "error"})`, `check ${target}`);
  }
  if (read.truncated) {
    return problem(
      walk,
      "import-over-budget",
      from,
      token,
      `is ${read.size} bytes, more than the ${room} bytes left in the budget`,
      "shorten it or raise the budget",
    );
  }
  if (read.bytes.includes(0)) {
    return problem(walk, "import-binary", from, token, `names ${target}, a binary file`, "import text files only");
  }
  walk.budget -= read.bytes.length;
  walk.imports.push({ path: target, from, depth: depth + 1, bytes: read.bytes.length });
  const body = await expandText(walk, decodeLossy(read.bytes, false), target, [...chain, real], depth + 1);
  if (walk.options.marker === "gemini") {
    return `<!-- Imported from: ${token.path} -->\n${body}\n<!-- End of import from: ${token.path} -->`;
  }
  return `[agentsmd: imported from ${quote(target)}]\n${body.replace(/\n$/, "")}\n[agentsmd: end of import from ${quote(target)}]`;
}

/** What the budgeted readers need to expand imports. */
export interface ImportContext {
  enabled: boolean;
  /**
   * The directory imports of project files stay inside (after symlinks): the project root, or for a
   * preset whose agent has no root (claude: `/`) or no project, the git root above cwd, else cwd
   * ({@link importRootOf}). Never null: an unconfined import needs `allowOutsideRoot`.
   */
  root: string;
  allowOutsideRoot: boolean;
  /** Absolute paths outside `root` imports may read too (`imports.allow`, `~/` already expanded). */
  allow?: readonly string[];
  home: string;
  marker?: ImportMarker;
  maxDepth?: number;
  /** Root markers: with marker "gemini", an import's root is the importing file's nearest marker ancestor. */
  markers?: readonly string[];
  /** The environment (marker "kilo": `{env:}` in the global file). @default none: every variable unset */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The import settings of a session: the config's `imports` keys, the preset's marker and depth.
 * `importRoot` is the session's confinement directory ({@link importRootOf}); `env` the session's environment.
 */
export function importContextOf(
  config: { imports: { enabled: boolean; allowOutsideRoot: boolean; allow?: readonly string[] }; root?: { markers: readonly string[] } },
  preset: Pick<Preset, "imports">,
  importRoot: string,
  home: string,
  env?: Readonly<Record<string, string | undefined>>,
): ImportContext {
  return {
    ...(env ? { env } : {}),
    enabled: config.imports.enabled,
    root: importRoot,
    allowOutsideRoot: config.imports.allowOutsideRoot,
    allow: (config.imports.allow ?? []).map((entry) => (entry.startsWith("~/") ? absolute(entry.slice(2), home) : absolute(entry, "/"))),
    home,
    ...(preset.imports?.marker ? { marker: preset.imports.marker } : {}),
    ...(preset.imports?.maxDepth !== undefined ? { maxDepth: preset.imports.maxDepth } : {}),
    ...(config.root ? { markers: config.root.markers } : {}),
  };
}

/** Where imports may resolve: the confinement root and the allow-list; anywhere only when asked. */
function allowedRoots(context: ImportContext, confine: boolean): string[] {
  return !confine || context.allowOutsideRoot ? [] : [context.root, ...(context.allow ?? [])];
}

/**
 * The directory imports of project files are confined to: the project root, unless the preset's
 * agent has none (its root is the file-system root, as for Claude Code) or there is no project;
 * then the nearest ancestor of cwd holding `.git` (a directory or a worktree's file) below home and
 * below `/`, else cwd. Home itself never counts (a dotfiles repository there would open ~/.ssh).
 */
export async function importRootOf(input: { root: string; project: boolean; cwd: string; home: string; fs: FileSystem }): Promise<string> {
  if (input.project && parentOf(input.root) !== input.root && input.root !== input.home) return input.root;
  for (let dir = input.cwd; dir !== input.home && parentOf(dir) !== dir; dir = parentOf(dir)) {
    if (await input.fs.stat(`${dir}/.git`).catch(() => null)) return dir;
  }
  return input.cwd;
}

/**
 * Gemini CLI's own expansion (gemini-imports.ts) in the shape of {@link expandImports}: its root
 * rule, its comments for failed imports, no byte budget.
 */
async function expandAsGemini(fs: FileSystem, text: string, path: string, context: ImportContext, maxBytes: number): Promise<ExpandResult> {
  const result = await expandGeminiImports(fs, text, path, {
    maxBytes,
    ...(context.markers ? { markers: context.markers } : {}),
    ...(context.maxDepth !== undefined ? { maxDepth: context.maxDepth } : {}),
  });
  return {
    content: result.content,
    imports: result.imports,
    addedBytes: Buffer.byteLength(result.content) - Buffer.byteLength(text),
    diagnostics: result.diagnostics,
  };
}

/**
 * Kilo Code's config variables (kilo-variables.ts) in the shape of {@link expandImports}: project
 * files (`confine`) in the import root's file scope, home-level files trusted.
 */
async function expandAsKilo(fs: FileSystem, text: string, path: string, context: ImportContext, maxBytes: number, confine: boolean): Promise<ExpandResult> {
  if (!mayHoldVariables(text)) return { content: text, imports: [], addedBytes: 0, diagnostics: [] };
  const result = await substituteKiloVariables(text, path, { fs, trusted: !confine, root: context.root, home: context.home, env: context.env ?? {}, maxBytes });
  return {
    content: result.content,
    imports: result.includes,
    addedBytes: Buffer.byteLength(result.content) - Buffer.byteLength(text),
    diagnostics: result.diagnostics,
  };
}

/** Text of an instruction file with its imports expanded, as the budget left it. */
export interface ExpandedText extends InstructionText {
  /** Bytes the imports added (0 without imports). */
  importedBytes: number;
  imports: ImportRecord[];
}

/**
 * Reads `path` within `budget` bytes like {@link readInstruction}, expanding its imports first
 * when `context.enabled`: imported bytes count against the same budget, and the cut rule applies
 * to the expanded text. Import problems go to `diagnostics`. `sizeBytes` stays the file's own size.
 */
export async function readInstructionExpanded(
  fs: FileSystem,
  path: string,
  budget: number,
  cut: CutMode,
  context: ImportContext,
  report: (diagnostic: Diagnostic) => void,
): Promise<ExpandedText | null> {
  if (!context.enabled) {
    const text = await readInstruction(fs, path, budget, cut);
    return text && { ...text, importedBytes: 0, imports: [] };
  }
  if (budget <= 0) return null;
  const read = await fs.read(path, budget);
  // `@` starts an import, `{` a Kilo variable: without it the text is as read.
  if (!read.bytes.includes(context.marker === "kilo" ? 0x7b : 0x40)) {
    const text = cutRead(read, path, budget, cut);
    return text && { ...text, importedBytes: 0, imports: [] };
  }
  // Gemini reads with Node's utf-8 decoding, which keeps a BOM (an `@` right after it is no import).
  const own = decodeLossy(read.bytes, cut === "byte" || context.marker === "gemini");
  const expanded =
    context.marker === "gemini"
      ? await expandAsGemini(fs, own, path, context, Math.max(0, budget - read.bytes.length))
      : context.marker === "kilo"
        ? await expandAsKilo(fs, own, path, context, Math.max(0, budget - read.bytes.length), true)
        : await expandImports(own, path, {
            fs,
            home: context.home,
            allowedRoots: allowedRoots(context, true),
            maxBytes: Math.max(0, budget - read.bytes.length),
            ...(context.marker ? { marker: context.marker } : {}),
            ...(context.maxDepth !== undefined ? { maxDepth: context.maxDepth } : {}),
          });
  for (const diagnostic of expanded.diagnostics) report(diagnostic);
  // Unchanged text (agentsmd rules: no import expanded; Gemini's: not even a failure comment).
  if (expanded.content === own) {
    const text = cutRead(read, path, budget, cut);
    return text && { ...text, importedBytes: 0, imports: [] };
  }
  const bytes = Buffer.from(expanded.content, "utf8");
  const unread = read.size - read.bytes.length;
  const text = cutRead(
    { bytes: bytes.subarray(0, budget), size: bytes.length + unread, mtimeMs: read.mtimeMs, truncated: bytes.length > budget || read.truncated },
    path,
    budget,
    cut,
  );
  return text && { ...text, sizeBytes: read.size, importedBytes: Math.max(0, expanded.addedBytes), imports: expanded.imports };
}

/**
 * Expands the imports of a text already in memory (user-layer files, outside any budget).
 */
export async function expandInMemory(
  fs: FileSystem,
  text: string,
  path: string,
  context: ImportContext,
  report: (diagnostic: Diagnostic) => void,
  confine = true,
): Promise<ExpandResult> {
  if (context.marker === "gemini" || context.marker === "kilo") {
    const result =
      context.marker === "gemini"
        ? await expandAsGemini(fs, text, path, context, AGENTSMD_DEFAULT_MAX_BYTES)
        : await expandAsKilo(fs, text, path, context, AGENTSMD_DEFAULT_MAX_BYTES, confine);
    for (const diagnostic of result.diagnostics) report(diagnostic);
    return result;
  }
  const result = await expandImports(text, path, {
    fs,
    home: context.home,
    allowedRoots: allowedRoots(context, confine),
    // Home-level files are outside the session budget, not outside every budget.
    maxBytes: AGENTSMD_DEFAULT_MAX_BYTES,
    ...(context.marker ? { marker: context.marker } : {}),
    ...(context.maxDepth !== undefined ? { maxDepth: context.maxDepth } : {}),
  });
  for (const diagnostic of result.diagnostics) report(diagnostic);
  return result;
}
