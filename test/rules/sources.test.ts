/**
 * The rule sources teams keep for generators: rulesync's `.rulesync/rules/*.md` (`root`, `targets`,
 * `globs`) and Ruler's `.ruler/` (`ruler.toml` agents, nested directories), read as scoped-rule
 * formats and delivered per agent.
 */
import { describe, expect, it } from "vitest";
import { findRules } from "../../src/load/rules/find.js";
import { nodeFileSystem } from "../../src/io/file-system.js";
import { ruleAgentOf, ruleIsFor, rulerSelected, RULE_AGENTS } from "../../src/load/rules/targets.js";
import { parseRulerConfig } from "../../src/load/rules/ruler-config.js";
import { ruleFindings } from "../../src/inspect/rules.js";
import { createTree, makeSymlink, openSession } from "../helpers/tree.js";

const RULESYNC = {
  ".git/": null,
  "src/a.ts": "x\n",
  "docs/b.md": "y\n",
  ".rulesync/rules/overview.md": '---\nroot: true\ntargets: ["*"]\ndescription: "overview"\nglobs: ["**/*"]\n---\nRS-OVERVIEW\n',
  ".rulesync/rules/ts.md": '---\nroot: false\ntargets: ["*"]\nglobs: ["src/**/*.ts"]\n---\nRS-TS\n',
  ".rulesync/rules/claude-only.md": '---\ntargets: ["claudecode"]\n---\nRS-CLAUDE-ONLY\n',
  ".rulesync/rules/cursor-only.md": '---\ntargets: ["cursor"]\nglobs: ["**/*.ts"]\n---\nRS-CURSOR-ONLY\n',
  ".rulesync/rules/agents-md.md": '---\ntargets: ["agentsmd"]\n---\nRS-AGENTSMD\n',
  ".rulesync/rules/nested/codex.md": '---\ntargets: ["codexcli", "qwencode"]\nglobs: ["docs/**"]\n---\nRS-CODEX-DOCS\n',
};

const rel = (root: string, path: string) => path.slice(root.length + 1);

