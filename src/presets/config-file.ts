/**
 * Reading an agent's own configuration file: the one bounded read, the one JSONC parse and the
 * one pair of warnings (unreadable, not a JSON object) that agent-config.ts (Codex, Gemini CLI)
 * and opencode-instructions.ts (the OpenCode family) share. The parsers load on first use,
 * through require, so the hook bundle keeps them external and a hook that never parses a config
 * file never loads them.
 */
import type { ParseError } from "jsonc-parser";
import type { Diagnostic } from "../core/schema.js";
import { quote } from "../core/quote.js";
import { readTextFile, type FileSystem } from "../io/file-system.js";
import { lazyRequire } from "../io/require.js";
import { plantedAlong, plantedMessage } from "../io/real-path.js";

const required = lazyRequire(() => import.meta.url);

/**
 * A dependency loaded on first use (node:module too: io/require.ts).
 */
export function loadDependency(id: string): unknown {
  return required(id);
}

/** Largest agent configuration file read. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * The text of `file`, or null when it does not exist; a file that cannot be read is a warning
 * saying what is lost (`consequence`, e.g. "its settings are not applied"). A file another user
 * planted in a directory anyone may write (it, or one of its `levels` nearest directories: a
 * config directory) is ignored with a warning, as a planted AGENTS.md is.
 */
export async function readConfigText(file: string, fs: FileSystem, diagnostics: Diagnostic[], consequence: string, levels = 0): Promise<string | null> {
  try {
    const text = await readTextFile(file, MAX_CONFIG_BYTES, fs);
    if (text === null) return null;
    // Another user's config in a directory anyone may write is not the project's (as a planted AGENTS.md).
    const planted = await plantedAlong(fs, file, levels);
    if (planted === undefined) return text;
    diagnostics.push({
      level: "warning",
      code: "planted-in-shared-dir",
      message: `${plantedMessage(planted.path, planted.uid)}; ${consequence}`,
      path: file,
      fix: "move the file to a directory you own, or chown it",
    });
    return null;
  } catch (error) {
    diagnostics.push({
      level: "warning",
      code: "agent-config-unreadable",
      message: `cannot read ${quote(file)}: ${(error as Error).message}; ${consequence}`,
      path: file,
      fix: `check ${quote(file)} (a regular file of at most 1 MiB)`,
    });
    return null;
  }
}

/**
 * `text` parsed as JSONC (comments, trailing commas); anything but an object is a warning naming
 * `file` and what is lost, and gives undefined.
 */
export function parseJsonObject(text: string, file: string, diagnostics: Diagnostic[], consequence: string): Record<string, unknown> | undefined {
  const { parse } = loadDependency("jsonc-parser") as typeof import("jsonc-parser");
  const errors: ParseError[] = [];
  const data = parse(text, errors, { allowTrailingComma: true }) as unknown;
  if (errors.length === 0 && typeof data === "object" && data !== null && !Array.isArray(data)) return data as Record<string, unknown>;
  diagnostics.push({
    level: "warning",
    code: "agent-config-invalid",
    message: `${quote(file)} is not a JSON object; ${consequence}`,
    path: file,
    fix: `fix the JSON of ${quote(file)}`,
  });
  return undefined;
}
