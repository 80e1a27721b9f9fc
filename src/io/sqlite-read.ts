/**
 * Reads the rows of a table of a SQLite database file, read-only, with what Node 20 has (no native
 * module): the pages through io/file-system.ts `openRandomAccess`, their newest committed copies
 * from the write-ahead log beside it (`FILE-wal`, which a running agent may not have checkpointed
 * yet), the format from core/sqlite-format.ts. Never writes, locks or checkpoints: a reader that
 * raced a writer may miss the newest transaction, never sees half of one. The file is untrusted:
 * pages are visited once, records over the caller's limit are skipped and counted.
 */
import {
  decodeRecord,
  leafCell,
  parseHeader,
  parseTablePage,
  parseWal,
  tableColumns,
  type SqliteHeader,
  type SqliteValue,
  type WalIndex,
} from "../core/sqlite-format.js";
import { openRandomAccess, type RandomAccessFile } from "./file-system.js";
import { FsError } from "../core/errors.js";

/** Largest write-ahead log read (a larger one: only the database file is read, and said so). */
const MAX_WAL_BYTES = 512 * 1024 * 1024;

/** One row: its values by column name, or null for a row skipped (over the limit, damaged). */
export type SqliteRow = Record<string, SqliteValue> | null;

export class SqliteReader {
  /** What could not be read (a damaged page, a log left out), said once each. */
  readonly problems: string[] = [];
  private readonly header: SqliteHeader;
  private readonly pageCount: number;
  private schema: Map<string, { root: number; columns: string[] }> | undefined;

  private constructor(
    private readonly file: RandomAccessFile,
    private readonly wal: { bytes: Uint8Array; index: WalIndex } | undefined,
    header: SqliteHeader,
  ) {
    this.header = header;
    const fromFile = Math.floor(file.size / header.pageSize);
    this.pageCount = wal !== undefined && wal.index.dbPages > 0 ? wal.index.dbPages : header.pageCount || fromFile;
  }

  /**
   * Opens `path` (and `path-wal` when there is one). Not a database: an FsError naming it.
   */
  static async open(path: string): Promise<SqliteReader> {
    const file = await openRandomAccess(path);
    if (file === null) throw new FsError(`no database at ${path}`, { path, code: "ENOENT", fix: "pass the path of the agent's database file" });
    const header = parseHeader(await file.readAt(0, 100));
    if (typeof header === "string") {
      await file.close();
      throw new FsError(`${path} is ${header}`, { path, code: "ENOTDB", fix: "pass the agent's session database (docs/audit.md)" });
    }
    const problems: string[] = [];
    let wal: { bytes: Uint8Array; index: WalIndex } | undefined;
    const walFile = await openRandomAccess(`${path}-wal`).catch(() => null);
    if (walFile !== null) {
      if (walFile.size > MAX_WAL_BYTES) problems.push(`its write-ahead log is over ${MAX_WAL_BYTES} bytes: only the database file was read`);
      else {
        const bytes = await walFile.readAt(0, walFile.size);
        const index = parseWal(bytes, header.pageSize);
        if (index !== null) wal = { bytes, index };
      }
      await walFile.close();
    }
    const reader = new SqliteReader(file, wal, header);
    reader.problems.push(...problems);
    return reader;
  }

  close(): Promise<void> {
    return this.file.close();
  }

  private async page(number: number): Promise<Uint8Array | null> {
    if (number < 1 || number > this.pageCount) return null;
    const offset = this.wal?.index.pages.get(number);
    if (offset !== undefined) return this.wal!.bytes.subarray(offset, offset + this.header.pageSize);
    const bytes = await this.file.readAt((number - 1) * this.header.pageSize, this.header.pageSize);
    return bytes.length === this.header.pageSize ? bytes : null;
  }

  private problem(text: string): void {
    if (!this.problems.includes(text) && this.problems.length < 16) this.problems.push(text);
  }

  /** The tables of the schema: name -> root page and columns. */
  private async tables(): Promise<Map<string, { root: number; columns: string[] }>> {
    if (this.schema !== undefined) return this.schema;
    const schema = new Map<string, { root: number; columns: string[] }>();
    for await (const row of this.walk(1, ["type", "name", "tbl_name", "rootpage", "sql"], 1024 * 1024)) {
      if (row === null || row.type !== "table" || typeof row.name !== "string" || typeof row.rootpage !== "number" || typeof row.sql !== "string") continue;
      const columns = tableColumns(row.sql);
      if (columns !== null) schema.set(row.name, { root: row.rootpage, columns });
    }
    this.schema = schema;
    return schema;
  }

  /** Whether the database has a table called `name`. */
  async hasTable(name: string): Promise<boolean> {
    return (await this.tables()).has(name);
  }

  /**
   * The rows of `table` in rowid order (a row whose record is over `maxRowBytes`: null, unread).
   * A table that does not exist: no rows.
   */
  async *rows(table: string, maxRowBytes: number): AsyncGenerator<SqliteRow> {
    const entry = (await this.tables()).get(table);
    if (entry === undefined) return;
    yield* this.walk(entry.root, entry.columns, maxRowBytes);
  }

  private async *walk(root: number, columns: readonly string[], maxRowBytes: number): AsyncGenerator<SqliteRow> {
    const seen = new Set<number>();
    const stack = [root];
    while (stack.length > 0) {
      const number = stack.pop()!;
      if (seen.has(number)) {
        this.problem("a page is reached twice (a damaged database): read once");
        continue;
      }
      seen.add(number);
      const page = await this.page(number);
      if (page === null) {
        this.problem("a page past the end of the database (a truncated file)");
        continue;
      }
      const parsed = parseTablePage(page, number === 1 ? 100 : 0, this.header.usable);
      if (typeof parsed === "string") {
        this.problem(`a damaged page: ${parsed}`);
        continue;
      }
      if (parsed.kind === "interior") {
        for (let i = parsed.children.length - 1; i >= 0; i--) stack.push(parsed.children[i]!);
        continue;
      }
      for (const offset of parsed.cells) {
        const cell = leafCell(page, offset, this.header.usable);
        if (typeof cell === "string") {
          this.problem(`a damaged row: ${cell}`);
          yield null;
          continue;
        }
        if (cell.size > maxRowBytes) {
          yield null;
          continue;
        }
        const payload = await this.payload(cell.local, cell.size, cell.overflow, seen);
        const values = payload === null ? "its overflow pages are damaged" : decodeRecord(payload, this.header.encoding);
        if (typeof values === "string") {
          this.problem(`a damaged row: ${values}`);
          yield null;
          continue;
        }
        yield Object.fromEntries(columns.map((name, index) => [name, values[index] ?? null]));
      }
    }
  }

  /** A cell's whole payload: its local bytes, then its overflow chain. */
  private async payload(local: Uint8Array, size: number, overflow: number, seen: Set<number>): Promise<Uint8Array | null> {
    if (overflow === 0) return local;
    const out = new Uint8Array(size);
    out.set(local);
    let filled = local.length;
    let next = overflow;
    while (filled < size) {
      if (next === 0 || seen.has(next)) return null;
      seen.add(next);
      const page = await this.page(next);
      if (page === null) return null;
      const take = Math.min(size - filled, this.header.usable - 4);
      out.set(page.subarray(4, 4 + take), filled);
      filled += take;
      next = new DataView(page.buffer, page.byteOffset, 4).getUint32(0);
    }
    return out;
  }
}
