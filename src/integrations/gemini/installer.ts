/**
 * Gemini CLI's install code as the registry's `HostInstaller`: `install`/`uninstall gemini` with
 * their messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { hooksInstalled, hooksUninstalled } from "../host/install-outcome.js";
import type { HostInstaller, InstallRequest } from "../host/definition.js";
import { commandHandlerOf } from "../host/hook-settings.js";
import { hookSpecEntries } from "../host/install-hooks.js";
import { GEMINI_HOOK_SPECS, defaultGeminiCommand, geminiExtensionDir, installGemini, uninstallGemini, type GeminiInstallScope } from "./install.js";

const where = (request: InstallRequest) => ({
  projectDir: request.projectDir,
  home: request.home,
  env: request.env,
  scope: request.scope as GeminiInstallScope,
});
const isOurs = commandHandlerOf("gemini");

export const geminiInstaller: HostInstaller = {
  async install(request) {
    const result = await installGemini({ ...where(request), ...(request.command ? { command: `${request.command} hook gemini` } : {}) });
    return hooksInstalled(result, "the Gemini CLI hooks (SessionStart, BeforeAgent, AfterTool, PreCompress)", { ...result, scope: request.scope });
  },
  async uninstall(request) {
    const result = await uninstallGemini(where(request));
    return hooksUninstalled(result, { ...result, scope: request.scope });
  },
  async setup(request) {
    const context = { projectDir: request.cwd, home: request.home, env: request.env, scope: "user" as const };
    const dir = geminiExtensionDir(request.home, request.env);
    return {
      command: defaultGeminiCommand(),
      changes: [
        { file: join(dir, "gemini-extension.json"), entries: ["the extension's manifest (name agentsmd)"] },
        { file: join(join(dir, "hooks"), "hooks.json"), entries: hookSpecEntries(GEMINI_HOOK_SPECS) },
      ],
      notes: [],
      apply: async () => ({ changed: (request.uninstall ? await uninstallGemini(context) : await installGemini(context)).changed, notes: [] }),
    };
  },
  verify: {
    userHookFile: ({ home, env }) => join(join(geminiExtensionDir(home, env), "hooks"), "hooks.json"),
    projectHookFiles: (projectDir) => [join(projectDir, ".gemini/settings.json")],
    event: "AfterTool",
    tool: "read_file",
    answer: "hookSpecificOutput",
    projectDirVars: ["GEMINI_PROJECT_DIR", "GEMINI_CWD", "CLAUDE_PROJECT_DIR"],
    isOurs: (command) => isOurs({ type: "command", command }),
    payload: (dir, target) => ({
      session_id: "agentsmd-setup-check",
      transcript_path: join(dir, "transcript.jsonl"),
      cwd: dir,
      hook_event_name: "AfterTool",
      timestamp: new Date().toISOString(),
      tool_name: "read_file",
      tool_input: { absolute_path: target },
      tool_response: {},
    }),
  },
};
