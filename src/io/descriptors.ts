/**
 * Plain descriptor reads and writes (a hook's stdin, stdout and stderr) without streams, so a hook
 * process never loads the stream and socket machinery. Its own module, beside file-system.ts,
 * because the hook launcher (dist/hook/hook.cjs) uses it too and must stay a few kilobytes.
 */
import { readSync, writeSync } from "node:fs";

/** A hook event is bounded: more than this on stdin is an error, not a longer read. */
export const MAX_STDIN = 16 * 1024 * 1024;

/** What a read of stdin gave: its bytes so far (complete: to its end), or the error it threw. */
export type StdinRead = { bytes: Buffer; complete: boolean } | { error: unknown };

/**
 * Reads an open descriptor (a hook's stdin) to its end without a stream, so a hook process never
 * loads the stream and socket machinery. `complete` is false when the descriptor would block (a
 * non-blocking pipe): the caller reads the rest from the stream. Throws past `maxBytes`.
 */
export function readDescriptorSync(fd: number, maxBytes: number): { bytes: Buffer; complete: boolean } {
  const chunks: Buffer[] = [];
  let size = 0;
  let complete = true;
  for (;;) {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    let read: number;
    try {
      read = readSync(fd, chunk, 0, chunk.length, null);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "EOF") break;
      if (code !== "EAGAIN") throw error;
      complete = false;
      break;
    }
    if (read === 0) break;
    size += read;
    if (size > maxBytes) throw new Error(`stdin is larger than ${maxBytes} bytes`);
    chunks.push(chunk.subarray(0, read));
  }
  return { bytes: Buffer.concat(chunks), complete };
}

/**
 * Writes text to an open descriptor (a hook's stdout) without a stream. Returns what could not be
 * written because the descriptor would block ("" when all was written).
 */
export function writeDescriptorSync(fd: number, text: string): string {
  let buffer = Buffer.from(text, "utf8");
  while (buffer.length > 0) {
    try {
      buffer = buffer.subarray(writeSync(fd, buffer));
    } catch (error) {
      if ((error as { code?: string }).code === "EAGAIN") return buffer.toString("utf8");
      throw error;
    }
  }
  return "";
}
