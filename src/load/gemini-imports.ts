/**
 * Gemini CLI's `@path` imports, as `processImports` in `@google/gemini-cli-core` 0.61.0
 * (`utils/memoryImportProcessor.ts`, "tree" format) expands them: what preset `gemini` uses, so its
 * text is Gemini's byte for byte (e2e/gemini proves it against the real package).
 *
 * Where it differs from the agentsmd rules in imports.ts:
 * - a token is `@` at the start of the text or after a space, tab or newline, running to the next
 *   one, punctuation included; it must start with `.`, `/` or an ASCII letter (`~/` is not one);
 * - code is whatever the regex ``/(`+)([\s\S]*?)\1/g`` matches: there a token stays as written;
 * - every import that cannot be used leaves a comment in the text instead of the token:
 *   `<!-- Import failed: P - Path traversal attempt -->` (outside the root, after symlinks, or a
 *   URL), `<!-- File already processed: P -->` (already on this import chain: the top file is not
 *   on it, so a cycle back to it shows it once more), `<!-- Import failed: P - <Node error> -->`;
 *   so `Ask @alice` loses the word;
 * - the root an import must stay inside is the nearest ancestor of the importing top file's
 *   directory holding a boundary marker (`context.memoryBoundaryMarkers`), else that directory;
 * - imported text is inserted as read (BOM kept, untrimmed) between `<!-- Imported from: P -->\n`
 *   and `\n<!-- End of import from: P -->`; files at depth 5 are inserted with their tokens as is.
 *
 * Not reproduced: a dangling symlink in an import path is resolved as a plain missing file (Gemini
 * follows its target for the root check); a FIFO blocks Gemini forever and fails here.
 */
import { relative, resolve, dirname, basename, join, isAbsolute, sep } from "node:path";
import type { FileSystem } from "../io/file-system.js";
import type { Diagnostic } from "../core/schema.js";
import { FsError } from "../core/errors.js";
import { decodeLossy } from "../core/budget.js";
import { quote } from "../core/quote.js";

/** One import Gemini's processor inlined. */
interface GeminiImport {
  /** Absolute path of the imported file (`path.resolve(dir, P)`, not following symlinks). */
  path: string;
  /** The file holding the `@P`. */
  from: string;
  depth: number;
  bytes: number;
}

export interface GeminiImportResult {
  content: string;
  imports: GeminiImport[];
  diagnostics: Diagnostic[];
}

export interface GeminiImportOptions {
  /** `context.memoryBoundaryMarkers`. @default [".git"] */
  markers?: readonly string[];
  /** @default 5 */
  maxDepth?: number;
  /**
   * Most bytes all imported files together may add (agentsmd's budget; Gemini has none): an import
   * that does not fit is read no further and fails as Gemini fails a read, with an `EFBIG` comment.
   * @default unlimited
   */
  maxBytes?: number;
}

interface Token {
  start: number;
  end: number;
  path: string;
}

function isWhitespace(char: string | undefined): boolean {
  return char === " " || char === "\t" || char === "\n" || char === "\r";
}

function isLetter(char: string): boolean {
  const code = char.charCodeAt(0);
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * Gemini's `findImports`: every `@token` at the start or after whitespace whose path starts with
 * `.`, `/` or an ASCII letter, code or not.
 */
function findGeminiImports(content: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < content.length) {
    index = content.indexOf("@", index);
    if (index === -1) break;
    if (index > 0 && !isWhitespace(content[index - 1])) {
      index++;
      continue;
    }
    let end = index + 1;
    while (end < content.length && !isWhitespace(content[end])) end++;
    const path = content.slice(index + 1, end);
    if (path.length > 0 && (path[0] === "." || path[0] === "/" || isLetter(path[0]!))) tokens.push({ start: index, end, path });
    index = end + 1;
  }
  return tokens;
}

