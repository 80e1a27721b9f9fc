/**
 * Claude Code's install code as the registry's `HostInstaller`: `install`/`uninstall claude-code`
 * with their messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { quote } from "../../core/quote.js";
import { hooksInstalled, hooksUninstalled } from "../host/install-outcome.js";
import type { HostInstaller, InstallRequest } from "../host/definition.js";
import { claudeStyleCheckEvent } from "../host/hooks-file-installer.js";
import { commandHandlerOf } from "../host/hook-settings.js";
import { CLAUDE_HOOK_EVENTS, defaultHookCommand, installClaudeCode, settingsPath, uninstallClaudeCode, type InstallScope } from "./install.js";

const where = (request: InstallRequest) => ({ projectDir: request.projectDir, home: request.home, env: request.env, scope: request.scope as InstallScope });
const isOurs = commandHandlerOf("claude-code");

export const claudeCodeInstaller: HostInstaller = {
  async install(request) {
    const result = await installClaudeCode({ ...where(request), ...(request.command ? { command: `${request.command} hook claude-code` } : {}) });
    return hooksInstalled(
      result,
      "the Claude Code hooks (SessionStart, PostToolUse, UserPromptSubmit)",
      result,
      request.scope === "user"
        ? []
        : [
            `note: Claude Code (2.1.328 and later) reads ${quote(result.file)} only when started in ${quote(request.projectDir)} itself: a session started in a subdirectory gets nothing from agentsmd. For every directory use the default user scope (\`agentsmd install claude-code\`) or the plugin folder (\`claude --plugin-dir <agentsmd>/claude-plugin\`).`,
          ],
    );
  },
  async uninstall(request) {
    const result = await uninstallClaudeCode(where(request));
    return hooksUninstalled(result, result);
  },
  async setup(request) {
    const context = { projectDir: request.cwd, home: request.home, env: request.env, scope: "user" as const };
    return {
      command: await defaultHookCommand("user", request.cwd),
      changes: [{ file: settingsPath("user", context), entries: CLAUDE_HOOK_EVENTS.map((e) => (e.matcher ? `${e.event} (${e.matcher})` : e.event)) }],
      notes: [],
      apply: async () => ({ changed: (request.uninstall ? await uninstallClaudeCode(context) : await installClaudeCode(context)).changed, notes: [] }),
    };
  },
  verify: {
    userHookFile: ({ home, env }) => settingsPath("user", { projectDir: home, home, env }),
    projectHookFiles: (projectDir) => [join(projectDir, ".claude/settings.json"), join(projectDir, ".claude/settings.local.json")],
    event: "PostToolUse",
    tool: "Read",
    answer: "hookSpecificOutput",
    projectDirVars: ["CLAUDE_PROJECT_DIR"],
    isOurs: (command) => isOurs({ type: "command", command }),
    payload: (dir, target) => claudeStyleCheckEvent(dir, "PostToolUse", "Read", { file_path: target }),
  },
};
