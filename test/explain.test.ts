import { link } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { explainAllPresets, explainPath, formatExplanation, formatMatrix, type Explanation } from "../src/inspect/explain.js";
import { codeliaPreset } from "../src/presets/preset.js";
import { presetNames, registerPreset } from "../src/presets/table.js";
import { createTree, runCli, type Tree } from "./helpers/tree.js";
import { createSession } from "../src/session/session.js";

const base = (tree: Tree, more: Record<string, unknown> = {}) => ({ cwd: tree.root, home: tree.home, env: {}, ...more });
const byPath = (explanation: Explanation, path: string) => explanation.files.find((entry) => entry.path === path)!;

describe("explainPath", () => {
  it("lists the files in the order the model sees them, with layer and reason", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root", "pkg/AGENTS.md": "pkg", "pkg/src/AGENTS.md": "src", "pkg/src/a.ts": "" });
    const explanation = await explainPath(base(tree, { cwd: tree.path("pkg") }), tree.path("pkg/src/a.ts"));
    expect(explanation.files.map((entry) => [entry.order, entry.layer, entry.status, entry.path])).toEqual([
      [1, "project", "loaded", tree.path("AGENTS.md")],
      [2, "project", "loaded", tree.path("pkg/AGENTS.md")],
      [3, "path", "touch", tree.path("pkg/src/AGENTS.md")],
    ]);
    expect(explanation.files[0]!.reason).toContain(`in ${tree.root} (the project root)`);
    expect(explanation.files[1]!.reason).toContain("(cwd)");
    expect(explanation.files[2]!.reason).toContain("(the target's directory)");
    expect(explanation.files[0]!.fate).toBe("whole (4 bytes)");
  });

  it("lists touch's files in the order touch delivers them (root side first for codelia, nearest first for opencode), and says so", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root", "a/AGENTS.md": "a", "a/b/AGENTS.md": "b", "a/b/x.ts": "" });
    const delivered = async (preset: string) => {
      const explanation = await explainPath(base(tree, { preset }), tree.path("a/b/x.ts"));
      return { explanation, touched: explanation.files.filter((entry) => entry.status === "touch").map((entry) => [entry.order, entry.path]) };
    };
    const codelia = await delivered("codelia");
    expect(codelia.touched).toEqual([
      [2, tree.path("a/AGENTS.md")],
      [3, tree.path("a/b/AGENTS.md")],
    ]);
    expect(formatExplanation(codelia.explanation)).toContain(
      "order: startup files in the initial message's order, then the files touch delivers, root side first (docs/loading-rules.md#progressive-resolution)",
    );
    const opencode = await delivered("opencode");
    expect(opencode.touched).toEqual([
      [2, tree.path("a/b/AGENTS.md")],
      [3, tree.path("a/AGENTS.md")],
    ]);
    expect(opencode.explanation.order).toContain("nearest directory first (the agent's own order, kept by preset opencode)");
    // The same order the session's touch delivers.
    const session = await createSession(base(tree, { preset: "codelia" }));
    expect((await session.touch([tree.path("a/b/x.ts")])).map((block) => block.path)).toEqual([tree.path("a/AGENTS.md"), tree.path("a/b/AGENTS.md")]);
  });

  it("names the root's reason: preset claude has no project root (not an override the user set); --root is one", async () => {
    const tree = await createTree({ ".git/": null, "CLAUDE.md": "c" });
    const plain = await runCli(["--home", tree.home, "--cwd", tree.root, "--preset", "claude", "explain", "x.ts"]);
    expect(plain.stdout).toContain("; root / (preset claude: the agent has no project root, every directory from / to cwd counts)");
    expect(plain.stdout).not.toContain("(override)");
    const root = await runCli(["--home", tree.home, "--cwd", tree.root, "--preset", "claude", "--json", "root"]);
    expect(JSON.parse(root.stdout)).toMatchObject({ root: "/", reason: "preset" });
    const given = await runCli(["--home", tree.home, "--cwd", tree.root, "--preset", "claude", "--root", tree.root, "explain", "x.ts"]);
    expect(given.stdout).toContain(`; root ${tree.root} (root.projectRootOverride or --root)`);
  });

  it("names the winning candidate and what it shadowed (codex: override beats AGENTS.md)", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.override.md": "override", "AGENTS.md": "plain" });
    const explanation = await explainPath(base(tree, { preset: "codex" }), tree.path("x.ts"));
    expect(byPath(explanation, tree.path("AGENTS.override.md"))).toMatchObject({ order: 1, status: "loaded" });
    expect(byPath(explanation, tree.path("AGENTS.override.md")).reason).toContain("AGENTS.override.md > AGENTS.md");
    expect(byPath(explanation, tree.path("AGENTS.md"))).toMatchObject({ order: null, status: "shadowed" });
    expect(byPath(explanation, tree.path("AGENTS.md")).reason).toContain(`hidden by ${tree.path("AGENTS.override.md")}`);
  });

  it("says when an empty override hides its sibling", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.override.md": " \n", "AGENTS.md": "plain" });
    const explanation = await explainPath(base(tree, { preset: "codex" }), tree.path("x.ts"));
    expect(byPath(explanation, tree.path("AGENTS.override.md")).status).toBe("blank");
    expect(byPath(explanation, tree.path("AGENTS.md")).reason).toContain("which is empty: this directory contributes nothing");
    expect(explanation.files.filter((entry) => entry.order !== null)).toEqual([]);
  });

  it("reports the budget's fate: cut at N bytes, left out", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "r".repeat(40_000), "pkg/AGENTS.md": "p".repeat(100) });
    const explanation = await explainPath(base(tree, { preset: "codex", cwd: tree.path("pkg") }), tree.path("pkg/a.ts"));
    const root = byPath(explanation, tree.path("AGENTS.md"));
    expect(root).toMatchObject({ status: "cut", includedBytes: 32_768, sizeBytes: 40_000, order: 1 });
    expect(root.fate).toBe("cut at 32768 bytes of 40000 (initial.maxBytes 32768, root-first)");
    const pkg = byPath(explanation, tree.path("pkg/AGENTS.md"));
    expect(pkg).toMatchObject({ status: "left-out", order: null });
    expect(pkg.fate).toBe("left out: the 32768 bytes budget was spent on files nearer the root");
  });

  it("explains files under an excluded directory that touch never delivers", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root", "build/AGENTS.md": "b", "build/x.js": "" });
    const explanation = await explainPath(base(tree), tree.path("build/x.js"));
    expect(byPath(explanation, tree.path("build/AGENTS.md"))).toMatchObject({ status: "not-delivered", order: null });
    expect(byPath(explanation, tree.path("build/AGENTS.md")).reason).toContain(`under ${tree.path("build")}, an excluded directory (lazy.exclude)`);
  });

  it("marks names the preset does not read as ignored", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "a", "GEMINI.md": "g" });
    const explanation = await explainPath(base(tree, { preset: "gemini" }), tree.path("x.ts"));
    expect(byPath(explanation, tree.path("GEMINI.md"))).toMatchObject({ order: 1, status: "loaded" });
    expect(byPath(explanation, tree.path("AGENTS.md"))).toMatchObject({ status: "ignored" });
    expect(byPath(explanation, tree.path("AGENTS.md")).reason).toContain("not a name preset gemini reads here (GEMINI.md)");
  });

  it("gives claude's reason for not reading AGENTS.md", async () => {
    const tree = await createTree({ "CLAUDE.md": "c", "AGENTS.md": "a" });
    const explanation = await explainPath(base(tree, { preset: "claude" }), tree.path("x.ts"));
    expect(byPath(explanation, tree.path("CLAUDE.md")).status).toBe("loaded");
    expect(byPath(explanation, tree.path("AGENTS.md")).reason).toContain("turns Claude Code's own AGENTS.md loading off");
  });

  it("reports a hard link as a duplicate under gemini", async () => {
    const tree = await createTree({ ".git/": null, "GEMINI.md": "g" });
    await link(tree.path("GEMINI.md"), tree.path("AGENTS.md"));
    const explanation = await explainPath(base(tree, { preset: "gemini", config: { files: { names: ["AGENTS.md"] } } }), tree.path("x.ts"));
    expect(byPath(explanation, tree.path("AGENTS.md")).status).toBe("loaded");
    expect(byPath(explanation, tree.path("GEMINI.md"))).toMatchObject({ status: "duplicate" });
    expect(byPath(explanation, tree.path("GEMINI.md")).fate).toContain(`the same file as ${tree.path("AGENTS.md")} (device + inode)`);
  });

  it("counts imported bytes and lists the imports", async () => {
    const tree = await createTree({ ".git/": null, "CLAUDE.md": "See @docs/a.md", "docs/a.md": "12345" });
    const explanation = await explainPath(base(tree, { preset: "claude" }), tree.path("x.ts"));
    const entry = byPath(explanation, tree.path("CLAUDE.md"));
    expect(entry.importedBytes).toBe(5);
    expect(entry.imports).toEqual([{ path: tree.path("docs/a.md"), from: tree.path("CLAUDE.md"), depth: 1, bytes: 5 }]);
    expect(entry.fate).toBe("whole (14 bytes + 5 bytes imported)");
    expect(formatExplanation(explanation)).toContain(`imports ${tree.path("docs/a.md")} (5 bytes, level 1)`);
  });

  it("keeps initial files whose scope does not cover the path apart", async () => {
    const tree = await createTree({ ".git/": null, "a/AGENTS.md": "a", "b/x.ts": "" });
    const explanation = await explainPath(base(tree, { cwd: tree.path("a") }), tree.path("b/x.ts"));
    expect(explanation.files).toEqual([]);
    expect(explanation.alsoInContext).toEqual([{ path: tree.path("a/AGENTS.md"), layer: "project", scope: tree.path("a") }]);
  });

  it("does not admit anything: the same session state is left", async () => {
    const tree = await createTree({ ".git/": null, "pkg/AGENTS.md": "p", "pkg/a.ts": "" });
    const first = await explainPath(base(tree), tree.path("pkg/a.ts"));
    const second = await explainPath(base(tree), tree.path("pkg/a.ts"));
    expect(second.files).toEqual(first.files);
  });
});

