/**
 * Factory Droid's install code as the registry's `HostInstaller`: `install`/`uninstall droid` with
 * their messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { hooksInstalled, hooksUninstalled } from "../host/install-outcome.js";
import type { HostInstaller, InstallRequest } from "../host/definition.js";
import { commandHandlerOf } from "../host/hook-settings.js";
import { cliHookCommand, hookSpecEntries } from "../host/install-hooks.js";
import { DROID_HOOK_SPECS, droidSettingsPath, installDroid, uninstallDroid, type DroidInstallScope } from "./install.js";

const where = (request: InstallRequest) => ({
  projectDir: request.projectDir,
  home: request.home,
  env: request.env,
  scope: request.scope as DroidInstallScope,
});
const isOurs = commandHandlerOf("droid");

export const droidInstaller: HostInstaller = {
  async install(request) {
    const result = await installDroid({ ...where(request), ...(request.command ? { command: `${request.command} hook droid` } : {}) });
    return hooksInstalled(result, "the Factory Droid hooks (SessionStart, PostToolUse, UserPromptSubmit)", { ...result, scope: request.scope });
  },
  async uninstall(request) {
    const result = await uninstallDroid(where(request));
    return hooksUninstalled(result, { ...result, scope: request.scope });
  },
  async setup(request) {
    const context = { projectDir: request.cwd, home: request.home, env: request.env, scope: "user" as const };
    return {
      command: cliHookCommand("droid"),
      changes: [{ file: droidSettingsPath(context), entries: hookSpecEntries(DROID_HOOK_SPECS) }],
      notes: [],
      apply: async () => ({ changed: (request.uninstall ? await uninstallDroid(context) : await installDroid(context)).changed, notes: [] }),
    };
  },
  verify: {
    userHookFile: ({ home, env }) => droidSettingsPath({ scope: "user", projectDir: home, home, env }),
    projectHookFiles: (projectDir) => [join(projectDir, ".factory/settings.json")],
    event: "PostToolUse",
    tool: "Read",
    answer: "hookSpecificOutput",
    projectDirVars: [],
    isOurs: (command) => isOurs({ type: "command", command }),
    payload: (dir, target) => ({
      session_id: "agentsmd-setup-check",
      transcript_path: join(dir, "transcript.jsonl"),
      cwd: dir,
      hook_event_name: "PostToolUse",
      timestamp: new Date().toISOString(),
      permission_mode: "default",
      tool_name: "Read",
      tool_input: { file_path: target },
      tool_response: {},
    }),
  },
};
