/**
 * `agentsmd mcp`: the MCP server on stdio (tools agents_resolve and agents_context, resource
 * agentsmd://initial). Global options (--cwd, --preset, --config, --home, --root, --markers) apply.
 */
import type { Command } from "commander";
import type { CommandContext } from "../context.js";

export function registerMcp(program: Command, context: CommandContext): void {
  program
    .command("mcp")
    .description("MCP server on stdio: tools agents_resolve / agents_context, resource agentsmd://initial (workspace: the client's roots, else --cwd)")
    .action(async (_options, command: Command) => {
      const { runMcpStdio } = await import("../../integrations/mcp.js");
      await runMcpStdio(context.sessionOptions(command));
    });
}
