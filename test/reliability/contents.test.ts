/**
 * Reliability (docs/reliability.md), contents: odd bytes delivered through touch and the CLI, a 2 GiB sparse file under a
 * 32 KiB budget, and files that grow, are replaced or vanish between stat and read. Empty,
 * whitespace-only, invalid UTF-8 and BOM in the initial load are in test/budget.test.ts.
 */
import { appendFile, open, rename, rm, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { countingFileSystem, nodeFileSystem } from "../../src/io/file-system.js";
import { createTree, openSession, runCli, type Tree } from "../helpers/tree.js";
import { injectFs } from "../helpers/faults.js";

const files = (list: ReadonlyArray<{ path: string }>) => list.map((file) => file.path);
const GiB = 1024 ** 3;
const BUDGET = 32 * 1024;

async function sparse(tree: Tree, rel: string, size: number, head: string): Promise<string> {
  const path = await tree.write(rel, head);
  const handle = await open(path, "r+");
  await handle.truncate(size);
  await handle.close();
  return path;
}

describe("odd bytes through inline mode (touch)", () => {
  async function inline(content: string | Uint8Array) {
    const tree = await createTree({ "repo/.git/": null, "repo/a/x.ts": "" });
    await tree.write("repo/a/AGENTS.md", content);
    const session = await openSession(tree, { cwd: tree.path("repo") });
    return { tree, session, blocks: await session.touch([tree.path("repo/a/x.ts")]) };
  }

  it("delivers nothing for an empty file and the resolver never offers it", async () => {
    const { tree, session, blocks } = await inline("");
    expect(blocks).toEqual([]);
    expect(await session.resolve(tree.path("repo/a/x.ts"))).toEqual({ files: [] });
  });

  it("delivers nothing for a whitespace-only file, records it, and does not read it again", async () => {
    const { tree, session, blocks } = await inline(" \n\t\r\n");
    expect(blocks).toEqual([]);
    expect(session.loadedVersion(tree.path("repo/a/AGENTS.md"))).toBeDefined();
    expect(await session.touch([tree.path("repo/a/x.ts")])).toEqual([]);
  });

  it("decodes invalid UTF-8 lossily", async () => {
    const { blocks } = await inline(Uint8Array.from([0x6f, 0x6b, 0x20, 0xff, 0xfe, 0xc3, 0x28, 0x0a]));
    expect(blocks.map((block) => block.content)).toEqual(["ok \ufffd\ufffd\ufffd(\n"]);
  });

  it("drops a leading UTF-8 BOM, as the initial load does", async () => {
    const { blocks } = await inline(Uint8Array.from([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("rules\n")]));
    expect(blocks.map((block) => block.content)).toEqual(["rules\n"]);
  });

  it("keeps CRLF line ends and NUL bytes verbatim", async () => {
    const { blocks } = await inline("line one\r\nnul:\0:end\r\n");
    expect(blocks.map((block) => block.content)).toEqual(["line one\r\nnul:\0:end\r\n"]);
  });

  it("keeps CRLF and NUL in the initial message, and the CLI's JSON stays parseable", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "a\r\nb\0c\r\n", "repo/d/AGENTS.md": "\0" });
    const session = await openSession(tree, { cwd: tree.path("repo") });
    expect(session.initialMessage).toContain("a\r\nb\0c");
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "--json", "touch", tree.path("repo/d/x.ts"), "--state", tree.path("s.json")], {
      cwd: tree.root,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ blocks: [{ path: tree.path("repo/d/AGENTS.md"), layer: "path", content: "\0", truncated: false }] });
  });
});