describe("explainAllPresets", () => {
  it("includes whatever presets are registered at run time", async () => {
    if (!presetNames().includes("test-only"))
      registerPreset({ ...codeliaPreset, name: "test-only", root: { markers: [".git"], stopAtFsRoot: true }, files: { names: ["NOTES.md"], select: "first" } });
    const tree = await createTree({ ".git/": null, "AGENTS.md": "a", "NOTES.md": "n" });
    const matrix = await explainAllPresets(base(tree), tree.path("x.ts"));
    expect(matrix.presets).toEqual(presetNames());
    expect(matrix.presets).toContain("test-only");
    const text = formatMatrix(matrix);
    const header = text.split("\n")[1]!;
    expect(header).toMatch(/codelia\s+codex.*test-only\s+file$/);
    const notes = text.split("\n").find((line) => line.endsWith(tree.path("NOTES.md")))!;
    const cells = notes.split(/\s{2,}/);
    expect(cells[matrix.presets.indexOf("test-only")]).toBe("1 whole");
    expect(cells[matrix.presets.indexOf("codex")]).toBe("-");
  });
});

describe("agentsmd explain", () => {
  it("prints the explanation, or one JSON document with --json", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root" });
    const text = await runCli(["--home", tree.home, "--cwd", tree.root, "explain", tree.path("x.ts")]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`1. ${tree.path("AGENTS.md")}\n   project: whole (4 bytes)\n   why: in ${tree.root} (the project root, cwd)`);
    const json = await runCli(["--home", tree.home, "--cwd", tree.root, "--json", "explain", tree.path("x.ts")]);
    const parsed = JSON.parse(json.stdout) as Explanation;
    expect(parsed.files.map((entry) => entry.path)).toEqual([tree.path("AGENTS.md")]);
    expect(parsed.preset).toBe("codelia");
  });

  it("prints the matrix with --all-presets", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root" });
    const run = await runCli(["--home", tree.home, "--cwd", tree.root, "explain", "--all-presets", tree.path("x.ts")]);
    expect(run.code).toBe(0);
    for (const name of presetNames()) expect(run.stdout.split("\n")[1]).toContain(name);
  });
});
