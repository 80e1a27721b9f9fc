/**
 * The console examples of the docs, as data (pure: text in, examples out). The form, documented in
 * docs/README.md ("Examples in these pages"):
 *
 * - a fenced block opened by ```console holds commands and their output;
 * - a line `$ agentsmd ARGS` is a command (ARGS split as a POSIX shell would, without expansions
 *   or operators); the lines after it, up to the next `$ ` line or the end of the block, are its
 *   standard output, exactly;
 * - any other block type (```sh, ```text, ...) is never run.
 *
 * @example
 * const examples = consoleExamples("README.md", readFileSync("README.md", "utf8"));
 */
import { parse } from "shell-quote";

interface ConsoleCommand {
  /** 1-based line of the `$ ` line in its file. */
  line: number;
  /** The arguments after `agentsmd`. */
  argv: string[];
  /** The output the docs show, lines joined by "\n", without a final newline. */
  expected: string;
}

export interface ConsoleExample {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  commands: ConsoleCommand[];
}

const OPEN = /^```console\s*$/;
const FENCE = /^```/;

/** Every ```console block of a markdown text; a malformed one throws an error naming the file, the line and the fix. */
export function consoleExamples(file: string, text: string): ConsoleExample[] {
  const lines = text.split("\n");
  const examples: ConsoleExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!OPEN.test(lines[i]!)) {
      if (FENCE.test(lines[i]!)) i = closingFence(lines, i, file);
      continue;
    }
    const end = closingFence(lines, i, file);
    examples.push({ file, line: i + 1, commands: commandsOf(file, lines, i + 1, end) });
    i = end;
  }
  return examples;
}

function closingFence(lines: readonly string[], open: number, file: string): number {
  for (let j = open + 1; j < lines.length; j++) if (/^```\s*$/.test(lines[j]!)) return j;
  throw new Error(`${file}:${open + 1}: a fenced block is never closed; add a line \`\`\` after it`);
}

function commandsOf(file: string, lines: readonly string[], from: number, end: number): ConsoleCommand[] {
  const commands: ConsoleCommand[] = [];
  let current: { line: number; argv: string[]; output: string[] } | undefined;
  const flush = (): void => {
    if (current) commands.push({ line: current.line, argv: current.argv, expected: current.output.join("\n") });
  };
  for (let j = from; j < end; j++) {
    const text = lines[j]!;
    if (text.startsWith("$ ")) {
      flush();
      current = { line: j + 1, argv: argvOf(file, j + 1, text.slice(2)), output: [] };
    } else if (current) {
      current.output.push(text);
    } else {
      throw new Error(`${file}:${j + 1}: a console block starts with its first \`$ agentsmd ...\` line; put other text outside it or use a \`\`\`text block`);
    }
  }
  flush();
  if (commands.length === 0) throw new Error(`${file}:${from}: an empty console block; add a \`$ agentsmd ...\` line or remove the block`);
  return commands;
}

function argvOf(file: string, line: number, command: string): string[] {
  const words = parse(command);
  if (!words.every((word): word is string => typeof word === "string")) {
    throw new Error(
      `${file}:${line}: a console command takes plain words only (no pipes, redirections, globs or comments); show it in a \`\`\`sh block, which is not run`,
    );
  }
  if (words[0] !== "agentsmd") {
    throw new Error(`${file}:${line}: a console block runs only \`agentsmd ...\` commands; show "${words[0]}" in a \`\`\`sh block, which is not run`);
  }
  return words.slice(1);
}

export interface Normalise {
  /** The repository's absolute path, printed as `/…`. */
  repo: string;
  /** The example's scratch directory, printed as `~` (arguments under `~/` are mapped into it: a state file lives in a directory only its user may write). */
  scratch: string;
}

/** The argument as run: `~/x` becomes `<scratch>/x`, so each example starts from nothing. */
export function mapArgument(arg: string, normalise: Normalise): string {
  return arg.startsWith("~/") ? `${normalise.scratch}/${arg.slice("~/".length)}` : arg;
}

/** mtimes differ on every checkout: both sides print them as `<mtime>`. */
export function normaliseMtimes(text: string): string {
  return text.replace(/mtime: \d+(\.\d+)?/g, "mtime: <mtime>").replace(/"mtimeMs": \d+(\.\d+)?/g, '"mtimeMs": "<mtime>"');
}

/** What a command printed, as the docs show it: repository path `/…`, scratch `~`, one final newline dropped, mtimes normalised. */
export function normaliseOutput(stdout: string, normalise: Normalise): string {
  const text = stdout.endsWith("\n") ? stdout.slice(0, -1) : stdout;
  return normaliseMtimes(text.split(normalise.scratch).join("~").split(normalise.repo).join("/…"));
}
