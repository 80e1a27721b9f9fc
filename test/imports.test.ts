import { describe, expect, it } from "vitest";
import { codeRegions, expandImports, findImports, readInstructionExpanded, resolveImportPath, type ImportOptions } from "../src/load/imports.js";
import { nodeFileSystem } from "../src/io/file-system.js";
import type { Diagnostic } from "../src/core/schema.js";
import { createTree, makeSymlink, type Tree } from "./helpers/tree.js";

function options(tree: Tree, more: Partial<ImportOptions> = {}): ImportOptions {
  return { fs: nodeFileSystem, home: tree.home, allowedRoots: [tree.root], ...more };
}

describe("findImports", () => {
  it("finds @path at the start of the text and after whitespace, not inside words or emails", () => {
    const tokens = findImports("@a.md then @docs/b.md and bob@example.com and x@y.md");
    expect(tokens.map((token) => token.path)).toEqual(["a.md", "docs/b.md"]);
  });

  it("leaves trailing punctuation out of the path", () => {
    const text = "See @docs/guide.md. Also (@x/y.md), and @z.md!";
    expect(findImports("See @docs/guide.md. Also @x/y.md, and @z.md!").map((token) => token.path)).toEqual(["docs/guide.md", "x/y.md", "z.md"]);
    const [first] = findImports(text);
    expect(text.slice(first!.start, first!.end)).toBe("@docs/guide.md");
  });

  it("reads an escaped space as part of the path", () => {
    expect(findImports("@Design\\ Docs/x.md rest").map((token) => token.path)).toEqual(["Design Docs/x.md"]);
  });

  it("ignores @ inside inline code spans and fenced blocks", () => {
    const text = ["Use `@inline.md` and ``@double.md``.", "```", "@fenced.md", "```", "~~~~", "@tilde.md", "~~~~", "@real.md"].join("\n");
    expect(findImports(text).map((token) => token.path)).toEqual(["real.md"]);
  });

  it("treats an unclosed fence as running to the end", () => {
    expect(findImports("```\n@inside.md\n")).toEqual([]);
  });

  it("keeps an unmatched backtick literal, so a later @path still counts", () => {
    expect(findImports("a ` b @c.md").map((token) => token.path)).toEqual(["c.md"]);
  });

  it("marks bare words as mentions and path-like tokens as imports", () => {
    const tokens = findImports("ask @alice about @README and @AGENTS.md or @docs/x");
    expect(tokens.map((token) => [token.path, token.bare])).toEqual([
      ["alice", true],
      ["README", true],
      ["AGENTS.md", false],
      ["docs/x", false],
    ]);
  });

  it("skips URLs, ~user, and tokens that cannot start a path", () => {
    expect(findImports("@https://x.y/z @~bob @- @@ @~/notes.md")).toEqual([expect.objectContaining({ path: "~/notes.md" })]);
  });

  it("reports code regions in order", () => {
    expect(codeRegions("a `@x` b")).toEqual([[2, 6]]);
  });
});

describe("resolveImportPath", () => {
  it("resolves relative to the importing file, ~/ against home, absolute as is", () => {
    expect(resolveImportPath("../b.md", "/r/docs/a.md", "/home/me")).toBe("/r/b.md");
    expect(resolveImportPath("~/x.md", "/r/a.md", "/home/me")).toBe("/home/me/x.md");
    expect(resolveImportPath("/etc/x.md", "/r/a.md", "/home/me")).toBe("/etc/x.md");
  });
});

