/**
 * The paths a shell command line reads, lists or writes, for a host's shell tool (Codex's `Bash`,
 * whose `tool_input.command` is the model's command text run as `bash -lc <text>` in the event's
 * `cwd`; Kilo's and pi's `bash`). Pure: no I/O. Globs and "path or revision" words come back
 * marked, for `settleShellPaths` (host/shell-targets.ts) to settle against the file system. A host
 * without a shell tool never loads this module (opencode/family.ts imports it on first use).
 *
 * Only commands that are known readers/listers/writers contribute (cat, sed, grep, rg, ls, find,
 * git show, ...); an unknown program contributes nothing. A command line that cannot be read with
 * certainty (unbalanced quotes, command or process substitution, a syntax error) yields
 * `{ ok: false }`: the caller delivers nothing rather than guess.
 */
import { parse, type ParseEntry } from "shell-quote";
import { isAbsolute, posix } from "node:path";

/** How a command uses a path. */
type PathUse = "read" | "list" | "write";

export interface ShellPath {
  /** Absolute, normalised path (for a glob: the absolute pattern). */
  path: string;
  use: PathUse;
  /** `path` is an unquoted glob pattern to expand against the file system. */
  glob?: true;
  /** The word may be a revision rather than a path (git): keep it only if it exists. */
  ifExists?: true;
  /** `REV:PATH` in git: PATH is relative to the repository root found above `from`. */
  gitRoot?: { from: string; relative: string };
  /** The command printed the file's text to the model: all of it (cat) or a part (head, sed -n). */
  shown?: "whole" | "part";
}

export type ShellPathsResult = { ok: true; paths: ShellPath[] } | { ok: false; reason: string };

export interface ShellPathsContext {
  /** Absolute directory the command runs in (the hook event's `cwd`). */
  cwd: string;
  /** Home directory for `~` and `$HOME`; without it such words are skipped. */
  home?: string;
}

/** Whether a path needs the file system to settle (host/shell-targets.ts): a glob, a "revision or path" word, git's `REV:PATH`. */
export function needsFileSystem(path: ShellPath): boolean {
  return path.glob === true || path.ifExists === true || path.gitRoot !== undefined;
}

/**
 * The targets of paths none of which needs the file system, each once in order: what
 * `settleShellPaths` gives for them (it starts here); null when one does.
 */
export function plainShellTargets(paths: readonly ShellPath[]): string[] | null {
  return paths.some(needsFileSystem) ? null : [...new Set(paths.map((path) => path.path))];
}

/** Longest command text examined; longer commands yield `{ ok: false }`. */
const MAX_COMMAND_CHARS = 64 * 1024;
/** Most paths one command line contributes (the rest are dropped). */
const MAX_PATHS = 64;
/** Deepest `bash -c '...'` nesting followed. */
const MAX_NESTING = 3;

const VAR = "\u0000"; // marks a variable reference in a parsed word

type Word = string | { glob: string };

interface Spec {
  use: PathUse;
  /** Short option letters that take a separate value. */
  short?: string;
  /** Long option names (without `--`) that take a separate value. */
  long?: readonly string[];
  /** Leading operands that are not paths (a pattern, a script), unless one of `given` was used. */
  leading?: { count: number; given: readonly string[] };
  /** With no path operand the command works on its directory ("." listed). */
  defaultDot?: boolean | "when-recursive";
  /** The command prints its files' text: all of it, or a part. */
  shows?: "whole" | "part";
}

const GREP_LONG = [
  "regexp",
  "file",
  "max-count",
  "after-context",
  "before-context",
  "context",
  "include",
  "exclude",
  "exclude-dir",
  "exclude-from",
  "label",
  "binary-files",
  "devices",
  "directories",
  "group-separator",
  "color",
  "colour",
];
const RG_LONG = [
  "regexp",
  "file",
  "glob",
  "iglob",
  "type",
  "type-not",
  "type-add",
  "type-clear",
  "max-count",
  "threads",
  "max-columns",
  "encoding",
  "replace",
  "max-depth",
  "sort",
  "sortr",
  "color",
  "colors",
  "context-separator",
  "field-match-separator",
  "field-context-separator",
  "path-separator",
  "pre",
  "pre-glob",
  "ignore-file",
  "max-filesize",
  "engine",
  "dfa-size-limit",
  "regex-size-limit",
  "after-context",
  "before-context",
  "context",
  "hostname-bin",
  "hyperlink-format",
  "generate",
];

