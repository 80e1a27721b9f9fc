/**
 * The CLI as a function: `main(argv, io)` returns the exit code; the bin is a shim.
 */
import { Command, CommanderError } from "commander";
import { AgentsMdError, ConfigError } from "../core/errors.js";
import { nodeFileSystem } from "../io/file-system.js";
import { absolute } from "../core/paths.js";
import { presetNames } from "../presets/preset.js";
import { createContext } from "./context.js";
import { EXIT, type CliIo } from "./io.js";
import { registerInspect } from "./commands/inspect.js";
import { registerState } from "./commands/state.js";
import { registerHook } from "./commands/hook.js";
import { registerInstall } from "./commands/install.js";
import { registerMcp } from "./commands/mcp.js";
import { registerExplain } from "./commands/explain.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerTree } from "./commands/tree.js";
import { VERSION } from "../core/version.js";
import { quoteControls } from "../core/quote.js";

export { VERSION };

function buildProgram(io: CliIo): Command {
  const context = createContext(io);
  const program = new Command("agentsmd")
    .description("See and deliver the AGENTS.md instructions a coding agent gets.")
    .version(VERSION)
    .option("--cwd <dir>", "working directory (default: the process cwd)")
    .option("--root <dir>", "project root override (root.projectRootOverride)")
    .option("--markers <list>", "root markers, comma-separated")
    .option("--config <file>", "JSON config file, validated against `agentsmd schema`")
    .option("--preset <name>", `preset: ${presetNames().join(", ")} (default: codelia)`)
    .option("--home <dir>", "home directory for user layers (default: the OS home)")
    .option("--json", "machine-readable output")
    .showHelpAfterError()
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
    .exitOverride();
  // A --cwd that is not a directory is a problem in the input, not an empty project.
  program.hook("preAction", async (_program, action) => {
    const cwd = (action.optsWithGlobals() as { cwd?: string }).cwd;
    if (cwd === undefined) return;
    const path = absolute(cwd, io.cwd);
    const info = await nodeFileSystem.stat(path).catch(() => null);
    if (info?.kind !== "directory") throw new ConfigError(`--cwd ${path} is not an existing directory`, { path, fix: "pass an existing directory to --cwd" });
  });
  registerInspect(program, context);
  registerState(program, context);
  registerHook(program, context);
  registerInstall(program, context);
  registerMcp(program, context);
  registerExplain(program, context);
  registerDoctor(program, context);
  registerTree(program, context);
  for (const command of program.commands) command.exitOverride().configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) });
  return program;
}

/**
 * Runs the CLI.
 * @example process.exitCode = await main(process.argv.slice(2), processIo());
 */
export async function main(argv: readonly string[], given: CliIo): Promise<number> {
  // Names from an untrusted tree reach stderr inside messages: no terminal escape gets through.
  // (a prototype, not a spread: `cwd` is a getter that may throw and must stay lazy)
  const io: CliIo = Object.assign(Object.create(given) as CliIo, { stderr: (text: string) => given.stderr(quoteControls(text, { keepNewlines: true })) });
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") return EXIT.ok;
      return EXIT.usage;
    }
    if (error instanceof AgentsMdError) {
      io.stderr(`agentsmd: ${error.describe()}\n`);
      return EXIT.problem;
    }
    io.stderr(`agentsmd: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT.problem;
  }
}
