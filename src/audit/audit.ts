/**
 * `agentsmd audit`: one session log of an agent -> what reached the model against the instruction
 * files in force for every path the agent touched. Two streaming passes over the log (touches
 * first, then the texts, matched against the files found for those touches), so memory stays
 * bounded by the line limit and the number of paths, not by the log's size. The log and the
 * repository are untrusted: touched paths outside the project are counted, never looked at.
 */
import { AgentsMdError } from "../core/errors.js";
import { isInside, nameOf, parentOf } from "../core/paths.js";
import { countOf } from "../core/words.js";
import { explainPath } from "../inspect/explain.js";
import { nodeFileSystem, readLines, type FileSystem } from "../io/file-system.js";
import { AuditTimeline, type ApplyingFile, type AuditSummary, type InstructionFile, type PathVerdict } from "./engine.js";
import type { LogEvent, LogRecords, ReadLimits, SessionLogReader } from "../integrations/host/log-event.js";
import type { AuditAgent } from "./agents.js";

/** Longest log line read (a longer one is skipped and counted in the report's notes). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
/** Most of a log read; the rest is left out and said so. */
const MAX_LOG_BYTES = 1024 * 1024 * 1024;
/** Largest instruction file compared (its first bytes otherwise, said so). */
const MAX_INSTRUCTION_BYTES = 1024 * 1024;
/** Most directories whose instruction files are looked up; paths in further ones are listed without. */
const MAX_AUDIT_DIRS = 512;

export interface AuditOptions {
  /** Absolute path of the session log. */
  log: string;
  agent: AuditAgent;
  /** The project's working directory; default: the first one the log records. */
  cwd?: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  fs?: FileSystem;
  limits?: Partial<ReadLimits>;
}

export interface AuditReport {
  agent: string;
  displayName: string;
  log: string;
  cwd: string;
  root: string;
  /** The home directory (user-layer files are shown under `~/`). */
  home: string;
  /** What this agent's log records. */
  records: LogRecords;
  /** Touched paths inside the project, in order of first touch, with their verdicts. */
  paths: PathVerdict[];
  /** Touched paths outside the project (not examined, not named). */
  outside: number;
  summary: AuditSummary;
  /** What the log does not record, and what could not be read. */
  notes: string[];
  /** The command that delivers what was missed. */
  fix: string;
}

/** A log that cannot be audited: names the path and the fix. */
class AuditError extends AgentsMdError {}

async function* lineTexts(path: string, limits: ReadLimits): AsyncGenerator<string | null> {
  for await (const line of readLines(path, limits)) yield line.text;
}

function events(reader: SessionLogReader, log: StoredLog, limits: ReadLimits, home: string): AsyncIterable<LogEvent> {
  const lines = reader.store !== undefined ? reader.store.lines(log.file, log.session, limits) : lineTexts(log.file, limits);
  return reader.events(lines, { home });
}

/** A log's file, and the session in it for an agent that keeps its sessions in one database. */
interface StoredLog {
  file: string;
  session?: string;
}

/**
 * `FILE#ID` for a reader with a store (the `#` and id only when FILE is no file by itself), else the path as it is.
 */
async function storedLog(log: string, reader: SessionLogReader, fs: FileSystem): Promise<StoredLog> {
  const hash = log.lastIndexOf("#");
  if (reader.store === undefined || hash === -1 || (await fs.stat(log)) !== null) return { file: log };
  return { file: log.slice(0, hash), session: log.slice(hash + 1) };
}

/**
 * Audits one session log.
 */
