/**
 * `agentsmd install cline` / `uninstall cline`: one hook file of agentsmd's own, `PostToolUse.sh`,
 * in a directory Cline runs hooks from: `~/.cline/hooks/` (user scope, Cline's default
 * `--hooks-dir`; works from every directory) or `<project>/.clinerules/hooks/` (project scope:
 * Cline reads it only when started in that directory, its workspace). Cline runs a `.sh` hook
 * with bash, so no executable bit is needed.
 *
 * Installing writes the file (unchanged when identical); uninstalling deletes it, so nothing else
 * is touched. A file of that name that agentsmd did not write is never overwritten or deleted.
 */
import { ConfigError } from "../../core/errors.js";
import { join } from "../../core/paths.js";
import { readTextFile, removeFile } from "../../io/file-system.js";
import { installEdit, uninstallEdit } from "../host/user-file.js";
import { projectHookPrefix, userHookPrefix } from "../host/hook-command.js";

export type ClineScope = "user" | "project";

/** The file name of agentsmd's hook: the event Cline dispatches it for, run with bash. */
const CLINE_HOOK_FILE = "PostToolUse.sh";

const MARK = "# agentsmd: Cline PostToolUse hook";
const OURS = new RegExp(`^#!/bin/sh\\n${MARK}[^\\n]*\\nexec [^\\n]*\\bhook cline\\n$`);

export interface ClineInstallContext {
  projectDir: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The hook file of a scope.
 */
export function clineHookPath(scope: ClineScope, context: ClineInstallContext): string {
  const dir = scope === "user" ? join(join(context.home, ".cline"), "hooks") : join(context.projectDir, ".clinerules/hooks");
  return join(dir, CLINE_HOOK_FILE);
}

/**
 * The hook file's text: a shell script running `<prefix> hook cline` (stdin passes through).
 */
export function clineHookScript(prefix: string): string {
  if (prefix.includes("\n")) throw new ConfigError("the hook command holds a line break", { fix: "give --command a command on one line" });
  return `#!/bin/sh\n${MARK} (agentsmd install cline; agentsmd uninstall cline removes this file)\nexec ${prefix} hook cline\n`;
}

/**
 * True when a hook file's text is one agentsmd wrote.
 */
export function isAgentsmdClineHook(text: string): boolean {
  return OURS.test(text);
}

export interface ClineInstallResult {
  file: string;
  scope: ClineScope;
  changed: boolean;
  command?: string;
}

function notOurs(file: string): ConfigError {
  return new ConfigError(`${file} exists and was not written by agentsmd; it was left unchanged`, {
    path: file,
    fix: `rename or remove ${file} (Cline runs every hook file of an event, so another name such as PostToolUse.js keeps yours), or install in the other scope`,
  });
}

/**
 * Writes agentsmd's hook file for `scope`. Idempotent.
 */
export async function installCline(options: ClineInstallContext & { scope: ClineScope; command?: string }): Promise<ClineInstallResult> {
  const file = clineHookPath(options.scope, options);
  const command = options.command ?? (options.scope === "project" ? await projectHookPrefix(options.projectDir) : userHookPrefix());
  const text = clineHookScript(command);
  const result = await installEdit(
    file,
    (current) => {
      if (current !== null && current !== text && !isAgentsmdClineHook(current)) throw notOurs(file);
      return text;
    },
    options,
  );
  return { file, scope: options.scope, changed: result.changed, command: `${command} hook cline` };
}

/**
 * Deletes agentsmd's hook file of `scope` (and the directories install created for it, when empty).
 */
export async function uninstallCline(options: ClineInstallContext & { scope: ClineScope }): Promise<ClineInstallResult> {
  const file = clineHookPath(options.scope, options);
  const current = await readTextFile(file, 64 * 1024);
  if (current === null) return { file, scope: options.scope, changed: false };
  if (!isAgentsmdClineHook(current)) throw notOurs(file);
  const result = await uninstallEdit(file, () => "", { ...options, isEmpty: () => true });
  // Without an install record (written by hand or an older agentsmd) that left an empty file.
  if ((await readTextFile(file, 1024).catch(() => null)) === "") await removeFile(file);
  return { file, scope: options.scope, changed: result.changed };
}
