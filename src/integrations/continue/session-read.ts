/**
 * What cn's session file says the model still holds, for agentsmd's MCP server serving Continue CLI
 * (`HostDefinition.mcp`, host/held.ts). cn passes the server no session id; the server is cn's
 * child, so cn's command line (`/proc/<ppid>/cmdline`) tells a resumed or forked run from a new one.
 *
 * - At the server's start: `--resume` continues the session file of the newest mtime (cn's rule).
 *   A file written after cn started may be that one rewritten or another cn's: every such file and
 *   the newest older one are candidates, and a file counts as held only when every candidate's
 *   history holds it (two that disagree: the file is given again, never lost). `--fork <id>`:
 *   `<id>.json`. A new run holds nothing.
 * - At each tool call: a session file of this run (the resumed candidates, or a file new since the
 *   start whose `workspaceDirectory` is the server's cwd) changed since the last look and showing a
 *   new compaction summary: what was given before is gone, but for what the history from that
 *   summary on holds. Files there at the start are other runs': never read again.
 *
 * Untrusted files: lstat first (a regular file, never a link, FIFO or device), at most
 * MAX_SESSION_BYTES read (a larger or broken file holds nothing), only plain names in the
 * directory, nothing ever written. cn -p writes the file at a compaction and at its end, not at
 * each message: what the server gave since counts through its own ledger.
 */
import { join } from "../../core/paths.js";
import { readPseudoFile, type FileSystem } from "../../io/file-system.js";
import type { HeldView, HostHistory, HostHistoryContext } from "../host/held.js";
import {
  cmdlineWords,
  continueSessionsDir,
  holdsText,
  isSessionFileName,
  newCompaction,
  parseContinueSession,
  processStartMs,
  runStartOf,
  sessionFileName,
  type ContinueSession,
} from "./session-file.js";

/** Most bytes of a session file read (over it, the file holds nothing: its files are given again). */
export const MAX_SESSION_BYTES = 32 * 1024 * 1024;
/** Most session files looked at in the directory per look. */
const MAX_ENTRIES = 10_000;
/** Most bytes of cn's command line and stat lines read. */
const MAX_PROC_BYTES = 64 * 1024;

/** The parent process as the reader sees it (injected by tests). */
export interface ParentProcess {
  pid: number;
  read(path: string, maxBytes: number): Promise<string | null>;
}

interface Entry {
  name: string;
  mtimeMs: number;
  size: number;
  ino: number;
}

/** The session file names of `dir` (plain names, directories skipped), at most MAX_ENTRIES. */
async function sessionNames(fs: FileSystem, dir: string): Promise<string[]> {
  try {
    const info = await fs.lstat(dir);
    if (info?.kind !== "directory" || info.symlink) return [];
    const out: string[] = [];
    for (const entry of await fs.readdirUnsorted(dir)) {
      if (out.length >= MAX_ENTRIES) break;
      // Links and FIFOs too (and what a file system reports as "other"): entryOf's lstat refuses them.
      if (entry.kind !== "directory" && isSessionFileName(entry.name)) out.push(entry.name);
    }
    return out;
  } catch {
    return [];
  }
}

/** A session file's stat, or null when it is no regular file (a link, FIFO, device) or gone. */
async function entryOf(fs: FileSystem, dir: string, name: string): Promise<Entry | null> {
  const stat = await fs.lstat(join(dir, name)).catch(() => null);
  return stat?.kind === "file" && !stat.symlink ? { name, mtimeMs: stat.mtimeMs, size: stat.size, ino: stat.ino } : null;
}

/** One session file, or null when it holds nothing (absent, no regular file, too large, broken, another shape). */
async function readContinueSession(fs: FileSystem, path: string): Promise<ContinueSession | null> {
  try {
    const info = await fs.lstat(path);
    if (info?.kind !== "file" || info.symlink || info.size > MAX_SESSION_BYTES) return null;
    const read = await fs.read(path, MAX_SESSION_BYTES);
    return read.truncated ? null : parseContinueSession(Buffer.from(read.bytes).toString("utf8"));
  } catch {
    return null;
  }
}

interface Seen extends Entry {
  /** The summary at the last read that parsed; undefined: never parsed. */
  summary: ContinueSession["summary"] | undefined;
  /** The last read parsed. */
  readable: boolean;
}

