/**
 * Bounded reads of instruction files: never past the budget, lossy UTF-8, the cut rule of the preset.
 */
import type { FileSystem, ReadResult } from "../io/file-system.js";
import type { CutMode } from "../presets/preset.js";
import { decodeLossy, truncationNote, truncationNoteBytes, utf8Boundary } from "../core/budget.js";

export interface InstructionText {
  /** The text to render (a cut file ends with its truncation line in `utf8-with-note` mode). */
  content: string;
  /** Bytes of the file that the content shows. */
  includedBytes: number;
  /** Budget consumed (content bytes plus the truncation line). */
  chargedBytes: number;
  sizeBytes: number;
  mtimeMs: number;
  truncated: boolean;
}

/**
 * Reads `path` within `budget` bytes. Returns null when nothing useful fits (the file is left out).
 * Throws FsError when the file cannot be read.
 */
export async function readInstruction(fs: FileSystem, path: string, budget: number, cut: CutMode): Promise<InstructionText | null> {
  if (budget <= 0) return null;
  return cutRead(await fs.read(path, budget), path, budget, cut);
}

/**
 * Applies the budget and the cut rule to bytes already read (at most `budget` of them).
 */
export function cutRead(read: ReadResult, path: string, budget: number, cut: CutMode): InstructionText | null {
  if (budget <= 0) return null;
  if (cut === "byte") {
    // Codex: raw cut, lossy decode, BOM kept, no trace.
    return {
      content: decodeLossy(read.bytes, true),
      includedBytes: read.bytes.length,
      chargedBytes: read.bytes.length,
      sizeBytes: read.size,
      mtimeMs: read.mtimeMs,
      truncated: read.truncated,
    };
  }
  if (!read.truncated) {
    return {
      content: decodeLossy(read.bytes, false),
      includedBytes: read.bytes.length,
      chargedBytes: read.bytes.length,
      sizeBytes: read.size,
      mtimeMs: read.mtimeMs,
      truncated: false,
    };
  }
  const room = budget - truncationNoteBytes(path, read.size);
  if (room <= 0) return null;
  const shown = utf8Boundary(read.bytes, room);
  if (shown === 0) return null;
  const note = truncationNote(path, shown, read.size);
  const content = `${decodeLossy(read.bytes.subarray(0, shown), false)}\n${note}`;
  return {
    content,
    includedBytes: shown,
    chargedBytes: shown + 1 + Buffer.byteLength(note),
    sizeBytes: read.size,
    mtimeMs: read.mtimeMs,
    truncated: true,
  };
}