describe("a 2 GiB sparse AGENTS.md under a 32 KiB budget", () => {
  it("the bounded read returns at most the budget and reports the real size", async () => {
    const tree = await createTree();
    const path = await sparse(tree, "AGENTS.md", 2 * GiB, "head\n");
    const read = await nodeFileSystem.read(path, BUDGET);
    expect(read).toMatchObject({ size: 2 * GiB, truncated: true });
    expect(read.bytes.length).toBe(BUDGET);
  });

  it("the initial load reads at most the budget, cuts the file with a visible line, and memory stays flat", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/big/sub/": null });
    const big = await sparse(tree, "repo/big/AGENTS.md", 2 * GiB, "BIG START\n");
    const { fs, counters } = countingFileSystem();
    const before = process.memoryUsage();
    const session = await openSession(tree, { cwd: tree.path("repo/big/sub"), fs, config: { initial: { maxBytes: BUDGET } } });
    const after = process.memoryUsage();
    expect(counters.bytesRead).toBeLessThanOrEqual(BUDGET);
    expect(session.initialFiles).toEqual([expect.objectContaining({ path: big, sizeBytes: 2 * GiB, truncated: true })]);
    expect(session.initialFiles[0]!.includedBytes).toBeLessThanOrEqual(BUDGET);
    expect(Buffer.byteLength(session.initialMessage)).toBeLessThan(BUDGET + 1024);
    expect(session.initialMessage).toContain(`showed ${session.initialFiles[0]!.includedBytes} of ${2 * GiB} bytes; read ${big} for the rest`);
    // Reading the file would cost 2 GiB; the bound is the budget plus allocator noise.
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(16 * 1024 * 1024);
  });

  it("resolve reads nothing and touch refuses it whole (lazy cap) without reading it", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/big/sub/": null });
    const big = await sparse(tree, "repo/big/AGENTS.md", 2 * GiB, "BIG START\n");
    const { fs, counters } = countingFileSystem();
    const session = await openSession(tree, { cwd: tree.path("repo"), fs, config: { lazy: { maxBytes: BUDGET } } });
    expect(await session.resolve(tree.path("repo/big/sub/x.ts"))).toEqual({ files: [{ path: big, mtimeMs: expect.any(Number), sizeBytes: 2 * GiB }] });
    expect(counters.bytesRead).toBe(0);
    const other = await openSession(tree, { cwd: tree.path("repo"), fs, config: { lazy: { maxBytes: BUDGET } } });
    expect(await other.touch([tree.path("repo/big/sub/x.ts")])).toEqual([]);
    expect(counters.bytesRead).toBe(0);
    expect(other.diagnostics).toContainEqual(expect.objectContaining({ code: "lazy-cap", path: big }));
  });
});