class ContinueHistory implements HostHistory {
  readonly #fs: FileSystem;
  readonly #cwd: string;
  readonly #dir: string;
  readonly #seen = new Map<string, Seen>();
  /** Sessions there at the start that this run does not continue: never looked at again (cn writes only its own). */
  readonly #others = new Set<string>();
  /** The resumed session's candidates: watched whatever their workspace. */
  readonly #resumed = new Set<string>();
  /** The histories the model may be looking at; a file is held when every one holds it (none: nothing held). */
  #held: string[] = [];
  readonly #ready: Promise<void>;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(context: HostHistoryContext, parent: ParentProcess) {
    this.#fs = context.fs;
    this.#cwd = context.cwd;
    this.#dir = continueSessionsDir(context.home, context.env, context.cwd);
    this.#ready = this.#start(parent).catch(() => undefined);
  }

  async #start(parent: ParentProcess): Promise<void> {
    const cmdline = await parent.read(`/proc/${parent.pid}/cmdline`, MAX_PROC_BYTES);
    const start = cmdline === null ? { kind: "new" as const } : runStartOf(cmdlineWords(cmdline));
    const names = await sessionNames(this.#fs, this.#dir);
    for (const name of names) this.#others.add(name);
    let candidates: Entry[] = [];
    if (start.kind === "fork") {
      const name = sessionFileName(start.id);
      const entry = name === null || !this.#others.has(name) ? null : await entryOf(this.#fs, this.#dir, name);
      // A fork of a session that is not there (or no plain id): one candidate that holds nothing.
      candidates = [entry ?? { name: "", mtimeMs: 0, size: 0, ino: 0 }];
    } else if (start.kind === "resume") {
      const pidStat = await parent.read(`/proc/${parent.pid}/stat`, MAX_PROC_BYTES);
      const procStat = await parent.read("/proc/stat", MAX_PROC_BYTES);
      const started = pidStat === null || procStat === null ? null : processStartMs(pidStat, procStat);
      const entries = await Promise.all(names.map((name) => entryOf(this.#fs, this.#dir, name)));
      const newest = entries.filter((entry): entry is Entry => entry !== null).sort((a, b) => b.mtimeMs - a.mtimeMs);
      candidates =
        started === null ? newest.slice(0, 1) : [...newest.filter((e) => e.mtimeMs >= started), ...newest.filter((e) => e.mtimeMs < started).slice(0, 1)];
    }
    for (const entry of candidates) {
      const session = entry.name === "" ? null : await readContinueSession(this.#fs, join(this.#dir, entry.name));
      this.#held.push(session?.held ?? "");
      if (entry.name === "") continue;
      this.#seen.set(entry.name, { ...entry, summary: session ? session.summary : undefined, readable: session !== null });
      if (start.kind === "resume") {
        this.#resumed.add(entry.name);
        this.#others.delete(entry.name);
      }
    }
  }

  look(): Promise<HeldView> {
    const next = this.#queue.then(() => this.#look());
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #look(): Promise<HeldView> {
    await this.#ready;
    const kept: string[] = [];
    for (const name of await sessionNames(this.#fs, this.#dir)) {
      if (this.#others.has(name)) continue;
      const resumed = this.#resumed.has(name);
      const before = this.#seen.get(name);
      const entry = await entryOf(this.#fs, this.#dir, name);
      if (entry === null) {
        // The resumed session swapped for a link or a FIFO: it holds nothing now.
        if (resumed && before?.readable) {
          kept.push("");
          this.#seen.set(name, { ...before, readable: false });
        }
        continue;
      }
      if (before && before.mtimeMs === entry.mtimeMs && before.size === entry.size && before.ino === entry.ino) continue;
      const session = await readContinueSession(this.#fs, join(this.#dir, name));
      this.#seen.set(name, { ...entry, summary: session ? session.summary : before?.summary, readable: session !== null });
      if (session === null) {
        // The resumed session became unreadable (grown past the bound, broken): it may have compacted, and holds nothing.
        if (resumed && before?.readable !== false) kept.push("");
        continue;
      }
      if (!resumed && session.workspaceDirectory !== this.#cwd) continue;
      if (newCompaction(before?.summary, session.summary)) kept.push(session.held);
    }
    if (kept.length > 0) this.#held = kept;
    const held = this.#held;
    return {
      compacted: kept.length > 0,
      holds: (file) => held.length > 0 && held.every((text) => holdsText(text, file.content)),
    };
  }
}

/** Continue CLI's record for the MCP server started in `context.cwd` by cn (`parent`: cn, the server's parent process). */
export function continueHistory(context: HostHistoryContext, parent: ParentProcess = { pid: process.ppid, read: readPseudoFile }): HostHistory {
  return new ContinueHistory(context, parent);
}
