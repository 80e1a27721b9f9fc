/**
 * Factory Droid's install code as the registry's `HostInstaller`: `install`/`uninstall droid` with
 * their messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { claudeStyleCheckEvent, hooksFileInstaller } from "../host/hooks-file-installer.js";
import type { HostInstaller } from "../host/definition.js";
import { commandHandlerOf } from "../host/hook-settings.js";
import { hookSpecEntries } from "../host/install-hooks.js";
import { DROID_HOOK_SPECS, droidSettingsPath, installDroid, uninstallDroid } from "./install.js";

const isOurs = commandHandlerOf("droid");

export const droidInstaller: HostInstaller = hooksFileInstaller({
  id: "droid",
  hooks: "the Factory Droid hooks (SessionStart, PostToolUse, UserPromptSubmit)",
  install: installDroid,
  uninstall: uninstallDroid,
  planned: (user) => [{ file: droidSettingsPath(user), entries: hookSpecEntries(DROID_HOOK_SPECS) }],
  verify: {
    userHookFile: ({ home, env }) => droidSettingsPath({ scope: "user", projectDir: home, home, env }),
    projectHookFiles: (projectDir) => [join(projectDir, ".factory/settings.json")],
    event: "PostToolUse",
    tool: "Read",
    answer: "hookSpecificOutput",
    projectDirVars: [],
    isOurs: (command) => isOurs({ type: "command", command }),
    payload: (dir, target) =>
      claudeStyleCheckEvent(dir, "PostToolUse", "Read", { file_path: target }, { timestamp: new Date().toISOString(), permission_mode: "default" }),
  },
});
