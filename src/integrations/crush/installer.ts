/**
 * Crush's install code as the registry's `HostInstaller`: `install`/`uninstall crush` with their
 * messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { hooksFileInstaller } from "../host/hooks-file-installer.js";
import type { HostInstaller } from "../host/definition.js";
import { hookSpecEntries } from "../host/install-hooks.js";
import { isOurEntry } from "./config.js";
import { crushConfigDir as crushConfigDirOf } from "../../presets/crush.js";
import { CRUSH_HOOK_EVENTS, crushConfigPath, installCrush, uninstallCrush } from "./install.js";

export const crushInstaller: HostInstaller = hooksFileInstaller({
  id: "crush",
  hooks: "the Crush hooks (PreToolUse, PostCompact)",
  install: installCrush,
  uninstall: uninstallCrush,
  planned: async (user) => [
    { file: await crushConfigPath(user), entries: hookSpecEntries(CRUSH_HOOK_EVENTS.map(({ event, matcher }) => ({ event, matcher, timeout: 30 }))) },
  ],
  verify: {
    userHookFile: ({ home, env }) => join(crushConfigDirOf(home, env), "crush.json"),
    projectHookFiles: (projectDir) => [join(projectDir, ".crush.json"), join(projectDir, "crush.json")],
    event: "PreToolUse",
    tool: "view",
    answer: "hookSpecificOutput",
    projectDirVars: ["CRUSH_PROJECT_DIR"],
    isOurs: (command) => isOurEntry({ command }),
    payload: (dir, target) => ({
      event: "PreToolUse",
      session_id: "agentsmd-setup-check",
      cwd: dir,
      tool_name: "view",
      tool_input: { file_path: target },
    }),
  },
});