const READ: Spec = { use: "read" };
const WHOLE: Spec = { use: "read", shows: "whole" };
const SPECS: Record<string, Spec> = {
  cat: WHOLE,
  tac: WHOLE,
  less: { use: "read", short: "bhjkoOpPtTxyz", shows: "whole" },
  more: { use: "read", short: "n", shows: "whole" },
  head: { use: "read", short: "nc", long: ["lines", "bytes"], shows: "part" },
  tail: { use: "read", shows: "part", short: "ncs", long: ["lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"] },
  nl: {
    shows: "whole",
    use: "read",
    short: "bdfhilnsvw",
    long: [
      "body-numbering",
      "section-delimiter",
      "footer-numbering",
      "header-numbering",
      "line-increment",
      "join-blank-lines",
      "number-format",
      "number-separator",
      "starting-line-number",
      "number-width",
    ],
  },
  bat: {
    shows: "whole",
    use: "read",
    short: "lrHmp",
    long: [
      "language",
      "line-range",
      "highlight-line",
      "map-syntax",
      "theme",
      "style",
      "wrap",
      "tabs",
      "terminal-width",
      "color",
      "italic-text",
      "decorations",
      "paging",
      "pager",
      "diff-context",
      "file-name",
      "ignored-suffix",
    ],
  },
  batcat: {
    shows: "whole",
    use: "read",
    short: "lrHm",
    long: ["language", "line-range", "highlight-line", "map-syntax", "theme", "style", "wrap", "tabs", "terminal-width", "color", "file-name"],
  },
  wc: READ,
  file: { use: "read", short: "emfFP", long: ["exclude", "magic-file", "files-from", "separator", "parameter"] },
  stat: { use: "read", short: "c", long: ["format", "printf"] },
  od: { use: "read", short: "AjNtSw", long: ["address-radix", "skip-bytes", "read-bytes", "format", "strings", "width"] },
  xxd: { use: "read", short: "cgloOs", long: [] },
  hexdump: { use: "read", short: "efns" },
  strings: { use: "read", short: "nteTo", long: ["bytes", "radix", "encoding", "target", "output-separator"] },
  sort: {
    use: "read",
    short: "kotST",
    long: [
      "key",
      "output",
      "field-separator",
      "buffer-size",
      "temporary-directory",
      "parallel",
      "files0-from",
      "batch-size",
      "compress-program",
      "random-source",
    ],
  },
  uniq: { use: "read", short: "fsw", long: ["skip-fields", "skip-chars", "check-chars", "group", "all-repeated"] },
  cut: { use: "read", short: "bcdf", long: ["bytes", "characters", "delimiter", "fields", "output-delimiter"] },
  diff: {
    use: "read",
    short: "CUFIxXSLD",
    long: [
      "label",
      "exclude",
      "exclude-from",
      "starting-file",
      "ignore-matching-lines",
      "show-function-line",
      "from-file",
      "to-file",
      "horizon-lines",
      "ifdef",
      "line-format",
      "old-line-format",
      "new-line-format",
      "unchanged-line-format",
      "changed-group-format",
      "new-group-format",
      "old-group-format",
      "unchanged-group-format",
      "tabsize",
      "width",
      "palette",
      "color",
    ],
  },
  cmp: { use: "read", short: "inI" },
  md5sum: READ,
  sha1sum: READ,
  sha256sum: READ,
  readlink: READ,
  realpath: READ,
  source: READ,
  ".": READ,
  grep: { use: "read", short: "efmABCdD", long: GREP_LONG, leading: { count: 1, given: ["e", "f", "regexp", "file"] }, defaultDot: "when-recursive" },
  egrep: { use: "read", short: "efmABCdD", long: GREP_LONG, leading: { count: 1, given: ["e", "f", "regexp", "file"] }, defaultDot: "when-recursive" },
  fgrep: { use: "read", short: "efmABCdD", long: GREP_LONG, leading: { count: 1, given: ["e", "f", "regexp", "file"] }, defaultDot: "when-recursive" },
  rg: {
    use: "read",
    short: "efgtTABCmjMErd",
    long: RG_LONG,
    leading: { count: 1, given: ["e", "f", "regexp", "file", "files", "type-list"] },
    defaultDot: true,
  },
  ag: {
    use: "read",
    short: "ABCGgmp",
    long: ["file-search-regex", "ignore", "ignore-dir", "depth", "pager", "context", "after", "before", "max-count", "path-to-ignore"],
    leading: { count: 1, given: ["g", "l", "files-with-matches"] },
    defaultDot: true,
  },
  ack: {
    use: "read",
    short: "ABCm",
    long: ["type", "match", "max-count", "ignore-dir", "ignore-file", "context", "after-context", "before-context", "output"],
    leading: { count: 1, given: ["f", "g", "match"] },
    defaultDot: true,
  },
  sed: {
    use: "read",
    shows: "part",
    short: "efl",
    long: ["expression", "file", "line-length"],
    leading: { count: 1, given: ["e", "f", "expression", "file"] },
  },
  awk: { use: "read", short: "Fvf", long: ["field-separator", "assign", "file"], leading: { count: 1, given: ["f", "file"] } },
  gawk: {
    use: "read",
    short: "FvfEeil",
    long: ["field-separator", "assign", "file", "exec", "source", "include", "load"],
    leading: { count: 1, given: ["f", "file", "e", "source"] },
  },
  ls: {
    use: "list",
    short: "ITw",
    long: ["ignore", "hide", "tabsize", "width", "format", "sort", "time", "time-style", "quoting-style", "indicator-style", "block-size", "color"],
    defaultDot: true,
  },
  tree: { use: "list", short: "LIPo", long: ["filelimit", "timefmt", "sort", "charset", "fromfile"], defaultDot: true },
  du: { use: "list", short: "dBtX", long: ["max-depth", "block-size", "threshold", "exclude", "exclude-from", "time-style", "files0-from"], defaultDot: true },
  touch: { use: "write", short: "dtr", long: ["date", "reference"] },
  mkdir: { use: "write", short: "m", long: ["mode"] },
  tee: { use: "write" },
};