export async function auditSessionLog(options: AuditOptions): Promise<AuditReport> {
  const fs = options.fs ?? nodeFileSystem;
  const limits: ReadLimits = { maxLineBytes: options.limits?.maxLineBytes ?? MAX_LINE_BYTES, maxBytes: options.limits?.maxBytes ?? MAX_LOG_BYTES };
  const reader = await options.agent.load();
  const log = await storedLog(options.log, reader, fs);
  const info = await fs.stat(log.file);
  if (info === null || info.kind !== "file")
    throw new AuditError(`no session log at ${options.log}`, { path: options.log, fix: "pass the path of a log file, or --last with --agent" });

  // Pass 1: where the agent worked and what it touched.
  const first = new AuditTimeline();
  for await (const event of events(reader, log, limits, options.home)) first.add(event);
  const cwd = options.cwd ?? first.cwds[0];
  if (cwd === undefined) throw new AuditError(`${options.log} records no working directory`, { path: options.log, fix: "pass the project with --cwd" });

  const base = { cwd, home: options.home, env: options.env, fs };
  // The project is the one agentsmd's delivery finds (its markers): what is confined to it.
  const probe = await explainPath({ ...base, ...(options.agent.deliveryPreset !== undefined ? { preset: options.agent.deliveryPreset } : {}) }, cwd);
  const root = probe.root;
  const touched = first.touched();
  const inside = touched.filter((path) => isInside(path, root));
  const applying = new Map<string, ApplyingFile[]>();
  const byDir = new Map<string, ApplyingFile[]>();
  const notes: string[] = [];
  const unjudged = new Set<string>();
  for (const path of inside) {
    const dir = (await fs.stat(path))?.kind === "directory" ? path : parentOf(path);
    let files = byDir.get(dir);
    if (files === undefined) {
      if (byDir.size >= MAX_AUDIT_DIRS) {
        notes.push(`paths in more than ${MAX_AUDIT_DIRS} directories: the rest are listed without their instruction files`);
        break;
      }
      files = await applyingTo(options.agent, base, dir, reader.records.systemPrompt || reader.records.startupFiles === true ? undefined : unjudged);
      byDir.set(dir, files);
    }
    applying.set(path, files);
  }

  // Pass 2: which texts of those files reached the model, and when.
  const instructionFiles = await readInstructionFiles([...new Set([...byDir.values()].flat().map((file) => file.path))], fs, notes);
  const timeline = new AuditTimeline(instructionFiles);
  for await (const event of events(reader, log, limits, options.home)) timeline.add(event);
  if (unjudged.size > 0)
    notes.push(
      `${countOf(unjudged.size, "instruction file")} ${options.agent.displayName} puts in its system prompt itself not judged (its log does not record the system prompt)`,
    );
  if (reader.store === undefined && info.size > limits.maxBytes) notes.push(`only the first ${limits.maxBytes} of the log's ${info.size} bytes were read`);
  if (timeline.droppedPaths > 0) notes.push(`${timeline.droppedPaths} more touched paths were not followed`);
  const result = timeline.result(applying);
  return {
    agent: options.agent.name,
    displayName: options.agent.displayName,
    log: options.log,
    cwd,
    root,
    home: options.home,
    records: reader.records,
    paths: result.paths.filter((entry) => isInside(entry.path, root)),
    outside: touched.length - inside.length,
    summary: { ...result.summary, ...coverageInside(result.paths.filter((entry) => isInside(entry.path, root))) },
    notes: [...timeline.notes, ...notes],
    fix: options.agent.install,
  };
}

/** The summary's counts over the paths inside the project only. */
function coverageInside(paths: readonly PathVerdict[]): Pick<AuditSummary, "touchedPaths" | "editedPaths" | "coveredEdits" | "coverage"> {
  const edited = paths.filter((entry) => entry.edited);
  const covered = edited.filter((entry) => entry.files.every((file) => file.verdict === "before")).length;
  return {
    touchedPaths: paths.length,
    editedPaths: edited.length,
    coveredEdits: covered,
    coverage: edited.length === 0 ? 100 : Math.floor((covered / edited.length) * 1000) / 10,
  };
}

