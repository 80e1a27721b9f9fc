/**
 * What Amp's built-in tools touched, from a `tool.result` event's `tool` and `input` (Amp's tool
 * schemas as read in `@sourcegraph/amp` 0.0.1777897475's dist/main.js): `Read`, `edit_file` and
 * `create_file` take an absolute `path`; `Grep` an optional `path` (the workspace without one);
 * `glob` a `filePattern` searched from the workspace; `Bash` a `cmd`, run in `cwd` (absolute) or
 * the workspace. Which of them Amp runs its own instruction-file discovery for is `AMP_DISCOVERS`.
 * Pure (no I/O).
 */
import type { TargetTable } from "../host/targets.js";

/** Amp's file tools: the input fields that hold paths, or the workspace without one. */
export const AMP_TARGETS: TargetTable = {
  Read: { fields: ["path"] },
  edit_file: { fields: ["path"] },
  create_file: { fields: ["path"] },
  Grep: { fields: ["path"], orCwd: true },
  glob: { fields: [], orCwd: true },
};

/** The tool that runs shell commands (paths come from the command text). */
export const AMP_SHELL_TOOL = "Bash";

/**
 * The tools after which Amp itself adds the nested instruction files it has not given yet
 * (`discoveredGuidanceFiles` in the tool's result): for these, that list is what Amp gave.
 * Bash only for a command Amp judges a read, search or listing; its list tells which.
 */
export const AMP_DISCOVERS: ReadonlySet<string> = new Set(["Read", "edit_file", "create_file", "apply_patch", AMP_SHELL_TOOL]);

/**
 * The instruction files a tool result says Amp attached itself (`file://` URIs in
 * `output.discoveredGuidanceFiles`), as absolute paths; anything else in the output is ignored.
 */
export function discoveredPaths(output: unknown): string[] {
  if (output === null || typeof output !== "object" || Array.isArray(output)) return [];
  const list = (output as { discoveredGuidanceFiles?: unknown }).discoveredGuidanceFiles;
  if (!Array.isArray(list)) return [];
  const out: string[] = [];
  for (const entry of list.slice(0, 256)) {
    const uri = entry !== null && typeof entry === "object" ? (entry as { uri?: unknown }).uri : undefined;
    if (typeof uri !== "string" || !uri.startsWith("file:///") || uri.length > 8192) continue;
    try {
      const path = decodeURIComponent(uri.slice("file://".length));
      if (!path.includes("\0")) out.push(path);
    } catch {
      // a malformed escape: not a path
    }
  }
  return out;
}
