/**
 * SQLite's file format, read-only and pure (https://www.sqlite.org/fileformat2.html): the database
 * header, the write-ahead log's valid frames, table b-tree pages, cells and records. Enough to read
 * the rows of an ordinary table (an agent's session store) without a native module. The bytes are
 * untrusted: every offset is checked, a bad page or record is an error the caller counts, never a
 * crash, and nothing here loops on what the file says without a bound.
 */

/** What a database file's first 100 bytes say. */
export interface SqliteHeader {
  pageSize: number;
  /** Bytes of each page that hold content (page size less the reserved tail). */
  usable: number;
  /** Pages the header counts (0 when it cannot vouch for the number). */
  pageCount: number;
  /** 1 UTF-8, 2 UTF-16le, 3 UTF-16be. */
  encoding: number;
}

const MAGIC = "SQLite format 3\0";

/**
 * The header of a database file, or an error text when `bytes` is not one.
 */
export function parseHeader(bytes: Uint8Array): SqliteHeader | string {
  if (bytes.length < 100 || new TextDecoder("latin1").decode(bytes.subarray(0, 16)) !== MAGIC) return "not a SQLite database";
  const view = viewOf(bytes);
  const raw = view.getUint16(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return `page size ${raw} is not one SQLite writes`;
  const usable = pageSize - bytes[20]!;
  if (usable < 480) return "reserved bytes leave too little of a page";
  const counter = view.getUint32(24);
  const pageCount = view.getUint32(92) === counter ? view.getUint32(28) : 0;
  return { pageSize, usable, pageCount, encoding: view.getUint32(56) || 1 };
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The pages a write-ahead log holds for readers: page number -> offset of its page data in the log. */
export interface WalIndex {
  pages: Map<number, number>;
  /** Database size in pages after the last committed transaction (0: no commit). */
  dbPages: number;
}

/**
 * The committed frames of a write-ahead log (its whole text): the frames whose salts match the
 * header and whose checksum chain holds, up to the last commit frame; a later or broken frame is
 * what a crash left and SQLite ignores too. Null when `bytes` is no log for pages of `pageSize`.
 */
export function parseWal(bytes: Uint8Array, pageSize: number): WalIndex | null {
  if (bytes.length < 32) return null;
  const view = viewOf(bytes);
  const magic = view.getUint32(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return null;
  if (view.getUint32(8) !== pageSize) return null;
  const bigEndian = magic === 0x377f0683;
  let sum = walChecksum(view, 0, 24, bigEndian, [0, 0]);
  if (sum[0] !== view.getUint32(24) || sum[1] !== view.getUint32(28)) return null;
  const salt1 = view.getUint32(16);
  const salt2 = view.getUint32(20);
  const committed = new Map<number, number>();
  const pending = new Map<number, number>();
  let dbPages = 0;
  for (let frame = 32; frame + 24 + pageSize <= bytes.length; frame += 24 + pageSize) {
    if (view.getUint32(frame + 8) !== salt1 || view.getUint32(frame + 12) !== salt2) break;
    sum = walChecksum(view, frame, 8, bigEndian, sum);
    sum = walChecksum(view, frame + 24, pageSize, bigEndian, sum);
    if (sum[0] !== view.getUint32(frame + 16) || sum[1] !== view.getUint32(frame + 20)) break;
    const page = view.getUint32(frame);
    if (page === 0) break;
    pending.set(page, frame + 24);
    const commit = view.getUint32(frame + 4);
    if (commit !== 0) {
      for (const [number, offset] of pending) committed.set(number, offset);
      pending.clear();
      dbPages = commit;
    }
  }
  return { pages: committed, dbPages };
}

/** SQLite's WAL checksum over `length` bytes at `offset` (a multiple of 8), continuing from `sum`. */
function walChecksum(view: DataView, offset: number, length: number, bigEndian: boolean, sum: [number, number]): [number, number] {
  let [s0, s1] = sum;
  for (let i = offset; i < offset + length; i += 8) {
    s0 = (s0 + view.getUint32(i, !bigEndian) + s1) >>> 0;
    s1 = (s1 + view.getUint32(i + 4, !bigEndian) + s0) >>> 0;
  }
  return [s0, s1];
}

/**
 * A varint at `offset`: its value (exact up to 2^53) and length, or null past the end.
 */
export function readVarint(bytes: Uint8Array, offset: number): [number, number] | null {
  let value = 0;
  for (let i = 0; i < 9; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) return null;
    if (i === 8) return [value * 256 + byte, 9];
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, i + 1];
  }
  return null;
}

/** One b-tree page of a table: a leaf's cells (offsets into the page) or an interior page's children. */
export type TablePage = { kind: "leaf"; cells: number[] } | { kind: "interior"; children: number[] };

/**
 * A table b-tree page (`header` 100 on page 1, else 0), or an error text (an index page, a bad header).
 */
export function parseTablePage(page: Uint8Array, header: number, usable: number): TablePage | string {
  if (page.length < header + 8) return "a page shorter than its header";
  const view = viewOf(page);
  const type = page[header]!;
  if (type !== 0x0d && type !== 0x05) return `page type ${type} is not a table page`;
  const interior = type === 0x05;
  const count = view.getUint16(header + 3);
  const pointers = header + (interior ? 12 : 8);
  if (pointers + count * 2 > usable) return "more cells than the page holds";
  const offsets: number[] = [];
  for (let i = 0; i < count; i++) {
    const offset = view.getUint16(pointers + i * 2);
    if (offset < pointers + count * 2 || offset >= usable) return "a cell outside its page";
    offsets.push(offset);
  }
  if (!interior) return { kind: "leaf", cells: offsets };
  const children = offsets.map((offset) => (offset + 4 <= usable ? view.getUint32(offset) : 0));
  children.push(view.getUint32(header + 8));
  return children.includes(0) ? "a child pointer of 0" : { kind: "interior", children };
}

/** A table leaf cell: its payload's size, the bytes kept on the page, and the first overflow page (0: none). */
export interface LeafCell {
  size: number;
  local: Uint8Array;
  overflow: number;
}

/**
 * The table leaf cell at `offset` of `page`, or an error text.
 */
export function leafCell(page: Uint8Array, offset: number, usable: number): LeafCell | string {
  const size = readVarint(page, offset);
  if (size === null) return "a cell past its page";
  const rowid = readVarint(page, offset + size[1]);
  if (rowid === null) return "a cell past its page";
  const start = offset + size[1] + rowid[1];
  const payload = size[0];
  const most = usable - 35;
  if (payload <= most) return start + payload <= usable ? { size: payload, local: page.subarray(start, start + payload), overflow: 0 } : "a cell past its page";
  const least = Math.floor(((usable - 12) * 32) / 255) - 23;
  const k = least + ((payload - least) % (usable - 4));
  const local = k <= most ? k : least;
  if (start + local + 4 > usable) return "a cell past its page";
  return { size: payload, local: page.subarray(start, start + local), overflow: viewOf(page).getUint32(start + local) };
}

/** A column's value: SQLite's NULL, integer, real, text or blob. */
export type SqliteValue = null | number | string | Uint8Array;

/**
 * The values of a record (a row's payload), or an error text.
 */
export function decodeRecord(payload: Uint8Array, encoding: number): SqliteValue[] | string {
  const head = readVarint(payload, 0);
  if (head === null || head[0] > payload.length || head[0] < head[1]) return "a record header past its payload";
  const types: number[] = [];
  for (let at = head[1]; at < head[0];) {
    const type = readVarint(payload, at);
    if (type === null) return "a record header past its payload";
    types.push(type[0]);
    at += type[1];
  }
  const view = viewOf(payload);
  const decoder = new TextDecoder(encoding === 2 ? "utf-16le" : encoding === 3 ? "utf-16be" : "utf-8");
  const values: SqliteValue[] = [];
  let at = head[0];
  for (const type of types) {
    const width = type >= 12 ? Math.floor((type - 12) / 2) : ([0, 1, 2, 3, 4, 6, 8, 8, 0, 0][type] ?? -1);
    if (width < 0 || at + width > payload.length) return "a record value past its payload";
    if (type === 0) values.push(null);
    else if (type === 8 || type === 9) values.push(type - 8);
    else if (type === 7) values.push(view.getFloat64(at));
    else if (type <= 6) values.push(readInteger(payload, at, width));
    else if (type % 2 === 0) values.push(payload.slice(at, at + width));
    else values.push(decoder.decode(payload.subarray(at, at + width)));
    at += width;
  }
  return values;
}

/** A big-endian two's-complement integer of `width` bytes (exact up to 2^53). */
function readInteger(bytes: Uint8Array, at: number, width: number): number {
  let value = 0;
  for (let i = 0; i < width; i++) value = value * 256 + bytes[at + i]!;
  return bytes[at]! & 0x80 ? value - 2 ** (8 * width) : value;
}

/**
 * The column names of a `CREATE TABLE` statement, in order (constraints left out), or null.
 */
export function tableColumns(sql: string): string[] | null {
  const open = sql.indexOf("(");
  const close = sql.lastIndexOf(")");
  if (open === -1 || close < open) return null;
  const columns: string[] = [];
  let depth = 0;
  let piece = "";
  const pieces: string[] = [];
  for (const char of sql.slice(open + 1, close)) {
    if (char === "(") depth++;
    if (char === ")") depth--;
    if (char === "," && depth === 0) {
      pieces.push(piece);
      piece = "";
    } else piece += char;
  }
  pieces.push(piece);
  for (const each of pieces) {
    const match = /^\s*(?:`([^`]+)`|"([^"]+)"|\[([^\]]+)\]|([A-Za-z_][\w$]*))/.exec(each);
    if (match === null) continue;
    const name = match[1] ?? match[2] ?? match[3] ?? match[4]!;
    if (match[4] !== undefined && /^(constraint|primary|foreign|unique|check)$/i.test(name)) continue;
    columns.push(name);
  }
  return columns;
}
