/**
 * The CLI as a function: `main(argv, io)` returns the exit code; the bin is a shim.
 *
 * Commands load lazily: only the module of the command named in argv is imported (all of them for
 * help, version or an unknown command), and a plain `hook <host>` call skips commander altogether
 * (see hook.ts).
 */
import type { Command } from "commander";
import { AgentsMdError, ConfigError } from "../core/errors.js";
import { nodeFileSystem } from "../io/file-system.js";
import { absolute } from "../core/paths.js";
import { createContext, type CommandContext } from "./context.js";
import { EXIT, withQuotedStderr, type CliIo } from "./io.js";
import { runHookArgv } from "../hook/run.js";
import { commandOf } from "./argv.js";
import { VERSION } from "../core/version.js";

export { VERSION };

type Register = (program: Command, context: CommandContext) => void;

/** Command module -> the commands it registers, in help order. */
const COMMAND_MODULES: ReadonlyArray<{ commands: readonly string[]; load(): Promise<Register> }> = [
  { commands: ["root", "list", "show", "paths", "schema"], load: () => import("./commands/inspect.js").then((m) => m.registerInspect) },
  { commands: ["resolve", "touch", "resume"], load: () => import("./commands/state.js").then((m) => m.registerState) },
  { commands: ["hook"], load: () => import("./commands/hook.js").then((m) => m.registerHook) },
  { commands: ["install", "uninstall"], load: () => import("./commands/install.js").then((m) => m.registerInstall) },
  { commands: ["setup"], load: () => import("./commands/setup.js").then((m) => m.registerSetup) },
  { commands: ["mcp"], load: () => import("./commands/mcp.js").then((m) => m.registerMcp) },
  { commands: ["explain"], load: () => import("./commands/explain.js").then((m) => m.registerExplain) },
  { commands: ["doctor"], load: () => import("./commands/doctor.js").then((m) => m.registerDoctor) },
  { commands: ["tree"], load: () => import("./commands/tree.js").then((m) => m.registerTree) },
  { commands: ["audit"], load: () => import("./commands/audit.js").then((m) => m.registerAudit) },
];

async function buildProgram(io: CliIo, command: string | undefined): Promise<Command> {
  const { Command } = await import("commander");
  const context = createContext(io);
  const wanted = COMMAND_MODULES.filter((m) => command !== undefined && m.commands.includes(command));
  const modules = wanted.length > 0 ? wanted : COMMAND_MODULES;
  const presets = (await import("../presets/table.js")).presetNames().join(", ");
  const program = new Command("agentsmd")
    .description("See and deliver the AGENTS.md instructions a coding agent gets.")
    .version(VERSION)
    .option("--cwd <dir>", "working directory (default: the process cwd)")
    .option("--root <dir>", "project root override (root.projectRootOverride)")
    .option("--markers <list>", "root markers, comma-separated")
    .option("--config <file>", "JSON config file, validated against `agentsmd schema`")
    .option("--preset <name>", `preset: ${presets} (default: codelia)`)
    .option("--home <dir>", "home directory for user layers (default: the OS home)")
    .option("--json", "machine-readable output")
    .option(
      "--no-agent-config",
      "ignore the agents' own configuration (presets codex: Codex config.toml; gemini: Gemini CLI settings.json; claude: Claude Code settings.json claudeMdExcludes; opencode: OpenCode opencode.json instructions; kilo: Kilo Code kilo.json and opencode.json instructions)",
    )
    .showHelpAfterError()
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
    .exitOverride();
  // A --cwd that is not a directory is a problem in the input, not an empty project.
  program.hook("preAction", async (_program, action) => {
    const cwd = action.optsWithGlobals<{ cwd?: string }>().cwd;
    if (cwd === undefined) return;
    const path = absolute(cwd, io.cwd);
    const info = await nodeFileSystem.stat(path).catch(() => null);
    if (info?.kind !== "directory") throw new ConfigError(`--cwd ${path} is not an existing directory`, { path, fix: "pass an existing directory to --cwd" });
  });
  for (const register of await Promise.all(modules.map((m) => m.load()))) register(program, context);
  for (const command of program.commands) command.exitOverride().configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) });
  return program;
}

/**
 * Runs the CLI.
 */
export async function main(argv: readonly string[], given: CliIo): Promise<number> {
  const io = withQuotedStderr(given);
  try {
    const command = commandOf(argv);
    if (command === "hook") {
      const code = await runHookArgv(argv, given); // quotes stderr itself
      if (code !== null) return code;
    }
    if (command === "show") {
      const code = await (await import("./lean.js")).runLeanArgv(argv, given); // quotes stderr itself
      if (code !== null) return code;
    }
    const program = await buildProgram(io, command);
    await program.parseAsync([...argv], { from: "user" });
    return EXIT.ok;
  } catch (error) {
    // commander is loaded whenever it threw (it loads lazily, so ask it only now).
    const { CommanderError } = await import("commander");
    if (error instanceof CommanderError) {
      // Help asked for (--help, `help`) is exit 0; help printed because no command was named (a bare `agentsmd`) is a usage error.
      if (error.code === "commander.help") return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return EXIT.ok;
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
