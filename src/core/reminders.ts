/**
 * The `<system-reminder>` catalog (docs/loading-rules.md#reminders). Pure text builders.
 */
import type { ResolvedAgents, SystemReminderType } from "./schema.js";
import { quote } from "./quote.js";

/**
 * Wraps `body` in a typed reminder (docs/loading-rules.md#reminders: the `type` attribute is required).
 * @example systemReminder("agents.resolve.paths", "...") // '<system-reminder type="agents.resolve.paths">\n...\n</system-reminder>'
 */
export function systemReminder(type: SystemReminderType, body: string): string {
  return `<system-reminder type="${type}">\n${body}\n</system-reminder>`;
}

/**
 * `agents.resolve.paths` (docs/loading-rules.md#progressive-resolution); "" when nothing is new.
 * @example agentsResolvePaths({ files: [{ path: "/repo/feature/AGENTS.md", mtimeMs: 1738970000000, sizeBytes: 10 }] })
 */
export function agentsResolvePaths(resolved: ResolvedAgents): string {
  if (resolved.files.length === 0) return "";
  const lines = resolved.files.map((file) => `- ${quote(file.path)} (mtime: ${formatMtime(file.mtimeMs)})`);
  return systemReminder(
    "agents.resolve.paths",
    ["Additional AGENTS.md may apply for this path:", ...lines, "Read and apply these files before editing files in this scope."].join("\n"),
  );
}

export interface ResumeDiffInput {
  cwd: { before: string; after: string };
  root: { before: string; after: string };
  markers: { before: readonly string[]; after: readonly string[] };
  recheck: ResolvedAgents["files"];
}

/**
 * `session.resume.diff` (docs/loading-rules.md#resume): a line for each of cwd, root and markers that
 * changed, then the AGENTS.md to re-check; "" when nothing changed.
 * @example sessionResumeDiff({ cwd: { before: "/r", after: "/r/a" }, root: { before: "/r", after: "/r" }, markers: { before: [".git"], after: [".git"] }, recheck: [] })
 */
export function sessionResumeDiff(input: ResumeDiffInput): string {
  const markersBefore = JSON.stringify(input.markers.before);
  const markersAfter = JSON.stringify(input.markers.after);
  const changed = input.cwd.before !== input.cwd.after || input.root.before !== input.root.after || markersBefore !== markersAfter || input.recheck.length > 0;
  if (!changed) return "";
  // Only what changed: a line `X -> X` reads as a change to the model.
  const lines = ["Session resumed with context changes:"];
  if (input.cwd.before !== input.cwd.after) lines.push(`- cwd: ${quote(input.cwd.before)} -> ${quote(input.cwd.after)}`);
  if (input.root.before !== input.root.after) lines.push(`- root: ${quote(input.root.before)} -> ${quote(input.root.after)}`);
  if (markersBefore !== markersAfter) lines.push(`- markers: ${markersBefore} -> ${markersAfter}`);
  if (input.recheck.length > 0) {
    lines.push("Re-check AGENTS.md for current scope:");
    for (const file of input.recheck) lines.push(`- ${quote(file.path)} (mtime: ${formatMtime(file.mtimeMs)})`);
  }
  return systemReminder("session.resume.diff", lines.join("\n"));
}

/** mtimes are printed as integral milliseconds, as docs/loading-rules.md shows. */
function formatMtime(mtimeMs: number): string {
  return String(Math.floor(mtimeMs));
}

/** A changed instruction file, as `session.refresh()` reports it. */
export interface UpdatedFile {
  path: string;
  mtimeMs: number;
}

/**
 * Update notice for admitted files that changed on disk (paths mode); "" when none.
 * @example agentsUpdated([{ path: "/repo/feature/AGENTS.md", mtimeMs: 1738971000000 }])
 */
export function agentsUpdated(files: readonly UpdatedFile[]): string {
  if (files.length === 0) return "";
  return systemReminder(
    "agents.updated",
    [
      "These AGENTS.md files changed since you read them:",
      ...files.map((file) => `- ${quote(file.path)} (mtime: ${formatMtime(file.mtimeMs)})`),
      "Read them again; the current version replaces the one you had.",
    ].join("\n"),
  );
}

/**
 * Update notice carrying the new bodies (inline mode); `rendered` is the preset's inline rendering
 * of the changed files. "" when it is empty.
 * @example agentsUpdatedInline(session.renderInline(result.blocks))
 */
export function agentsUpdatedInline(rendered: string): string {
  if (rendered === "") return "";
  return systemReminder("agents.updated", `These AGENTS.md files changed; the current version below replaces the one you had:\n${rendered}`);
}

/**
 * Removal notice for admitted files that were deleted; "" when none.
 * @example agentsRemoved(["/repo/feature/AGENTS.md"])
 */
export function agentsRemoved(paths: readonly string[]): string {
  if (paths.length === 0) return "";
  return systemReminder(
    "agents.removed",
    ["These AGENTS.md files were deleted:", ...paths.map((path) => `- ${quote(path)} no longer applies`), "Stop following the instructions they gave."].join(
      "\n",
    ),
  );
}
