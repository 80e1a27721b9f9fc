/**
 * GitHub Copilot CLI's install code as the registry's `HostInstaller`: `install`/`uninstall
 * copilot` with their messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { quote } from "../../core/quote.js";
import type { HostInstaller, InstallRequest } from "../host/definition.js";
import { COPILOT_EVENTS } from "./events.js";
import { copilotHooksPath, defaultCopilotCommand, installCopilot, uninstallCopilot, type CopilotScope } from "./install.js";
import { COPILOT_FILE_TOOLS } from "./targets.js";

const where = (request: InstallRequest) => ({ projectDir: request.projectDir, home: request.home, env: request.env, scope: request.scope as CopilotScope });
/** The entry of the checked event (`--event postToolUse`). */
const OURS = /(^|\s)hook\s+copilot\s+--event[=\s]postToolUse\s*$/;

export const copilotInstaller: HostInstaller = {
  async install(request) {
    const result = await installCopilot({ ...where(request), ...(request.command ? { command: request.command } : {}) });
    return {
      changed: result.changed,
      ...(result.command !== undefined ? { command: result.command } : {}),
      json: result,
      lines: result.changed
        ? [
            `agentsmd: added the GitHub Copilot CLI hooks (sessionStart, userPromptSubmitted, postToolUse, preCompact) in ${quote(result.file)}`,
            `  command: ${quote(result.command ?? "")}`,
          ]
        : [`agentsmd: ${quote(result.file)} already has the agentsmd hooks; nothing changed`],
      notes:
        request.scope === "project"
          ? [
              `note: GitHub Copilot CLI loads ${quote(result.file)} only when started in ${quote(request.projectDir)} itself, or when that directory is a trusted folder (\`--trust-folder\` trusts only the directory Copilot starts in): a session started in a subdirectory gets nothing from agentsmd. For every directory use the default user scope (\`agentsmd install copilot\`).`,
            ]
          : [],
    };
  },
  async uninstall(request) {
    const result = await uninstallCopilot(where(request));
    return {
      changed: result.changed,
      json: result,
      lines: [result.changed ? `agentsmd: removed ${quote(result.file)}` : `agentsmd: no agentsmd hooks in ${quote(result.file)}; nothing changed`],
      notes: [],
    };
  },
  async setup(request) {
    const context = { projectDir: request.cwd, home: request.home, env: request.env, scope: "user" as const };
    return {
      command: `${defaultCopilotCommand()} hook copilot --event EVENT`,
      changes: [
        {
          file: copilotHooksPath("user", context),
          entries: COPILOT_EVENTS.map((e) => (e === "postToolUse" ? `${e} (${COPILOT_FILE_TOOLS.join("|")})` : e)),
        },
      ],
      notes: [],
      apply: async () => ({ changed: (request.uninstall ? await uninstallCopilot(context) : await installCopilot(context)).changed, notes: [] }),
    };
  },
  verify: {
    userHookFile: ({ home, env }) => copilotHooksPath("user", { projectDir: home, home, env }),
    projectHookFiles: (projectDir) => [join(projectDir, ".github/hooks/agentsmd.json")],
    event: "postToolUse",
    tool: "create",
    answer: "top",
    projectDirVars: ["CLAUDE_PROJECT_DIR"],
    isOurs: (command) => OURS.test(command),
    payload: (dir, target) => ({
      sessionId: "agentsmd-setup-check",
      timestamp: Date.now(),
      cwd: dir,
      toolName: "create",
      toolArgs: { path: target, file_text: "notes\n" },
      toolResult: { resultType: "success", textResultForLlm: `Created file ${target}` },
    }),
  },
};
