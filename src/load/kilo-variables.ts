/**
 * Kilo Code's config-variable substitution in instruction files, as Kilo 7.7.7 applies it
 * (`ConfigVariable.substitute` in markdown mode, through `Instruction`'s reader): what preset
 * `kilo` uses so its text is Kilo's (e2e/kilo/preset.e2e.test.ts proves it against the real binary).
 *
 * - A reference on a line whose text before it starts with `//` (after leading blanks) stays as written.
 * - Project files (`trusted: false`): a `{env:NAME}` anywhere else makes Kilo refuse the file, and
 *   its text becomes "" (dropped from the prompt); `${env:...}` and `${file:...}` are not references.
 * - The global file (`trusted: true`): `{env:NAME}` becomes the variable's value ("" when unset);
 *   a reference to one of Kilo's server secrets refuses the file.
 * - `{file:P}` is replaced by that file's text, trimmed: `P` relative to the file's directory, `~/`
 *   the home, or absolute. A file that cannot be read gives "". For a project file the target's
 *   real path must lie inside the project root (Kilo's file scope), else the whole file is refused;
 *   so is a `/proc/.../environ` target. Inserted text is not substituted again.
 *
 * Not reproduced: a FIFO or device named by `{file:}` blocks Kilo's read; here it gives "" with a
 * diagnostic. agentsmd's byte budget bounds what is inlined: a target that does not fit stays as
 * written, with a diagnostic.
 */
import type { FileSystem } from "../io/file-system.js";
import type { Diagnostic } from "../core/schema.js";
import { absolute, isInside, parentOf } from "../core/paths.js";
import { decodeLossy } from "../core/budget.js";

/** Environment variables Kilo never substitutes (its server and browser-broker secrets). */
const BLOCKED_ENV: ReadonlySet<string> = new Set(["KILO_SERVER_PASSWORD", "KILO_SERVER_USERNAME", "KILO_BROWSER_BROKER_URL", "KILO_BROWSER_BROKER_TOKEN"]);

export interface KiloSubstituteOptions {
  fs: FileSystem;
  /** The global file (no file scope, `{env:}` substituted); false for project files. */
  trusted: boolean;
  /** The project root a project file's `{file:}` targets must resolve into (Kilo's worktree, else its directory). */
  root: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Most bytes all inlined files together may add. */
  maxBytes: number;
}

/** One `{file:}` reference that was inlined. */
interface KiloInclude {
  path: string;
  from: string;
  depth: 1;
  bytes: number;
}

export interface KiloSubstitution {
  /** The text Kilo gives the model; "" when Kilo refuses the file. */
  content: string;
  includes: KiloInclude[];
  diagnostics: Diagnostic[];
}

/** A variable reference of `kind` at `index` in `text`, Kilo's regular expression per mode. */
function references(text: string, kind: "env" | "file", markdown: boolean): RegExpMatchArray[] {
  const pattern = kind === "env" ? (markdown ? /(?<!\$)\{env:([^}]+)\}/g : /\{env:([^}]+)\}/g) : markdown ? /(?<!\$)\{file:([^}]+)\}/g : /\{file:([^}]+)\}/g;
  return [...text.matchAll(pattern)];
}

/**
 * True when the line holding `index` starts, before it, with `//` (Kilo's comment rule).
 */
export function inCommentLine(text: string, index: number): boolean {
  const start = text.lastIndexOf("\n", index - 1) + 1;
  return text.slice(start, index).trimStart().startsWith("//");
}

/** True when the text holds something Kilo would substitute or refuse (a quick test before any work). */
export function mayHoldVariables(text: string): boolean {
  return text.includes("{env:") || text.includes("{file:");
}

/** What a `{file:}` target gives: text, or "refuse" (the whole file is dropped), or "keep" (left as written). */
type Target = { text: string; path: string; bytes: number } | "refuse" | "keep";

