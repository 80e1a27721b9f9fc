/**
 * The commands installed hooks run, chosen to survive the machine changing:
 *
 * - user scope (a file on this machine only): `node <package>/dist/hook/hook.cjs`, the lean hook
 *   executable by absolute path, with `node` found on PATH when the hook runs, so switching Node
 *   versions (nvm, fnm, a system upgrade) does not strand the hook on a Node that is gone. A package
 *   run from npx's cache, which is cleaned without notice, is called by its command name instead.
 * - project scope (a file meant to be committed): nothing absolute. The project's own copy relative
 *   to the project (`node_modules/agentsmd/dist/hook/hook.cjs`, else `node_modules/.bin/agentsmd`),
 *   behind the host's project-dir variable where the host sets one (`"$CLAUDE_PROJECT_DIR"/…`), or
 *   the command name `agentsmd` when the project has no copy of its own.
 *
 * Never `npx`: it may fetch whatever the registry serves under the name, at every tool call.
 */
import { fileURLToPath } from "node:url";
import { join } from "../../core/paths.js";
import { nodeFileSystem, type FileSystem } from "../../io/file-system.js";

/**
 * A word for a POSIX shell command line: bare when it holds only safe characters, else single-quoted.
 */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * This package's lean hook executable (dist/hook/hook.cjs). This module sits at
 * integrations/host/ under both src/ and dist/, so the path is the package's either way.
 */
export function packageHookScript(): string {
  return fileURLToPath(new URL("../../../dist/hook/hook.cjs", import.meta.url));
}

/**
 * True for a package inside npx's cache (`…/_npx/<hash>/node_modules/…`), which npm may clean at any time.
 */
export function isEphemeralPackage(path: string): boolean {
  return /[\\/]_npx[\\/]/.test(path);
}

/**
 * The command prefix of a user-scope hook (`hook <host>` follows).
 */
export function userHookPrefix(script: string = packageHookScript()): string {
  return isEphemeralPackage(script) ? "agentsmd" : `node ${shellWord(script)}`;
}

/** The project's own agentsmd: the lean executable, only the bin link, or none. */
export type LocalInstall = "hook" | "bin" | null;

/** The project's lean hook executable, relative to the project. */
const LOCAL_HOOK_SCRIPT = "node_modules/agentsmd/dist/hook/hook.cjs";
/** The project's bin link, relative to the project. */
const LOCAL_BIN = "node_modules/.bin/agentsmd";

/**
 * Which copy of agentsmd the project at `projectDir` has of its own.
 */
async function localInstall(projectDir: string, fs: FileSystem = nodeFileSystem): Promise<LocalInstall> {
  if ((await fs.stat(join(projectDir, LOCAL_HOOK_SCRIPT)).catch(() => null))?.kind === "file") return "hook";
  if ((await fs.stat(join(projectDir, LOCAL_BIN)).catch(() => null)) !== null) return "bin";
  return null;
}

/**
 * The command prefix of a project-scope hook: relative to the project (under `dirVar` when the
 * host sets one for its hooks), or the command name.
 */
export function projectPrefixOf(local: LocalInstall, dirVar?: string): string {
  const base = dirVar !== undefined ? `"$${dirVar}"/` : "";
  if (local === "hook") return `node ${base}${LOCAL_HOOK_SCRIPT}`;
  if (local === "bin") return `${base}${LOCAL_BIN}`;
  return "agentsmd";
}

/**
 * {@link projectPrefixOf} for the project at `projectDir`.
 */
export async function projectHookPrefix(projectDir: string, dirVar?: string): Promise<string> {
  return projectPrefixOf(await localInstall(projectDir), dirVar);
}
