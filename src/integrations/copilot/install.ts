/**
 * `agentsmd install copilot` / `uninstall copilot`: one hooks file of agentsmd's own in a
 * directory Copilot CLI loads every `*.json` of: `~/.copilot/hooks/agentsmd.json` (user scope,
 * `$COPILOT_HOME/hooks`; works from every directory) or `<project>/.github/hooks/agentsmd.json`
 * (project scope: Copilot loads it only when started in that directory, or when that directory is
 * a trusted folder; `--trust-folder` trusts only the directory Copilot starts in).
 *
 * Installing writes the file (unchanged when identical); uninstalling deletes it, so nothing else
 * is touched. A file of that name that agentsmd did not write is never overwritten or deleted.
 */
import { ConfigError } from "../../core/errors.js";
import { join } from "../../core/paths.js";
import { readTextFile, removeFile } from "../../io/file-system.js";
import { installEdit, uninstallEdit } from "../host/user-file.js";
import { projectHookPrefix, userHookPrefix } from "../host/hook-command.js";
import { copilotHome } from "../../presets/copilot.js";
import { COPILOT_EVENTS } from "./events.js";
import { COPILOT_FILE_TOOLS } from "./targets.js";

export type CopilotScope = "user" | "project";

/** Seconds Copilot waits for one hook run. */
const COPILOT_HOOK_TIMEOUT = 30;

/** The name of agentsmd's hooks file. */
const COPILOT_HOOKS_FILE = "agentsmd.json";

const OURS = /(^|\s)hook\s+copilot\s+--event[=\s][A-Za-z]+\s*$/;

export interface CopilotInstallContext {
  projectDir: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The hooks file of a scope.
 */
export function copilotHooksPath(scope: CopilotScope, context: CopilotInstallContext): string {
  const dir = scope === "user" ? join(copilotHome(context.home, context.env), "hooks") : join(context.projectDir, ".github/hooks");
  return join(dir, COPILOT_HOOKS_FILE);
}

/**
 * The command prefix user-scope hooks run: `node` from PATH and this package's lean hook executable
 * (one pre-bundled file that takes `hook <host> ...`, src/hook/bin.ts).
 */
export function defaultCopilotCommand(): string {
  return userHookPrefix();
}

/**
 * The file agentsmd writes: one command hook per event, postToolUse only for the file tools.
 */
export function copilotHooksDocument(command: string): { version: 1; hooks: Record<string, Array<Record<string, unknown>>> } {
  const hooks: Record<string, Array<Record<string, unknown>>> = {};
  for (const event of COPILOT_EVENTS) {
    hooks[event] = [
      {
        type: "command",
        ...(event === "postToolUse" ? { matcher: COPILOT_FILE_TOOLS.join("|") } : {}),
        bash: `${command} hook copilot --event ${event}`,
        timeoutSec: COPILOT_HOOK_TIMEOUT,
      },
    ];
  }
  return { version: 1, hooks };
}

/**
 * True when a hooks file's text is one agentsmd wrote: every handler runs `… hook copilot --event <event>`.
 */
export function isAgentsmdHooksFile(text: string): boolean {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return false;
  }
  const hooks = (data as { hooks?: unknown } | null)?.hooks;
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)) return false;
  const handlers = Object.values(hooks as Record<string, unknown>).flatMap((list): unknown[] => (Array.isArray(list) ? list : [null]));
  return (
    handlers.length > 0 &&
    handlers.every((handler) => typeof (handler as { bash?: unknown } | null)?.bash === "string" && OURS.test((handler as { bash: string }).bash))
  );
}

export interface CopilotInstallResult {
  file: string;
  scope: CopilotScope;
  changed: boolean;
  command?: string;
}

function notOurs(file: string): ConfigError {
  return new ConfigError(`${file} exists and was not written by agentsmd; it was left unchanged`, {
    path: file,
    fix: `rename or remove ${file}, or install in the other scope`,
  });
}

/**
 * Writes agentsmd's hooks file for `scope` (through the install records, so uninstall also takes
 * away the directories it created). Idempotent.
 */
export async function installCopilot(options: CopilotInstallContext & { scope: CopilotScope; command?: string }): Promise<CopilotInstallResult> {
  const file = copilotHooksPath(options.scope, options);
  const command = options.command ?? (options.scope === "project" ? await projectHookPrefix(options.projectDir) : userHookPrefix());
  const text = `${JSON.stringify(copilotHooksDocument(command), null, 2)}\n`;
  const result = await installEdit(
    file,
    (current) => {
      if (current !== null && current !== text && !isAgentsmdHooksFile(current)) throw notOurs(file);
      return text;
    },
    options,
  );
  return { file, scope: options.scope, changed: result.changed, command };
}

/**
 * Deletes agentsmd's hooks file of `scope` (nothing else but the directories install created for it, when empty).
 */
export async function uninstallCopilot(options: CopilotInstallContext & { scope: CopilotScope }): Promise<CopilotInstallResult> {
  const file = copilotHooksPath(options.scope, options);
  const current = await readTextFile(file, 1024 * 1024);
  if (current === null) return { file, scope: options.scope, changed: false };
  if (!isAgentsmdHooksFile(current)) throw notOurs(file);
  const result = await uninstallEdit(file, () => "", { ...options, isEmpty: () => true });
  // Without an install record (written by hand or an older agentsmd) that left an empty file.
  if ((await readTextFile(file, 1024).catch(() => null)) === "") await removeFile(file);
  return { file, scope: options.scope, changed: result.changed };
}
