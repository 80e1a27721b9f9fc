/**
 * `agentsmd mcp`: the MCP server on stdio (tools agents_resolve and agents_context, resource
 * agentsmd://initial). Global options (--cwd, --preset, --config, --home, --root, --markers) apply.
 */
import type { Command } from "commander";
import { homedir } from "node:os";
import type { CommandContext } from "../context.js";
import { hostDefinitions } from "../../integrations/registry.js";
import { importAt } from "../../integrations/host/installers.js";
import type { HostHistory } from "../../integrations/host/held.js";
import type { SessionOptions } from "../../session/session.js";
import { nodeFileSystem } from "../../io/file-system.js";
import { absolute, homeFromEnv } from "../../core/paths.js";

/**
 * The record of the host whose preset the server runs with (`--preset continue`: Continue CLI's
 * session files), when its definition has one (`HostDefinition.mcp`); none for any other preset.
 */
async function hostHistoryFor(options: SessionOptions): Promise<HostHistory | undefined> {
  const preset = options.preset;
  const host = preset === undefined ? undefined : hostDefinitions().find((each) => each.mcp && each.preset === preset);
  if (!host?.mcp) return undefined;
  const open = await host.mcp.load(importAt);
  const env = options.env ?? process.env;
  const fs = options.fs ?? nodeFileSystem;
  return open({ cwd: absolute(options.cwd ?? process.cwd(), process.cwd()), home: options.home ?? homeFromEnv(env, homedir), env, fs });
}

export function registerMcp(program: Command, context: CommandContext): void {
  program
    .command("mcp")
    .description("MCP server on stdio: tools agents_resolve / agents_context, resource agentsmd://initial (workspace: the client's roots, else --cwd)")
    .option("--deliver-initial", "the host does not load AGENTS.md itself: the tools also return the files from the root to the workspace root")
    .option("--no-watch", "revalidate by stat instead of watching the scanned directories (network mounts)")
    .action(async (options: { deliverInitial?: boolean; watch: boolean }, command: Command) => {
      const { runMcpStdio } = await import("../../integrations/mcp/index.js");
      const sessionOptions = context.sessionOptions(command);
      const history = await hostHistoryFor(sessionOptions);
      await runMcpStdio({ ...sessionOptions, deliverInitial: options.deliverInitial === true, watch: options.watch, ...(history ? { history } : {}) });
    });
}