describe("expandImports", () => {
  it("expands an import in place between markers naming the imported file", async () => {
    const tree = await createTree({ "AGENTS.md": "x", "docs/rules.md": "Rule one.\n" });
    const result = await expandImports("Before @docs/rules.md after", tree.path("AGENTS.md"), options(tree));
    const target = tree.path("docs/rules.md");
    expect(result.content).toBe(`Before [agentsmd: imported from ${target}]\nRule one.\n[agentsmd: end of import from ${target}] after`);
    expect(result.imports).toEqual([{ path: target, from: tree.path("AGENTS.md"), depth: 1, bytes: 10 }]);
    expect(result.diagnostics).toEqual([]);
  });

  it("resolves relative to the importing file, also for nested imports", async () => {
    const tree = await createTree({ "a/AGENTS.md": "", "a/b/one.md": "one @two.md", "a/b/two.md": "two" });
    const result = await expandImports("@b/one.md", tree.path("a/AGENTS.md"), options(tree));
    expect(result.imports.map((record) => [record.path, record.depth])).toEqual([
      [tree.path("a/b/one.md"), 1],
      [tree.path("a/b/two.md"), 2],
    ]);
    expect(result.content).toContain("one [agentsmd: imported from");
    expect(result.content).toContain("\ntwo\n");
  });

  it("imports from ~/ and from absolute paths when they are allowed", async () => {
    const tree = await createTree({ "AGENTS.md": "" });
    await tree.write(".test-home/prefs.md", "home prefs");
    await tree.write("abs.md", "absolute");
    const result = await expandImports(`@~/prefs.md @${tree.path("abs.md")}`, tree.path("AGENTS.md"), options(tree, { allowedRoots: [] }));
    expect(result.content).toContain("home prefs");
    expect(result.content).toContain("absolute");
  });

  it("expands at most 5 levels and reports the import left at level 6", async () => {
    const spec: Record<string, string> = {};
    for (let level = 1; level <= 6; level++) spec[`l${level}.md`] = `level ${level}${level < 6 ? ` @l${level + 1}.md` : ""}`;
    const tree = await createTree(spec);
    const result = await expandImports("@l1.md", tree.path("AGENTS.md"), options(tree));
    expect(result.imports.map((record) => record.depth)).toEqual([1, 2, 3, 4, 5]);
    expect(result.content).toContain("level 5 @l6.md");
    expect(result.content).not.toContain("level 6");
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["import-too-deep"]);
    expect(result.diagnostics[0]!.path).toBe(tree.path("l5.md"));
  });

  it("detects a cycle, leaves the closing import literal and names the cycle", async () => {
    const tree = await createTree({ "AGENTS.md": "top @a.md", "a.md": "A @b.md", "b.md": "B @a.md" });
    const result = await expandImports("top @a.md", tree.path("AGENTS.md"), options(tree));
    expect(result.content).toContain("B @a.md");
    expect(result.imports).toHaveLength(2);
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]!.code).toBe("import-cycle");
    expect(result.diagnostics[0]!.message).toContain(`${tree.path("a.md")} -> ${tree.path("b.md")} -> ${tree.path("a.md")}`);
  });

  it("detects a file importing itself", async () => {
    const tree = await createTree({ "AGENTS.md": "me @AGENTS.md" });
    const result = await expandImports("me @AGENTS.md", tree.path("AGENTS.md"), options(tree));
    expect(result.content).toBe("me @AGENTS.md");
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["import-cycle"]);
  });

  it("inlines the same file twice when siblings import it (not a cycle)", async () => {
    const tree = await createTree({ "shared.md": "S" });
    const result = await expandImports("@shared.md and @shared.md", tree.path("AGENTS.md"), options(tree));
    expect(result.imports).toHaveLength(2);
    expect(result.diagnostics).toEqual([]);
  });

  it("leaves @ in code spans and fenced blocks alone", async () => {
    const tree = await createTree({ "x.md": "X" });
    const text = "`@x.md`\n```\n@x.md\n```\n";
    const result = await expandImports(text, tree.path("AGENTS.md"), options(tree));
    expect(result.content).toBe(text);
    expect(result.imports).toEqual([]);
  });

  it("leaves plain mentions alone without a diagnostic", async () => {
    const tree = await createTree({});
    const result = await expandImports("Ask @alice or @bob-smith.", tree.path("AGENTS.md"), options(tree));
    expect(result.content).toBe("Ask @alice or @bob-smith.");
    expect(result.diagnostics).toEqual([]);
  });

  it("imports a bare name when such a file exists next to the importing file", async () => {
    const tree = await createTree({ README: "readme text" });
    const result = await expandImports("See @README", tree.path("AGENTS.md"), options(tree));
    expect(result.content).toContain("readme text");
  });

  it("keeps a missing import literal and reports it", async () => {
    const tree = await createTree({});
    const result = await expandImports("See @docs/missing.md.", tree.path("AGENTS.md"), options(tree));
    expect(result.content).toBe("See @docs/missing.md.");
    expect(result.diagnostics).toEqual([expect.objectContaining({ level: "warning", code: "import-missing", path: tree.path("AGENTS.md") })]);
    expect(result.diagnostics[0]!.message).toContain(tree.path("docs/missing.md"));
    // The fix is its own field (doctor and the CLI print it), not a parenthesis inside the message.
    expect(result.diagnostics[0]!.fix).toMatch(/^fix the path/);
    expect(result.diagnostics[0]!.message).not.toContain(result.diagnostics[0]!.fix);
  });

  it("confines imports to the allowed roots, symlinks included", async () => {
    const outside = await createTree({ "secret.md": "secret" });
    const tree = await createTree({ "AGENTS.md": "" });
    await makeSymlink(tree, "link.md", outside.path("secret.md"));
    const result = await expandImports(`@${outside.path("secret.md")} @link.md`, tree.path("AGENTS.md"), options(tree));
    expect(result.content).not.toContain("secret\n");
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["import-outside-root", "import-outside-root"]);
    const open = await expandImports("@link.md", tree.path("AGENTS.md"), options(tree, { allowedRoots: [] }));
    expect(open.content).toContain("secret");
  });

  it("refuses directories and binary files", async () => {
    const tree = await createTree({ "dir/": null, "bin.md": new Uint8Array([0x61, 0, 0x62]) });
    const result = await expandImports("@dir/ @bin.md", tree.path("AGENTS.md"), options(tree));
    expect(result.content).toBe("@dir/ @bin.md");
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["import-not-a-file", "import-binary"]);
  });

  it("leaves an import literal when it does not fit the byte budget", async () => {
    const tree = await createTree({ "big.md": "x".repeat(100), "small.md": "y" });
    const result = await expandImports("@big.md @small.md", tree.path("AGENTS.md"), options(tree, { maxBytes: 50 }));
    expect(result.content).toMatch(/^@big\.md \[agentsmd: imported from/);
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["import-over-budget"]);
  });

  it("frames imports as Gemini CLI does with the gemini marker", async () => {
    const tree = await createTree({ "a.md": "A\n" });
    const result = await expandImports("@./a.md", tree.path("GEMINI.md"), options(tree, { marker: "gemini" }));
    expect(result.content).toBe("<!-- Imported from: ./a.md -->\nA\n\n<!-- End of import from: ./a.md -->");
  });
});

