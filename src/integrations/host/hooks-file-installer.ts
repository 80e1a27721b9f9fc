/**
 * The registry's `HostInstaller` for a host whose hooks live in one file per scope, user or project
 * (Auggie, Crush, Factory Droid, Gemini CLI, Qwen Code): `install`/`uninstall <host>` with their
 * messages and setup's user-scope plan, over the host's own install and uninstall of that file.
 */
import { join } from "../../core/paths.js";
import type { Env, HostInstaller, HostVerify, PlannedChange } from "./definition.js";
import { hooksInstalled, hooksUninstalled } from "./install-outcome.js";
import { cliHookCommand, type SettingsInstallResult } from "./install-hooks.js";

/** Where a hooks file is: the scope's file of this project and home. */
interface HooksFileWhere {
  scope: "user" | "project";
  projectDir: string;
  home: string;
  env: Env;
}

export interface HooksFileHost {
  /** The host id: `--command X` makes the hooks run `X hook <id>`. */
  id: string;
  /** What install says it added, e.g. "the Qwen Code hooks (SessionStart, PostToolUse)". */
  hooks: string;
  install(where: HooksFileWhere & { command?: string }): Promise<SettingsInstallResult>;
  uninstall(where: HooksFileWhere): Promise<SettingsInstallResult>;
  /** The files setup changes in the user scope and the entries each gets. */
  planned(user: HooksFileWhere): PlannedChange[] | Promise<PlannedChange[]>;
  verify: HostVerify;
}

export function hooksFileInstaller(host: HooksFileHost): HostInstaller {
  const where = (request: { scope: string; projectDir: string; home: string; env: Env }): HooksFileWhere => ({
    // The CLI admits only the definition's scopes, which are these two.
    scope: request.scope === "project" ? "project" : "user",
    projectDir: request.projectDir,
    home: request.home,
    env: request.env,
  });
  return {
    async install(request) {
      const result = await host.install({ ...where(request), ...(request.command ? { command: `${request.command} hook ${host.id}` } : {}) });
      return hooksInstalled(result, host.hooks, { ...result, scope: request.scope });
    },
    async uninstall(request) {
      const result = await host.uninstall(where(request));
      return hooksUninstalled(result, { ...result, scope: request.scope });
    },
    async setup(request) {
      const user: HooksFileWhere = { scope: "user", projectDir: request.cwd, home: request.home, env: request.env };
      return {
        command: cliHookCommand(host.id),
        changes: await host.planned(user),
        notes: [],
        apply: async () => ({ changed: (request.uninstall ? await host.uninstall(user) : await host.install(user)).changed, notes: [] }),
      };
    },
    verify: host.verify,
  };
}

/**
 * The check's event in Claude Code's shape, which Droid, Gemini CLI and Qwen Code also send: a
 * `tool` call with `input` in the project `dir`, with the host's own extra fields.
 */
export function claudeStyleCheckEvent(dir: string, event: string, tool: string, input: Record<string, unknown>, own: Record<string, unknown> = {}) {
  return {
    session_id: "agentsmd-setup-check",
    transcript_path: join(dir, "transcript.jsonl"),
    cwd: dir,
    hook_event_name: event,
    ...own,
    tool_name: tool,
    tool_input: input,
    tool_response: {},
  };
}
