/**
 * Cline's install code as the registry's `HostInstaller`: `install`/`uninstall cline` with their
 * messages, setup's plan, and the read-back check of the installed hook.
 */
import { join } from "../../core/paths.js";
import { quote } from "../../core/quote.js";
import type { HostInstaller, InstallRequest } from "../host/definition.js";
import { userHookPrefix } from "../host/hook-command.js";
import { clineHookPath, installCline, uninstallCline, type ClineScope } from "./install.js";

const where = (request: InstallRequest) => ({ projectDir: request.projectDir, home: request.home, env: request.env, scope: request.scope as ClineScope });
const OURS = /(^|\s)hook\s+cline\s*$/;

export const clineInstaller: HostInstaller = {
  async install(request) {
    const result = await installCline({ ...where(request), ...(request.command ? { command: request.command } : {}) });
    return {
      changed: result.changed,
      ...(result.command !== undefined ? { command: result.command } : {}),
      json: result,
      lines: result.changed
        ? [`agentsmd: added the Cline hook (PostToolUse) as ${quote(result.file)}`, `  command: ${quote(result.command ?? "")}`]
        : [`agentsmd: ${quote(result.file)} is already agentsmd's hook; nothing changed`],
      notes:
        request.scope === "project"
          ? [
              `note: Cline runs ${quote(result.file)} only when started in ${quote(request.projectDir)} itself (its workspace is the directory it starts in): a session started in a subdirectory gets nothing from agentsmd. For every directory use the default user scope (\`agentsmd install cline\`).`,
            ]
          : [],
    };
  },
  async uninstall(request) {
    const result = await uninstallCline(where(request));
    return {
      changed: result.changed,
      json: result,
      lines: [result.changed ? `agentsmd: removed ${quote(result.file)}` : `agentsmd: no agentsmd hook at ${quote(result.file)}; nothing changed`],
      notes: [],
    };
  },
  async setup(request) {
    const context = { projectDir: request.cwd, home: request.home, env: request.env, scope: "user" as const };
    return {
      command: `${userHookPrefix()} hook cline`,
      changes: [{ file: clineHookPath("user", context), entries: ["PostToolUse"] }],
      notes: [],
      apply: async () => ({ changed: (request.uninstall ? await uninstallCline(context) : await installCline(context)).changed, notes: [] }),
    };
  },
  verify: {
    userHookFile: ({ home, env }) => clineHookPath("user", { projectDir: home, home, env }),
    projectHookFiles: (projectDir) => [join(projectDir, ".clinerules/hooks/PostToolUse.sh")],
    event: "PostToolUse",
    tool: "read_files",
    answer: "contextModification",
    projectDirVars: [],
    isOurs: (command) => OURS.test(command),
    payload: (dir, target) => ({
      clineVersion: "",
      hookName: "tool_result",
      timestamp: new Date().toISOString(),
      taskId: "agentsmd-setup-check",
      workspaceRoots: [dir],
      userId: "agentsmd",
      agent_id: "agentsmd-setup-check",
      parent_agent_id: null,
      tool_result: { id: "check", name: "read_files", input: { files: [{ path: target }] }, output: [] },
    }),
  },
};
