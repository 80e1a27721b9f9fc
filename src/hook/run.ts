/**
 * `agentsmd hook <host>`: the lean entry. A host runs it once per tool call, so it loads only what
 * a hook needs: no commander, no other command, only the host's own runner (`HOOK_HOSTS[host].load()`).
 * `main()` sends `hook` here first; whatever this small parser does not accept (help, an unknown
 * host or option) goes back to commander, which prints the usual help or usage error. The built
 * package runs this file from one pre-bundled file (dist/hook/agentsmd-hook.cjs, see
 * scripts/build-hook.mjs and hook/launch.ts).
 *
 * A hook must never break the user's session: every problem is one line on stderr, exit 0, no stdout.
 */
import { monotonicMs } from "../io/cache.js";
import { AgentsMdError, ConfigError } from "../core/errors.js";
import { absolute } from "../core/paths.js";
import { Deadline, deadlineMsOf } from "../core/deadline.js";
import { nodeFileSystem, syncFileSystem, type FileSystem } from "../io/file-system.js";
import type { AgentsConfig } from "../core/schema.js";
import { sessionOptionsOf, type GlobalOptions } from "../cli/context.js";
import { EXIT, withQuotedStderr, type CliIo } from "../cli/io.js";
import { GLOBAL_VALUE_OPTIONS } from "../cli/argv.js";
import { HOOK_HOSTS, type HookHostEntry } from "../integrations/hosts.js";

export interface HookInvocation {
  host: string;
  globals: GlobalOptions;
  stateDir?: string | undefined;
  /** host flags by name (HookFlag.name), unvalidated */
  flags: Record<string, string | undefined>;
}

function camel(option: string): string {
  return option.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Parses `[globals] hook <host> [options]` when it is a plain hook call; null for anything else
 * (help, a missing or unknown host, an unknown option), which commander then reports.
 */
function parseHookArgv(argv: readonly string[]): HookInvocation | null {
  const globals: Record<string, string | boolean> = {};
  const flags: Record<string, string | undefined> = {};
  let stateDir: string | undefined;
  let host: string | undefined;
  let sawHook = false;
  let entry: HookHostEntry | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string | undefined => (eq > 0 ? arg.slice(eq + 1) : argv[++index]);
    if (name === "--json" && eq < 0) globals.json = true;
    else if (GLOBAL_VALUE_OPTIONS.has(name)) {
      const v = value();
      if (v === undefined) return null;
      globals[camel(name)] = v;
    } else if (!sawHook) {
      if (arg !== "hook") return null;
      sawHook = true;
    } else if (host === undefined) {
      if (arg.startsWith("-") || !Object.hasOwn(HOOK_HOSTS, arg)) return null;
      host = arg;
      entry = HOOK_HOSTS[arg];
    } else if (name === "--state-dir") {
      stateDir = value();
      if (stateDir === undefined) return null;
    } else {
      const flag = entry?.flags?.find((f) => f.flags.split(" ")[0] === name);
      if (!flag) return null;
      const v = value();
      if (v === undefined) return null;
      flags[flag.name] = v;
    }
  }
  if (host === undefined) return null;
  return { host, globals: globals, stateDir, flags };
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, "; ").trim();
}

/**
 * Runs one hook call: the host's runner with the event on stdin. Problems in the event or the
 * state are one stderr line and exit 0; a `--cwd` that is not a directory is exit 1, like every command.
 */
export async function runHook(invocation: HookInvocation, io: CliIo): Promise<number> {
  const { host, globals } = invocation;
  const entry = HOOK_HOSTS[host];
  if (!entry) {
    io.stderr(`agentsmd: unknown hook host "${host}"; hosts: ${Object.keys(HOOK_HOSTS).join(", ")}\n`);
    return EXIT.usage;
  }
  const say = (message: string) => io.stderr(`agentsmd hook ${host}: ${oneLine(message)}\n`);
  // From the call's start: whatever the input, the answer (or nothing, and this line) comes within it.
  const deadline = new Deadline(deadlineMsOf(io.env), monotonicMs);
  try {
    if (globals.cwd !== undefined) {
      const path = absolute(globals.cwd, io.cwd);
      const info = await nodeFileSystem.stat(path).catch(() => null);
      if (info?.kind !== "directory") throw new ConfigError(`--cwd ${path} is not an existing directory`, { path, fix: "pass an existing directory to --cwd" });
    }
  } catch (error) {
    io.stderr(`agentsmd: ${(error as AgentsMdError).describe()}\n`);
    return EXIT.problem;
  }
  try {
    const flags: Record<string, string | undefined> = {};
    for (const flag of entry.flags ?? []) {
      const value = invocation.flags[flag.name];
      if (value !== undefined && flag.choices && !flag.choices.includes(value)) {
        say(`${flag.flags.split(" ")[0]} must be one of ${flag.choices.join(", ")}, not "${value}"; using the default`);
        continue;
      }
      flags[flag.name] = value;
    }
    const sessionOptions = sessionOptionsOf(globals, io);
    const run = await entry.load();
    // A hook process lives for one event: every file call on the main thread (io/file-system.ts).
    const session: { preset?: string; config?: AgentsConfig; configFile?: string; fs: FileSystem } = {
      fs: syncFileSystem,
      ...(sessionOptions.preset !== undefined ? { preset: sessionOptions.preset } : {}),
      ...(sessionOptions.config !== undefined ? { config: sessionOptions.config } : {}),
      ...(sessionOptions.configFile !== undefined ? { configFile: sessionOptions.configFile } : {}),
    };
    await run(await io.readStdin(), {
      env: io.env,
      deadline,
      ...(globals.home !== undefined ? { home: absolute(globals.home, io.cwd) } : {}),
      session,
      ...(invocation.stateDir !== undefined ? { stateDir: absolute(invocation.stateDir, io.cwd) } : {}),
      flags,
      ...(entry.quiet ? { quiet: true } : {}),
      // Written to the descriptor before the runner marks anything delivered.
      deliver: (output) => {
        if (output) io.stdout(`${JSON.stringify(output)}\n`);
      },
      onDiagnostic: say,
    });
  } catch (error) {
    const message = error instanceof AgentsMdError ? error.describe() : error instanceof Error ? error.message : String(error);
    say(message);
  }
  return EXIT.ok;
}

/**
 * `main()`'s fast path: runs a plain hook call, or returns null to let commander handle argv.
 */
export async function runHookArgv(argv: readonly string[], io: CliIo): Promise<number | null> {
  const invocation = parseHookArgv(argv);
  return invocation ? runHook(invocation, withQuotedStderr(io)) : null;
}
