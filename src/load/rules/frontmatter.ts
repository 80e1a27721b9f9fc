/**
 * Frontmatter of scoped-rule files: the `---` header parsed with the `yaml` package (never regexes
 * over YAML), every key kept. Pure: text in, data out.
 *
 * Glob keys get one leniency the formats need: Cursor and Windsurf write `globs: *.ts` or
 * `globs: "a/**", "b/**"` unquoted, which YAML reads as an alias or a syntax error. Those hosts read
 * the value as raw text, so the inline value of a glob key is taken as raw text too, and parsed as
 * YAML only when it is a flow list (`[...]`) or one quoted scalar.
 */
import type { LineCounter } from "yaml";
import { lazyRequire } from "../../io/require.js";

const load = lazyRequire(() => import.meta.url);

type Yaml = typeof import("yaml");
let yaml: Yaml | undefined;
/** `yaml` loads on first use: a tree without rule files (every hook process on one) never parses it. */
const loadYaml = (): Yaml => (yaml ??= load("yaml") as Yaml);

/** The most header bytes parsed; a longer header is reported, not parsed. */
const MAX_FRONTMATTER_CHARS = 64 * 1024;

interface FrontmatterError {
  /** 1-based line in the file. */
  line: number;
  message: string;
}

export interface Frontmatter {
  /** True when the file starts with a `---` header (closed or not). */
  present: boolean;
  /** Every key of the header, unknown ones included; `{}` without a header or on an error. */
  data: Record<string, unknown>;
  /** The text after the header (the whole text without one); line ends normalised to `\n`. */
  body: string;
  /** 1-based line of the file where `body` starts. */
  bodyLine: number;
  /** Set when the header cannot be used: the line and what is wrong. */
  error?: FrontmatterError;
}

const RAW = "\u0000raw:";

/**
 * Splits and parses a `---` YAML header.
 */
export function parseFrontmatter(input: string, rawKeys: readonly string[] = []): Frontmatter {
  const text = input.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!/^---[ \t]*\n/.test(text)) return { present: false, data: {}, body: text, bodyLine: 1 };
  const lines = text.split("\n");
  let close = -1;
  for (let i = 1; i < lines.length; i++) {
    if (/^(---|\.\.\.)[ \t]*$/.test(lines[i]!)) {
      close = i;
      break;
    }
  }
  if (close < 0) {
    return {
      present: true,
      data: {},
      body: text,
      bodyLine: 1,
      error: { line: 1, message: "the `---` header is never closed: add a `---` line after the last key" },
    };
  }
  const body = lines.slice(close + 1).join("\n");
  const bodyLine = close + 2;
  const headerLines = lines.slice(1, close);
  if (headerLines.join("\n").length > MAX_FRONTMATTER_CHARS) {
    return { present: true, data: {}, body, bodyLine, error: { line: 2, message: `the header is longer than ${MAX_FRONTMATTER_CHARS} characters` } };
  }
  const raws: string[] = [];
  const keyPattern = rawKeys.length ? new RegExp(`^(${rawKeys.map(escapeRegExp).join("|")})([ \\t]*:[ \\t]+)(\\S.*?)[ \\t]*$`) : null;
  const source = headerLines
    .map((line) => {
      const match = keyPattern?.exec(line);
      if (!match || isYamlValue(match[3]!)) return line;
      raws.push(match[3]!);
      return `${match[1]}${match[2]}"${RAW}${raws.length - 1}"`;
    })
    .join("\n");
  const { LineCounter, parseDocument } = loadYaml();
  const counter = new LineCounter();
  const doc = parseDocument(source, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const problem = doc.errors[0];
  if (problem) return { present: true, data: {}, body, bodyLine, error: { line: 1 + lineOf(counter, problem.pos[0]), message: firstLine(problem.message) } };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 50 });
  } catch (error) {
    return { present: true, data: {}, body, bodyLine, error: { line: 2, message: firstLine((error as Error).message) } };
  }
  if (value === null || value === undefined) return { present: true, data: {}, body, bodyLine };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { present: true, data: {}, body, bodyLine, error: { line: 2, message: "the header is not a mapping of `key: value` lines" } };
  }
  const data = value as Record<string, unknown>;
  for (const key of Object.keys(data)) {
    const entry = data[key];
    if (typeof entry === "string" && entry.startsWith(RAW)) data[key] = raws[Number(entry.slice(RAW.length))];
  }
  return { present: true, data, body, bodyLine };
}

/** True when an inline glob value is safe to hand to YAML: a flow list or one quoted scalar. */
function isYamlValue(value: string): boolean {
  if (value.startsWith("[")) return true;
  const quote = value[0];
  if (quote !== '"' && quote !== "'") return false;
  // One quoted scalar only: `"a", "b"` is raw text (a comma list of quoted globs).
  const rest = value.slice(1);
  const end = quote === '"' ? rest.search(/(?<!\\)"/) : rest.search(/'(?!')/);
  return end === rest.length - 1;
}

function lineOf(counter: LineCounter, offset: number): number {
  return counter.linePos(offset).line;
}

function firstLine(message: string): string {
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
