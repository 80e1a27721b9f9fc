/**
 * Qwen Code's install code as the registry's `HostInstaller`: `install`/`uninstall qwen` with
 * their messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { hooksInstalled, hooksUninstalled } from "../host/install-outcome.js";
import type { HostInstaller, InstallRequest } from "../host/definition.js";
import { commandHandlerOf } from "../host/hook-settings.js";
import { hookSpecEntries } from "../host/install-hooks.js";
import { QWEN_HOOK_SPECS, defaultQwenCommand, installQwen, qwenSettingsPath, uninstallQwen, type QwenInstallScope } from "./install.js";

const where = (request: InstallRequest) => ({ projectDir: request.projectDir, home: request.home, env: request.env, scope: request.scope as QwenInstallScope });
const isOurs = commandHandlerOf("qwen");

export const qwenInstaller: HostInstaller = {
  async install(request) {
    const result = await installQwen({ ...where(request), ...(request.command ? { command: `${request.command} hook qwen` } : {}) });
    return hooksInstalled(result, "the Qwen Code hooks (SessionStart, PostToolUse, UserPromptSubmit)", { ...result, scope: request.scope });
  },
  async uninstall(request) {
    const result = await uninstallQwen(where(request));
    return hooksUninstalled(result, { ...result, scope: request.scope });
  },
  async setup(request) {
    const context = { projectDir: request.cwd, home: request.home, env: request.env, scope: "user" as const };
    return {
      command: defaultQwenCommand(),
      changes: [{ file: qwenSettingsPath(context), entries: hookSpecEntries(QWEN_HOOK_SPECS) }],
      notes: [],
      apply: async () => ({ changed: (request.uninstall ? await uninstallQwen(context) : await installQwen(context)).changed, notes: [] }),
    };
  },
  verify: {
    userHookFile: ({ home, env }) => qwenSettingsPath({ scope: "user", projectDir: home, home, env }),
    projectHookFiles: (projectDir) => [join(projectDir, ".qwen/settings.json")],
    event: "PostToolUse",
    tool: "read_file",
    answer: "hookSpecificOutput",
    projectDirVars: ["QWEN_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
    isOurs: (command) => isOurs({ type: "command", command }),
    payload: (dir, target) => ({
      session_id: "agentsmd-setup-check",
      transcript_path: join(dir, "transcript.jsonl"),
      cwd: dir,
      hook_event_name: "PostToolUse",
      timestamp: new Date().toISOString(),
      permission_mode: "default",
      tool_name: "read_file",
      tool_input: { absolute_path: target },
      tool_response: {},
    }),
  },
};
