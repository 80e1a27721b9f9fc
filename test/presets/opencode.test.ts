/**
 * Preset `opencode` (peers §3.1, §3.2; e2e/opencode/FINDINGS.md §3): global file, first name type
 * with any match from cwd up to the worktree, nearest first, `Instructions from:` framing; nested
 * files on read below cwd only, one per directory, deepest first, in a `<system-reminder>`.
 */
import { describe, expect, it } from "vitest";
import { nodeFileSystem } from "../../src/io/file-system.js";
import { opencodeSystemPaths } from "../../src/presets/opencode.js";
import { createTree, openSession, runCli } from "../helpers/tree.js";

describe("preset opencode: system prompt files", () => {
  it("loads every AGENTS.md from cwd up to the worktree, nearest first, and no CLAUDE.md beside them", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/AGENTS.md": "ROOT RULES\n",
      "repo/CLAUDE.md": "CLAUDE ROOT",
      "repo/pkg/AGENTS.md": "PKG RULES\n",
      "repo/pkg/sub/CLAUDE.md": "CLAUDE SUB",
    });
    const session = await openSession(tree, { cwd: tree.path("repo/pkg/sub"), preset: "opencode" });
    expect(session.initialMessage).toBe(
      `Instructions from: ${tree.path("repo/pkg/AGENTS.md")}\nPKG RULES\n\nInstructions from: ${tree.path("repo/AGENTS.md")}\nROOT RULES\n`,
    );
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/pkg/AGENTS.md")]);
  });

  it("falls back to CLAUDE.md, then CONTEXT.md, when no AGENTS.md is on the chain", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/CLAUDE.md": "C", "repo/a/CONTEXT.md": "X", "repo/a/CLAUDE.md": "CA" });
    const session = await openSession(tree, { cwd: tree.path("repo/a"), preset: "opencode" });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/CLAUDE.md"), tree.path("repo/a/CLAUDE.md")]);
    const noClaude = await openSession(tree, { cwd: tree.path("repo/a"), preset: "opencode", env: { OPENCODE_DISABLE_CLAUDE_CODE: "1" } });
    expect(noClaude.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/a/CONTEXT.md")]);
  });

  it("puts the global file first: the config dir's AGENTS.md, else ~/.claude/CLAUDE.md", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "P" });
    await tree.write(".test-home/.claude/CLAUDE.md", "CLAUDE GLOBAL");
    const session = await openSession(tree, { cwd: tree.path("repo"), preset: "opencode" });
    expect(session.initialMessage).toBe(
      `Instructions from: ${tree.home}/.claude/CLAUDE.md\nCLAUDE GLOBAL\nInstructions from: ${tree.path("repo/AGENTS.md")}\nP`,
    );
    await tree.write(".test-home/.config/opencode/AGENTS.md", "OPENCODE GLOBAL");
    const second = await openSession(tree, { cwd: tree.path("repo"), preset: "opencode" });
    expect(second.initialFiles.map((file) => [file.path, file.layer])).toEqual([
      [`${tree.home}/.config/opencode/AGENTS.md`, "user"],
      [tree.path("repo/AGENTS.md"), "project"],
    ]);
    const xdg = await openSession(tree, { cwd: tree.path("repo"), preset: "opencode", env: { XDG_CONFIG_HOME: tree.path("xdg") } });
    expect(xdg.initialFiles[0]?.path).toBe(`${tree.home}/.claude/CLAUDE.md`);
  });

  it("takes the first global candidate that exists at all: an empty file or a directory there hides ~/.claude/CLAUDE.md", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "P" });
    await tree.write(".test-home/.claude/CLAUDE.md", "CLAUDE GLOBAL");
    await tree.write(".test-home/.config/opencode/AGENTS.md", "");
    const empty = await openSession(tree, { cwd: tree.path("repo"), preset: "opencode" });
    expect(empty.initialMessage).toBe(`Instructions from: ${tree.path("repo/AGENTS.md")}\nP`);
    await tree.remove(".test-home/.config/opencode/AGENTS.md");
    await tree.add({ ".test-home/.config/opencode/AGENTS.md/": null });
    const directory = await openSession(tree, { cwd: tree.path("repo"), preset: "opencode" });
    expect(directory.initialMessage).toBe(`Instructions from: ${tree.path("repo/AGENTS.md")}\nP`);
  });

  it("reads the Claude Code switches as OpenCode's runtime flags do: true, yes, on, 1, y", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/CLAUDE.md": "C", "repo/CONTEXT.md": "X" });
    for (const [value, names] of [
      ["yes", ["CONTEXT.md"]],
      ["y", ["CONTEXT.md"]],
      ["on", ["CONTEXT.md"]],
      ["0", ["CLAUDE.md"]],
      ["no", ["CLAUDE.md"]],
      ["TRUE", ["CLAUDE.md"]],
    ] as const) {
      const session = await openSession(tree, { cwd: tree.path("repo"), preset: "opencode", env: { OPENCODE_DISABLE_CLAUDE_CODE_PROMPT: value } });
      expect(
        session.initialFiles.map((file) => file.path),
        value,
      ).toEqual(names.map((name) => tree.path(`repo/${name}`)));
    }
  });

  it("walks up to the file-system root when there is no git repository", async () => {
    const tree = await createTree({ "AGENTS.md": "ABOVE", "work/notes/": null });
    const session = await openSession(tree, { cwd: tree.path("work/notes"), preset: "opencode" });
    expect(session.root).toBe("/");
    expect(session.initialFiles.map((file) => file.path)).toContain(tree.path("AGENTS.md"));
  });

  it("drops empty files from the text but keeps whitespace-only ones, as OpenCode does", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "", "repo/a/AGENTS.md": "  \n" });
    const session = await openSession(tree, { cwd: tree.path("repo/a"), preset: "opencode" });
    expect(session.initialMessage).toBe(`Instructions from: ${tree.path("repo/a/AGENTS.md")}\n  \n`);
  });

  it("opencodeSystemPaths lists what the system prompt holds, global first, project nearest first", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "R", "repo/pkg/AGENTS.md": "P", "repo/pkg/x/AGENTS.md": "X" });
    await tree.write(".test-home/.claude/CLAUDE.md", "G");
    const paths = await opencodeSystemPaths({ cwd: tree.path("repo/pkg"), worktree: tree.path("repo"), home: tree.home, env: {}, fs: nodeFileSystem });
    expect(paths).toEqual([`${tree.home}/.claude/CLAUDE.md`, tree.path("repo/pkg/AGENTS.md"), tree.path("repo/AGENTS.md")]);
    expect(
      await opencodeSystemPaths({
        cwd: tree.path("repo/pkg"),
        worktree: tree.path("repo"),
        home: tree.home,
        env: { OPENCODE_DISABLE_PROJECT_CONFIG: "true" },
        fs: nodeFileSystem,
      }),
    ).toEqual([`${tree.home}/.claude/CLAUDE.md`]);
  });
});