describe("a file that changes while it is read", () => {
  it("a concurrent appender never makes a bounded read return more than the budget or bytes that were not there", async () => {
    const tree = await createTree();
    const path = await tree.write("AGENTS.md", "");
    const chunk = "0123456789abcdef".repeat(64);
    let writing = true;
    const writer = (async () => {
      while (writing) await appendFile(path, chunk);
    })();
    try {
      for (let i = 0; i < 200; i++) {
        const read = await nodeFileSystem.read(path, 8192);
        expect(read.bytes.length).toBeLessThanOrEqual(Math.min(8192, read.size));
        expect(read.truncated).toBe(read.size > 8192);
        // Whatever was read is a prefix of the append-only content.
        const text = Buffer.from(read.bytes).toString("utf8");
        expect(chunk.repeat(Math.ceil(text.length / chunk.length) + 1).startsWith(text)).toBe(true);
      }
    } finally {
      writing = false;
      await writer;
    }
  });

  it("grown past the lazy cap between stat and read: touch delivers no half file and stops", async () => {
    // Touch delivers root side first: a/ is read, then a/b/ grows past the cap while it is read.
    const tree = await createTree({ "repo/.git/": null, "repo/a/AGENTS.md": "a rules", "repo/a/b/AGENTS.md": "small", "repo/a/b/c/AGENTS.md": "c rules" });
    const grower = tree.path("repo/a/b/AGENTS.md");
    const fs = injectFs({
      read: async ([path, max], next) => {
        if (path === grower) await appendFile(grower, "x".repeat(4096));
        return next(path, max);
      },
    });
    const session = await openSession(tree, { cwd: tree.path("repo"), fs, config: { lazy: { maxBytes: 1024 } } });
    const blocks = await session.touch([tree.path("repo/a/b/c/x.ts")]);
    expect(files(blocks)).toEqual([tree.path("repo/a/AGENTS.md")]);
    expect(session.loadedVersion(grower)).toBeUndefined();
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "lazy-cap", path: grower }));
  });

  it("grown between stat and read in the initial load: read within the budget, recorded at the version read", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root", "repo/a/AGENTS.md": "small" });
    const grower = tree.path("repo/a/AGENTS.md");
    const { fs: counting } = countingFileSystem();
    const fs = injectFs(
      {
        read: async ([path, max], next) => {
          if (path === grower) {
            await appendFile(grower, "y".repeat(100_000));
            await tree.setMtime("repo/a/AGENTS.md", 1_900_000_000);
          }
          return next(path, max);
        },
      },
      counting,
    );
    const session = await openSession(tree, { cwd: tree.path("repo/a"), fs, config: { initial: { maxBytes: 2048 } } });
    expect(session.initialFiles.find((file) => file.path === grower)).toMatchObject({ mtimeMs: 1_900_000_000_000, truncated: true });
    expect(session.loadedVersion(grower)).toEqual({ path: grower, mtimeMs: 1_900_000_000_000 });
    expect(Buffer.byteLength(session.initialMessage)).toBeLessThan(2048 + 512);
  });

  it("every file of the chain growing during the initial load costs at most twice the budget in reads", async () => {
    const spec: Record<string, string | null> = { "repo/.git/": null };
    let rel = "repo";
    for (let i = 0; i < 8; i++) spec[`${(rel += `/d${i}`)}/AGENTS.md`] = `rules ${i}`;
    const tree = await createTree(spec);
    const { fs: counting, counters } = countingFileSystem();
    const fs = injectFs(
      {
        read: async ([path, max], next) => {
          await appendFile(path, "z".repeat(50_000));
          return next(path, max);
        },
      },
      counting,
    );
    const session = await openSession(tree, { cwd: tree.path(rel), fs, config: { initial: { maxBytes: 4096 } } });
    expect(session.initialFiles.length).toBeGreaterThan(0);
    // Stat saw 8 small files that fit: they are read at the size stat saw, and the grown ones again
    // within what is left, never each up to the whole budget.
    expect(counters.bytesRead).toBeLessThanOrEqual(2 * 4096);
  });

  it("replaced (rename over) before the read: the new content is delivered with the new mtime, and not offered again", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/a/AGENTS.md": "old rules" });
    const target = tree.path("repo/a/AGENTS.md");
    await tree.setMtime("repo/a/AGENTS.md", 1_800_000_000);
    const fs = injectFs({
      read: async ([path, max], next) => {
        if (path === target && !replaced) {
          replaced = true;
          await writeFile(tree.path("repo/a/new.md"), "new rules");
          await tree.setMtime("repo/a/new.md", 1_800_000_100);
          await rename(tree.path("repo/a/new.md"), target);
        }
        return next(path, max);
      },
    });
    let replaced = false;
    const session = await openSession(tree, { cwd: tree.path("repo"), fs, config: { cache: { revalidateMs: 0 } } });
    const blocks = await session.touch([tree.path("repo/a/x.ts")]);
    expect(blocks).toEqual([expect.objectContaining({ path: target, content: "new rules", mtimeMs: 1_800_000_100_000 })]);
    expect(await session.resolve(tree.path("repo/a/x.ts"))).toEqual({ files: [] });
  });

  it("replaced right after the read: the old version is recorded, so the new one is offered again", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/a/AGENTS.md": "old rules" });
    const target = tree.path("repo/a/AGENTS.md");
    await tree.setMtime("repo/a/AGENTS.md", 1_800_000_000);
    const fs = injectFs({
      read: async ([path, max], next) => {
        const result = await next(path, max);
        if (path === target) {
          await writeFile(tree.path("repo/a/new.md"), "new rules");
          await tree.setMtime("repo/a/new.md", 1_800_000_100);
          await rename(tree.path("repo/a/new.md"), target);
        }
        return result;
      },
    });
    const session = await openSession(tree, { cwd: tree.path("repo"), fs, config: { cache: { revalidateMs: 0 } } });
    expect(await session.touch([tree.path("repo/a/x.ts")])).toEqual([expect.objectContaining({ content: "old rules", mtimeMs: 1_800_000_000_000 })]);
    expect(await session.resolve(tree.path("repo/a/x.ts"))).toEqual({ files: [{ path: target, mtimeMs: 1_800_000_100_000, sizeBytes: 9 }] });
  });

  it("deleted between stat and read: skipped quietly, the rest loads, and a re-created file is offered", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root", "repo/a/AGENTS.md": "doomed", "repo/a/b/AGENTS.md": "b" });
    const doomed = tree.path("repo/a/AGENTS.md");
    let armed = true;
    const fs = injectFs({
      read: async ([path, max], next) => {
        if (path === doomed && armed) await rm(doomed);
        return next(path, max);
      },
    });
    const session = await openSession(tree, { cwd: tree.path("repo/a/b"), fs, config: { cache: { revalidateMs: 0 } } });
    expect(files(session.initialFiles)).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/a/b/AGENTS.md")]);
    expect(session.diagnostics).toEqual([]);
    expect(session.loadedVersion(doomed)).toBeUndefined();

    await tree.write("repo/a/AGENTS.md", "doomed again");
    expect(await session.touch([tree.path("repo/a/b/x.ts")])).toEqual([]);
    armed = false;
    await tree.write("repo/a/AGENTS.md", "back");
    await tree.setMtime("repo/a/AGENTS.md", 1_850_000_000);
    expect(await session.touch([tree.path("repo/a/b/x.ts")])).toEqual([expect.objectContaining({ path: doomed, content: "back" })]);
  });
});
