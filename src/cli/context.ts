/**
 * Global options -> session options, shared by every command.
 */
import type { Command } from "commander";
import { absolute, pathInputProblem } from "../core/paths.js";
import { PathError } from "../core/errors.js";
import { ConfigError } from "../core/errors.js";
import { nodeFileSystem } from "../io/file-system.js";
import type { SessionOptions } from "../session/session.js";
import type { AgentsConfig } from "../core/schema.js";
import type { CliIo } from "./io.js";
import { jsonText, quote } from "../core/quote.js";

export interface GlobalOptions {
  cwd?: string;
  root?: string;
  markers?: string;
  config?: string;
  preset?: string;
  home?: string;
  json?: boolean;
  /** false with --no-agent-config. */
  agentConfig?: boolean;
}

export interface CommandContext {
  io: CliIo;
  /** Global options of the invocation. */
  globals(command: Command): GlobalOptions;
  /** Session options built from the global options. */
  sessionOptions(command: Command): SessionOptions;
  /** Resolves a path argument against the process cwd (shell semantics). */
  path(value: string): string;
  /** Resolves a directory argument; a ConfigError naming it (exit 1) when it is not an existing directory. */
  directory(value: string, what: string): Promise<string>;
  /** Prints one JSON document. */
  json(value: unknown): void;
  out(text: string): void;
  /** Model-visible text as a host would inject it: exact bytes when piped, a final newline added on a terminal only. */
  exact(text: string): void;
}

/**
 * The names of a `--markers` value (an empty list is a usage error the caller reports).
 */
export function markersOf(value: string): string[] {
  return value
    .split(",")
    .map((marker) => marker.trim())
    .filter((marker) => marker.length > 0);
}

/**
 * Session options from parsed global options (shared by the commander commands and the lean hook entry).
 */
export function sessionOptionsOf(options: GlobalOptions, io: Pick<CliIo, "cwd" | "env">): SessionOptions {
  const explicit: AgentsConfig = {};
  if (options.agentConfig === false) explicit.agentConfig = false;
  if (options.root !== undefined || options.markers !== undefined) {
    explicit.root = {
      ...(options.root !== undefined ? { projectRootOverride: absolute(options.root, io.cwd) } : {}),
      ...(options.markers !== undefined
        ? {
            markers: markersOf(options.markers),
          }
        : {}),
    };
  }
  return {
    cwd: absolute(options.cwd ?? io.cwd, io.cwd),
    env: io.env,
    ...(Object.keys(explicit).length > 0 ? { config: explicit } : {}),
    ...(options.config !== undefined ? { configFile: absolute(options.config, io.cwd) } : {}),
    ...(options.preset !== undefined ? { preset: options.preset } : {}),
    ...(options.home !== undefined ? { home: absolute(options.home, io.cwd) } : {}),
  };
}

export function createContext(io: CliIo): CommandContext {
  const globals = (command: Command) => command.optsWithGlobals<GlobalOptions>();
  return {
    io,
    globals,
    sessionOptions(command) {
      const options = globals(command);
      if (options.markers !== undefined && markersOf(options.markers).length === 0) {
        command.error(
          `error: --markers ${JSON.stringify(options.markers)} names no marker; pass a comma-separated list such as .git,.jj (root.markers: [] in a config file turns the root search off)`,
          {
            exitCode: 2,
            code: "agentsmd.emptyMarkers",
          },
        );
      }
      return sessionOptionsOf(options, io);
    },
    path: (value) => {
      // Checked before any work: a hostile 200 KB argument is refused, not resolved.
      const problem = pathInputProblem(value) ?? pathInputProblem(absolute(value, io.cwd));
      if (problem !== null) {
        const shown = value.length > 200 ? `${value.slice(0, 200)}...` : value;
        throw new PathError(`the path argument ${quote(shown)} ${problem}`, { fix: "pass the path of a file or directory that can exist" });
      }
      return absolute(value, io.cwd);
    },
    async directory(value, what) {
      const path = absolute(value, io.cwd);
      const info = await nodeFileSystem.stat(path).catch(() => null);
      if (info?.kind !== "directory")
        throw new ConfigError(`${what} ${path} is not an existing directory`, { path, fix: `pass an existing directory as ${what}` });
      return path;
    },
    json: (value) => io.stdout(`${jsonText(value, 2)}\n`),
    out: (text) => io.stdout(text.endsWith("\n") || text === "" ? text : `${text}\n`),
    exact: (text) => io.stdout(io.isTTY && text !== "" && !text.endsWith("\n") ? `${text}\n` : text),
  };
}