describe("preset opencode: nested files on read", () => {
  async function nested() {
    return createTree({
      "repo/.git/": null,
      "repo/AGENTS.md": "ROOT",
      "repo/other/AGENTS.md": "OTHER",
      "repo/other/o.ts": "",
      "repo/pkg/AGENTS.md": "PKG",
      "repo/pkg/a/CLAUDE.md": "A CLAUDE",
      "repo/pkg/a/CONTEXT.md": "A CONTEXT",
      "repo/pkg/a/b/AGENTS.md": "B\n",
      "repo/pkg/a/b/file.ts": "",
    });
  }

  it("attaches one file per directory from the file's directory up to but not including cwd, deepest first", async () => {
    const tree = await nested();
    const session = await openSession(tree, { cwd: tree.path("repo/pkg"), preset: "opencode" });
    const blocks = await session.touch([tree.path("repo/pkg/a/b/file.ts")]);
    expect(blocks.map((block) => block.path)).toEqual([tree.path("repo/pkg/a/b/AGENTS.md"), tree.path("repo/pkg/a/CLAUDE.md")]);
    expect(session.renderInline(blocks)).toBe(
      `<system-reminder>\nInstructions from: ${tree.path("repo/pkg/a/b/AGENTS.md")}\nB\n\n\nInstructions from: ${tree.path("repo/pkg/a/CLAUDE.md")}\nA CLAUDE\n</system-reminder>`,
    );
    expect(await session.touch([tree.path("repo/pkg/a/b/file.ts")])).toEqual([]);
  });

  it("attaches nothing for files outside cwd or directly in cwd", async () => {
    const tree = await nested();
    const session = await openSession(tree, { cwd: tree.path("repo/pkg"), preset: "opencode" });
    expect(await session.touch([tree.path("repo/other/o.ts")])).toEqual([]);
    expect(await session.touch([tree.path("repo/pkg/x.ts")])).toEqual([]);
  });

  it("shows the same through the CLI", async () => {
    const tree = await nested();
    const run = await runCli(["--home", tree.home, "--preset", "opencode", "--cwd", tree.path("repo/pkg"), "show"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Instructions from: ${tree.path("repo/pkg/AGENTS.md")}\nPKG\nInstructions from: ${tree.path("repo/AGENTS.md")}\nROOT`);
  });
});
