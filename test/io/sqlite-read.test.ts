/**
 * io/sqlite-read.ts and core/sqlite-format.ts: the rows of a real database and its write-ahead log
 * (test/audit/logs/opencode/session.db, built by Python's sqlite3 with 1 KB pages: overflow pages,
 * interior pages, a checkpointed part and a last transaction only in the log), truncated and
 * damaged copies of it, and hand-built hostile pages (a cycle, a bad page type, a cell outside its
 * page): never a crash or a hang, what was skipped said.
 */
import { copyFileSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeRecord, readVarint, tableColumns } from "../../src/core/sqlite-format.js";
import { SqliteReader } from "../../src/io/sqlite-read.js";

const FIXTURE = join(import.meta.dirname, "..", "audit", "logs", "opencode", "session.db");
const base = realpathSync(mkdtempSync(join(tmpdir(), "agentsmd-sqlite-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let copies = 0;

/** A copy of the fixture database; `wal` edits its write-ahead log (null: none). */
function copy(wal: (bytes: Buffer) => Buffer | null = (bytes) => bytes): string {
  const db = join(base, `db${copies++}.db`);
  copyFileSync(FIXTURE, db);
  const log = wal(readFileSync(`${FIXTURE}-wal`));
  if (log !== null) writeFileSync(`${db}-wal`, log);
  return db;
}

async function rowsOf(path: string, table: string, max = 1 << 20) {
  const db = await SqliteReader.open(path);
  try {
    const rows = [];
    for await (const row of db.rows(table, max)) rows.push(row);
    return { rows, problems: db.problems };
  } finally {
    await db.close();
  }
}

describe("a real database with its write-ahead log", () => {
  it("every row, the log's newest committed pages over the file's; a row spilling onto overflow pages read whole", async () => {
    const db = copy();
    const sessions = await rowsOf(db, "session");
    expect(sessions.rows.map((row) => row?.id).sort()).toHaveLength(2);
    const parts = await rowsOf(db, "part");
    const old = parts.rows.find((row) => row?.id === "prt_0old");
    expect(JSON.parse(old!.data as string).text).toBe("OTHER-PROJECT ".repeat(300));
    const fixture = readFileSync(join(import.meta.dirname, "..", "audit", "logs", "opencode", "with-agentsmd.jsonl"), "utf8");
    const recorded = fixture.split('"table":"part"').length - 1;
    expect(parts.rows).toHaveLength(recorded + 1); // and the other project's session's one
    expect(parts.problems).toEqual([]);
    expect(await rowsOf(db, "no_such_table")).toEqual({ rows: [], problems: [] });
  });

  it("without its log only what was checkpointed; a log cut mid-frame or with a changed byte: its frames from there are ignored (SQLite's own rule)", async () => {
    const full = (await rowsOf(copy(), "part")).rows.length;
    const bare = (
      await rowsOf(
        copy(() => null),
        "part",
      )
    ).rows.length;
    expect(bare).toBeLessThan(full);
    const cut = await rowsOf(
      copy((bytes) => bytes.subarray(0, bytes.length - 700)),
      "part",
    );
    expect(cut.rows.length).toBeLessThan(full);
    expect(cut.rows.length).toBeGreaterThanOrEqual(bare);
    const flipped = await rowsOf(
      copy((bytes) => {
        const out = Buffer.from(bytes);
        out.writeUInt8(out.readUInt8(out.length - 100) ^ 0xff, out.length - 100);
        return out;
      }),
      "part",
    );
    expect(flipped.rows.length).toBe(cut.rows.length);
    expect(
      await rowsOf(
        copy(() => Buffer.from("not a log at all, not a log at all")),
        "part",
      ),
    ).toMatchObject({ rows: { length: bare } });
  });

  it("a row over the caller's limit is a null, unread", async () => {
    const { rows } = await rowsOf(copy(), "part", 2000);
    expect(rows.filter((row) => row === null).length).toBeGreaterThan(0);
    expect(rows.some((row) => row?.id === "prt_0old")).toBe(false);
  });

  it("no database, or a file that is not one: an error naming the path and the fix", async () => {
    await expect(SqliteReader.open(join(base, "missing.db"))).rejects.toThrow(/no database at .*missing\.db/);
    const text = join(base, "text.db");
    writeFileSync(text, "hello ".repeat(100));
    await expect(SqliteReader.open(text)).rejects.toMatchObject({ message: expect.stringContaining("not a SQLite database"), fix: expect.any(String) });
    await expect(SqliteReader.open(base)).rejects.toThrow(/cannot read .*ENOTREG/);
  });
});

/** A varint of a small number (< 2^14). */
const varint = (n: number) => (n < 128 ? [n] : [0x80 | (n >> 7), n & 0x7f]);

/** A record of text and integer values. */
function record(values: Array<string | number>): number[] {
  const types: number[] = [];
  const body: number[] = [];
  for (const value of values) {
    if (typeof value === "number") {
      types.push(1);
      body.push(value);
    } else {
      const bytes = [...Buffer.from(value)];
      types.push(bytes.length * 2 + 13);
      body.push(...bytes);
    }
  }
  const header = types.flatMap(varint);
  return [header.length + 1, ...header, ...body];
}

const PAGE = 512;

/** A database of 512-byte pages: page 1 the schema (one table `t` at page 2), `pages` the rest. */
function database(pages: Array<(page: Buffer) => void>): string {
  const file = Buffer.alloc(PAGE * (pages.length + 1));
  file.write("SQLite format 3\0", 0, "latin1");
  file.writeUInt16BE(PAGE, 16);
  file.writeUInt32BE(1, 24);
  file.writeUInt32BE(pages.length + 1, 28);
  file.writeUInt32BE(1, 92);
  file.writeUInt32BE(1, 56);
  const schema = record(["table", "t", "t", 2, "CREATE TABLE t (id text, data text)"]);
  leaf(file.subarray(0, PAGE), 100, [schema]);
  pages.forEach((fill, index) => fill(file.subarray(PAGE * (index + 1), PAGE * (index + 2))));
  const path = join(base, `hand${copies++}.db`);
  writeFileSync(path, file);
  return path;
}

/** A table leaf page holding `records` (rowids 1..n). */
function leaf(page: Buffer, header: number, records: number[][]): void {
  page[header] = 0x0d;
  page.writeUInt16BE(records.length, header + 3);
  let end = PAGE;
  records.forEach((rec, index) => {
    const cell = [...varint(rec.length), index + 1, ...rec];
    end -= cell.length;
    Buffer.from(cell).copy(page, end);
    page.writeUInt16BE(end, header + 8 + index * 2);
  });
  page.writeUInt16BE(end, header + 5);
}

describe("hand-built hostile pages", () => {
  it("the table's rows through an interior page", async () => {
    const path = database([
      (page) => {
        page[0] = 0x05;
        page.writeUInt16BE(1, 3);
        page.writeUInt32BE(4, 8); // right-most child
        page.writeUInt16BE(500, 12);
        page.writeUInt32BE(3, 500); // left child
        page[504] = 1;
      },
      (page) => leaf(page, 0, [record(["a", "x"])]),
      (page) => leaf(page, 0, [record(["b", "y"]), record(["c", "z"])]),
    ]);
    expect((await rowsOf(path, "t")).rows).toEqual([
      { id: "a", data: "x" },
      { id: "b", data: "y" },
      { id: "c", data: "z" },
    ]);
  });

  it("an interior page that points at itself is read once (no hang); a page of another type and a cell outside its page are said", async () => {
    const cycle = database([
      (page) => {
        page[0] = 0x05;
        page.writeUInt32BE(2, 8);
      },
    ]);
    expect(await rowsOf(cycle, "t")).toEqual({ rows: [], problems: ["a page is reached twice (a damaged database): read once"] });
    const index = database([(page) => (page[0] = 0x0a)]);
    expect((await rowsOf(index, "t")).problems).toEqual(["a damaged page: page type 10 is not a table page"]);
    const outside = database([
      (page) => {
        page[0] = 0x0d;
        page.writeUInt16BE(1, 3);
        page.writeUInt16BE(2, 8);
      },
    ]);
    expect((await rowsOf(outside, "t")).problems).toEqual(["a damaged page: a cell outside its page"]);
    const past = database([
      (page) => {
        page[0] = 0x05;
        page.writeUInt32BE(99, 8);
      },
    ]);
    expect((await rowsOf(past, "t")).problems).toEqual(["a page past the end of the database (a truncated file)"]);
  });

  it("records and varints: bad headers are errors, not throws", () => {
    expect(readVarint(Uint8Array.of(0x81, 0x00), 0)).toEqual([128, 2]);
    expect(readVarint(Uint8Array.of(0x81), 0)).toBeNull();
    expect(decodeRecord(Uint8Array.of(3, 0x11, 0x01, 0x61), 1)).toBe("a record value past its payload");
    expect(decodeRecord(Uint8Array.of(3, 0x11, 0x01, 0x61, 0x62, 0xff), 1)).toEqual(["ab", -1]);
    expect(decodeRecord(Uint8Array.of(9, 0x11), 1)).toBe("a record header past its payload");
    expect(tableColumns('CREATE TABLE `t` (`id` text PRIMARY KEY, "x y" int DEFAULT (1), CONSTRAINT `c` FOREIGN KEY (`id`) REFERENCES `u`(`id`))')).toEqual([
      "id",
      "x y",
    ]);
  });
});
