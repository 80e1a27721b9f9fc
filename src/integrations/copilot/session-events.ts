/**
 * Copilot CLI's own record of a session, `<COPILOT_HOME or ~/.copilot>/session-state/<id>/events.jsonl`
 * (one JSON event per line; observed with 1.0.102). Each process that opens the session logs
 * `session.start` or `session.resume` (whose `parentId` is the previous process's
 * `session.shutdown`), and `session.shutdown` when it ends. Copilot writes the file with a delay:
 * a resumed process's first hooks can still find the previous process's shutdown last. Read by the
 * hook to tell a resumed process's first prompt (Copilot runs the resume's `sessionStart` hook and
 * that prompt's hook at once, in either order) from a prompt of a process whose resume was handled.
 */
import { join } from "../../core/paths.js";
import { readTextRange, type FileSystem } from "../../io/file-system.js";
import { copilotHome } from "../../presets/copilot.js";

/** The most of the log's end read: a resumed process's first events come last at its first prompt. */
const TAIL_BYTES = 256 * 1024;

/** A session id Copilot writes (a UUID): anything else names no file agentsmd reads. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** The events file of `sessionId`, or null for an id that is not a plain name. */
export function copilotEventsFile(sessionId: string, home: string, env: Readonly<Record<string, string | undefined>>): string | null {
  return SESSION_ID.test(sessionId) ? join(join(join(copilotHome(home, env), "session-state"), sessionId), "events.jsonl") : null;
}

/** A string id of at most 512 characters, else null. */
function idOf(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 && value.length <= 512 ? value : null;
}

/**
 * The id of the latest resume in a tail of the events file, named by the shutdown it follows (the
 * same whether the resume is logged yet or not), else null (a new session, or nothing in the
 * tail). Whole lines only: the first line of a tail may be cut. Pure.
 */
export function latestResume(tail: string, cut: boolean): string | null {
  const lines = tail.split("\n");
  for (let index = lines.length - 1; index >= (cut ? 1 : 0); index--) {
    const line = lines[index]!;
    if (!/"session\.(?:start|resume|shutdown)"/.test(line)) continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof event !== "object" || event === null) continue;
    const { type, id, parentId } = event as { type?: unknown; id?: unknown; parentId?: unknown };
    if (type === "session.start") return null;
    // We run inside a hook: a process runs this session now, so a shutdown last means its resume is not logged yet.
    if (type === "session.shutdown") return idOf(id);
    if (type === "session.resume") return idOf(parentId) ?? idOf(id);
  }
  return null;
}

/**
 * The id of Copilot's latest resume of `sessionId` from its events file (null: none, or no file).
 */
export async function copilotResumeId(
  fs: FileSystem,
  sessionId: string,
  home: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | null> {
  const file = copilotEventsFile(sessionId, home, env);
  if (file === null) return null;
  const info = await fs.stat(file).catch(() => null);
  if (!info || info.kind !== "file") return null;
  const start = Math.max(0, info.size - TAIL_BYTES);
  const read = await readTextRange(file, start, TAIL_BYTES).catch(() => null);
  return read ? latestResume(read.text, start > 0) : null;
}
