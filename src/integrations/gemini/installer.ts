/**
 * Gemini CLI's install code as the registry's `HostInstaller`: `install`/`uninstall gemini` with
 * their messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { claudeStyleCheckEvent, hooksFileInstaller } from "../host/hooks-file-installer.js";
import type { HostInstaller } from "../host/definition.js";
import { commandHandlerOf } from "../host/hook-settings.js";
import { hookSpecEntries } from "../host/install-hooks.js";
import { GEMINI_HOOK_SPECS, geminiExtensionDir, installGemini, uninstallGemini } from "./install.js";

const isOurs = commandHandlerOf("gemini");

export const geminiInstaller: HostInstaller = hooksFileInstaller({
  id: "gemini",
  hooks: "the Gemini CLI hooks (SessionStart, BeforeAgent, AfterTool, PreCompress)",
  install: installGemini,
  uninstall: uninstallGemini,
  planned: (user) => {
    const dir = geminiExtensionDir(user.home, user.env);
    return [
      { file: join(dir, "gemini-extension.json"), entries: ["the extension's manifest (name agentsmd)"] },
      { file: join(join(dir, "hooks"), "hooks.json"), entries: hookSpecEntries(GEMINI_HOOK_SPECS) },
    ];
  },
  verify: {
    userHookFile: ({ home, env }) => join(join(geminiExtensionDir(home, env), "hooks"), "hooks.json"),
    projectHookFiles: (projectDir) => [join(projectDir, ".gemini/settings.json")],
    event: "AfterTool",
    tool: "read_file",
    answer: "hookSpecificOutput",
    projectDirVars: ["GEMINI_PROJECT_DIR", "GEMINI_CWD", "CLAUDE_PROJECT_DIR"],
    isOurs: (command) => isOurs({ type: "command", command }),
    payload: (dir, target) => claudeStyleCheckEvent(dir, "AfterTool", "read_file", { absolute_path: target }, { timestamp: new Date().toISOString() }),
  },
});
