import { describe, expect, it } from "vitest";
import { buildScopeTree, estimateTokens, renderScopeTree, type ScopeTree } from "../src/inspect/tree.js";
import { useColor } from "../src/cli/commands/tree.js";
import { doctor, formatReport } from "../src/inspect/doctor.js";
import { createTree, runCli } from "./helpers/tree.js";

describe("buildScopeTree", () => {
  it("lists instruction files with size, tokens and the presets that load each at startup", async () => {
    const tree = await createTree({
      ".git/": null,
      "AGENTS.md": "12345678",
      "tools/release/AGENTS.override.md": "o",
      "tools/release/AGENTS.md": "a",
      "src/index.ts": "",
    });
    const scope = await buildScopeTree({ root: tree.root, session: { home: tree.home, env: {} }, presets: ["codelia", "codex"] });
    expect(scope.files.map((file) => [file.path, file.sizeBytes, file.tokens, file.startup])).toEqual([
      [tree.path("AGENTS.md"), 8, 2, ["codelia", "codex"]],
      [tree.path("tools/release/AGENTS.md"), 1, 1, ["codelia"]],
      [tree.path("tools/release/AGENTS.override.md"), 1, 1, ["codex"]],
    ]);
  });

  it("counts the directories doctor counts (one scan for both: hygge's .agents and .hygge excluded alike), in singular for one", async () => {
    const tree = await createTree({
      ".git/": null,
      "AGENTS.md": "root",
      ".agents/AGENTS.md": "hygge",
      ".agents/deep/more/x.md": "x",
      ".hygge/a/b/c.md": "c",
      "node_modules/pkg/AGENTS.md": "dep",
      "src/lib/AGENTS.md": "lib",
    });
    const session = { home: tree.home, env: {} };
    const scope = await buildScopeTree({ root: tree.root, session });
    const report = await doctor({ root: tree.root, session });
    expect(scope.dirs).toBe(report.scanned.dirs);
    expect(scope.files.length).toBe(report.scanned.files);
    expect(scope.files.map((file) => file.path)).toContain(tree.path(".agents/AGENTS.md"));
    const single = await createTree({ "AGENTS.md": "x" });
    const one = await buildScopeTree({ root: single.path(".test-home"), session: { home: single.home, env: {} } });
    expect(renderScopeTree(one, { color: false })).toContain("0 instruction files, 0 bytes (~0 tokens), 1 directory scanned");
    const report1 = await doctor({ root: single.path(".test-home"), session: { home: single.home, env: {} } });
    expect(formatReport(report1)).toContain("in 0 instruction files (1 directory scanned");
  });

  it("estimates a token per four bytes, rounding up", () => {
    expect([0, 1, 4, 5].map(estimateTokens)).toEqual([0, 1, 1, 2]);
  });
});

describe("renderScopeTree", () => {
  const sample = (root: string): ScopeTree => ({
    root,
    presets: ["codex"],
    dirs: 9,
    files: [
      { path: `${root}/AGENTS.md`, scope: root, name: "AGENTS.md", sizeBytes: 400, tokens: 100, startup: ["codex"] },
      { path: `${root}/a/b/c/AGENTS.md`, scope: `${root}/a/b/c`, name: "AGENTS.md", sizeBytes: 8, tokens: 2, startup: [] },
      { path: `${root}/d/CLAUDE.md`, scope: `${root}/d`, name: "CLAUDE.md", sizeBytes: 12, tokens: 3, startup: ["codex"] },
      { path: `${root}/d/e/AGENTS.md`, scope: `${root}/d/e`, name: "AGENTS.md", sizeBytes: 1, tokens: 1, startup: ["codex"], excludedBy: "e" },
    ],
  });

  it("prunes to instruction files and merges file-less single-child directories", () => {
    expect(renderScopeTree(sample("/r"), { color: false }).split("\n")).toEqual([
      "/r",
      "├── AGENTS.md          400 B  ~100 tok  codex",
      "├── a/b/c/",
      "│   └── AGENTS.md        8 B    ~2 tok  no preset at startup",
      "└── d/",
      "    ├── CLAUDE.md       12 B    ~3 tok  codex",
      "    └── e/",
      "        └── AGENTS.md    1 B    ~1 tok  codex  (under excluded e/)",
      "",
      "4 instruction files, 421 bytes (~106 tokens), 9 directories scanned; presets listed load the file at startup in a session started in its directory",
    ]);
  });

  it("colours only when asked", () => {
    expect(renderScopeTree(sample("/r"), { color: false })).not.toContain("\u001b[");
    expect(renderScopeTree(sample("/r"), { color: true })).toContain("\u001b[32mcodex\u001b[0m");
  });
});

describe("agentsmd tree", () => {
  it("uses colour for a terminal only, NO_COLOR and FORCE_COLOR win", () => {
    expect(useColor({ isTTY: true, env: {} })).toBe(true);
    expect(useColor({ isTTY: false, env: {} })).toBe(false);
    expect(useColor({ env: {} })).toBe(false);
    expect(useColor({ isTTY: true, env: { NO_COLOR: "1" } })).toBe(false);
    expect(useColor({ isTTY: false, env: { FORCE_COLOR: "1" } })).toBe(true);
  });

  it("prints plain text when stdout is not a terminal, JSON with --json", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root" });
    const text = await runCli(["--home", tree.home, "tree", tree.root]);
    expect(text.code).toBe(0);
    expect(text.stdout).not.toContain("\u001b[");
    expect(text.stdout.split("\n")[1]).toMatch(/^└── AGENTS\.md {2}4 B {2}~1 tok {2}codelia codex /);
    const json = await runCli(["--home", tree.home, "--json", "tree", tree.root]);
    const parsed = JSON.parse(json.stdout) as ScopeTree;
    expect(parsed.files.map((file) => file.path)).toEqual([tree.path("AGENTS.md")]);
  });
});