async function readTarget(reference: string, from: string, options: KiloSubstituteOptions, room: number, report: (d: Diagnostic) => void): Promise<Target> {
  const { fs } = options;
  const written = reference.slice("{file:".length, -1);
  const target = written.startsWith("~/") ? absolute(written.slice(2), options.home) : absolute(written, parentOf(from));
  const empty = (why: string): Target => {
    report({
      level: "warning",
      code: "kilo-file-unreadable",
      message: `${from}: ${reference} ${why}; Kilo inserts nothing there`,
      path: from,
      fix: `fix the path in ${reference}`,
    });
    return { text: "", path: target, bytes: 0 };
  };
  const real = await fs.realpath(target).catch(() => null);
  if (real === null) return empty(`names ${target}, which cannot be opened`);
  if (!options.trusted) {
    const root = await fs.realpath(options.root).catch(() => options.root);
    if (!isInside(real, root)) {
      report({
        level: "warning",
        code: "kilo-file-outside-root",
        message: `${from}: ${reference} resolves to ${real}, outside the project root ${root}; Kilo refuses the whole file`,
        path: from,
        fix: `move the file into the project or remove ${reference}`,
      });
      return "refuse";
    }
  }
  if (/^\/proc\/.*\/environ$/.test(real)) return "refuse";
  const info = await fs.stat(real).catch(() => null);
  if (info?.kind !== "file") return empty(`names ${target}, which is not a regular file`);
  if (info.size > room) {
    report({
      level: "warning",
      code: "kilo-file-over-budget",
      message: `${from}: ${reference} is ${info.size} bytes, more than the ${room} bytes left in the budget; it stays as written`,
      path: from,
      fix: "shorten it or raise the budget",
    });
    return "keep";
  }
  const read = await fs.read(real, room).catch(() => null);
  if (read === null) return empty(`names ${target}, which cannot be read`);
  if (read.truncated) return "keep";
  return { text: decodeLossy(read.bytes, false).trim(), path: target, bytes: read.bytes.length };
}

/**
 * Kilo's substitution of `text`, the content of the instruction file `from`.
 */
export async function substituteKiloVariables(text: string, from: string, options: KiloSubstituteOptions): Promise<KiloSubstitution> {
  const diagnostics: Diagnostic[] = [];
  const report = (diagnostic: Diagnostic) => diagnostics.push(diagnostic);
  const refused = (message: string, fix: string): KiloSubstitution => {
    report({ level: "warning", code: "kilo-file-refused", message: `${from}: ${message}; Kilo leaves this file out of the prompt`, path: from, fix });
    return { content: "", includes: [], diagnostics };
  };
  const markdown = !options.trusted;
  const envs = references(text, "env", markdown).filter((match) => !inCommentLine(text, match.index!));
  if (!options.trusted && envs.length > 0) {
    return refused(
      `${envs[0]![0]} is an environment reference, which Kilo does not allow in project files`,
      `remove ${envs[0]![0]} (or start its line with //)`,
    );
  }
  const blocked = envs.find((match) => BLOCKED_ENV.has(match[1]!.toUpperCase()));
  if (blocked) return refused(`${blocked[0]} names a variable Kilo never substitutes`, `remove ${blocked[0]}`);
  let substituted = "";
  let last = 0;
  for (const match of envs) {
    substituted += text.slice(last, match.index) + (options.env[match[1]!] || "");
    last = match.index! + match[0].length;
  }
  substituted += text.slice(last);

  const includes: KiloInclude[] = [];
  let room = options.maxBytes;
  let out = "";
  last = 0;
  for (const match of references(substituted, "file", markdown)) {
    if (inCommentLine(substituted, match.index!)) continue;
    const target = await readTarget(match[0], from, options, room, report);
    if (target === "refuse") return { content: "", includes: [], diagnostics };
    if (target === "keep") continue;
    out += substituted.slice(last, match.index) + target.text;
    last = match.index! + match[0].length;
    room -= target.bytes;
    if (target.bytes > 0) includes.push({ path: target.path, from, depth: 1, bytes: target.bytes });
  }
  return { content: out + substituted.slice(last), includes, diagnostics };
}
