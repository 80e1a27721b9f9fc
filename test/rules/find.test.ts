import { describe, expect, it } from "vitest";
import { findRules } from "../../src/load/rules/find.js";
import { countingFileSystem, nodeFileSystem } from "../../src/io/file-system.js";
import { createTree, makeFifo, makeSymlink } from "../helpers/tree.js";

const ALL = {
  ".git/": null,
  ".github/instructions/ts.instructions.md": "---\napplyTo: '**/*.ts'\n---\nCOPILOT-TS\n",
  ".github/instructions/deep/py.instructions.md": '---\napplyTo: "**/*.py"\nexcludeAgent: code-review\n---\nCOPILOT-PY\n',
  ".github/instructions/notes.md": "not an instructions file\n",
  ".claude/rules/api.md": "---\npaths:\n  - packages/api/**\n---\nCLAUDE-API\n",
  ".claude/rules/always.md": "CLAUDE-ALWAYS\n",
  ".cursor/rules/web.mdc": "---\ndescription: web\nglobs: packages/web/**,*.css\nalwaysApply: false\n---\nCURSOR-WEB\n",
  ".continue/rules/py.md": "---\nname: Python\nglobs: ['**/*.py', '!**/test_*.py']\n---\nCONTINUE-PY\n",
  ".qwen/rules/sql.md": "---\ndescription: sql\npaths: 'db/**/*.sql'\n---\nQWEN-SQL\n",
  ".windsurf/rules/js.md": "---\ntrigger: glob\nglobs: *.js\n---\nWINDSURF-JS\n",
};

describe("findRules", () => {
  it("finds every format's files under the root, sorted, normalised", async () => {
    const tree = await createTree(ALL);
    const { rules, diagnostics } = await findRules({ root: tree.root, fs: nodeFileSystem });
    expect(diagnostics).toEqual([]);
    expect(rules.map((rule) => [rule.format, rule.path.slice(tree.root.length + 1), rule.activation, rule.globs])).toEqual([
      ["copilot", ".github/instructions/deep/py.instructions.md", "glob", ["**/*.py"]],
      ["copilot", ".github/instructions/ts.instructions.md", "glob", ["**/*.ts"]],
      ["claude", ".claude/rules/always.md", "always", []],
      ["claude", ".claude/rules/api.md", "glob", ["packages/api/**"]],
      ["cursor", ".cursor/rules/web.mdc", "glob", ["packages/web/**", "*.css"]],
      ["continue", ".continue/rules/py.md", "glob", ["**/*.py", "!**/test_*.py"]],
      ["qwen", ".qwen/rules/sql.md", "glob", ["db/**/*.sql"]],
      ["windsurf", ".windsurf/rules/js.md", "glob", ["*.js"]],
    ]);
    expect(rules[0]!.excludeAgent).toEqual(["code-review"]);
    expect(rules[0]!.body).toBe("COPILOT-PY\n");
    expect(rules.every((rule) => rule.base === tree.root && rule.mtimeMs > 0 && rule.sizeBytes > 0)).toBe(true);
  });

  it("reads only the formats asked for", async () => {
    const tree = await createTree(ALL);
    const { rules } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["cursor", "qwen"] });
    expect(rules.map((rule) => rule.format)).toEqual(["cursor", "qwen"]);
  });

  it("reports a malformed header with the file and the line, and keeps the rule undeliverable", async () => {
    const tree = await createTree({ ".cursor/rules/bad.mdc": "---\ndescription: x\nalwaysApply: [\nglobs: a/**\n---\nBODY\n" });
    const { rules, diagnostics } = await findRules({ root: tree.root, fs: nodeFileSystem });
    expect(rules).toHaveLength(1);
    expect(rules[0]!.activation).toBe("manual");
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: "rule-frontmatter", path: tree.path(".cursor/rules/bad.mdc"), fix: "fix the YAML header at that line" });
    expect(diagnostics[0]!.message).toMatch(new RegExp(`^${tree.path(".cursor/rules/bad.mdc").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:[345]: `));
  });

  it("bounds the read of a huge rule file and says so", async () => {
    const tree = await createTree({ ".qwen/rules/big.md": `---\npaths: a/**\n---\n${"x".repeat(10_000)}` });
    const { rules, diagnostics } = await findRules({ root: tree.root, fs: nodeFileSystem, maxBytes: 1000 });
    expect(rules[0]!.truncated).toBe(true);
    expect(rules[0]!.body.length).toBeLessThan(1000);
    expect(diagnostics.map((d) => d.code)).toEqual(["rule-truncated"]);
    // its own fix, which doctor's JSON findings carry as they are
    expect(diagnostics[0]!.fix).toBe("shorten it to at most 1000 bytes or split it");
  });

  it("bounds the number of files and the depth walked", async () => {
    const spec: Record<string, string | null> = {};
    for (let i = 0; i < 20; i++) spec[`.claude/rules/r${String(i).padStart(2, "0")}.md`] = `rule ${i}\n`;
    spec[".claude/rules/a/b/c/d/deep.md"] = "deep\n";
    const tree = await createTree(spec);
    const few = await findRules({ root: tree.root, fs: nodeFileSystem, maxFiles: 5 });
    expect(few.rules).toHaveLength(5);
    expect(few.diagnostics.map((d) => d.code)).toEqual(["rules-too-many"]);
    const shallow = await findRules({ root: tree.root, fs: nodeFileSystem, maxDepth: 2 });
    expect(shallow.rules.some((rule) => rule.path.endsWith("deep.md"))).toBe(false);
    expect(shallow.diagnostics.map((d) => d.code)).toContain("rules-too-deep");
  });

  it("never blocks on a FIFO and never follows a link out of the root", async () => {
    const outside = await createTree({ "secret.md": "---\npaths: '**'\n---\nSECRET\n" });
    const tree = await createTree({ ".claude/rules/ok.md": "OK\n" });
    await makeFifo(tree, ".claude/rules/fifo.md");
    await makeSymlink(tree, ".claude/rules/leak.md", outside.path("secret.md"));
    await makeSymlink(tree, ".cursor", outside.root);
    const { rules } = await findRules({ root: tree.root, fs: nodeFileSystem });
    expect(rules.map((rule) => rule.body)).toEqual(["OK\n"]);
  });

  it("takes a rule file linked inside the root (one rule kept for two formats)", async () => {
    const tree = await createTree({ ".claude/rules/shared.md": "---\npaths: src/**\n---\nSHARED\n", ".qwen/rules/": null });
    await makeSymlink(tree, ".qwen/rules/shared.md", tree.path(".claude/rules/shared.md"));
    const { rules } = await findRules({ root: tree.root, fs: nodeFileSystem });
    expect(rules.map((rule) => [rule.format, rule.body])).toEqual([
      ["claude", "SHARED\n"],
      ["qwen", "SHARED\n"],
    ]);
  });

  it("costs one stat per format when there are no rules", async () => {
    const tree = await createTree({ "AGENTS.md": "x" });
    const { fs, counters } = countingFileSystem();
    await findRules({ root: tree.root, fs });
    expect(counters).toMatchObject({ stat: 8, open: 0, readdir: 0 });
  });
});
