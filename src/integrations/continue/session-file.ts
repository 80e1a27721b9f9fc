/**
 * Continue CLI 1.5.47's session files, read by agentsmd's MCP server (pure, no I/O): where they
 * live, which one a run continues, and what of a history is still in front of the model.
 *
 * Facts of cn 1.5.47's dist/index.js: sessions are `<sessions>/<id>.json` (`sessions.json` is its
 * index), `<sessions>` = `$CONTINUE_GLOBAL_DIR/sessions` (relative to cn's cwd) else
 * `~/.continue/sessions`; a file is `{sessionId, title, workspaceDirectory, history, usage}`, each
 * history item `{message, contextItems, toolCallStates?: [{output: [{content}]}],
 * conversationSummary?}`, an MCP tool's answer in `output[].content` as the JSON text of its
 * content parts; a compaction replaces the history by one assistant item carrying
 * `conversationSummary`. `cn --resume` continues the file of the newest mtime (any workspace),
 * `cn --fork <id>` starts a new session from `<id>.json`'s history. Every file is untrusted.
 */
import { absolute, join } from "../../core/paths.js";
import { stringLeaves } from "../host/transcript.js";
import { continueHome } from "../../presets/continue.js";
import type { Env } from "../host/definition.js";

/** cn's sessions directory, resolved as cn does (a relative `CONTINUE_GLOBAL_DIR` against cn's cwd, the server's). */
export function continueSessionsDir(home: string, env: Env, cwd: string): string {
  return join(absolute(continueHome(home, env), cwd), "sessions");
}

/** A session id as cn writes them (a UUID): letters, digits, `_`, `-`; nothing that could leave the directory. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** The file name of session `id`, or null when `id` is no plain session id (`../x`, `a/b`, empty). */
export function sessionFileName(id: string): string | null {
  return SESSION_ID.test(id) ? `${id}.json` : null;
}

/** Whether a directory entry is a session file (not cn's `sessions.json` index). */
export function isSessionFileName(name: string): boolean {
  return name.endsWith(".json") && name !== "sessions.json" && SESSION_ID.test(name.slice(0, -5));
}

/** How the cn run that started the server began its history, from cn's argv. */
export type RunStart = { kind: "new" } | { kind: "resume" } | { kind: "fork"; id: string };

/**
 * The run's start from cn's command line (`node …/cn.js [options] [prompt]`): `--resume`,
 * `--fork <id>` / `--fork=<id>`, else a new history. Words after `--` are the prompt's.
 */
export function runStartOf(argv: readonly string[]): RunStart {
  let start: RunStart = { kind: "new" };
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index]!;
    if (word === "--") break;
    if (word === "--resume") start = { kind: "resume" };
    else if (word === "--fork" && index + 1 < argv.length) start = { kind: "fork", id: argv[++index]! };
    else if (word.startsWith("--fork=")) start = { kind: "fork", id: word.slice("--fork=".length) };
  }
  return start;
}

/** `/proc/<pid>/cmdline`: NUL-separated words. */
export function cmdlineWords(text: string): string[] {
  const words = text.split("\0");
  if (words.at(-1) === "") words.pop();
  return words;
}

/**
 * When a process started (ms since the epoch, never later than the truth: `btime` counts whole
 * seconds), from `/proc/<pid>/stat` (field 22, clock ticks after boot; USER_HZ 100) and
 * `/proc/stat`'s `btime`; null when either is not what Linux writes.
 */
export function processStartMs(pidStat: string, procStat: string): number | null {
  const close = pidStat.lastIndexOf(")");
  const fields = close < 0 ? [] : pidStat.slice(close + 2).split(" ");
  const ticks = Number(fields[19]);
  const btime = /^btime (\d+)$/m.exec(procStat);
  if (!Number.isSafeInteger(ticks) || ticks < 0 || !btime) return null;
  return Number(btime[1]) * 1000 + ticks * 10;
}

/** What one session file says. */
export interface ContinueSession {
  sessionId: string | null;
  workspaceDirectory: string | null;
  /** The last compaction's summary, and how many history items follow it; null: never compacted. */
  summary: { text: string; after: number } | null;
  /** The text of every string of the history from the last summary on: what the model still has. */
  held: string;
}

/**
 * A session file's text, or null for anything that is not one (broken JSON, another shape): such a
 * file holds nothing.
 */
export function parseContinueSession(text: string): ContinueSession | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const history = record.history;
  if (!Array.isArray(history)) return null;
  let last = -1;
  for (let index = history.length - 1; index >= 0; index--) {
    const item: unknown = history[index];
    if (typeof item !== "object" || item === null) return null;
    if (last < 0 && "conversationSummary" in item && (item as { conversationSummary?: unknown }).conversationSummary !== undefined) last = index;
  }
  const summaryText = last < 0 ? null : (history[last] as { conversationSummary: unknown }).conversationSummary;
  return {
    sessionId: typeof record.sessionId === "string" ? record.sessionId : null,
    workspaceDirectory: typeof record.workspaceDirectory === "string" ? record.workspaceDirectory : null,
    summary: last < 0 ? null : { text: typeof summaryText === "string" ? summaryText : (JSON.stringify(summaryText) ?? ""), after: history.length - 1 - last },
    held: stringLeaves(history.slice(Math.max(0, last))).join("\n"),
  };
}

/**
 * Whether `held` (a history's text) holds a file's delivered text: as shown, or as JSON text (an
 * MCP answer is kept as the JSON of its content parts). An empty file is held by nothing.
 */
export function holdsText(held: string, content: string): boolean {
  const text = content.trim();
  if (text === "") return false;
  return held.includes(text) || held.includes(JSON.stringify(text).slice(1, -1));
}

/**
 * Whether a session file shows a compaction that `before` (its last look, null: not looked at) did
 * not: a first summary, another summary, or the same summary with fewer items after it (cn wrote
 * the same words again after a second compaction).
 */
export function newCompaction(before: ContinueSession["summary"] | undefined, now: ContinueSession["summary"]): boolean {
  if (now === null) return false;
  if (before === undefined || before === null) return true;
  return before.text !== now.text || now.after < before.after;
}
