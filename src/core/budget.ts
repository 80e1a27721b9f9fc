/**
 * Pure budget arithmetic: byte cuts at UTF-8 boundaries, the order files claim a budget in,
 * blank detection and the visible truncation line. No I/O.
 */
import { quote } from "./quote.js";

/** Unicode White_Space, as Rust's `str::trim` uses it (JS `\s` differs: it has U+FEFF, lacks U+0085). */
const WHITESPACE = "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const BLANK = new RegExp(`^[${WHITESPACE}]*$`);
const LEADING = new RegExp(`^[${WHITESPACE}]+`);
const TRAILING = new RegExp(`[${WHITESPACE}]+$`);

/** True when `text` holds nothing but whitespace. */
export function isBlank(text: string): boolean {
  return BLANK.test(text);
}

/** Trim both ends (Rust semantics). */
export function trimText(text: string): string {
  return text.replace(LEADING, "").replace(TRAILING, "");
}

/** Trim the end only. */
export function trimEndText(text: string): string {
  return text.replace(TRAILING, "");
}

/**
 * The length of the longest prefix of `bytes` (at most `limit`) that does not split a UTF-8
 * character. Invalid sequences count as single bytes.
 */
export function utf8Boundary(bytes: Uint8Array, limit: number): number {
  const end = Math.min(limit, bytes.length);
  // Look back at most 3 bytes for the lead byte of the last character.
  for (let index = end - 1; index >= 0 && index >= end - 4; index--) {
    const byte = bytes[index]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte
    const width = byte < 0x80 ? 1 : (byte & 0xe0) === 0xc0 ? 2 : (byte & 0xf0) === 0xe0 ? 3 : (byte & 0xf8) === 0xf0 ? 4 : 1;
    return index + width > end ? index : end;
  }
  return end;
}

// Made on first use: the first TextDecoder loads Node's encoding module (about 0.3 ms), which a
// hook call that reads no instruction file (a seen path) does not need.
let lossy: TextDecoder | undefined;
let lossyNoBom: TextDecoder | undefined;

/** Lossy UTF-8 decode: invalid bytes become U+FFFD. `keepBom` keeps a leading U+FEFF (Codex does). */
export function decodeLossy(bytes: Uint8Array, keepBom: boolean): string {
  return keepBom
    ? (lossy ??= new TextDecoder("utf-8", { fatal: false, ignoreBOM: true })).decode(bytes)
    : (lossyNoBom ??= new TextDecoder("utf-8", { fatal: false, ignoreBOM: false })).decode(bytes);
}

/**
 * The visible line closing a file that was cut short.
 */
export function truncationNote(path: string, shownBytes: number, totalBytes: number): string {
  return `[agentsmd: truncated, showed ${shownBytes} of ${totalBytes} bytes; read ${quote(path)} for the rest]`;
}

/** Upper bound of the truncation line's size for a file of `totalBytes`, so it fits in the budget. */
export function truncationNoteBytes(path: string, totalBytes: number): number {
  return Buffer.byteLength(truncationNote(path, totalBytes, totalBytes)) + 1; // + the newline before it
}

/**
 * Indices of `count` root-first files in the order they claim the budget.
 * `nearest-first` keeps the most specific files when not all fit.
 */
export function claimOrder(count: number, keep: "nearest-first" | "root-first"): number[] {
  const order = Array.from({ length: count }, (_, index) => index);
  return keep === "nearest-first" ? order.reverse() : order;
}