/** Gemini's `findCodeRegions`: [start, end) of every backtick run closed by the same run. */
function geminiCodeRegions(content: string): Array<[number, number]> {
  const regions: Array<[number, number]> = [];
  const regex = /(`+)([\s\S]*?)\1/g;
  let match: RegExpExecArray | null;
  while ((match = regex.exec(content)) !== null) regions.push([match.index, match.index + match[0].length]);
  return regions;
}

async function exists(fs: FileSystem, path: string): Promise<boolean> {
  return (await fs.stat(path).catch(() => null)) !== null;
}

/**
 * The root imports of a file in `dir` must stay inside: the nearest ancestor (or `dir`) holding a
 * marker, else `dir`; `dir` itself with no markers.
 */
async function geminiImportRoot(fs: FileSystem, dir: string, markers: readonly string[]): Promise<string> {
  const start = resolve(dir);
  if (markers.length === 0) return start;
  const usable = markers.filter((marker) => !isAbsolute(marker) && !marker.includes(".."));
  for (let current = start; ;) {
    for (const marker of usable) if (await exists(fs, join(current, marker))) return current;
    const parent = dirname(current);
    if (parent === current) return start;
    current = parent;
  }
}

const ABSENT_FOR_REALPATH = new Set(["ENOENT", "EISDIR", "ENAMETOOLONG", "ENOTDIR"]);

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof FsError ? error.code : typeof code === "string" ? code : "";
}

/** Gemini's `robustRealpath`: the real path of the longest existing prefix, the rest appended. */
async function robustRealpath(fs: FileSystem, path: string): Promise<string> {
  try {
    return await fs.realpath(path);
  } catch (error) {
    if (!ABSENT_FOR_REALPATH.has(codeOf(error))) throw error;
    // lstat: anything but "absent" is rethrown, as Gemini does (a dangling symlink is not followed here).
    await fs.lstat(path);
    const parent = dirname(path);
    if (parent === path) return path;
    return join(await robustRealpath(fs, parent), basename(path));
  }
}

/** Gemini's `resolveToRealPath`: URI-decoded, absolute, symlinks resolved as far as they exist. */
async function resolveToRealPath(fs: FileSystem, path: string): Promise<string> {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // malformed URI: keep it
  }
  return robustRealpath(fs, resolve(decoded));
}

function isSubpath(parent: string, child: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

async function validImportPath(fs: FileSystem, importPath: string, base: string, root: string): Promise<boolean> {
  if (/^(file|https?):\/\//.test(importPath)) return false;
  let target: string;
  try {
    target = await resolveToRealPath(fs, resolve(base, importPath));
  } catch {
    return false;
  }
  let allowed: string;
  try {
    allowed = await resolveToRealPath(fs, root.trim());
  } catch {
    return false;
  }
  return isSubpath(allowed, target);
}

/** Node's message for a failed `fs.access(path)` whose cause `stat` could not name. */
async function missingMessage(fs: FileSystem, path: string): Promise<string> {
  if (basename(path).length > 255 || Buffer.byteLength(path) >= 4096) return `ENAMETOOLONG: name too long, access '${quote(path)}'`;
  // ENOTDIR when the nearest existing ancestor is not a directory, ENOENT otherwise.
  for (let current = dirname(path); ; current = dirname(current)) {
    const info = await fs.stat(current).catch(() => null);
    if (info)
      return info.kind === "directory" ? `ENOENT: no such file or directory, access '${quote(path)}'` : `ENOTDIR: not a directory, access '${quote(path)}'`;
    if (dirname(current) === current) return `ENOENT: no such file or directory, access '${quote(path)}'`;
  }
}

function nodeMessage(error: unknown, syscall: string, path: string): string {
  const cause = error instanceof FsError ? error.cause : error;
  const message = cause instanceof Error ? cause.message : String(cause);
  // Node: "<CODE>: <description>, <syscall> '<path>'"; the syscall is the one Gemini made.
  return message.replace(/, [a-z]+ '/, `, ${syscall} '`).replace(/'[^']*'$/, `'${quote(path)}'`);
}

/** `fs.access(path)` then `fs.readFile(path, "utf-8")`, failing with Node's messages. */
async function readLikeGemini(fs: FileSystem, path: string, room: number): Promise<{ text: string; bytes: number }> {
  let info;
  try {
    info = await fs.stat(path);
  } catch (error) {
    throw new Error(nodeMessage(error, "access", path), { cause: error });
  }
  if (!info) throw new Error(await missingMessage(fs, path));
  if (info.kind === "directory") throw new Error("EISDIR: illegal operation on a directory, read");
  let read;
  try {
    read = await fs.read(path, room);
  } catch (error) {
    throw new Error(nodeMessage(error, "open", path), { cause: error });
  }
  if (read.truncated) throw new Error(`EFBIG: file is ${read.size} bytes, more than the ${room} bytes left in agentsmd's budget, read '${quote(path)}'`);
  return { text: decodeLossy(read.bytes, true), bytes: read.bytes.length };
}

interface Walk {
  fs: FileSystem;
  root: string;
  maxDepth: number;
  /** Bytes imports may still add. */
  budget: number;
  imports: GeminiImport[];
  diagnostics: Diagnostic[];
}

async function processTree(walk: Walk, content: string, file: string, base: string, processed: ReadonlySet<string>, depth: number): Promise<string> {
  if (depth >= walk.maxDepth) return content;
  const regions = geminiCodeRegions(content);
  let result = "";
  let last = 0;
  for (const { start, end, path } of findGeminiImports(content)) {
    result += content.slice(last, start);
    last = end;
    if (regions.some(([from, to]) => start >= from && start < to)) {
      result += `@${path}`;
      continue;
    }
    if (!(await validImportPath(walk.fs, path, base, walk.root))) {
      result += `<!-- Import failed: ${path} - Path traversal attempt -->`;
      walk.diagnostics.push(failure(file, path, `resolves outside ${walk.root}`));
      continue;
    }
    const full = resolve(base, path);
    if (processed.has(full)) {
      result += `<!-- File already processed: ${path} -->`;
      continue;
    }
    let read;
    try {
      read = await readLikeGemini(walk.fs, full, walk.budget);
    } catch (error) {
      const message = (error as Error).message;
      result += `<!-- Import failed: ${path} - ${message} -->`;
      walk.diagnostics.push(failure(file, path, `cannot be imported (${message})`));
      continue;
    }
    walk.budget -= read.bytes;
    walk.imports.push({ path: full, from: file, depth: depth + 1, bytes: read.bytes });
    const inner = await processTree(walk, read.text, full, dirname(full), new Set([...processed, full]), depth + 1);
    result += `<!-- Imported from: ${path} -->\n${inner}\n<!-- End of import from: ${path} -->`;
  }
  return result + content.slice(last);
}

function failure(file: string, path: string, why: string): Diagnostic {
  return {
    level: "warning",
    code: "import-failed",
    message: `${file}: @${path} ${why}; Gemini CLI puts an "Import failed" comment in its place`,
    path: file,
    fix: "fix the path, or write the @ inside backticks",
  };
}

/**
 * Expands the imports of `content` (the text of `file`) as Gemini CLI does when it reads a context
 * file.
 */
export async function expandGeminiImports(fs: FileSystem, content: string, file: string, options: GeminiImportOptions = {}): Promise<GeminiImportResult> {
  const base = dirname(file);
  const walk: Walk = {
    fs,
    root: await geminiImportRoot(fs, base, options.markers ?? [".git"]),
    maxDepth: options.maxDepth ?? 5,
    budget: options.maxBytes ?? Number.MAX_SAFE_INTEGER,
    imports: [],
    diagnostics: [],
  };
  const expanded = await processTree(walk, content, file, base, new Set(), 0);
  return { content: expanded, imports: walk.imports, diagnostics: walk.diagnostics };
}
