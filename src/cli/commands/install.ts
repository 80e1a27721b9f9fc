/**
 * `agentsmd install <host>` / `agentsmd uninstall <host>`: register agentsmd with an agent host.
 */
import { InvalidArgumentError, type Command } from "commander";
import { homedir } from "node:os";
import type { CommandContext } from "../context.js";
import { absolute } from "../../core/paths.js";
import { INSTALL_SCOPES, installClaudeCode, uninstallClaudeCode, type InstallScope } from "../../integrations/claude-code/install.js";

const HOSTS = ["claude-code"];

function parseScope(value: string): InstallScope {
  if (!(INSTALL_SCOPES as readonly string[]).includes(value)) throw new InvalidArgumentError(`use one of ${INSTALL_SCOPES.join(", ")}`);
  return value as InstallScope;
}

function parseHost(value: string): string {
  if (!HOSTS.includes(value))
    throw new InvalidArgumentError(`supported: ${HOSTS.join(", ")} (for Codex, Gemini CLI and other MCP hosts register \`agentsmd mcp\`; see the README)`);
  return value;
}

export function registerInstall(program: Command, context: CommandContext): void {
  const where = (command: Command) => {
    const globals = context.globals(command);
    return {
      projectDir: absolute(globals.cwd ?? context.io.cwd, context.io.cwd),
      home: globals.home !== undefined ? absolute(globals.home, context.io.cwd) : (context.io.env.HOME ?? homedir()),
      env: context.io.env,
    };
  };
  const scopeHelp = "user: ~/.claude/settings.json; project: <cwd>/.claude/settings.json (committed); local: <cwd>/.claude/settings.local.json (personal)";

  program
    .command("install")
    .description("register agentsmd with an agent host: claude-code (merges hook entries into a Claude Code settings.json)")
    .argument("<host>", `host: ${HOSTS.join(", ")}`, parseHost)
    .option("--scope <scope>", scopeHelp, parseScope, "user")
    .option(
      "--command <command>",
      'command the hooks run, without "hook claude-code" (default: the project\'s node_modules/.bin/agentsmd for project/local scope when present, else this CLI by absolute path)',
    )
    .action(async (_host: string, options: { scope: InstallScope; command?: string }, command: Command) => {
      const result = await installClaudeCode({
        ...where(command),
        scope: options.scope,
        ...(options.command ? { command: `${options.command.trim()} hook claude-code` } : {}),
      });
      if (context.globals(command).json) context.json(result);
      else if (result.changed)
        context.out(`agentsmd: added the Claude Code hooks (SessionStart, PostToolUse, UserPromptSubmit) to ${result.file}\n  command: ${result.command}`);
      else context.out(`agentsmd: ${result.file} already has the agentsmd hooks; nothing changed`);
    });

  program
    .command("uninstall")
    .description("remove what `agentsmd install <host>` added, and nothing else")
    .argument("<host>", `host: ${HOSTS.join(", ")}`, parseHost)
    .option("--scope <scope>", scopeHelp, parseScope, "user")
    .action(async (_host: string, options: { scope: InstallScope }, command: Command) => {
      const result = await uninstallClaudeCode({ ...where(command), scope: options.scope });
      if (context.globals(command).json) context.json(result);
      else if (result.changed) context.out(`agentsmd: removed the agentsmd hooks from ${result.file}`);
      else context.out(`agentsmd: no agentsmd hooks in ${result.file}; nothing changed`);
    });
}
