/**
 * `agentsmd show` without commander: the lean entry of the command people and scripts call most.
 * Like `hook <host>` (hook.ts), it is bundled into dist/hook/agentsmd-hook.cjs (which holds the
 * session code already) and loads nothing else; whatever this small parser does not take (help, an
 * unknown option, an empty `--markers`) goes back to commander, which prints the usual help or
 * usage error.
 */
import { AgentsMdError, ConfigError } from "../core/errors.js";
import { absolute } from "../core/paths.js";
import { jsonText } from "../core/quote.js";
import { nodeFileSystem } from "../io/file-system.js";
import { createSession } from "../session/session.js";
import { GLOBAL_VALUE_OPTIONS } from "./argv.js";
import { printDiagnostics } from "./diagnostics.js";
import { markersOf, sessionOptionsOf, type GlobalOptions } from "./context.js";
import { EXIT, withQuotedStderr, type CliIo } from "./io.js";

/** The commands this entry runs. */
export const LEAN_COMMANDS: ReadonlySet<string> = new Set(["show"]);

export interface LeanInvocation {
  command: string;
  globals: GlobalOptions;
}

function camel(option: string): string {
  return option.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Parses `[globals] show [globals]`; null for anything else (commander then runs it, or reports it).
 */
export function parseLeanArgv(argv: readonly string[]): LeanInvocation | null {
  const globals: Record<string, string | boolean> = {};
  let command: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (arg === "--json") globals.json = true;
    else if (arg === "--no-agent-config") globals.agentConfig = false;
    else if (GLOBAL_VALUE_OPTIONS.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++index];
      if (value === undefined) return null;
      globals[camel(name)] = value;
    } else if (command === undefined && LEAN_COMMANDS.has(arg)) command = arg;
    else return null;
  }
  if (command === undefined) return null;
  // An empty marker list is a usage error commander words.
  if (typeof globals.markers === "string" && markersOf(globals.markers).length === 0) return null;
  return { command, globals: globals };
}

/**
 * Runs a lean invocation and returns the exit code (the same output and codes as the commander command).
 */
export async function runLean(invocation: LeanInvocation, given: CliIo): Promise<number> {
  const io = withQuotedStderr(given);
  const { globals } = invocation;
  try {
    if (globals.cwd !== undefined) {
      const path = absolute(globals.cwd, io.cwd);
      const info = await nodeFileSystem.stat(path).catch(() => null);
      if (info?.kind !== "directory") throw new ConfigError(`--cwd ${path} is not an existing directory`, { path, fix: "pass an existing directory to --cwd" });
    }
    const session = await createSession(sessionOptionsOf(globals, io));
    if (globals.json) io.stdout(`${jsonText({ root: session.root, cwd: session.cwd, message: session.initialMessage }, 2)}\n`);
    else {
      // Piped: the exact bytes a host injects. On a terminal: a final newline so the prompt starts on its own line.
      const text = session.initialMessage;
      io.stdout(io.isTTY && text !== "" && !text.endsWith("\n") ? `${text}\n` : text);
    }
    printDiagnostics(io.stderr, session.diagnostics);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof AgentsMdError) {
      io.stderr(`agentsmd: ${error.describe()}\n`);
      return EXIT.problem;
    }
    io.stderr(`agentsmd: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT.problem;
  }
}

/**
 * `main()`'s and the bundle's fast path: runs a plain `show`, or returns null to let commander handle argv.
 */
export async function runLeanArgv(argv: readonly string[], io: CliIo): Promise<number | null> {
  const invocation = parseLeanArgv(argv);
  return invocation ? runLean(invocation, io) : null;
}
