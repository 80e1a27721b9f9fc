/**
 * Continue CLI's install code as the registry's `HostInstaller`: `install`/`uninstall continue`
 * (an MCP server entry, no hook: cn 1.5.47 runs none) and setup's plan. No `verify`: there is no
 * hook to run; the server answers `agentsmd mcp`'s own tests and e2e/continue.
 */
import { quote } from "../../core/quote.js";
import type { HostInstaller, InstallOutcome, InstallRequest } from "../host/definition.js";
import { continueConfigPath, SERVER_NAME } from "./config.js";
import { installContinue, serverEntry, uninstallContinue, type ContinueInstallResult } from "./install.js";

const where = (request: InstallRequest) => ({
  home: request.home,
  env: request.env,
  ...(typeof request.options.configFile === "string" ? { configFile: request.options.configFile } : {}),
});

function commandLine(result: ContinueInstallResult): string {
  return result.entry ? [result.entry.command, ...result.entry.args].map(quote).join(" ") : "";
}

function installed(result: ContinueInstallResult): InstallOutcome {
  return {
    changed: result.changed,
    ...(result.entry ? { command: commandLine(result) } : {}),
    json: result,
    lines: result.changed
      ? [`agentsmd: added the MCP server ${quote(SERVER_NAME)} to ${quote(result.file)}`, `  command: ${commandLine(result)}`]
      : [`agentsmd: ${quote(result.file)} already has the agentsmd MCP server; nothing changed`],
    notes: [],
  };
}

function uninstalled(result: ContinueInstallResult): InstallOutcome {
  return {
    changed: result.changed,
    json: result,
    lines: [
      result.changed
        ? `agentsmd: removed the agentsmd MCP server from ${quote(result.file)}`
        : `agentsmd: no agentsmd MCP server in ${quote(result.file)}; nothing changed`,
    ],
    notes: [],
  };
}

export const continueInstaller: HostInstaller = {
  async install(request) {
    return installed(await installContinue({ ...where(request), ...(request.command ? { command: request.command } : {}) }));
  },
  async uninstall(request) {
    return uninstalled(await uninstallContinue(where(request)));
  },
  async setup(request) {
    const context = { home: request.home, env: request.env };
    const entry = serverEntry();
    return {
      command: [entry.command, ...entry.args].join(" "),
      changes: [{ file: continueConfigPath(request.home, request.env), entries: [`mcpServers: ${SERVER_NAME}`] }],
      notes: ["Continue CLI runs no hooks: the model gets nested AGENTS.md files by calling the agents_context tool"],
      apply: async () => ({ changed: (request.uninstall ? await uninstallContinue(context) : await installContinue(context)).changed, notes: [] }),
    };
  },
};
