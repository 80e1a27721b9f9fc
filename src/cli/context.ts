/**
 * Global options -> session options, shared by every command.
 */
import type { Command } from "commander";
import { absolute } from "../core/paths.js";
import type { SessionOptions } from "../session/session.js";
import type { AgentsConfig } from "../core/schema.js";
import type { CliIo } from "./io.js";
import { jsonText } from "../core/quote.js";

export interface GlobalOptions {
  cwd?: string;
  root?: string;
  markers?: string;
  config?: string;
  preset?: string;
  home?: string;
  json?: boolean;
}

export interface CommandContext {
  io: CliIo;
  /** Global options of the invocation. */
  globals(command: Command): GlobalOptions;
  /** Session options built from the global options. */
  sessionOptions(command: Command): SessionOptions;
  /** Resolves a path argument against the process cwd (shell semantics). */
  path(value: string): string;
  /** Prints one JSON document. */
  json(value: unknown): void;
  out(text: string): void;
}

export function createContext(io: CliIo): CommandContext {
  const globals = (command: Command) => command.optsWithGlobals() as GlobalOptions;
  return {
    io,
    globals,
    sessionOptions(command) {
      const options = globals(command);
      const explicit: AgentsConfig = {};
      if (options.root !== undefined || options.markers !== undefined) {
        explicit.root = {
          ...(options.root !== undefined ? { projectRootOverride: absolute(options.root, io.cwd) } : {}),
          ...(options.markers !== undefined
            ? {
                markers: options.markers
                  .split(",")
                  .map((marker) => marker.trim())
                  .filter((marker) => marker.length > 0),
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
    },
    path: (value) => absolute(value, io.cwd),
    json: (value) => io.stdout(`${jsonText(value, 2)}\n`),
    out: (text) => io.stdout(text.endsWith("\n") || text === "" ? text : `${text}\n`),
  };
}
