/**
 * Crush's install code as the registry's `HostInstaller`: `install`/`uninstall crush` with their
 * messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { hooksInstalled, hooksUninstalled } from "../host/install-outcome.js";
import type { HostInstaller, InstallRequest } from "../host/definition.js";
import { cliHookCommand, hookSpecEntries } from "../host/install-hooks.js";
import { isOurEntry } from "./config.js";
import { crushConfigDir as crushConfigDirOf } from "../../presets/crush.js";
import { CRUSH_HOOK_EVENTS, crushConfigPath, installCrush, uninstallCrush, type CrushInstallScope } from "./install.js";

const where = (request: InstallRequest) => ({
  projectDir: request.projectDir,
  home: request.home,
  env: request.env,
  scope: request.scope as CrushInstallScope,
});

export const crushInstaller: HostInstaller = {
  async install(request) {
    const result = await installCrush({ ...where(request), ...(request.command ? { command: `${request.command} hook crush` } : {}) });
    return hooksInstalled(result, "the Crush hooks (PreToolUse, PostCompact)", { ...result, scope: request.scope });
  },
  async uninstall(request) {
    const result = await uninstallCrush(where(request));
    return hooksUninstalled(result, { ...result, scope: request.scope });
  },
  async setup(request) {
    const context = { projectDir: request.cwd, home: request.home, env: request.env, scope: "user" as const };
    return {
      command: cliHookCommand("crush"),
      changes: [
        { file: await crushConfigPath(context), entries: hookSpecEntries(CRUSH_HOOK_EVENTS.map(({ event, matcher }) => ({ event, matcher, timeout: 30 }))) },
      ],
      notes: [],
      apply: async () => ({ changed: (request.uninstall ? await uninstallCrush(context) : await installCrush(context)).changed, notes: [] }),
    };
  },
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
};
