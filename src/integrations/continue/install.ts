/**
 * `agentsmd install continue` / `uninstall continue`: agentsmd's MCP server in Continue CLI's
 * `config.yaml` (`~/.continue/config.yaml`, or the file `--config-file` names: the one you run
 * `cn --config` with). Through host/user-file.ts: uninstall gives the file's bytes back.
 */
import { fileURLToPath } from "node:url";
import { parse as parseShell } from "shell-quote";
import { ConfigError } from "../../core/errors.js";
import { quote } from "../../core/quote.js";
import { isEphemeralPackage } from "../host/hook-command.js";
import { installEdit, uninstallEdit } from "../host/user-file.js";
import type { Env } from "../host/definition.js";
import { continueConfigPath, withAgentsmdServer, withoutAgentsmdServer, type ServerEntry } from "./config.js";

/** What cn runs after the command: the MCP server with what cn loads itself as its initial bundle. */
const SERVER_ARGS = ["mcp", "--preset", "continue"] as const;

export interface ContinueInstallOptions {
  home: string;
  env: Env;
  /** The config file (absolute); default `~/.continue/config.yaml`. */
  configFile?: string;
  /** `--command`: what runs instead of this package's CLI, e.g. "agentsmd" or "node /x/dist/cli/bin.js". */
  command?: string;
}

export interface ContinueInstallResult {
  changed: boolean;
  file: string;
  entry?: ServerEntry;
}

/** This package's CLI (dist/cli/bin.js): this module sits at integrations/continue/ under src/ and dist/. */
function packageCliScript(): string {
  return fileURLToPath(new URL("../../../dist/cli/bin.js", import.meta.url));
}

/**
 * The server entry: `node <package>/dist/cli/bin.js mcp --preset continue` (node from PATH, as the
 * hooks of other hosts), `agentsmd` by name from npx's cache, or the words of `--command`.
 */
export function serverEntry(command?: string, script: string = packageCliScript()): ServerEntry {
  if (command === undefined)
    return isEphemeralPackage(script) ? { command: "agentsmd", args: [...SERVER_ARGS] } : { command: "node", args: [script, ...SERVER_ARGS] };
  const words = parseShell(command);
  if (words.length === 0 || words.some((word) => typeof word !== "string"))
    throw new ConfigError(`--command ${quote(command)} is not a plain command line (cn runs it without a shell)`, {
      fix: 'pass the program and its arguments only, e.g. --command "node /path/to/agentsmd/dist/cli/bin.js"',
    });
  const [program, ...rest] = words as string[];
  return { command: program!, args: [...rest, ...SERVER_ARGS] };
}

function fileOf(options: ContinueInstallOptions): string {
  return options.configFile ?? continueConfigPath(options.home, options.env);
}

/** Adds agentsmd's MCP server to the config. Idempotent; a missing config is refused (cn would lose its hub config). */
export async function installContinue(options: ContinueInstallOptions): Promise<ContinueInstallResult> {
  const file = fileOf(options);
  const entry = serverEntry(options.command);
  const result = await installEdit(
    file,
    (text) => {
      // Without config.yaml cn runs its hub assistant; a file holding only agentsmd's server would replace it.
      if (text === null)
        throw new ConfigError(`no Continue config at ${quote(file)}`, {
          path: file,
          fix: `create ${quote(file)} with your models (Continue's local config.yaml), or pass --config-file with the config you run \`cn --config\` with`,
        });
      return withAgentsmdServer(text, file, entry);
    },
    { env: options.env, home: options.home },
  );
  return { changed: result.changed, file, entry };
}

/** Takes agentsmd's server out of the config: its exact earlier bytes when unchanged since. */
export async function uninstallContinue(options: Omit<ContinueInstallOptions, "command">): Promise<ContinueInstallResult> {
  const file = fileOf(options);
  const result = await uninstallEdit(file, (text) => withoutAgentsmdServer(text, file), {
    env: options.env,
    home: options.home,
    isEmpty: (text) => text.trim() === "",
  });
  return { changed: result.changed, file };
}
