/**
 * `agentsmd hook claude-code`: a Claude Code command hook. Hook JSON on stdin, hook JSON on stdout.
 * A hook must never break the user's session: every problem is one line on stderr, exit 0, no stdout.
 */
import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { absolute } from "../../core/paths.js";

const MODES = ["auto", "inject", "native"] as const;

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, "; ").trim();
}

export function registerHook(program: Command, context: CommandContext): void {
  const hook = program.command("hook").description("agent host hooks: read the host's hook JSON on stdin, print the answer on stdout");
  hook
    .command("claude-code")
    .description("Claude Code hook for SessionStart, PostToolUse and UserPromptSubmit (install with `agentsmd install claude-code`)")
    .option("--agents-md <mode>", "AGENTS.md delivery: auto (skip what Claude Code loads itself), inject, native")
    .option("--state-dir <dir>", "directory of the per-session state files (default: $CLAUDE_PLUGIN_DATA/sessions, else the XDG state dir)")
    .action(async (options: { agentsMd?: string; stateDir?: string }, command: Command) => {
      const { io } = context;
      const say = (message: string) => io.stderr(`agentsmd hook claude-code: ${oneLine(message)}\n`);
      try {
        if (options.agentsMd !== undefined && !(MODES as readonly string[]).includes(options.agentsMd)) {
          say(`--agents-md must be one of ${MODES.join(", ")}, not "${options.agentsMd}"; using auto`);
          options.agentsMd = undefined;
        }
        const globals = context.globals(command);
        const sessionOptions = context.sessionOptions(command);
        const { handleClaudeCodeHook, readHookJson } = await import("../../integrations/claude-code/index.js");
        const input = readHookJson(await io.readStdin());
        const home = globals.home !== undefined ? absolute(globals.home, io.cwd) : undefined;
        await handleClaudeCodeHook(input, {
          env: io.env,
          ...(home !== undefined ? { home } : {}),
          session: {
            ...(sessionOptions.preset !== undefined ? { preset: sessionOptions.preset } : {}),
            ...(sessionOptions.config !== undefined ? { config: sessionOptions.config } : {}),
            ...(sessionOptions.configFile !== undefined ? { configFile: sessionOptions.configFile } : {}),
          },
          ...(options.stateDir !== undefined ? { stateDir: absolute(options.stateDir, io.cwd) } : {}),
          ...(options.agentsMd !== undefined ? { agentsMd: options.agentsMd as (typeof MODES)[number] } : {}),
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
