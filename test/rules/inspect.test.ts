import { describe, expect, it } from "vitest";
import { doctor } from "../../src/inspect/doctor.js";
import { explainPath, formatExplanation } from "../../src/inspect/explain.js";
import { buildScopeTree, renderScopeTree } from "../../src/inspect/tree.js";
import { createTree, runCli } from "../helpers/tree.js";

const TREE = {
  ".git/": null,
  "AGENTS.md": "root\n",
  "src/a.ts": "export {};\n",
  "web/App.tsx": "export {};\n",
  ".github/instructions/ts.instructions.md": "---\napplyTo: '**/*.ts'\n---\nUse strict types.\n",
  ".cursor/rules/ts.mdc": "---\nglobs: src/**\n---\nUse   strict types.\n",
  ".cursor/rules/ghost.mdc": "---\nglobs: ghost/**/*.go\n---\nGo rules.\n",
  ".cursor/rules/asked.mdc": "---\ndescription: when writing migrations\n---\nMigrations.\n",
  ".claude/rules/bad.md": "---\npaths: [src/**\ndescription: x\n---\nBad header.\n",
  ".qwen/rules/always.md": "Always rule.\n",
};

describe("scoped rules in doctor, explain and tree", () => {
  it("doctor reports unmatched globs, unseen rules, duplicates and a malformed header with its line", async () => {
    const tree = await createTree(TREE);
    const report = await doctor({ root: tree.root, session: { home: tree.home, env: {} }, presets: ["codelia"] });
    const rule = (code: string) => report.findings.filter((finding) => finding.code === code).map((finding) => finding.path.slice(tree.root.length + 1));
    expect(rule("rule-matches-nothing")).toEqual([".cursor/rules/ghost.mdc"]);
    // bad.md is still read by Claude Code and Copilot (as if unscoped): not unseen, but its header is an error.
    expect(rule("rule-unseen")).toEqual([".cursor/rules/asked.mdc"]);
    expect(rule("rule-duplicate")).toEqual([".github/instructions/ts.instructions.md"]);
    const duplicate = report.findings.find((finding) => finding.code === "rule-duplicate")!;
    expect(duplicate.paths!.map((path) => path.slice(tree.root.length + 1)).sort()).toEqual([
      ".cursor/rules/ts.mdc",
      ".github/instructions/ts.instructions.md",
    ]);
    const header = report.findings.find((finding) => finding.code === "rule-frontmatter")!;
    expect(header).toMatchObject({ severity: "error", path: tree.path(".claude/rules/bad.md") });
    expect(header.message).toMatch(/bad\.md:[2-4]: /);
  });

  it("doctor: a rule left out of rules.formats is unseen by every agentsmd host unless one reads it natively", async () => {
    const tree = await createTree({ ".git/": null, "src/a.ts": "x\n", ".cursor/rules/ts.mdc": "---\nglobs: src/**\n---\nCursor only.\n" });
    const report = await doctor({ root: tree.root, session: { home: tree.home, env: {}, config: { rules: { formats: ["copilot"] } } }, presets: ["codelia"] });
    const unseen = report.findings.filter((finding) => finding.code === "rule-unseen");
    expect(unseen).toHaveLength(1);
    expect(unseen[0]!.message, unseen[0]!.message).toMatch(/left out of rules\.formats\); only cursor reads it$/);
  });

  it("explain lists the rules that apply to a path, the glob that matched and what the session does", async () => {
    const tree = await createTree(TREE);
    const explanation = await explainPath({ cwd: tree.root, home: tree.home, env: {}, host: "claude-code" }, tree.path("src/a.ts"));
    expect(explanation.rules.map((rule) => [rule.path.slice(tree.root.length + 1), rule.matched, rule.delivery])).toEqual([
      [".github/instructions/ts.instructions.md", "**/*.ts", "on touch"],
      [".cursor/rules/ts.mdc", "src/**", "on touch"],
      [".qwen/rules/always.md", "always", "initial bundle"],
    ]);
    const text = formatExplanation(explanation);
    expect(text).toContain(`Scoped rules:\n-  ${tree.path(".github/instructions/ts.instructions.md")}\n   GitHub Copilot: applyTo matched "**/*.ts"; on touch`);
    const web = await explainPath({ cwd: tree.root, home: tree.home, env: {} }, tree.path("web/App.tsx"));
    expect(web.rules.map((rule) => rule.matched)).toEqual(["always"]);
  });

  it("explain says when the host reads a rule itself", async () => {
    const tree = await createTree({ ".git/": null, "src/a.ts": "x\n", ".claude/rules/src.md": "---\npaths: src/**\n---\nClaude rule.\n" });
    const explanation = await explainPath({ cwd: tree.root, home: tree.home, env: {}, host: "claude-code" }, tree.path("src/a.ts"));
    expect(explanation.rules[0]!.delivery).toMatch(/^not delivered by agentsmd in this session \(claude-code, copilot read it natively/);
  });

  it("tree lists every rule with its format, when it applies and who sees it", async () => {
    const tree = await createTree(TREE);
    const scope = await buildScopeTree({ root: tree.root, session: { home: tree.home, env: {} }, presets: ["codelia"] });
    expect(scope.rules!.map((rule) => [rule.format, rule.activation])).toEqual([
      ["copilot", "glob"],
      ["claude", "manual"],
      ["cursor", "model"],
      ["cursor", "glob"],
      ["cursor", "glob"],
      ["qwen", "always"],
    ]);
    const text = renderScopeTree(scope, { color: false });
    expect(text).toContain('  .github/instructions/ts.instructions.md  GitHub Copilot, applyTo "**/*.ts", ~');
    expect(text).toMatch(/\.cursor\/rules\/asked\.mdc {2}Cursor, model only, ~\d+ tok {2}reads it: cursor; agentsmd never delivers it/);
  });

  it("the CLI: explain and doctor --json carry the rules", async () => {
    const tree = await createTree(TREE);
    const explain = await runCli(["--home", tree.home, "--cwd", tree.root, "explain", tree.path("src/a.ts")]);
    expect(explain.code).toBe(0);
    expect(explain.stdout).toContain("Scoped rules:");
    const report = await runCli(["--home", tree.home, "--cwd", tree.root, "--json", "doctor"]);
    expect(JSON.parse(report.stdout).findings.map((finding: { code: string }) => finding.code)).toContain("rule-matches-nothing");
  });
});
