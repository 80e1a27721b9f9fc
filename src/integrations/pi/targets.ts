/**
 * What pi's built-in tools touched (pi 0.87: `read`, `edit`, `write` take `path`; `grep`, `find`,
 * `ls` take an optional `path`, cwd without one; `bash` takes `command`). Paths are resolved as pi
 * resolves them (`resolveToCwd`): a leading `@` dropped, `~` and `~/` are the home, `file://` URLs
 * are paths, unusual Unicode spaces are plain spaces, relative paths are against the session cwd.
 * Pure (no I/O).
 */
import { fileURLToPath } from "node:url";
import { absolute, join } from "../../core/paths.js";

/** pi's file tools and whether a call without `path` means cwd. */
export const PI_FILE_TOOLS: Readonly<Record<string, { orCwd: boolean }>> = {
  read: { orCwd: false },
  edit: { orCwd: false },
  write: { orCwd: false },
  grep: { orCwd: true },
  find: { orCwd: true },
  ls: { orCwd: true },
};

/** The tool that runs shell commands (paths come from the command text). */
export const PI_SHELL_TOOL = "bash";

/** The most characters a path argument may have (longer ones are ignored, never walked). */
const MAX_PI_PATH_CHARS = 4096;

// The spaces pi's normalizeUnicodeSpaces turns into " " (NBSP, the U+2000 block, NNBSP, MMSP, ideographic space).
const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/**
 * One path argument as pi resolves it, absolute; undefined when unusable.
 */
export function piPath(value: unknown, cwd: string, home: string): string | undefined {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_PI_PATH_CHARS || value.includes("\0")) return undefined;
  let path = value.replace(UNICODE_SPACES, " ");
  if (path.startsWith("@")) path = path.slice(1);
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  if (path.startsWith("file://")) {
    try {
      path = fileURLToPath(path);
    } catch {
      return undefined;
    }
  }
  return path.length > 0 ? absolute(path, cwd) : undefined;
}

/**
 * The absolute paths a file tool call touched (empty for other tools and unusable input).
 */
export function piToolTargets(tool: string, input: Readonly<Record<string, unknown>>, cwd: string, home: string): string[] {
  const rule = Object.hasOwn(PI_FILE_TOOLS, tool) ? PI_FILE_TOOLS[tool] : undefined;
  if (!rule) return [];
  if (input.path === undefined || input.path === null || input.path === "") return rule.orCwd ? [cwd] : [];
  const path = piPath(input.path, cwd, home);
  return path ? [path] : [];
}
