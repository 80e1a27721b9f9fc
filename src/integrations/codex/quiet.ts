/**
 * Codex's part of the quiet stage (host/quiet-format.ts `QuietHost`): a PostToolUse event's
 * conversation and targets, read as input.ts's schema and the runner would, without zod. Only what
 * the event alone settles (tools.ts `codexToolReading`): a shell command with a glob or a git word
 * needs the file system, and the full path decides it, as anything it is not sure of.
 */
import type { QuietHost } from "../host/quiet-format.js";
import { codexToolReading } from "./tools.js";

type Fields = Record<string, unknown>;

const isRecord = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);
const maybeString = (value: unknown) => value === undefined || typeof value === "string";
/** A string of 1 to `max` characters (input.ts's bounded fields). */
const sized = (value: unknown, max: number): value is string => typeof value === "string" && value.length >= 1 && value.length <= max;

/** The quiet stage's reading of a Codex event. */
export const quietHost: QuietHost = {
  host: "codex",
  event: (raw, env) => {
    if (!isRecord(raw)) return null;
    const { hook_event_name, session_id, cwd, tool_name, transcript_path } = raw;
    if (hook_event_name !== "PostToolUse" || !sized(session_id, 512) || !sized(cwd, 4096) || !sized(tool_name, 512)) return null;
    if (!(transcript_path === null || transcript_path === undefined || (typeof transcript_path === "string" && transcript_path.length <= 4096))) return null;
    if (![raw.model, raw.permission_mode, raw.turn_id, raw.tool_use_id].every(maybeString)) return null;
    // The runner's `~` is $HOME when absolute (else the system's, which this stage does not ask).
    const home = env.HOME;
    if (!home?.startsWith("/") || !cwd.startsWith("/")) return null;
    const reading = codexToolReading({ tool_name, tool_input: raw.tool_input, cwd }, home);
    return "found" in reading ? { conversation: { id: session_id }, targets: reading.found.targets } : null;
  },
};