/** Wrappers whose own options are skipped and whose operand is another command. */
interface Wrapper {
  short?: string;
  long?: readonly string[];
  /** Operands of the wrapper itself before the command (timeout's duration). */
  operands?: number;
}

const WRAPPERS: Record<string, Wrapper> = {
  sudo: { short: "ugCDhprT", long: ["user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "command-timeout"] },
  env: { short: "uCS", long: ["unset", "chdir", "split-string"] },
  nice: { short: "n", long: ["adjustment"] },
  nohup: {},
  time: { short: "fo", long: ["format", "output"] },
  command: {},
  builtin: {},
  exec: { short: "a" },
  stdbuf: { short: "ioe", long: ["input", "output", "error"] },
  timeout: { short: "ks", long: ["kill-after", "signal"], operands: 1 },
  "!": {},
};

const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh"]);
const KEYWORDS = new Set(["then", "do", "else", "elif", "{", "}", "fi", "done", "esac"]);
const NO_PATH_KEYWORDS = new Set(["for", "case", "select", "function", "while", "until", "if"]);

class Unparseable extends Error {}

/**
 * The paths a shell command line names, resolved against `context.cwd`.
 */
export function shellCommandPaths(command: string, context: ShellPathsContext): ShellPathsResult {
  if (typeof command !== "string") return { ok: false, reason: "not a string" };
  if (command.length > MAX_COMMAND_CHARS) return { ok: false, reason: `longer than ${MAX_COMMAND_CHARS} characters` };
  if (!isAbsolute(context.cwd)) return { ok: false, reason: "cwd is not absolute" };
  const out: ShellPath[] = [];
  try {
    walkScript(command, posix.normalize(context.cwd), context, out, 0);
  } catch (error) {
    return { ok: false, reason: error instanceof Unparseable ? error.message : `parse error: ${(error as Error).message}` };
  }
  const seen = new Set<string>();
  const paths: ShellPath[] = [];
  for (const p of out) {
    const key = `${p.use}\u0000${p.path}\u0000${p.glob ? 1 : 0}\u0000${p.gitRoot?.relative ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    paths.push(p);
    if (paths.length >= MAX_PATHS) break;
  }
  return { ok: true, paths };
}

/**
 * Turns newlines into `;`, drops comments and heredoc bodies, joins continued lines, and refuses
 * command/process substitution and unbalanced quotes. Returns one line for shell-quote.
 */
export function flattenScript(text: string): string {
  let out = "";
  let quote: "'" | '"' | null = null;
  const heredocs: Array<{ delimiter: string; strip: boolean }> = [];
  let i = 0;
  const atWordStart = (): boolean => out.length === 0 || /[\s;&|()<>]$/.test(out);
  while (i < text.length) {
    const c = text[i] as string;
    if (quote === "'") {
      out += c;
      if (c === "'") quote = null;
      i++;
      continue;
    }
    if (c === "\\") {
      const next = text[i + 1];
      if (next === "\n") {
        i += 2; // line continuation
        continue;
      }
      out += c + (next ?? "");
      i += 2;
      continue;
    }
    if (quote === '"') {
      if (c === "`" || (c === "$" && text[i + 1] === "(")) throw new Unparseable("command substitution");
      out += c;
      if (c === '"') quote = null;
      i++;
      continue;
    }
    if (c === "'" || c === '"') {
      // $'...' (ANSI-C) is read by shell-quote itself; plain quotes tracked here
      quote = c;
      out += c;
      i++;
      continue;
    }
    if (c === "`" || (c === "$" && text[i + 1] === "(")) throw new Unparseable("command substitution");
    if ((c === "<" || c === ">") && text[i + 1] === "(") throw new Unparseable("process substitution");
    if (c === "#" && atWordStart()) {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    }
    if (c === "<" && text[i + 1] === "<" && text[i + 2] !== "<") {
      let j = i + 2;
      const strip = text[j] === "-";
      if (strip) j++;
      while (text[j] === " " || text[j] === "\t") j++;
      const m = /^(?:'([^'\n]*)'|"([^"\n]*)"|\\?([^\s;&|()<>'"]+))/.exec(text.slice(j, j + 256));
      if (!m) throw new Unparseable("heredoc without a delimiter");
      const delimiter = (m[1] ?? m[2] ?? m[3] ?? "").replace(/\\/g, "");
      heredocs.push({ delimiter, strip });
      out += " <<HEREDOC ";
      i = j + m[0].length;
      continue;
    }
    if (c === "\n") {
      i++;
      for (const doc of heredocs.splice(0)) {
        // skip the body up to the delimiter line
        for (;;) {
          if (i >= text.length) throw new Unparseable(`heredoc ${doc.delimiter} not terminated`);
          const end = text.indexOf("\n", i);
          const line = text.slice(i, end < 0 ? text.length : end);
          i = end < 0 ? text.length : end + 1;
          if ((doc.strip ? line.replace(/^\t+/, "") : line) === doc.delimiter) break;
        }
      }
      out += " ; ";
      continue;
    }
    out += c;
    i++;
  }
  if (quote) throw new Unparseable("unbalanced quote");
  if (heredocs.length > 0) throw new Unparseable("heredoc without a body");
  return out;
}

/**
 * A line of only these characters has nothing for the shell to interpret (no quote, escape,
 * operator, redirection, variable, glob, tilde, comment or line break): shell-quote reads it as its
 * words split at the spaces (test/integrations/host/shell-paths.test.ts checks that against it).
 */
export const PLAIN_LINE = /^[A-Za-z0-9_ ./,:=+@%-]*$/;

function walkScript(script: string, cwd: string, context: ShellPathsContext, out: ShellPath[], depth: number): void {
  if (depth > MAX_NESTING) throw new Unparseable("nested shells too deep");
  if (PLAIN_LINE.test(script)) {
    // One simple command, its words as shell-quote would give them: a hook process then never
    // pays shell-quote's first parse (its tokenizer regex built and compiled, about 0.7 ms).
    const words = script.split(" ").filter((word) => word !== "");
    if (words.length > 0) simpleCommand(words, [], cwd, context, out, depth, false);
    return;
  }
  const line = flattenScript(script);
  const entries = parse(line, (name: string) => `${VAR}${name}${VAR}`);
  // Split into simple commands; track cd across `;` `&&` `||`, subshells by a stack.
  const stack: Array<string | null> = [];
  let dir: string | null = cwd;
  let words: Word[] = [];
  let redirects: Array<{ op: string; target: Word | undefined }> = [];
  let inPipeline = false;
  const flush = (separator: string | null): void => {
    if (words.length > 0 || redirects.length > 0) {
      const next = simpleCommand(words, redirects, dir, context, out, depth, inPipeline || separator === "|" || separator === "|&");
      if (!inPipeline && separator !== "|" && separator !== "|&") dir = next;
    }
    words = [];
    redirects = [];
    inPipeline = separator === "|" || separator === "|&";
  };
  for (let k = 0; k < entries.length; k++) {
    const entry = entries[k] as ParseEntry;
    if (typeof entry === "string") {
      words.push(entry);
      continue;
    }
    if ("comment" in entry) continue;
    if ("op" in entry && entry.op === "glob") {
      words.push({ glob: (entry as { pattern: string }).pattern });
      continue;
    }
    const op = (entry as { op: string }).op;
    if (op === "(") {
      flush(";");
      stack.push(dir);
      continue;
    }
    if (op === ")") {
      flush(";");
      if (stack.length > 0) dir = stack.pop() ?? null;
      continue;
    }
    if (op === ";" || op === "&&" || op === "||" || op === "&" || op === "|" || op === "|&" || op === ";;" || op === ";&" || op === ";;&") {
      flush(op);
      continue;
    }
    // a redirection: the digits word just before it is a file descriptor, not an operand
    const last = words[words.length - 1];
    if (typeof last === "string" && /^\d+$/.test(last)) words.pop();
    const target = entries[k + 1];
    let word: Word | undefined;
    if (typeof target === "string") word = target;
    else if (target && typeof target === "object" && "op" in target && target.op === "glob") word = { glob: (target as { pattern: string }).pattern };
    if (word !== undefined) k++;
    redirects.push({ op, target: word });
  }
  flush(null);
}

/** A word's text, or undefined when it holds a variable we cannot know. */
function literal(word: Word, context: ShellPathsContext, cwd: string | null): string | undefined {
  if (typeof word !== "string") return undefined;
  let text = word;
  if (text.includes(VAR)) {
    text = text.replace(new RegExp(`${VAR}([^${VAR}]*)${VAR}`, "g"), (_m, name: string) => {
      if (name === "HOME" && context.home) return context.home;
      if (name === "PWD" && cwd) return cwd;
      return VAR;
    });
    if (text.includes(VAR)) return undefined;
  }
  return text;
}

function tilde(text: string, context: ShellPathsContext): string | undefined {
  if (!text.startsWith("~")) return text;
  if (text === "~" || text.startsWith("~/")) return context.home ? context.home + text.slice(1) : undefined;
  return undefined; // ~user
}

function emit(out: ShellPath[], word: Word, dir: string | null, use: PathUse, context: ShellPathsContext, extra: Partial<ShellPath> = {}): void {
  let text: string | undefined;
  let glob = false;
  if (typeof word === "string") text = literal(word, context, dir);
  else {
    text = word.glob.includes(VAR) ? undefined : word.glob;
    glob = true;
  }
  if (text === undefined || text === "" || text === "-") return;
  text = tilde(text, context);
  if (text === undefined) return;
  if (text.startsWith("/dev/") || text === "/dev" || text.startsWith("/proc/")) return;
  if (text.includes("\u0000")) return;
  if (!isAbsolute(text) && dir === null) return; // relative to a directory we could not follow
  const path = posix.normalize(isAbsolute(text) ? text : posix.join(dir as string, text));
  out.push({ path: path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path, use, ...(glob ? { glob: true as const } : {}), ...extra });
}

interface Operands {
  operands: Word[];
  /** Option names seen (short letters and long names). */
  seen: Set<string>;
  /** Values of valued options, by option name. */
  values: Array<{ name: string; value: Word }>;
}

/** getopt-like split of words into options (skipping their values) and operands. */
function splitOptions(words: readonly Word[], spec: { short?: string; long?: readonly string[] }, options: { stopAtFirstOperand?: boolean } = {}): Operands {
  const operands: Word[] = [];
  const seen = new Set<string>();
  const values: Operands["values"] = [];
  const short = spec.short ?? "";
  const long = new Set(spec.long ?? []);
  let ended = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as Word;
    const text = typeof word === "string" ? word : word.glob;
    if (ended || text === "-" || !text.startsWith("-")) {
      if (text.startsWith("+") && !ended && typeof word === "string") continue; // less +F, tail +5
      operands.push(word);
      if (options.stopAtFirstOperand) ended = true;
      continue;
    }
    if (text === "--") {
      ended = true;
      continue;
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const name = text.slice(2, eq < 0 ? undefined : eq);
      seen.add(name);
      if (eq < 0 && long.has(name) && i + 1 < words.length) values.push({ name, value: words[++i] as Word });
      else if (eq >= 0) values.push({ name, value: text.slice(eq + 1) });
      continue;
    }
    if (/^-\d+$/.test(text)) continue; // head -20
    for (let j = 1; j < text.length; j++) {
      const letter = text[j] as string;
      seen.add(letter);
      if (short.includes(letter)) {
        if (j + 1 < text.length) values.push({ name: letter, value: text.slice(j + 1) });
        else if (i + 1 < words.length) values.push({ name: letter, value: words[++i] as Word });
        break;
      }
    }
  }
  return { operands, seen, values };
}