describe("readInstructionExpanded", () => {
  const context = (tree: Tree) => ({ enabled: true, root: tree.root, allowOutsideRoot: false, home: tree.home });

  it("counts imported bytes against the budget and cuts the expanded text", async () => {
    const tree = await createTree({ "AGENTS.md": "head @part.md tail", "part.md": "p".repeat(100) });
    const diagnostics: Diagnostic[] = [];
    const whole = await readInstructionExpanded(nodeFileSystem, tree.path("AGENTS.md"), 10_000, "byte", context(tree), (d) => diagnostics.push(d));
    expect(whole!.truncated).toBe(false);
    expect(whole!.sizeBytes).toBe(18);
    expect(whole!.importedBytes).toBe(Buffer.byteLength(whole!.content) - 18);
    expect(whole!.chargedBytes).toBe(Buffer.byteLength(whole!.content));

    const cut = await readInstructionExpanded(nodeFileSystem, tree.path("AGENTS.md"), 150, "byte", context(tree), (d) => diagnostics.push(d));
    expect(cut!.truncated).toBe(true);
    expect(cut!.chargedBytes).toBe(150);
    expect(cut!.content).toContain("head [agentsmd: imported from");

    // An import bigger than what the budget has left is not half-expanded: it stays literal.
    const literal = await readInstructionExpanded(nodeFileSystem, tree.path("AGENTS.md"), 60, "byte", context(tree), (d) => diagnostics.push(d));
    expect(literal!.content).toBe("head @part.md tail");
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["import-over-budget"]);
  });

  it("reads exactly like readInstruction when imports are off or absent", async () => {
    const tree = await createTree({ "AGENTS.md": "no imports here", "B.md": "see @x.md" });
    const diagnostics: Diagnostic[] = [];
    const plain = await readInstructionExpanded(nodeFileSystem, tree.path("AGENTS.md"), 100, "utf8-with-note", context(tree), (d) => diagnostics.push(d));
    expect(plain).toMatchObject({ content: "no imports here", importedBytes: 0, imports: [] });
    const off = await readInstructionExpanded(nodeFileSystem, tree.path("B.md"), 100, "utf8-with-note", { ...context(tree), enabled: false }, (d) =>
      diagnostics.push(d),
    );
    expect(off!.content).toBe("see @x.md");
    expect(diagnostics).toEqual([]);
  });
});