describe("rulesync sources", () => {
  it("reads .rulesync/rules/**/*.md: root and rules without globs always apply, globs scope the rest, targets kept", async () => {
    const tree = await createTree(RULESYNC);
    const { rules, diagnostics } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["rulesync"] });
    expect(diagnostics).toEqual([]);
    expect(rules.map((rule) => [rel(tree.root, rule.path), rule.activation, rule.globs, rule.targets])).toEqual([
      [".rulesync/rules/agents-md.md", "always", [], ["agentsmd"]],
      [".rulesync/rules/claude-only.md", "always", [], ["claudecode"]],
      [".rulesync/rules/cursor-only.md", "glob", ["**/*.ts"], ["cursor"]],
      [".rulesync/rules/nested/codex.md", "glob", ["docs/**"], ["codexcli", "qwencode"]],
      [".rulesync/rules/overview.md", "always", ["**/*"], ["*"]],
      [".rulesync/rules/ts.md", "glob", ["src/**/*.ts"], ["*"]],
    ]);
  });

  it('a file without targets is for every agent, as rulesync\'s default ["*"]', async () => {
    const tree = await createTree({ ".rulesync/rules/a.md": "---\nglobs: ['src/**']\n---\nA\n" });
    const { rules } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["rulesync"] });
    expect(rules[0]!.targets).toEqual(["*"]);
  });

  it("delivers to Claude Code only the rules whose targets name it, each once", async () => {
    const tree = await createTree(RULESYNC);
    const session = await openSession(tree, { host: "claude-code", env: {} });
    const start = session.initialMessage;
    for (const token of ["RS-OVERVIEW", "RS-CLAUDE-ONLY", "RS-AGENTSMD"]) expect(start).toContain(token);
    expect(start).toContain("Scoped rule from .rulesync/rules/overview.md (rulesync, always applies):\nRS-OVERVIEW");
    const touched = await session.touch([tree.path("src/a.ts"), tree.path("docs/b.md")]);
    expect(touched.map((block) => block.content)).toEqual([
      'Scoped rule from .rulesync/rules/ts.md (rulesync globs "src/**/*.ts", matched by src/a.ts):\nRS-TS\n',
    ]);
    expect(await session.touch([tree.path("src/a.ts")])).toEqual([]);
  });

  it("Codex gets its own rules and the ones for every agent, never Claude Code's or Cursor's", async () => {
    const tree = await createTree(RULESYNC);
    const session = await openSession(tree, { host: "codex", env: {} });
    expect(session.initialMessage).toContain("RS-OVERVIEW");
    expect(session.initialMessage).not.toContain("RS-CLAUDE-ONLY");
    const touched = (await session.touch([tree.path("src/a.ts"), tree.path("docs/b.md")])).map((block) => block.content).join("");
    expect(touched).toContain("RS-TS");
    expect(touched).toContain("RS-CODEX-DOCS");
    expect(touched).not.toContain("RS-CURSOR-ONLY");
  });

  it("without a host, the preset names the agent; a consumer no agent is (the MCP server) gets only rules for everyone", async () => {
    const tree = await createTree(RULESYNC);
    const codex = await openSession(tree, { preset: "codex", env: {} });
    expect((await codex.touch([tree.path("docs/b.md")])).map((block) => block.content).join("")).toContain("RS-CODEX-DOCS");
    const mcp = await openSession(tree, { host: "mcp", env: {} });
    expect(mcp.initialMessage).toContain("RS-OVERVIEW");
    expect(mcp.initialMessage).toContain("RS-AGENTSMD");
    expect(mcp.initialMessage).not.toContain("RS-CLAUDE-ONLY");
    expect((await mcp.touch([tree.path("docs/b.md")])).map((block) => block.content).join("")).not.toContain("RS-CODEX-DOCS");
  });

  it("bad input is a diagnostic naming the file: YAML that does not parse, targets not a list, unknown targets, refused globs", async () => {
    const tree = await createTree({
      ".rulesync/rules/yaml.md": "---\ntargets: [claudecode\n---\nBAD-YAML\n",
      ".rulesync/rules/string.md": "---\ntargets: '*'\n---\nSTRING-TARGETS\n",
      ".rulesync/rules/typo.md": "---\ntargets: ['claude']\n---\nTYPO\n",
      ".rulesync/rules/glob.md": "---\nglobs: ['+(a|b)/**']\n---\nBAD-GLOB\n",
    });
    const { rules, diagnostics } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["rulesync"] });
    const by = (name: string) => diagnostics.filter((item) => item.path === tree.path(`.rulesync/rules/${name}`));
    expect(by("yaml.md")[0]).toMatchObject({ code: "rule-frontmatter" });
    expect(by("string.md")[0]!.message).toContain('targets is "*": write a YAML list');
    expect(by("typo.md")[0]!.message).toContain('targets "claude" name no rulesync tool');
    expect(by("glob.md")[0]!.message).toContain('glob "+(a|b)/**" matches nothing');
    for (const item of diagnostics) expect(item.message).toContain(tree.root);
    const activation = Object.fromEntries(rules.map((rule) => [rel(tree.root, rule.path), rule.activation]));
    expect(activation).toMatchObject({ ".rulesync/rules/yaml.md": "manual", ".rulesync/rules/string.md": "manual" });
    const session = await openSession(tree, { host: "claude-code", env: {} });
    expect(session.initialMessage).not.toContain("BAD-YAML");
    expect(session.initialMessage).not.toContain("STRING-TARGETS");
    expect(session.initialMessage).not.toContain("TYPO");
    expect(session.diagnostics.some((item) => item.path === tree.path(".rulesync/rules/yaml.md"))).toBe(true);
  });

  it("a huge file is cut with a diagnostic, a link leaving the project is not read and is named", async () => {
    const outside = await createTree({ "secret.md": "---\ntargets: ['*']\n---\nSECRET\n" });
    const tree = await createTree({ ".rulesync/rules/big.md": `---\nroot: true\n---\n${"x".repeat(300 * 1024)}\n` });
    await makeSymlink(tree, ".rulesync/rules/leak.md", outside.path("secret.md"));
    const { rules, diagnostics } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["rulesync"] });
    expect(rules.map((rule) => [rel(tree.root, rule.path), rule.truncated])).toEqual([[".rulesync/rules/big.md", true]]);
    expect(diagnostics.map((item) => [item.code, rel(tree.root, item.path!)])).toEqual([
      ["rules-outside", ".rulesync/rules/leak.md"],
      ["rule-truncated", ".rulesync/rules/big.md"],
    ]);
  });

  it("doctor reports a rule whose targets name no agent agentsmd serves", async () => {
    const tree = await createTree({ ".rulesync/rules/c.md": "---\ntargets: ['cursor']\n---\nC\n" });
    const { rules } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["rulesync"] });
    const finding = ruleFindings(rules, []).find((item) => item.code === "rule-unseen");
    expect(finding?.message).toContain("it is only for cursor");
  });
});

const RULER = {
  ".git/": null,
  "src/a.ts": "x\n",
  "pkg/api/b.ts": "y\n",
  ".ruler/AGENTS.md": "RULER-PRIMARY\n",
  ".ruler/a-style.md": "---\nnot: [parsed\n---\nRULER-STYLE\n",
  ".ruler/deep/more.md": "RULER-DEEP\n",
  ".ruler/agents/reviewer.md": "RULER-SUBAGENT\n",
  ".ruler/skills/s/SKILL.md": "RULER-SKILL\n",
  ".ruler/mcp.json": "{}\n",
};

