/**
 * `agentsmd hook <host>`: a host's command hook, one subcommand per entry of HOOK_HOSTS. Hook JSON
 * on stdin, the host's answer JSON on stdout. A hook must never break the user's session: every
 * problem is one line on stderr, exit 0, no stdout.
 */
import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { absolute } from "../../core/paths.js";
import { HOOK_HOSTS, type HookHostEntry } from "../../integrations/hosts.js";

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, "; ").trim();
}

function registerHost(hook: Command, name: string, entry: HookHostEntry, context: CommandContext): void {
  const command = hook
    .command(name)
    .description(entry.description)
    .option("--state-dir <dir>", "directory of the per-conversation state files (default: the host's, else $XDG_STATE_HOME/agentsmd/<host>)");
  for (const flag of entry.flags ?? []) command.option(flag.flags, flag.description);
  command.action(async (options: Record<string, string | undefined>, command: Command) => {
    const { io } = context;
    const say = (message: string) => io.stderr(`agentsmd hook ${name}: ${oneLine(message)}\n`);
    try {
      const flags: Record<string, string | undefined> = {};
      for (const flag of entry.flags ?? []) {
        const value = options[flag.name];
        if (value !== undefined && flag.choices && !flag.choices.includes(value)) {
          say(`${flag.flags.split(" ")[0]} must be one of ${flag.choices.join(", ")}, not "${value}"; using the default`);
          continue;
        }
        flags[flag.name] = value;
      }
      const globals = context.globals(command);
      const sessionOptions = context.sessionOptions(command);
      const run = await entry.load();
      const home = globals.home !== undefined ? absolute(globals.home, io.cwd) : undefined;
      const stateDir = options.stateDir;
      await run(await io.readStdin(), {
        env: io.env,
        ...(home !== undefined ? { home } : {}),
        session: {
          ...(sessionOptions.preset !== undefined ? { preset: sessionOptions.preset } : {}),
          ...(sessionOptions.config !== undefined ? { config: sessionOptions.config } : {}),
          ...(sessionOptions.configFile !== undefined ? { configFile: sessionOptions.configFile } : {}),
        },
        ...(stateDir !== undefined ? { stateDir: absolute(stateDir, io.cwd) } : {}),
        flags,
        deliver: (output) => {
          if (output) io.stdout(`${JSON.stringify(output)}\n`);
        },
        onDiagnostic: say,
      });
    } catch (error) {
      const message = error instanceof Error ? ((error as { describe?: () => string }).describe?.() ?? error.message) : String(error);
      say(message);
    }
  });
}

export function registerHook(program: Command, context: CommandContext): void {
  const hook = program.command("hook").description("agent host hooks: read the host's hook JSON on stdin, print the answer on stdout");
  for (const [name, entry] of Object.entries(HOOK_HOSTS)) registerHost(hook, name, entry, context);
}
