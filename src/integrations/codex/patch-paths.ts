/**
 * The paths an `apply_patch` patch touches: every `*** Add File:`, `*** Update File:`,
 * `*** Delete File:` and `*** Move to:` header (Codex's patch format; the hook event carries the
 * patch text in `tool_input.command`). Pure: no I/O.
 */
import { isAbsolute, posix } from "node:path";

export type PatchAction = "add" | "update" | "delete" | "move-to";

export interface PatchPath {
  /** Absolute, normalised. */
  path: string;
  action: PatchAction;
}

/** Longest patch text examined; the headers of a longer patch are read up to this point. */
export const MAX_PATCH_CHARS = 8 * 1024 * 1024;
/** Most paths one patch contributes. */
export const MAX_PATCH_PATHS = 256;

const HEADER = /^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$/;
const ACTIONS: Record<string, PatchAction> = { "Add File": "add", "Update File": "update", "Delete File": "delete", "Move to": "move-to" };

/**
 * The files a patch adds, updates, deletes or moves to, resolved against `cwd`; in patch order,
 * each path once (first action wins).
 * @example patchPaths("*** Begin Patch\n*** Add File: docs/new.md\n+hi\n*** End Patch\n", "/repo")
 * // [{ path: "/repo/docs/new.md", action: "add" }]
 */
export function patchPaths(patch: string, cwd: string): PatchPath[] {
  if (typeof patch !== "string" || !isAbsolute(cwd)) return [];
  const text = patch.length > MAX_PATCH_CHARS ? patch.slice(0, MAX_PATCH_CHARS) : patch;
  const found: PatchPath[] = [];
  const seen = new Set<string>();
  let start = 0;
  while (start < text.length && found.length < MAX_PATCH_PATHS) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end < 0 ? text.length : end).replace(/\r$/, "");
    start = end < 0 ? text.length : end + 1;
    if (!line.startsWith("*** ")) continue;
    const m = HEADER.exec(line);
    if (!m) continue;
    const name = (m[2] as string).trim();
    if (name === "" || name.includes("\u0000")) continue;
    const path = posix.normalize(isAbsolute(name) ? name : posix.join(cwd, name));
    if (seen.has(path)) continue;
    seen.add(path);
    found.push({ path, action: ACTIONS[m[1] as string] as PatchAction });
  }
  return found;
}
