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
    .option("--deliver-initial", "the host does not load AGENTS.md itself: the tools also return the files from the root to the workspace root")
    .option("--no-watch", "revalidate by stat instead of watching the scanned directories (network mounts)")
    .action(async (options: { deliverInitial?: boolean; watch: boolean }, command: Command) => {
      const { runMcpStdio } = await import("../../integrations/mcp/index.js");
      await runMcpStdio({ ...context.sessionOptions(command), deliverInitial: options.deliverInitial === true, watch: options.watch });
    });
}
