import { describe, expect, it } from "vitest";
import { restoreSession } from "../../src/session/session.js";
import { createTree, openSession } from "../helpers/tree.js";
import { hostById } from "../../src/integrations/registry.js";

/** The formats a registered host reads itself (what its caller hands the session). */
const native = (id: string) => hostById(id)!.nativeRuleFormats;

const TREE = {
  ".git/": null,
  "AGENTS.md": "ROOT-AGENTS\n",
  "src/a.ts": "export const a = 1;\n",
  "src/b.py": "x = 1\n",
  "web/App.tsx": "export {}\n",
  ".github/instructions/ts.instructions.md": "---\napplyTo: '**/*.ts'\n---\nCOPILOT-TS\n",
  ".claude/rules/always.md": "CLAUDE-ALWAYS\n",
  ".claude/rules/py.md": "---\npaths: '**/*.py'\n---\nCLAUDE-PY\n",
  ".cursor/rules/web.mdc": "---\nglobs: web/**\nalwaysApply: false\n---\nCURSOR-WEB\n",
  ".cursor/rules/manual.mdc": "---\ndescription: only when asked\n---\nCURSOR-MANUAL\n",
};

function count(text: string, token: string): number {
  return text.split(token).length - 1;
}

describe("scoped rules in a session", () => {
  it("delivers a matching rule once, framed with its source and the glob that matched", async () => {
    const tree = await createTree(TREE);
    const session = await openSession(tree, { cwd: tree.root });
    const first = await session.touch([tree.path("src/a.ts")]);
    const rule = first.find((block) => block.rule);
    expect(rule).toMatchObject({ path: tree.path(".github/instructions/ts.instructions.md"), layer: "path", rule: { format: "copilot", glob: "**/*.ts" } });
    expect(rule!.content).toBe(
      'Scoped rule from .github/instructions/ts.instructions.md (GitHub Copilot applyTo "**/*.ts", matched by src/a.ts):\nCOPILOT-TS\n',
    );
    expect(session.renderInline(first)).toContain(`Instructions from: ${tree.path(".github/instructions/ts.instructions.md")}\nScoped rule from`);
    expect(await session.touch([tree.path("src/a.ts"), "src/a.ts"])).toEqual([]);
    expect((await session.touch([tree.path("src/b.py")])).map((block) => block.rule?.format)).toEqual(["claude"]);
    expect((await session.touch([tree.path("web/App.tsx")])).map((block) => block.rule?.glob)).toEqual(["web/**"]);
  });

  it("puts always-apply rules in the initial bundle, never manual or model-decided ones", async () => {
    const tree = await createTree(TREE);
    const session = await openSession(tree, { cwd: tree.root });
    expect(count(session.initialMessage, "ROOT-AGENTS")).toBe(1);
    expect(count(session.initialMessage, "CLAUDE-ALWAYS")).toBe(1);
    expect(session.initialMessage).toContain("Scoped rule from .claude/rules/always.md (Claude Code, always applies):");
    expect(session.initialFiles.map((file) => file.path)).toContain(tree.path(".claude/rules/always.md"));
    for (const token of ["COPILOT-TS", "CURSOR-WEB", "CURSOR-MANUAL"]) expect(session.initialMessage).not.toContain(token);
    const all = await session.touch(["src/a.ts", "src/b.py", "web/App.tsx", ".cursor/rules/manual.mdc"]);
    expect(all.map((block) => block.content).join("")).not.toContain("CURSOR-MANUAL");
    expect(all.map((block) => block.content).join("")).not.toContain("CLAUDE-ALWAYS");
  });

  it("a host that could not show the initial bundle gets always-apply rules with the first touch, once", async () => {
    const tree = await createTree(TREE);
    const session = await openSession(tree, { cwd: tree.root });
    session.forget(session.initialFiles);
    const first = await session.touch(["docs/none.md"]);
    expect(first.filter((block) => block.rule).map((block) => block.content)).toEqual([
      "Scoped rule from .claude/rules/always.md (Claude Code, always applies):\nCLAUDE-ALWAYS\n",
    ]);
    expect((await session.touch(["src/a.ts"])).map((block) => block.rule?.format)).toEqual(["copilot"]);
  });

  it("never delivers a format the host reads itself", async () => {
    const tree = await createTree(TREE);
    const claude = await openSession(tree, { cwd: tree.root, host: "claude-code", nativeRuleFormats: native("claude-code") });
    expect(claude.initialMessage).not.toContain("CLAUDE-ALWAYS");
    expect((await claude.touch(["src/b.py"])).filter((block) => block.rule)).toEqual([]);
    expect((await claude.touch(["src/a.ts"])).map((block) => block.rule?.format)).toEqual(["copilot"]);
    const copilot = await openSession(tree, { cwd: tree.root, host: "copilot", nativeRuleFormats: native("copilot") });
    expect((await copilot.touch(["src/a.ts", "src/b.py", "web/App.tsx"])).map((block) => block.rule?.format)).toEqual(["cursor"]);
  });

  it("follows rules.formats, and [] turns rules off", async () => {
    const tree = await createTree(TREE);
    const only = await openSession(tree, {
      cwd: tree.root,
      config: { rules: { formats: ["cursor", "claude"] } },
      host: "claude-code",
      nativeRuleFormats: native("claude-code"),
    });
    expect(only.rules.formats).toEqual(["cursor"]);
    expect((await only.touch(["src/a.ts", "web/App.tsx"])).map((block) => block.rule?.format)).toEqual(["cursor"]);
    const off = await openSession(tree, { cwd: tree.root, config: { rules: { formats: [] } } });
    expect(off.initialMessage).not.toContain("CLAUDE-ALWAYS");
    expect((await off.touch(["src/a.ts", "web/App.tsx"])).filter((block) => block.rule)).toEqual([]);
  });

  it("delivers an edited rule again, and a compacted conversation gets it back", async () => {
    const tree = await createTree(TREE);
    const session = await openSession(tree, { cwd: tree.root, config: { cache: { revalidateMs: 0 } } });
    expect((await session.touch(["src/a.ts"])).filter((block) => block.rule)).toHaveLength(1);
    await tree.write(".github/instructions/ts.instructions.md", "---\napplyTo: '**/*.ts'\n---\nCOPILOT-TS v2\n");
    await tree.setMtime(".github/instructions/ts.instructions.md", 2_000_000_000);
    const again = await session.touch(["src/a.ts"]);
    expect(again.map((block) => block.content).join("")).toContain("COPILOT-TS v2");
    expect(await session.touch(["src/a.ts"])).toEqual([]);
    const dropped = session.compacted();
    expect(dropped).toContain(tree.path(".github/instructions/ts.instructions.md"));
    // A host restoring what it had touches the admitted paths: the rule comes back by its own path.
    const restored = await session.touch(dropped);
    expect(restored.filter((block) => block.rule).map((block) => block.content)).toEqual([
      'Scoped rule from .github/instructions/ts.instructions.md (GitHub Copilot applyTo "**/*.ts"):\nCOPILOT-TS v2\n',
    ]);
  });

  it("refresh reports an edited rule framed, not as raw frontmatter", async () => {
    const tree = await createTree(TREE);
    const session = await openSession(tree, { cwd: tree.root, config: { cache: { revalidateMs: 0 } } });
    await session.touch(["src/a.ts"]);
    await tree.write(".github/instructions/ts.instructions.md", "---\napplyTo: '**/*.ts'\n---\nCOPILOT-TS v3\n");
    await tree.setMtime(".github/instructions/ts.instructions.md", 2_000_000_000);
    const result = await session.refresh({ inline: true });
    expect(result.changed.map((file) => file.path)).toEqual([tree.path(".github/instructions/ts.instructions.md")]);
    expect(result.blocks.map((block) => block.content)).toEqual([
      'Scoped rule from .github/instructions/ts.instructions.md (GitHub Copilot applyTo "**/*.ts"):\nCOPILOT-TS v3\n',
    ]);
  });

  it("proposals are two-phase: a rule proposed and released is offered again; admission survives a snapshot", async () => {
    const tree = await createTree(TREE);
    const session = await openSession(tree, { cwd: tree.root });
    const proposed = await session.touch(["src/a.ts"], { admit: false });
    const rules = proposed.filter((block) => block.rule);
    expect(rules).toHaveLength(1);
    expect((await session.touch(["src/a.ts"], { admit: false })).filter((block) => block.rule)).toEqual([]);
    session.release(rules);
    expect((await session.touch(["src/a.ts"], { admit: false })).filter((block) => block.rule)).toHaveLength(1);
    session.admit(rules);
    const { session: restored } = await restoreSession(session.snapshot(), { cwd: tree.root, home: tree.home, env: {} });
    expect((await restored.touch(["src/a.ts"])).filter((block) => block.rule)).toEqual([]);
    await restored.close();
  });

  it("a Continue regex rule applies only to files whose content matches", async () => {
    const tree = await createTree({
      ".git/": null,
      "m/User.ts": "export class User {}\n",
      "m/util.ts": "export const x = 1;\n",
      ".continue/rules/classes.md": "---\nname: Classes\nglobs: '**/*.ts'\nregex: 'class \\w+'\n---\nCONTINUE-CLASS\n",
    });
    const session = await openSession(tree, { cwd: tree.root });
    expect((await session.touch(["m/util.ts"])).filter((block) => block.rule)).toEqual([]);
    expect((await session.touch(["m/User.ts"])).map((block) => block.rule?.glob)).toEqual(["**/*.ts + regex class \\w+"]);
  });

  it("the same rule kept in two formats is delivered once", async () => {
    const tree = await createTree({
      ".git/": null,
      "src/a.ts": "x\n",
      ".github/instructions/ts.instructions.md": "---\napplyTo: 'src/**'\n---\nSAME RULE\n",
      ".cursor/rules/ts.mdc": "---\nglobs: src/**\n---\nSAME   RULE\n",
    });
    const session = await openSession(tree, { cwd: tree.root, host: "opencode", nativeRuleFormats: native("opencode") });
    const blocks = (await session.touch(["src/a.ts"])).filter((block) => block.rule);
    expect(blocks.map((block) => block.rule?.format)).toEqual(["copilot"]);
    // Copilot reads its own copy: the Cursor copy is not delivered to it either.
    const copilot = await openSession(tree, { cwd: tree.root, host: "copilot", nativeRuleFormats: native("copilot") });
    expect((await copilot.touch(["src/a.ts"])).filter((block) => block.rule)).toEqual([]);
    const claude = await openSession(tree, { cwd: tree.root, host: "claude-code", nativeRuleFormats: native("claude-code") });
    expect((await claude.touch(["src/a.ts"])).filter((block) => block.rule).map((block) => block.rule?.format)).toEqual(["copilot"]);
  });

  it("an AGENTS.md with applyTo/globs frontmatter is delivered only for matching paths, then once", async () => {
    const tree = await createTree({
      ".git/": null,
      "AGENTS.md": "ROOT\n",
      "web/AGENTS.md": "---\napplyTo: '**/*.tsx'\n---\nWEB-TSX-ONLY\n",
      "web/style.css": "a{}\n",
      "web/src/App.tsx": "export {}\n",
      "api/AGENTS.md": "---\nglobs: [src/**]\n---\nAPI-SRC\n",
      "api/README.md": "x\n",
      "api/src/a.ts": "x\n",
    });
    const session = await openSession(tree, { cwd: tree.root });
    const text = async (path: string) => (await session.touch([path])).map((block) => block.content).join("");
    expect(await text("web/style.css")).not.toContain("WEB-TSX-ONLY");
    expect(await text("web/src/App.tsx")).toContain("WEB-TSX-ONLY");
    expect(await text("web/src/App.tsx")).toBe("");
    expect(await text("api/README.md")).toBe("");
    expect(await text("api/src/a.ts")).toContain("API-SRC");
  });

  it("presets rooted at the file-system root (pi, claude) find the rule directories at the git root above cwd, or cwd without one", async () => {
    for (const preset of ["pi", "claude"]) {
      const tree = await createTree(TREE);
      const session = await openSession(tree, { cwd: tree.path("src"), preset, host: "pi", nativeRuleFormats: native("pi") });
      expect(session.root, preset).toBe("/");
      const blocks = await session.touch([tree.path("src/a.ts"), tree.path("web/App.tsx")]);
      expect(blocks.map((block) => block.rule?.format).filter(Boolean), preset).toEqual(["copilot", "cursor"]);
      expect(blocks.find((block) => block.rule?.format === "cursor")!.content, preset).toContain("Scoped rule from .cursor/rules/web.mdc");
      const { [".git/"]: _git, ...noGit } = TREE;
      const bare = await createTree(noGit);
      const without = await openSession(bare, { cwd: bare.root, preset, host: "pi", nativeRuleFormats: native("pi") });
      expect((await without.touch([bare.path("web/App.tsx")])).map((block) => block.rule?.glob).filter(Boolean), preset).toEqual(["web/**"]);
    }
  });
});