describe("Ruler sources", () => {
  it("reads .ruler/**/*.md whole, always on, AGENTS.md first; agents/ and skills/ are not rules", async () => {
    const tree = await createTree(RULER);
    const { rules, diagnostics } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["ruler"] });
    expect(diagnostics).toEqual([]);
    expect(rules.map((rule) => [rel(tree.root, rule.path), rule.activation, rule.body])).toEqual([
      [".ruler/AGENTS.md", "always", "RULER-PRIMARY\n"],
      [".ruler/a-style.md", "always", "---\nnot: [parsed\n---\nRULER-STYLE\n"],
      [".ruler/deep/more.md", "always", "RULER-DEEP\n"],
    ]);
    expect(rules[0]!.targets).toContain("claude");
  });

  it("ruler.toml's agents decide who gets the rules: default_agents, enabled overrides, name fragments", async () => {
    const tree = await createTree({
      ...RULER,
      ".ruler/ruler.toml": 'default_agents = ["claude", "gemini"]\n\n[agents.gemini-cli]\nenabled = false\n\n[agents]\ninclude_in_rules = true\n',
    });
    const { rules } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["ruler"] });
    expect(rules[0]!.targets).toEqual(["claude"]);
    expect(rules.map((rule) => rel(tree.root, rule.path))).toContain(".ruler/agents/reviewer.md");
    const claude = await openSession(tree, { host: "claude-code", env: {} });
    expect(claude.initialMessage).toContain("Scoped rule from .ruler/AGENTS.md (Ruler, always applies):\nRULER-PRIMARY");
    expect(claude.initialMessage.indexOf("RULER-PRIMARY")).toBeLessThan(claude.initialMessage.indexOf("RULER-STYLE"));
    const gemini = await openSession(tree, { host: "gemini", env: {} });
    expect(gemini.initialMessage).not.toContain("RULER-PRIMARY");
    expect((await gemini.touch([tree.path("src/a.ts")])).map((block) => block.content).join("")).not.toContain("RULER");
  });

  it("selection follows Ruler's rules", () => {
    expect(rulerSelected({ enabled: {} })).toContain("kilocode");
    expect(rulerSelected({ enabled: { codex: false } })).not.toContain("codex");
    expect(rulerSelected({ defaultAgents: ["Code"], enabled: {} })).toEqual(["augmentcode", "claude", "codex", "kilocode", "opencode", "qwen", "roo"]);
    expect(rulerSelected({ defaultAgents: ["cursor"], enabled: { pi: true } })).toEqual(["cursor", "pi"]);
    expect(parseRulerConfig("nested = true\n[agents.opencode]\nenabled = false\n")).toMatchObject({ nested: true, includeAgents: false });
    expect(parseRulerConfig("[subagents]\ninclude_in_rules = true\n").includeAgents).toBe(true);
  });

  it("nested = true: a .ruler below the root applies to its directory, with its own ruler.toml; no descent into dot dirs, node_modules or another repository", async () => {
    const tree = await createTree({
      ...RULER,
      ".ruler/ruler.toml": "nested = true\n",
      "pkg/api/.ruler/api.md": "RULER-API\n",
      "pkg/api/.ruler/ruler.toml": 'default_agents = ["codex"]\n',
      "node_modules/x/.ruler/x.md": "RULER-NODE-MODULES\n",
      ".hidden/.ruler/h.md": "RULER-HIDDEN\n",
      "vendor/other/.git/": null,
      "vendor/other/.ruler/o.md": "RULER-OTHER-REPO\n",
    });
    const { rules } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["ruler"] });
    const api = rules.find((rule) => rule.body === "RULER-API\n")!;
    expect(api).toMatchObject({ activation: "glob", globs: ["**"], base: tree.path("pkg/api"), targets: ["codex"] });
    expect(rules.map((rule) => rule.body).join("")).not.toMatch(/NODE-MODULES|HIDDEN|OTHER-REPO/);
    const codex = await openSession(tree, { host: "codex", env: {} });
    expect(codex.initialMessage).toContain("RULER-PRIMARY");
    expect(codex.initialMessage).not.toContain("RULER-API");
    expect(await codex.touch([tree.path("src/a.ts")])).toEqual([]);
    const below = await codex.touch([tree.path("pkg/api/b.ts")]);
    expect(below.map((block) => block.content)).toEqual([
      "Scoped rule from pkg/api/.ruler/api.md (Ruler, the .ruler directory of pkg/api, matched by pkg/api/b.ts):\nRULER-API\n",
    ]);
    const claude = await openSession(tree, { host: "claude-code", env: {} });
    expect(await claude.touch([tree.path("pkg/api/b.ts")])).toEqual([]);
  });

  it("without nested = true, a .ruler below the root is not read", async () => {
    const tree = await createTree({ ...RULER, "pkg/api/.ruler/api.md": "RULER-API\n" });
    const { rules } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["ruler"] });
    expect(rules.map((rule) => rule.body)).not.toContain("RULER-API\n");
  });

  it("the nested search is bounded: past maxNestedDirs it stops with a diagnostic", async () => {
    const spec: Record<string, string | null> = { ".ruler/ruler.toml": "nested = true\n", ".ruler/a.md": "A\n" };
    for (let i = 0; i < 30; i++) spec[`d${String(i).padStart(2, "0")}/`] = null;
    spec["d29/.ruler/late.md"] = "LATE\n";
    const tree = await createTree(spec);
    const { rules, diagnostics } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["ruler"], maxNestedDirs: 10 });
    expect(rules.map((rule) => rule.body)).toEqual(["A\n"]);
    expect(diagnostics.map((item) => item.code)).toEqual(["rules-too-many"]);
    expect(diagnostics[0]!.message).toContain("nested = true");
  });

  it("a ruler.toml that does not parse, names unknown agents, is huge or links outside is a diagnostic naming it; every agent then gets the rules", async () => {
    const outside = await createTree({ "ruler.toml": 'default_agents = ["cursor"]\n' });
    const cases: Array<[string, string]> = [
      ["default_agents = [claude\n", "is not valid TOML"],
      ['default_agents = ["claud3"]\n[agents.cursr]\nenabled = true\n', '"claud3", "cursr" names no Ruler agent'],
      [`# ${"x".repeat(70 * 1024)}\ndefault_agents = ["cursor"]\n`, "more than the 65536 read"],
    ];
    for (const [text, expected] of cases) {
      const tree = await createTree({ ".ruler/AGENTS.md": "R\n", ".ruler/ruler.toml": text });
      const { rules, diagnostics } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["ruler"] });
      expect(diagnostics.map((item) => item.path)).toEqual([tree.path(".ruler/ruler.toml")]);
      expect(diagnostics[0]!.message).toContain(expected);
      expect(rules[0]!.targets).toContain("claude");
    }
    const tree = await createTree({ ".ruler/AGENTS.md": "R\n" });
    await makeSymlink(tree, ".ruler/ruler.toml", outside.path("ruler.toml"));
    const { rules, diagnostics } = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["ruler"] });
    expect(diagnostics.map((item) => [item.code, item.path])).toEqual([["rules-outside", tree.path(".ruler/ruler.toml")]]);
    expect(rules[0]!.targets).toContain("claude");
  });

  it("an edit of ruler.toml reaches a rule file that did not change", async () => {
    const tree = await createTree({ ".ruler/AGENTS.md": "R\n", ".ruler/ruler.toml": 'default_agents = ["claude"]\n' });
    const first = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["ruler"] });
    await tree.write(".ruler/ruler.toml", 'default_agents = ["codex"]\n');
    const reuse = new Map(first.rules.map((rule) => [rule.path, rule]));
    const second = await findRules({ root: tree.root, fs: nodeFileSystem, formats: ["ruler"], reuse });
    expect(second.rules[0]!.targets).toEqual(["codex"]);
  });
});

describe("the agent table", () => {
  it("maps every agentsmd host to a rulesync target and a Ruler agent", () => {
    for (const agent of RULE_AGENTS) {
      expect(agent.rulesync.length).toBeGreaterThan(0);
      expect(agent.ruler.length).toBeGreaterThan(0);
      expect(ruleAgentOf(agent.host)).toBe(agent);
      for (const preset of agent.presets) expect(ruleAgentOf(undefined, preset)).toBe(agent);
    }
    const rule = (format: "rulesync" | "ruler", targets: string[]) => ({ format, targets });
    expect(ruleIsFor(rule("rulesync", ["geminicli"]), ruleAgentOf("gemini"))).toBe(true);
    expect(ruleIsFor(rule("ruler", ["gemini-cli"]), ruleAgentOf("gemini"))).toBe(true);
    expect(ruleIsFor(rule("rulesync", ["kilo"]), ruleAgentOf("opencode"))).toBe(false);
    expect(ruleIsFor(rule("ruler", ["agentsmd"]), ruleAgentOf("pi"))).toBe(true);
    expect(ruleIsFor(rule("ruler", ["kilocode"]), undefined)).toBe(false);
  });
});
