import { describe, expect, it } from "vitest";
import { createTree, makeSymlink } from "../helpers/tree.js";
import { createSession } from "../../src/session/session.js";
import { builtinAgentsMd, claudeRenderer, stripBlockComments } from "../../src/presets/claude.js";
import { nodeFileSystem } from "../../src/io/file-system.js";

async function claude(spec: Parameters<typeof createTree>[0], cwdRel: string, env: Record<string, string> = {}) {
  const tree = await createTree(spec);
  const session = await createSession({ cwd: tree.path(cwdRel), home: tree.path("home"), env, preset: "claude" });
  return { tree, session };
}

describe("preset claude", () => {
  it("loads CLAUDE.md, .claude/CLAUDE.md then CLAUDE.local.md in every directory up to cwd, user file first, no AGENTS.md", async () => {
    const { tree, session } = await claude(
      {
        "home/.claude/CLAUDE.md": "user\n",
        "r/.git/": null,
        "r/CLAUDE.md": "root\n",
        "r/CLAUDE.local.md": "root local\n",
        "r/AGENTS.md": "root agents\n",
        "r/a/.claude/CLAUDE.md": "a dot-claude\n",
        "r/a/b/AGENTS.md": "b agents\n",
      },
      "r/a/b",
    );
    expect(session.root).toBe("/");
    expect(session.initialFiles.map((file) => [file.path, file.layer])).toEqual([
      [tree.path("home/.claude/CLAUDE.md"), "user"],
      [tree.path("r/CLAUDE.md"), "project"],
      [tree.path("r/CLAUDE.local.md"), "project"],
      [tree.path("r/a/.claude/CLAUDE.md"), "project"],
    ]);
    expect(session.initialMessage).toBe(
      [
        "<system-reminder>",
        "Codebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.",
        "",
        `Contents of ${tree.path("home/.claude/CLAUDE.md")} (user's private global instructions for all projects):`,
        "",
        "user",
        "",
        `Contents of ${tree.path("r/CLAUDE.md")} (project instructions, checked into the codebase):`,
        "",
        "root",
        "",
        `Contents of ${tree.path("r/CLAUDE.local.md")} (user's private project instructions, not checked in):`,
        "",
        "root local",
        "",
        `Contents of ${tree.path("r/a/.claude/CLAUDE.md")} (project instructions, checked into the codebase):`,
        "",
        "a dot-claude",
        "</system-reminder>",
      ].join("\n"),
    );
    // Nested files on touch: CLAUDE files only, even where an AGENTS.md sits alone.
    await tree.add({ "r/a/b/c/CLAUDE.md": "c\n", "r/a/b/c/AGENTS.md": "c agents\n", "r/a/b/d/AGENTS.md": "d agents\n" });
    const blocks = await session.touch([tree.path("r/a/b/c/x.ts"), tree.path("r/a/b/d/y.ts")]);
    expect(blocks.map((block) => block.path)).toEqual([tree.path("r/a/b/c/CLAUDE.md")]);
    expect(session.renderInline(blocks)).toBe(`<system-reminder>\nContents of ${tree.path("r/a/b/c/CLAUDE.md")}:\n\nc\n\n</system-reminder>`);
  });

  it("loads AGENTS.md and .claude/AGENTS.md when no CLAUDE file exists at or above cwd; nested AGENTS.md only where no CLAUDE file is", async () => {
    const { tree, session } = await claude(
      {
        "home/.claude/CLAUDE.md": "user does not count\n",
        "r/AGENTS.md": "root agents\n",
        "r/.claude/AGENTS.md": "dot agents\n",
        "r/sub/AGENTS.md": "sub agents\n",
        "r/sub/CLAUDE.md": "sub claude\n",
        "r/other/AGENTS.md": "other agents\n",
      },
      "r",
    );
    expect(session.initialFiles.map((file) => file.path)).toEqual([
      tree.path("home/.claude/CLAUDE.md"),
      tree.path("r/AGENTS.md"),
      tree.path("r/.claude/AGENTS.md"),
    ]);
    const blocks = await session.touch([tree.path("r/sub/x.ts"), tree.path("r/other/y.ts")]);
    expect(blocks.map((block) => block.path).sort()).toEqual([tree.path("r/other/AGENTS.md"), tree.path("r/sub/CLAUDE.md")]);
  });

  it("a CLAUDE.md symlink to AGENTS.md counts as a CLAUDE.md and turns AGENTS.md loading off", async () => {
    const tree = await createTree({ "r/AGENTS.md": "agents\n", "r/pkg/AGENTS.md": "pkg\n" });
    await makeSymlink(tree, "r/CLAUDE.md", "AGENTS.md");
    const session = await createSession({ cwd: tree.path("r"), home: tree.path("home"), env: {}, preset: "claude" });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("r/CLAUDE.md")]);
    expect(await session.touch([tree.path("r/pkg/a.ts")])).toEqual([]);
  });

  it("honours instructionFiles from ~/.claude/settings.json", async () => {
    const spec = { "r/CLAUDE.md": "claude\n", "r/AGENTS.md": "agents\n" };
    const both = await createTree({
      ...spec,
      "home/.claude/settings.json": JSON.stringify({
        pluginConfigs: { "cc-plugin-agents-md@builtin": { options: { instructionFiles: "claude-md-and-agents-md" } } },
      }),
    });
    const session = await createSession({ cwd: both.path("r"), home: both.path("home"), env: {}, preset: "claude" });
    expect(session.initialFiles.map((file) => file.path)).toEqual([both.path("r/CLAUDE.md"), both.path("r/AGENTS.md")]);

    const off = await createTree({
      "r/AGENTS.md": "agents\n",
      "home/.claude/settings.json": JSON.stringify({ pluginConfigs: { "agents-md@builtin": { options: { instructionFiles: "claude-md" } } } }),
    });
    const decision = await builtinAgentsMd({ fs: nodeFileSystem, cwd: off.path("r"), home: off.path("home"), env: {} });
    expect(decision).toMatchObject({ active: false, mode: "claude-md" });
    const none = await createSession({ cwd: off.path("r"), home: off.path("home"), env: {}, preset: "claude" });
    expect(none.initialFiles).toEqual([]);
  });

  it("CLAUDE_CONFIG_DIR moves the user file", async () => {
    const { tree, session } = await claude({ "cfg/CLAUDE.md": "from config dir\n", "home/.claude/CLAUDE.md": "home\n", "r/": null }, "r", {});
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("home/.claude/CLAUDE.md")]);
    const moved = await createSession({ cwd: tree.path("r"), home: tree.path("home"), env: { CLAUDE_CONFIG_DIR: tree.path("cfg") }, preset: "claude" });
    expect(moved.initialFiles.map((file) => file.path)).toEqual([tree.path("cfg/CLAUDE.md")]);
  });

  it("strips block-level HTML comments outside code fences", () => {
    expect(stripBlockComments("a\n<!-- one -->\nb\n<!--\nmulti\n-->\nc\n```\n<!-- kept -->\n```\ninline <!-- kept --> too\n")).toBe(
      "a\nb\nc\n```\n<!-- kept -->\n```\ninline <!-- kept --> too\n",
    );
    expect(claudeRenderer.initial({ cwd: "/r", root: "/", blocks: [] })).toBe("");
  });
});
