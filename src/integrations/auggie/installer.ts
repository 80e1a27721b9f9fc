/**
 * Auggie's install code as the registry's `HostInstaller`: `install`/`uninstall auggie` with their
 * messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { hooksFileInstaller } from "../host/hooks-file-installer.js";
import type { HostInstaller } from "../host/definition.js";
import { commandHandlerOf } from "../host/hook-settings.js";
import { hookSpecEntries } from "../host/install-hooks.js";
import { AUGGIE_HOOK_SPECS, auggieSettingsPath, installAuggie, uninstallAuggie } from "./install.js";

const isOurs = commandHandlerOf("auggie");

export const auggieInstaller: HostInstaller = hooksFileInstaller({
  id: "auggie",
  hooks: "the Auggie hook (PostToolUse)",
  install: installAuggie,
  uninstall: uninstallAuggie,
  planned: (user) => [{ file: auggieSettingsPath(user), entries: hookSpecEntries(AUGGIE_HOOK_SPECS) }],
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
});
