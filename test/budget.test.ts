/**
 * Initial-load budgets (docs/loading-rules.md#the-initial-load): maxFiles keeps the deepest, maxBytes fills
 * nearest first but renders root-first, cuts at a UTF-8 boundary with a visible note, left-out
 * files come later through the resolver, blank files are skipped, invalid UTF-8 is lossy.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { trimEndText, truncationNoteBytes } from "../src/core/budget.js";
import { createTree, openSession, type Tree } from "./helpers/tree.js";

const NOTE = /^\[agentsmd: truncated, showed (\d+) of (\d+) bytes; read (.+) for the rest\]$/;

async function chainTree(files: Record<string, string | Uint8Array>): Promise<Tree> {
  return createTree({ "repo/.git/": null, "repo/a/b/c/": null, ...Object.fromEntries(Object.entries(files).map(([rel, text]) => [`repo/${rel}`, text])) });
}

describe("initial budgets", () => {
  it("maxFiles keeps the deepest files and still renders them root-first", async () => {
    const tree = await chainTree({ "AGENTS.md": "root", "a/AGENTS.md": "a", "a/b/AGENTS.md": "b", "a/b/c/AGENTS.md": "c" });
    const session = await openSession(tree, { cwd: tree.path("repo/a/b/c"), config: { initial: { maxFiles: 2 } } });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/a/b/AGENTS.md"), tree.path("repo/a/b/c/AGENTS.md")]);
    expect(session.initialMessage.indexOf("Instructions from: " + tree.path("repo/a/b/AGENTS.md"))).toBeLessThan(
      session.initialMessage.indexOf("Instructions from: " + tree.path("repo/a/b/c/AGENTS.md")),
    );
    expect(session.initialLoad?.leftOut.map((file) => [file.path, file.reason])).toEqual([
      [tree.path("repo/AGENTS.md"), "max-files"],
      [tree.path("repo/a/AGENTS.md"), "max-files"],
    ]);
  });

  it("files left out by maxFiles are not marked loaded, so the resolver offers them later, root side first", async () => {
    const tree = await chainTree({ "AGENTS.md": "root", "a/AGENTS.md": "a", "a/b/AGENTS.md": "b", "a/b/c/AGENTS.md": "c" });
    const session = await openSession(tree, { cwd: tree.path("repo/a/b/c"), config: { initial: { maxFiles: 2 } } });
    expect(session.loadedVersion(tree.path("repo/AGENTS.md"))).toBeUndefined();
    const found = await session.resolve(tree.path("repo/a/b/c/file.ts"));
    expect(found.files.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/a/AGENTS.md")]);
    expect(await session.resolve(tree.path("repo/a/b/c/file.ts"))).toEqual({ files: [] });
  });

  it("maxBytes is claimed nearest first: the root file is cut, the output stays root-first", async () => {
    const root = "R".repeat(2000);
    const tree = await chainTree({ "AGENTS.md": root, "a/AGENTS.md": "A".repeat(100), "a/b/c/AGENTS.md": "C".repeat(100) });
    const maxBytes = 200 + 400;
    const session = await openSession(tree, { cwd: tree.path("repo/a/b/c"), config: { initial: { maxBytes } } });
    const [rootFile, aFile, cFile] = session.initialFiles;
    expect([rootFile?.path, aFile?.path, cFile?.path]).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/a/AGENTS.md"), tree.path("repo/a/b/c/AGENTS.md")]);
    expect(aFile).toMatchObject({ truncated: false, includedBytes: 100, sizeBytes: 100 });
    expect(cFile).toMatchObject({ truncated: false, includedBytes: 100, sizeBytes: 100 });
    expect(rootFile).toMatchObject({ truncated: true, sizeBytes: 2000 });
    expect(rootFile!.includedBytes).toBe(400 - truncationNoteBytes(tree.path("repo/AGENTS.md"), 2000));

    const lines = session.initialMessage.split("\n");
    const note = lines.find((line) => NOTE.test(line));
    expect(note).toBe(`[agentsmd: truncated, showed ${rootFile!.includedBytes} of 2000 bytes; read ${tree.path("repo/AGENTS.md")} for the rest]`);
    // The note closes the root block, before the next file's block.
    expect(lines[lines.indexOf(note!) + 2]).toBe(`Instructions from: ${tree.path("repo/a/AGENTS.md")}`);
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "truncated", path: tree.path("repo/AGENTS.md") }));
  });

  it("the rendered files never exceed maxBytes, truncation line included", async () => {
    const tree = await chainTree({ "AGENTS.md": "x".repeat(5000), "a/AGENTS.md": "y".repeat(700) });
    for (const maxBytes of [900, 1000, 1500, 4000]) {
      const session = await openSession(tree, { cwd: tree.path("repo/a"), config: { initial: { maxBytes } } });
      const rendered = session.initialMessage
        .split(/\n?Instructions from: [^\n]*\n/)
        .slice(1)
        .map((block) => block.replace(/\n<\/agents_context>$/, "").replace(/\n$/, ""));
      const total = rendered.reduce((sum, block) => sum + Buffer.byteLength(block), 0);
      expect(total).toBeLessThanOrEqual(maxBytes);
      await session.close();
    }
  });

  it("a file that does not fit at all is left out and offered by the resolver later", async () => {
    const tree = await chainTree({ "AGENTS.md": "root rules", "a/AGENTS.md": "a".repeat(300) });
    const session = await openSession(tree, { cwd: tree.path("repo/a"), config: { initial: { maxBytes: 305 } } });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/a/AGENTS.md")]);
    expect(session.initialLoad?.leftOut).toEqual([expect.objectContaining({ path: tree.path("repo/AGENTS.md"), reason: "max-bytes" })]);
    expect((await session.resolve(tree.path("repo/a/x.ts"))).files.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md")]);
  });

  it("cuts a multi-byte file at a UTF-8 boundary, never inside a character", async () => {
    const text = "😀é€".repeat(200); // 4 + 2 + 3 bytes per round
    const bytes = Buffer.from(text);
    const tree = await chainTree({ "AGENTS.md": text });
    const path = tree.path("repo/AGENTS.md");
    const room0 = truncationNoteBytes(path, bytes.length);
    const seen = new Set<number>();
    for (let extra = 100; extra < 109; extra++) {
      const session = await openSession(tree, { cwd: tree.path("repo"), config: { initial: { maxBytes: room0 + extra } } });
      const file = session.initialFiles[0]!;
      expect(file.truncated).toBe(true);
      expect(file.includedBytes).toBeLessThanOrEqual(extra);
      expect(file.includedBytes).toBeGreaterThan(extra - 4);
      seen.add(extra - file.includedBytes);
      const shown = bytes.subarray(0, file.includedBytes).toString("utf8");
      expect(shown).not.toContain("\uFFFD");
      expect(text.startsWith(shown)).toBe(true);
      expect(session.initialMessage).toContain(
        `Instructions from: ${path}\n${shown}\n[agentsmd: truncated, showed ${file.includedBytes} of ${bytes.length} bytes; read ${path} for the rest]\n</agents_context>`,
      );
      await session.close();
    }
    // Some budgets did land inside a character (otherwise this test proved nothing).
    expect([...seen].some((lost) => lost > 0)).toBe(true);
  });

  it("skips empty and whitespace-only files: not rendered, not counted against maxFiles", async () => {
    const tree = await chainTree({ "AGENTS.md": "root rules", "a/AGENTS.md": "", "a/b/AGENTS.md": "  \n\t\r\n \u00a0\n", "a/b/c/AGENTS.md": "c rules" });
    const session = await openSession(tree, { cwd: tree.path("repo/a/b/c"), config: { initial: { maxFiles: 2 } } });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/a/b/c/AGENTS.md")]);
    expect(session.initialMessage).not.toContain(tree.path("repo/a/AGENTS.md"));
    expect(session.initialMessage).not.toContain(tree.path("repo/a/b/AGENTS.md"));
    // A blank file is not offered by the resolver either: there is nothing in it to read.
    expect(await session.resolve(tree.path("repo/a/b/c/x.ts"))).toEqual({ files: [] });
  });

  it("renders nothing when every file is blank", async () => {
    const tree = await chainTree({ "AGENTS.md": "\n\n", "a/AGENTS.md": "" });
    const session = await openSession(tree, { cwd: tree.path("repo/a") });
    expect(session.initialFiles).toEqual([]);
    expect(session.initialMessage).toBe("");
  });

  it("decodes invalid UTF-8 lossily and drops a leading BOM", async () => {
    const tree = await chainTree({
      "AGENTS.md": Uint8Array.from([0x68, 0xff, 0x69, 0xc3, 0x0a, 0x6f, 0x6b]),
      "a/AGENTS.md": Uint8Array.from([0xef, 0xbb, 0xbf, ...Buffer.from("bom file")]),
    });
    const session = await openSession(tree, { cwd: tree.path("repo/a") });
    expect(session.initialMessage).toBe(
      [
        '<agents_context scope="initial">',
        `Instructions from: ${tree.path("repo/AGENTS.md")}`,
        "h\uFFFDi\uFFFD",
        "ok",
        "",
        `Instructions from: ${tree.path("repo/a/AGENTS.md")}`,
        "bom file",
        "</agents_context>",
      ].join("\n"),
    );
  });

  it("records sizes and mtimes of the included files as the disk has them", async () => {
    const tree = await chainTree({ "AGENTS.md": "root €" });
    await tree.setMtime("repo/AGENTS.md", 1_700_000_000);
    const session = await openSession(tree, { cwd: tree.path("repo") });
    expect(session.initialFiles).toEqual([
      { path: tree.path("repo/AGENTS.md"), layer: "project", mtimeMs: 1_700_000_000_000, sizeBytes: 8, includedBytes: 8, truncated: false },
    ]);
  });
});

describe("initial budgets, property-based", () => {
  const textArb = fc.oneof(
    fc.constant(""),
    fc.constant("  \n"),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 300 }),
    fc.string({ unit: fc.constantFrom("a", "é", "€", "😀", "\n"), minLength: 1, maxLength: 200 }),
  );

  it("never exceeds maxBytes or maxFiles, cuts at most one file at a character boundary, keeps the deepest on maxFiles, and the resolver offers exactly what was left out", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(textArb, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 1500 }),
        fc.integer({ min: 1, max: 5 }),
        async (texts, maxBytes, maxFiles) => {
          const rels = texts.map((_, depth) => ["repo", ...Array.from({ length: depth }, (__, i) => `d${i}`)].join("/"));
          const spec: Record<string, string | null> = { "repo/.git/": null };
          texts.forEach((text, index) => {
            spec[`${rels[index]}/AGENTS.md`] = text;
          });
          const tree = await createTree(spec);
          const cwd = tree.path(rels.at(-1)!);
          const session = await openSession(tree, { cwd, config: { initial: { maxBytes, maxFiles }, resolver: { maxFilesPerResolve: 10 } } });
          const load = session.initialLoad!;
          const files = session.initialFiles;
          const byPath = new Map(rels.map((rel, index) => [tree.path(`${rel}/AGENTS.md`), texts[index]!]));

          expect(files.length).toBeLessThanOrEqual(maxFiles);
          expect(files.filter((file) => file.truncated).length).toBeLessThanOrEqual(1);
          // Root-first order.
          const order = [...byPath.keys()];
          expect(files.map((file) => order.indexOf(file.path))).toEqual([...files.map((file) => order.indexOf(file.path))].sort((a, b) => a - b));
          let rendered = 0;
          for (const file of files) {
            const text = byPath.get(file.path)!;
            const bytes = Buffer.from(text);
            const shown = bytes.subarray(0, file.includedBytes).toString("utf8");
            expect(text.startsWith(shown)).toBe(true);
            expect(file.truncated).toBe(file.includedBytes < bytes.length);
            const note = file.truncated ? `\n[agentsmd: truncated, showed ${file.includedBytes} of ${bytes.length} bytes; read ${file.path} for the rest]` : "";
            expect(session.initialMessage).toContain(`Instructions from: ${file.path}\n${trimEndText(shown + note)}`);
            rendered += file.includedBytes + Buffer.byteLength(note);
          }
          expect(rendered).toBeLessThanOrEqual(maxBytes);
          // Every candidate is accounted for once.
          const accounted = [...files.map((file) => file.path), ...load.leftOut.map((file) => file.path), ...load.blank.map((file) => file.path)];
          expect(accounted.sort()).toEqual(order.filter((path) => byPath.get(path) !== undefined).sort());
          // maxFiles keeps the deepest: anything left out for max-files is shallower than every included file.
          for (const left of load.leftOut.filter((file) => file.reason === "max-files")) {
            for (const file of files) expect(order.indexOf(left.path)).toBeLessThan(order.indexOf(file.path));
          }
          // Left-out files are offered later, root side first; nothing else is.
          const offered = (await session.resolve(cwd)).files.map((file) => file.path);
          expect(offered).toEqual(load.leftOut.map((file) => file.path));
          await session.close();
          await tree.cleanup();
        },
      ),
      { numRuns: 60 },
    );
  });
});