/**
 * The instruction files that apply to `dir`: what the agent loads itself (its preset), then what
 * agentsmd's delivery for it adds. Only files that reach the model under that preset count. With
 * `unjudged` (a log without the system prompt), the files the agent puts there itself at the start
 * are collected there instead: nothing in the log could show them seen or missed.
 */
async function applyingTo(
  agent: AuditAgent,
  base: { cwd: string; home: string; env: Readonly<Record<string, string | undefined>>; fs: FileSystem },
  dir: string,
  unjudged?: Set<string>,
): Promise<ApplyingFile[]> {
  const out = new Map<string, ApplyingFile>();
  const own = await explainPath({ ...base, preset: agent.agentPreset }, dir);
  for (const entry of own.files) {
    if (entry.order === null) continue;
    if (unjudged !== undefined && entry.status !== "touch") {
      unjudged.add(entry.path);
      continue;
    }
    const byAgent = entry.status !== "touch" || agent.agentTouches;
    out.set(entry.path, { path: entry.path, by: byAgent ? "agent" : "agentsmd" });
  }
  const delivered = await explainPath({ ...base, ...(agent.deliveryPreset !== undefined ? { preset: agent.deliveryPreset } : {}) }, dir);
  for (const entry of delivered.files)
    if (entry.order !== null && !out.has(entry.path) && !unjudged?.has(entry.path)) out.set(entry.path, { path: entry.path, by: "agentsmd" });
  return [...out.values()];
}

async function readInstructionFiles(paths: readonly string[], fs: FileSystem, notes: string[]): Promise<InstructionFile[]> {
  const out: InstructionFile[] = [];
  for (const path of paths) {
    const info = await fs.stat(path);
    if (info === null || info.kind !== "file") continue;
    const read = await fs.read(path, MAX_INSTRUCTION_BYTES);
    if (read.truncated) notes.push(`${nameOf(path)}: only its first ${MAX_INSTRUCTION_BYTES} bytes were compared`);
    out.push({ path, text: new TextDecoder().decode(read.bytes), ...(info.mtimeMs !== undefined ? { mtimeMs: info.mtimeMs } : {}) });
  }
  return out;
}

/** Most log files looked at when finding logs (`--last`, `--since`). */
const MAX_LOG_ENTRIES = 20_000;

/**
 * The agent's session logs under its log directories, newest first, modified at or after `since`
 * (epoch ms). Bounded: at most MAX_LOG_ENTRIES entries, four directory levels.
 */
export async function findSessionLogs(
  reader: SessionLogReader,
  context: { env: Readonly<Record<string, string | undefined>>; home: string; since?: number; fs?: FileSystem },
): Promise<Array<{ path: string; mtimeMs: number }>> {
  const fs = context.fs ?? nodeFileSystem;
  const found: Array<{ path: string; mtimeMs: number }> = [];
  let seen = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries: Awaited<ReturnType<FileSystem["readdir"]>>;
    try {
      entries = await fs.readdir(dir);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (++seen > MAX_LOG_ENTRIES) return;
      const path = `${dir}/${entry.name}`;
      if (entry.kind === "directory" && depth < 4) await walk(path, depth + 1);
      else if (entry.kind === "file" && reader.isLog(entry.name)) {
        const info = await fs.stat(path);
        if (info === null) continue;
        if (reader.store === undefined) {
          if (context.since !== undefined && info.mtimeMs < context.since) continue;
          found.push({ path, mtimeMs: info.mtimeMs });
          continue;
        }
        // One database, many sessions: each is a log of its own (the file's time says nothing: its write-ahead log changes).
        const sessions = await reader.store.sessions(path).catch(() => []);
        for (const session of sessions)
          if (context.since === undefined || session.updatedMs >= context.since) found.push({ path: `${path}#${session.id}`, mtimeMs: session.updatedMs });
      }
    }
  };
  for (const dir of reader.logDirs(context.env, context.home)) await walk(dir, 0);
  return found.sort((a, b) => b.mtimeMs - a.mtimeMs);
}
