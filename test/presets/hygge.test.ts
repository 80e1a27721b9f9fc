import { describe, expect, it } from "vitest";
import { createTree } from "../helpers/tree.js";
import { createSession } from "../../src/session/session.js";

async function hygge(treeSpec: Parameters<typeof createTree>[0], cwdRel: string, env: Record<string, string> = {}) {
  const tree = await createTree(treeSpec);
  const session = await createSession({ cwd: tree.path(cwdRel), home: tree.path("home"), env, preset: "hygge" });
  return { tree, session };
}

describe("preset hygge", () => {
  it("loads the user layers lowest first, then every root file, all concatenated", async () => {
    const { tree, session } = await hygge(
      {
        "home/.agents/AGENTS.md": "user agents\n",
        "home/.config/hygge/AGENTS.md": "user hygge",
        "home/.claude/CLAUDE.md": "  user claude  ",
        "home/proj/.git/": null,
        "home/proj/.agents/AGENTS.md": "project agents",
        "home/proj/AGENTS.md": "root agents",
        "home/proj/AGENTS.local.md": "root local",
        "home/proj/CLAUDE.md": "root claude",
        "home/proj/CLAUDE.local.md": "root claude local",
      },
      "home/proj",
    );
    expect(session.initialFiles.map((file) => file.path)).toEqual([
      tree.path("home/.agents/AGENTS.md"),
      tree.path("home/.config/hygge/AGENTS.md"),
      tree.path("home/.claude/CLAUDE.md"),
      tree.path("home/proj/.agents/AGENTS.md"),
      tree.path("home/proj/AGENTS.md"),
      tree.path("home/proj/AGENTS.local.md"),
      tree.path("home/proj/CLAUDE.md"),
      tree.path("home/proj/CLAUDE.local.md"),
    ]);
    expect(session.initialMessage).toBe(
      [
        "## Project context",
        "",
        `<!-- source: user/.agents: ${tree.path("home/.agents/AGENTS.md")} -->`,
        "user agents",
        "",
        "---",
        "",
        `<!-- source: user/hygge: ${tree.path("home/.config/hygge/AGENTS.md")} -->`,
        "user hygge",
        "",
        "---",
        "",
        `<!-- source: user/.claude: ${tree.path("home/.claude/CLAUDE.md")} -->`,
        "user claude",
        "",
        "---",
        "",
        "<!-- source: project/.agents: .agents/AGENTS.md -->",
        "project agents",
        "",
        "---",
        "",
        "<!-- source: project/root: AGENTS.md -->",
        "root agents",
        "",
        "---",
        "",
        "<!-- source: project/root: AGENTS.local.md -->",
        "root local",
        "",
        "---",
        "",
        "<!-- source: project/root: CLAUDE.md -->",
        "root claude",
        "",
        "---",
        "",
        "<!-- source: project/root: CLAUDE.local.md -->",
        "root claude local",
      ].join("\n"),
    );
  });

  it("takes XDG_CONFIG_HOME for the hygge user layer", async () => {
    const { tree, session } = await hygge({ "xdg/hygge/AGENTS.md": "from xdg", "home/.config/hygge/AGENTS.md": "default" }, "home", {
      XDG_CONFIG_HOME: "",
    });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("home/.config/hygge/AGENTS.md")]);
    const withXdg = await createSession({ cwd: tree.path("home"), home: tree.path("home"), env: { XDG_CONFIG_HOME: tree.path("xdg") }, preset: "hygge" });
    expect(withXdg.initialFiles.map((file) => file.path)).toEqual([tree.path("xdg/hygge/AGENTS.md")]);
  });

  it("keeps a block for an empty file, with no content line", async () => {
    const { session } = await hygge({ "home/p/.git/": null, "home/p/AGENTS.md": "", "home/p/CLAUDE.md": "x" }, "home/p");
    expect(session.initialMessage).toBe("## Project context\n\n<!-- source: project/root: AGENTS.md -->\n\n---\n\n<!-- source: project/root: CLAUDE.md -->\nx");
  });

  it("never loads subdirectory files at startup", async () => {
    const { tree, session } = await hygge(
      { "home/p/.git/": null, "home/p/AGENTS.md": "root", "home/p/sub/AGENTS.md": "sub", "home/p/sub/x/CLAUDE.md": "x" },
      "home/p",
    );
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("home/p/AGENTS.md")]);
  });

  it("makes the nearest AGENTS.md or CLAUDE.md a root marker, so a nested one becomes the root", async () => {
    const { tree, session } = await hygge(
      { "home/p/.git/": null, "home/p/AGENTS.md": "outer", "home/p/pkg/CLAUDE.md": "inner", "home/p/pkg/src/": null },
      "home/p/pkg/src",
    );
    expect(session.root).toBe(tree.path("home/p/pkg"));
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("home/p/pkg/CLAUDE.md")]);
  });

  it("stops the root walk at home, which is not visited: no project layers and no lazy loading", async () => {
    const { tree, session } = await hygge({ "home/AGENTS.md": "home file", "home/work/sub/AGENTS.md": "sub" }, "home/work");
    expect(session.hasProject).toBe(false);
    expect(session.initialFiles).toEqual([]);
    expect(await session.touch([tree.path("home/work/sub/a.ts")])).toEqual([]);
  });

  it("touch walks up from the touched path, AGENTS.md else CLAUDE.md and CLAUDE.local.md, deepest first", async () => {
    const { tree, session } = await hygge(
      {
        "home/p/.git/": null,
        "home/p/AGENTS.md": "root",
        "home/p/a/CLAUDE.md": "a claude",
        "home/p/a/CLAUDE.local.md": "a local",
        "home/p/a/b/AGENTS.md": "b agents",
        "home/p/a/b/CLAUDE.md": "b claude (hidden by AGENTS.md)",
        "home/p/a/b/AGENTS.local.md": "not at root: never loaded",
      },
      "home/p",
    );
    const blocks = await session.touch([tree.path("home/p/a/b/file.ts")]);
    expect(blocks.map((block) => block.path)).toEqual([
      tree.path("home/p/a/b/AGENTS.md"),
      tree.path("home/p/a/CLAUDE.md"),
      tree.path("home/p/a/CLAUDE.local.md"),
    ]);
    expect(session.renderInline(blocks)).toBe(
      "## Additional project context (loaded for this turn)\n\n<!-- source: project/subdir: a/b/AGENTS.md -->\nb agents\n\n---\n\n<!-- source: project/subdir: a/CLAUDE.md -->\na claude\n\n---\n\n<!-- source: project/subdir: a/CLAUDE.local.md -->\na local",
    );
    expect(await session.touch([tree.path("home/p/a/b/other.ts")])).toEqual([]);
  });

  it("resolves relative touched paths against cwd and starts an existing directory at itself", async () => {
    const { tree, session } = await hygge({ "home/p/.git/": null, "home/p/d/AGENTS.md": "d", "home/p/d/e/AGENTS.md": "e" }, "home/p");
    expect((await session.touch(["d"])).map((block) => block.path)).toEqual([tree.path("home/p/d/AGENTS.md")]);
    expect((await session.touch(["d/e"])).map((block) => block.path)).toEqual([tree.path("home/p/d/e/AGENTS.md")]);
  });

  it("skips excluded directories and everything below them, but walks through to their parents", async () => {
    const { tree, session } = await hygge(
      { "home/p/.git/": null, "home/p/pkg/AGENTS.md": "pkg", "home/p/pkg/node_modules/dep/AGENTS.md": "dep", "home/p/pkg/.agents/x/AGENTS.md": "agents dir" },
      "home/p",
    );
    expect((await session.touch([tree.path("home/p/pkg/node_modules/dep/index.js")])).map((block) => block.path)).toEqual([tree.path("home/p/pkg/AGENTS.md")]);
    expect(await session.touch([tree.path("home/p/pkg/.agents/x/y.md")])).toEqual([]);
  });

  it("ignores touched paths outside the root", async () => {
    const { tree, session } = await hygge({ "home/p/.git/": null, "home/q/AGENTS.md": "q" }, "home/p");
    expect(await session.touch([tree.path("home/q/file")])).toEqual([]);
  });

  it("stops lazy loading for the session at the first cap hit, with one diagnostic", async () => {
    const spec: Record<string, string | null> = { "home/p/.git/": null };
    for (let index = 0; index < 3; index++) spec[`home/p/d${index}/AGENTS.md`] = `dir ${index}`;
    const tree = await createTree(spec);
    const session = await createSession({ cwd: tree.path("home/p"), home: tree.path("home"), env: {}, preset: "hygge", config: { lazy: { maxFiles: 2 } } });
    expect(await session.touch([tree.path("home/p/d0/x")])).toHaveLength(1);
    expect(await session.touch([tree.path("home/p/d1/x")])).toHaveLength(1);
    expect(await session.touch([tree.path("home/p/d2/x")])).toEqual([]);
    expect(session.diagnostics.filter((diagnostic) => diagnostic.code === "lazy-cap")).toHaveLength(1);
    await tree.write("home/p/d3/AGENTS.md", "later");
    expect(await session.touch([tree.path("home/p/d3/x")])).toEqual([]);
  });

  it("checks the byte cap on the on-disk size before reading, never loading half a file", async () => {
    const tree = await createTree({ "home/p/.git/": null, "home/p/small/AGENTS.md": "s", "home/p/big/AGENTS.md": "x".repeat(2000) });
    const session = await createSession({ cwd: tree.path("home/p"), home: tree.path("home"), env: {}, preset: "hygge", config: { lazy: { maxBytes: 1000 } } });
    expect(await session.touch([tree.path("home/p/big/f")])).toEqual([]);
    expect(await session.touch([tree.path("home/p/small/f")])).toEqual([]);
  });

  it("lists SOURCE / PATH / BYTES / LINES, and says so when there is nothing", async () => {
    const { tree, session } = await hygge({ "home/p/.git/": null, "home/p/AGENTS.md": "a\nb\n" }, "home/p");
    const rows = session.initialFiles.map((file, index) => ({ ...file, content: session.initialLoad!.blocks[index]!.content }));
    expect(session.preset.formatList!(rows, { root: session.root, cwd: session.cwd })).toBe(
      "SOURCE        PATH       BYTES  LINES\nproject/root  AGENTS.md  4      2",
    );
    expect(session.preset.formatList!([], { root: tree.path(), cwd: tree.path() })).toBe("No project context files found.");
  });
});