/** Index in `words` (words[0] is the wrapper) where the wrapped command starts. */
function wrappedCommandIndex(words: readonly Word[], name: string, wrapper: Wrapper): number {
  const short = wrapper.short ?? "";
  const long = new Set(wrapper.long ?? []);
  let i = 1;
  while (i < words.length) {
    const w = words[i] as Word;
    const text = typeof w === "string" ? w : w.glob;
    if (text === "--") {
      i++;
      break;
    }
    if (!text.startsWith("-") || text === "-") break;
    if (text.startsWith("--")) i += !text.includes("=") && long.has(text.slice(2)) ? 2 : 1;
    else i += short.includes(text[text.length - 1] as string) ? 2 : 1;
  }
  if (name === "env") while (i < words.length && typeof words[i] === "string" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i] as string)) i++;
  return i + (wrapper.operands ?? 0);
}

function programName(word: Word, context: ShellPathsContext, dir: string | null): string | undefined {
  const text = literal(word, context, dir);
  if (text === undefined) return undefined;
  return text.includes("/") ? posix.basename(text) : text;
}

/** Handles one simple command; returns the directory following commands run in. */
function simpleCommand(
  input: Word[],
  redirects: Array<{ op: string; target: Word | undefined }>,
  dir: string | null,
  context: ShellPathsContext,
  out: ShellPath[],
  depth: number,
  inPipeline: boolean,
): string | null {
  try {
    return commandWords(input, dir, context, out, depth, inPipeline);
  } finally {
    for (const r of redirects) {
      if (r.target === undefined) continue;
      if (r.op === "<" || r.op === "<>") emit(out, r.target, dir, "read", context);
      else if (r.op === ">" || r.op === ">>" || r.op === ">|" || r.op === "&>" || r.op === "&>>") emit(out, r.target, dir, "write", context);
      // <<HEREDOC, <<<word, >&N, <&N: no file
    }
  }
}

