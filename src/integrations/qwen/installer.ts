/**
 * Qwen Code's install code as the registry's `HostInstaller`: `install`/`uninstall qwen` with
 * their messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { claudeStyleCheckEvent, hooksFileInstaller } from "../host/hooks-file-installer.js";
import type { HostInstaller } from "../host/definition.js";
import { commandHandlerOf } from "../host/hook-settings.js";
import { hookSpecEntries } from "../host/install-hooks.js";
import { QWEN_HOOK_SPECS, installQwen, qwenSettingsPath, uninstallQwen } from "./install.js";

const isOurs = commandHandlerOf("qwen");

export const qwenInstaller: HostInstaller = hooksFileInstaller({
  id: "qwen",
  hooks: "the Qwen Code hooks (SessionStart, PostToolUse, UserPromptSubmit)",
  install: installQwen,
  uninstall: uninstallQwen,
  planned: (user) => [{ file: qwenSettingsPath(user), entries: hookSpecEntries(QWEN_HOOK_SPECS) }],
  verify: {
    userHookFile: ({ home, env }) => qwenSettingsPath({ scope: "user", projectDir: home, home, env }),
    projectHookFiles: (projectDir) => [join(projectDir, ".qwen/settings.json")],
    event: "PostToolUse",
    tool: "read_file",
    answer: "hookSpecificOutput",
    projectDirVars: ["QWEN_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
    isOurs: (command) => isOurs({ type: "command", command }),
    payload: (dir, target) =>
      claudeStyleCheckEvent(dir, "PostToolUse", "read_file", { absolute_path: target }, { timestamp: new Date().toISOString(), permission_mode: "default" }),
  },
});
