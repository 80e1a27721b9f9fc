/**
 * Where Factory Droid 0.215.0 keeps its sessions (pure path algebra, no I/O):
 * `<sessions>/<cwd slug>/<session id>.jsonl`. The path a hook event names is untrusted: only one of
 * exactly that shape inside the sessions directory is taken.
 */
import { join, nameOf, parentOf, pathInputProblem } from "../../core/paths.js";

/**
 * Droid's sessions directory: `$FACTORY_HOME_OVERRIDE/.factory/sessions` when set (Droid's home
 * override), else `~/.factory/sessions`.
 */
export function droidSessionsDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
  const override = env.FACTORY_HOME_OVERRIDE?.trim();
  return join(join(override?.startsWith("/") ? override : home, ".factory"), "sessions");
}

const SESSION_ID = /^[0-9A-Za-z][0-9A-Za-z_-]{0,127}$/;

/**
 * The log of session `sessionId` when `transcript` names it inside `sessions` (exactly
 * `<sessions>/<folder>/<sessionId>.jsonl`, no `.` or `..` segment), else null.
 */
export function droidLogPath(sessions: string, transcript: string | undefined, sessionId: string): { folder: string; file: string } | null {
  if (transcript === undefined || !transcript.startsWith("/") || pathInputProblem(transcript) !== null) return null;
  if (transcript.split("/").some((segment, index) => index > 0 && (segment === "" || segment === "." || segment === ".."))) return null;
  if (!SESSION_ID.test(sessionId) || nameOf(transcript) !== `${sessionId}.jsonl`) return null;
  const folder = parentOf(transcript);
  return parentOf(folder) === sessions ? { folder, file: transcript } : null;
}
