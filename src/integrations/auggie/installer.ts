/**
 * Auggie's install code as the registry's `HostInstaller`: `install`/`uninstall auggie` with their
 * messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { hooksInstalled, hooksUninstalled } from "../host/install-outcome.js";
import type { HostInstaller, InstallRequest } from "../host/definition.js";
import { commandHandlerOf } from "../host/hook-settings.js";
import { cliHookCommand, hookSpecEntries } from "../host/install-hooks.js";
import { AUGGIE_HOOK_SPECS, auggieSettingsPath, installAuggie, uninstallAuggie, type AuggieInstallScope } from "./install.js";

const where = (request: InstallRequest) => ({
  projectDir: request.projectDir,
  home: request.home,
  env: request.env,
  scope: request.scope as AuggieInstallScope,
});
const isOurs = commandHandlerOf("auggie");

export const auggieInstaller: HostInstaller = {
  async install(request) {
    const result = await installAuggie({ ...where(request), ...(request.command ? { command: `${request.command} hook auggie` } : {}) });
    return hooksInstalled(result, "the Auggie hook (PostToolUse)", { ...result, scope: request.scope });
  },
  async uninstall(request) {
    const result = await uninstallAuggie(where(request));
    return hooksUninstalled(result, { ...result, scope: request.scope });
  },
  async setup(request) {
    const context = { projectDir: request.cwd, home: request.home, env: request.env, scope: "user" as const };
    return {
      command: cliHookCommand("auggie"),
      changes: [{ file: auggieSettingsPath(context), entries: hookSpecEntries(AUGGIE_HOOK_SPECS) }],
      notes: [],
      apply: async () => ({ changed: (request.uninstall ? await uninstallAuggie(context) : await installAuggie(context)).changed, notes: [] }),
    };
  },
  verify: {
    userHookFile: ({ home, env }) => auggieSettingsPath({ scope: "user", projectDir: home, home, env }),
    projectHookFiles: (projectDir) => [join(projectDir, ".augment/settings.json")],
    event: "PostToolUse",
    tool: "view",
    answer: "hookSpecificOutput",
    projectDirVars: [],
    isOurs: (command) => isOurs({ type: "command", command }),
    payload: (dir, target) => ({
      hook_event_name: "PostToolUse",
      conversation_id: "agentsmd-setup-check",
      workspace_roots: [dir],
      tool_name: "view",
      tool_input: { path: target },
      tool_output: "",
      tool_error: null,
      is_mcp_tool: false,
    }),
  },
};