function commandWords(input: Word[], dir: string | null, context: ShellPathsContext, out: ShellPath[], depth: number, inPipeline: boolean): string | null {
  let words = input.slice();
  // leading assignments and keywords
  for (;;) {
    const first = words[0];
    if (first === undefined) return dir;
    if (typeof first === "string" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) {
      words.shift();
      continue;
    }
    if (typeof first === "string" && KEYWORDS.has(first)) {
      words.shift();
      continue;
    }
    break;
  }
  let name = programName(words[0] as Word, context, dir);
  if (name === undefined) return dir;
  // wrappers: sudo, env, time, timeout 5, ...
  for (let guard = 0; guard < 8 && name !== undefined && WRAPPERS[name]; guard++) {
    words = words.slice(wrappedCommandIndex(words, name, WRAPPERS[name] as Wrapper));
    if (words.length === 0) return dir;
    name = programName(words[0] as Word, context, dir);
  }
  if (name === undefined) return dir;
  const args = words.slice(1);

  if (NO_PATH_KEYWORDS.has(name)) return dir;
  if (name === "cd" || name === "pushd") {
    const { operands } = splitOptions(args, {});
    if (inPipeline) return dir;
    if (operands.length === 0) return context.home ?? null;
    const target = operands[0] as Word;
    const text = typeof target === "string" ? literal(target, context, dir) : undefined;
    if (text === undefined || text === "-") return null;
    const expanded = tilde(text, context);
    if (expanded === undefined) return null;
    if (isAbsolute(expanded)) return posix.normalize(expanded);
    return dir === null ? null : posix.normalize(posix.join(dir, expanded));
  }
  if (name === "popd") return null;
  if (SHELLS.has(name)) {
    const { operands, values, seen } = splitOptions(args, { short: "oO", long: ["rcfile", "init-file"] });
    // bash -c 'script' / bash -lc 'script': the script is the first operand
    if (seen.has("c")) {
      const script = operands[0];
      const text = script === undefined ? undefined : literal(script, context, dir);
      if (text !== undefined && dir !== null) walkScript(text, dir, context, out, depth + 1);
      else if (text !== undefined) walkScript(text, "/", { ...context }, [], depth + 1); // validate only
      return dir;
    }
    void values;
    if (operands[0] !== undefined) emit(out, operands[0], dir, "read", context); // bash script.sh
    return dir;
  }
  if (name === "git") return gitCommand(args, dir, context, out);
  if (name === "find") {
    const roots: Word[] = [];
    for (const w of args) {
      const text = typeof w === "string" ? w : w.glob;
      if (text.startsWith("-") || text === "(" || text === "!" || text === ")") break;
      roots.push(w);
    }
    if (roots.length === 0) emit(out, ".", dir, "list", context);
    for (const r of roots) emit(out, r, dir, "list", context);
    return dir;
  }
  if (name === "cp" || name === "mv" || name === "ln" || name === "install") {
    const { operands, values } = splitOptions(args, { short: "tSm", long: ["target-directory", "suffix", "mode"] });
    const targetDir = values.find((v) => v.name === "t" || v.name === "target-directory");
    if (targetDir) {
      for (const w of operands) emit(out, w, dir, "read", context);
      emit(out, targetDir.value, dir, "write", context);
    } else if (operands.length >= 2) {
      for (const w of operands.slice(0, -1)) emit(out, w, dir, "read", context);
      emit(out, operands[operands.length - 1] as Word, dir, "write", context);
    }
    return dir;
  }
  const spec = SPECS[name];
  if (!spec) return dir;
  const { operands, seen, values } = splitOptions(args, spec);
  let paths = operands;
  if (spec.leading && !spec.leading.given.some((g) => seen.has(g))) paths = operands.slice(spec.leading.count);
  if (name === "awk" || name === "gawk") paths = paths.filter((w) => typeof w !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  // script and pattern files named by options are read too
  for (const v of values)
    if ((name === "sed" || name.endsWith("awk") || name.endsWith("grep") || name === "rg") && (v.name === "f" || v.name === "file"))
      emit(out, v.value, dir, "read", context);
  const listing =
    spec.use === "list" ||
    spec.defaultDot === true ||
    (spec.defaultDot === "when-recursive" && (seen.has("r") || seen.has("R") || seen.has("recursive") || seen.has("dereference-recursive")));
  const use: PathUse = spec.use === "read" && listing && (name === "rg" || name === "ag" || name === "ack" || name.endsWith("grep")) ? "read" : spec.use;
  if (paths.length === 0 && listing && !inPipelineStdin(name, inPipeline, spec)) emit(out, ".", dir, "list", context);
  let shown = spec.shows;
  if (shown === "whole" && (seen.has("r") || seen.has("line-range")) && name.startsWith("bat")) shown = "part";
  if (name === "sed" && (seen.has("i") || !seen.has("n"))) shown = undefined; // sed -i edits; sed without -n prints all, transformed
  for (const w of paths) emit(out, w, dir, use, context, shown ? { shown } : {});
  return dir;
}

/** grep in a pipeline without paths reads stdin; rg/ag without paths in a pipeline also read stdin. */
function inPipelineStdin(name: string, inPipeline: boolean, spec: Spec): boolean {
  return inPipeline && spec.use === "read" && name !== "ls";
}

const GIT_GLOBAL_VALUED = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"]);
const GIT_PATH_COMMANDS = new Set([
  "show",
  "diff",
  "log",
  "blame",
  "annotate",
  "ls-files",
  "ls-tree",
  "grep",
  "cat-file",
  "whatchanged",
  "shortlog",
  "difftool",
]);

function gitCommand(args: readonly Word[], dir: string | null, context: ShellPathsContext, out: ShellPath[]): string | null {
  let here = dir;
  let i = 0;
  for (; i < args.length; i++) {
    const w = args[i] as Word;
    const text = typeof w === "string" ? w : w.glob;
    if (!text.startsWith("-")) break;
    const name = text.split("=")[0] as string;
    if (GIT_GLOBAL_VALUED.has(name) && !text.includes("=")) {
      const value = args[++i];
      if (name === "-C" && value !== undefined) {
        const v = literal(value, context, here);
        const t = v === undefined ? undefined : tilde(v, context);
        here = t === undefined ? null : isAbsolute(t) ? posix.normalize(t) : here === null ? null : posix.join(here, t);
      }
    }
  }
  const sub = args[i];
  if (typeof sub !== "string" || !GIT_PATH_COMMANDS.has(sub)) return dir;
  const rest = args.slice(i + 1);
  const dash = rest.findIndex((w) => w === "--");
  const before = dash < 0 ? rest : rest.slice(0, dash);
  const after = dash < 0 ? [] : rest.slice(dash + 1);
  const use: PathUse = sub === "ls-files" || sub === "ls-tree" ? "list" : "read";
  for (const w of after) emit(out, w, here, use, context);
  const valued = new Set([
    "-n",
    "-L",
    "-S",
    "-G",
    "-O",
    "--author",
    "--committer",
    "--grep",
    "--since",
    "--until",
    "--after",
    "--before",
    "--format",
    "--pretty",
    "-U",
    "--max-count",
    "--skip",
    "-e",
    "--encoding",
    "--date",
  ]);
  const skipFirst = sub === "grep"; // git grep PATTERN [REV] [-- PATHS]
  let skipped = false;
  for (let k = 0; k < before.length; k++) {
    const w = before[k] as Word;
    const text = typeof w === "string" ? w : w.glob;
    if (text.startsWith("-")) {
      if (valued.has(text)) k++;
      continue;
    }
    if (skipFirst && !skipped) {
      skipped = true;
      continue;
    }
    if (typeof w !== "string") continue;
    const colon = w.indexOf(":");
    if (colon > 0 && (sub === "show" || sub === "cat-file") && !w.includes(VAR)) {
      const relative = w.slice(colon + 1);
      if (relative === "" || here === null) continue;
      if (relative.startsWith("./") || relative.startsWith("../")) emit(out, relative, here, use, context);
      else emit(out, relative, here, use, context, { gitRoot: { from: here, relative } });
      continue;
    }
    if (sub === "cat-file") continue;
    emit(out, w, here, use, context, { ifExists: true });
  }
  return dir;
}
