/**
 * A 64-bit checksum of a text, to tell a file this agentsmd wrote from a changed, truncated or
 * foreign one. Not a cryptographic hash: it guards against accidents, not against someone able
 * to write the user's own files. Plain arithmetic because a hook process (one per tool call) cannot afford
 * loading node:crypto or node:zlib (a few ms each; zlib's crc32 also needs Node >= 20.15).
 */

/**
 * 16 hex digits over the UTF-8 bytes of `text`, read as 32-bit words in the platform's byte order
 * (a file moved to a machine of the other order is only validated again): two lanes, FNV-1a and
 * a multiply-xorshift, each finished with an avalanche step. Words, not characters, because a
 * fresh process runs this loop in V8's interpreter, where the number of iterations is the cost.
 */
export function checksum(text: string): string {
  // Memory of its own (offset 0), so the word view is aligned.
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  const words = new Uint32Array(bytes.buffer, 0, bytes.length >>> 2);
  let a = 0x811c9dc5;
  let b = 0x9e3779b9 ^ bytes.length;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    a = Math.imul(a ^ word, 0x01000193);
    b = Math.imul(b ^ word, 0x5bd1e995);
    b ^= b >>> 15;
  }
  for (let i = words.length * 4; i < bytes.length; i++) a = Math.imul(a ^ bytes[i]!, 0x01000193);
  return hex(finish(a)) + hex(finish(b));
}

function finish(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function hex(n: number): string {
  return n.toString(16).padStart(8, "0");
}
