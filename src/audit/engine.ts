/**
 * The audit's pure core: a session's timeline (touches and texts that reached the model, in log
 * order) against the instruction files that apply to each touched path -> a verdict per path and
 * file, and a summary. A file counts as seen when its text (whitespace-normalised) occurs in what
 * reached the model, whatever the framing: a file name in the log proves nothing, its text does.
 * No I/O; fed one event at a time so a 100 MB log is never held.
 */
import { parentOf } from "../core/paths.js";
import type { LogEvent, TouchUse } from "../integrations/host/log-event.js";

/** An instruction file as it is on disk now. */
export interface InstructionFile {
  path: string;
  text: string;
  /** Last change on disk (epoch ms), to tell a text changed after a touch from a stale one. */
  mtimeMs?: number;
}

/** Who puts a file in front of the model: the agent itself, or agentsmd's hook/plugin. */
type DeliveredBy = "agent" | "agentsmd";

export interface ApplyingFile {
  path: string;
  by: DeliveredBy;
}

/**
 * - `before`: its text (the current one, or the one on disk at the time) reached the model before the path's first edit (or first touch for a path only read);
 * - `after`: only after it;
 * - `never`: never;
 * - `stale`: an earlier text was shown, the file changed on disk, and its new text never reached the model before the touch;
 * - `changed-since`: the file changed on disk after the touch and no earlier text of it was recorded before the touch, only later ones: what the model had then cannot be told.
 */
export type Verdict = "before" | "after" | "never" | "stale" | "changed-since";

export interface FileVerdict extends ApplyingFile {
  verdict: Verdict;
  /** How many texts that reached the model held this file's current text. */
  shown: number;
  /** Of those, repeats of a text already shown (no change in between). */
  duplicates: number;
}

export interface PathVerdict {
  path: string;
  edited: boolean;
  /** Tools that touched it, in order of first use. */
  tools: string[];
  files: FileVerdict[];
}

export interface AuditSummary {
  touchedPaths: number;
  editedPaths: number;
  /** Edited paths whose applying files were all seen before the first edit. */
  coveredEdits: number;
  /** coveredEdits / editedPaths as a percentage (100 with no edit). */
  coverage: number;
  /** Texts of instruction files shown again unchanged. */
  duplicates: number;
  duplicateBytes: number;
  /** UTF-8 bytes of instruction-file text that reached the model (every showing). */
  deliveredBytes: number;
}

interface Sighting {
  seq: number;
  time: number | undefined;
  current: boolean;
  /** Normalised text of an earlier version (only for `current: false`). */
  version?: string;
}

interface Touch {
  seq: number;
  time: number | undefined;
}

/** Most distinct paths followed; later ones are counted in `droppedPaths`. */
const MAX_AUDIT_PATHS = 4096;
/** Most sightings kept per instruction file (a repeat beyond is only counted). */
const MAX_SIGHTINGS = 4096;

/**
 * Text as compared: runs of whitespace as one space, trimmed, so a renderer's re-wrapping of blank
 * lines or indentation does not hide a delivery.
 */
export function normalizeText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

const encoder = new TextEncoder();
function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/**
 * Collects touches (pass 1: which paths the session touched, for finding the instruction files),
 * or touches and sightings (pass 2, given the files).
 */
export class AuditTimeline {
  private seq = 0;
  private readonly files: Array<InstructionFile & { norm: string; bytes: number; sightings: Sighting[]; extra: number }>;
  private readonly byPath = new Map<string, number>();
  private readonly firstTouch = new Map<string, Touch>();
  private readonly firstEdit = new Map<string, Touch>();
  private readonly tools = new Map<string, string[]>();
  /** Distinct paths past MAX_AUDIT_PATHS, not followed. */
  droppedPaths = 0;
  /** The working directories the log recorded, in order (distinct). */
  readonly cwds: string[] = [];
  /** The reader's notes (what the log does not record, lines skipped), distinct. */
  readonly notes: string[] = [];
  /** Time of the last event that had one. */
  lastTime: number | undefined;

  constructor(files: readonly InstructionFile[] = []) {
    this.files = files.map((file, index) => {
      this.byPath.set(file.path, index);
      return { ...file, norm: normalizeText(file.text), bytes: byteLength(file.text), sightings: [], extra: 0 };
    });
  }

  add(event: LogEvent): void {
    const seq = this.seq++;
    const time = "time" in event ? event.time : undefined;
    if (time !== undefined) this.lastTime = time;
    switch (event.kind) {
      case "cwd":
        if (!this.cwds.includes(event.cwd) && this.cwds.length < 64) this.cwds.push(event.cwd);
        return;
      case "note":
        if (!this.notes.includes(event.text) && this.notes.length < 64) this.notes.push(event.text);
        return;
      case "touch":
        return this.touch(event.path, event.use, event.tool, { seq, time });
      case "shown":
        return this.shown(event.text, event.about, { seq, time });
      case "attached":
        return this.attached(event.path, { seq, time });
    }
  }

  private touch(path: string, use: TouchUse, tool: string, at: Touch): void {
    if (!this.firstTouch.has(path)) {
      if (this.firstTouch.size >= MAX_AUDIT_PATHS) {
        this.droppedPaths++;
        return;
      }
      this.firstTouch.set(path, at);
      this.tools.set(path, []);
    }
    const tools = this.tools.get(path)!;
    if (!tools.includes(tool) && tools.length < 16) tools.push(tool);
    if (use === "edit" && !this.firstEdit.has(path)) this.firstEdit.set(path, at);
  }

  private shown(text: string, about: string | undefined, at: Touch): void {
    if (this.files.length === 0) return;
    const norm = normalizeText(text);
    for (const file of this.files) {
      if (file.norm === "") continue;
      const current = norm.includes(file.norm);
      const earlier =
        !current && about !== undefined && (about === file.path || (about.endsWith("/") && `${parentOf(file.path)}/` === about.replace(/\/+$/, "/")));
      if (!current && !earlier) continue;
      if (file.sightings.length >= MAX_SIGHTINGS) {
        file.extra++;
        continue;
      }
      file.sightings.push({ seq: at.seq, time: at.time, current, ...(earlier ? { version: norm } : {}) });
    }
  }

  /** A file the log names as attached, its text not logged: current when unchanged on disk since. */
  private attached(path: string, at: Touch): void {
    const index = this.byPath.get(path);
    const file = index === undefined ? undefined : this.files[index];
    if (file === undefined || file.norm === "") return;
    if (file.sightings.length >= MAX_SIGHTINGS) {
      file.extra++;
      return;
    }
    const current = file.mtimeMs !== undefined && at.time !== undefined && file.mtimeMs <= at.time;
    // An earlier text nobody logged: a key of its own, so it is never taken for a repeat.
    file.sightings.push({ seq: at.seq, time: at.time, current, ...(current ? {} : { version: `\u0000attached ${at.seq}` }) });
  }

  /** Paths touched, in order of first touch. */
  touched(): string[] {
    return [...this.firstTouch.keys()];
  }

  /** The verdicts, given which instruction files apply to each touched path. */
  result(applying: ReadonlyMap<string, readonly ApplyingFile[]>): { paths: PathVerdict[]; summary: AuditSummary } {
    const paths: PathVerdict[] = [];
    let covered = 0;
    for (const [path, first] of this.firstTouch) {
      const edit = this.firstEdit.get(path);
      const ref = edit ?? first;
      const files = (applying.get(path) ?? []).map((applied) => this.verdictOf(applied, ref));
      if (edit !== undefined && files.every((file) => file.verdict === "before")) covered++;
      paths.push({ path, edited: edit !== undefined, tools: this.tools.get(path) ?? [], files });
    }
    let duplicates = 0;
    let duplicateBytes = 0;
    let deliveredBytes = 0;
    for (const file of this.files) {
      const seen = new Set<string>();
      for (const sighting of file.sightings) {
        const key = sighting.current ? "" : sighting.version!;
        const bytes = sighting.current ? file.bytes : byteLength(key);
        deliveredBytes += bytes;
        if (seen.has(key)) {
          duplicates++;
          duplicateBytes += bytes;
        } else seen.add(key);
      }
      duplicates += file.extra;
      duplicateBytes += file.extra * file.bytes;
      deliveredBytes += file.extra * file.bytes;
    }
    const editedPaths = this.firstEdit.size;
    const summary: AuditSummary = {
      touchedPaths: this.firstTouch.size,
      editedPaths,
      coveredEdits: covered,
      coverage: editedPaths === 0 ? 100 : Math.floor((covered / editedPaths) * 1000) / 10,
      duplicates,
      duplicateBytes,
      deliveredBytes,
    };
    return { paths, summary };
  }

  private verdictOf(applied: ApplyingFile, ref: Touch): FileVerdict {
    const index = this.byPath.get(applied.path);
    const file = index === undefined ? undefined : this.files[index];
    const sightings = file?.sightings ?? [];
    const current = sightings.filter((s) => s.current);
    const shown = current.length + (file?.extra ?? 0);
    const duplicates = Math.max(0, shown - 1);
    const base = { ...applied, shown, duplicates };
    if (current.some((s) => s.seq < ref.seq)) return { ...base, verdict: "before" };
    const earlierBefore = sightings.some((s) => !s.current && s.seq < ref.seq);
    // The text on disk now did not exist at the touch: what was on disk then is what counted.
    const changedSince = file?.mtimeMs !== undefined && ref.time !== undefined && file.mtimeMs > ref.time;
    // No text of it anywhere in the log (no frame, no read naming it): never, whatever it said then.
    if (changedSince) return { ...base, verdict: earlierBefore ? "before" : sightings.length === 0 ? "never" : "changed-since" };
    if (earlierBefore) return { ...base, verdict: "stale" };
    if (current.length > 0 || (file?.extra ?? 0) > 0) return { ...base, verdict: "after" };
    return { ...base, verdict: "never" };
  }
}
