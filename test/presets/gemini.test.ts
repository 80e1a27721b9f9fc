import { link } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createTree, openSession } from "../helpers/tree.js";
import { geminiSessionMemory, geminiSystemMemory } from "../../src/presets/gemini.js";

const ctx = (path: string, text: string) => `--- Context from: ${path} ---\n${text}\n--- End of Context from: ${path} ---`;

describe("preset gemini", () => {
  it("loads GEMINI.md in every directory from the git root to cwd, nothing above it", async () => {
    const tree = await createTree({ "GEMINI.md": "above", "repo/.git/": null, "repo/GEMINI.md": "root", "repo/a/GEMINI.md": "a", "repo/a/b/": null });
    const session = await openSession(tree, { preset: "gemini", cwd: tree.path("repo/a/b") });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/GEMINI.md"), tree.path("repo/a/GEMINI.md")]);
  });

  it("loads cwd alone without a git root", async () => {
    const tree = await createTree({ "GEMINI.md": "parent", "sub/GEMINI.md": "here" });
    const session = await openSession(tree, { preset: "gemini", cwd: tree.path("sub") });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("sub/GEMINI.md")]);
  });

  it("puts configured names in front of GEMINI.md, which stays, and sorts paths as plain strings", async () => {
    const tree = await createTree({ ".git/": null, "GEMINI.md": "g", "AGENTS.md": "a", "Apps/GEMINI.md": "child" });
    const session = await openSession(tree, { preset: "gemini", cwd: tree.path("Apps"), config: { files: { names: ["AGENTS.md"] } } });
    expect(session.config.files.names).toEqual(["AGENTS.md", "GEMINI.md"]);
    // "Apps/GEMINI.md" < "GEMINI.md": the child sorts before its parent, as in Gemini CLI.
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("AGENTS.md"), tree.path("Apps/GEMINI.md"), tree.path("GEMINI.md")]);
  });

  it("renders global and project tiers with Gemini's exact framing, trimmed, blank files dropped", async () => {
    const tree = await createTree({ ".git/": null, "GEMINI.md": "\n  project rules  \n\n", "sub/GEMINI.md": "  \n", "sub/x.ts": "" });
    await tree.write(".test-home/.gemini/GEMINI.md", "global prefs\n");
    const session = await openSession(tree, { preset: "gemini", cwd: tree.path("sub") });
    const global = tree.path(".test-home/.gemini/GEMINI.md");
    expect(session.initialMessage).toBe(
      `<loaded_context>\n<global_context>\n${ctx(global, "global prefs")}\n</global_context>\n<project_context>\n${ctx(tree.path("GEMINI.md"), "project rules")}\n</project_context>\n</loaded_context>`,
    );
    const blocks = session.initialLoad!.blocks;
    // Global memory alone reaches the system instruction as a string: renderUserMemory's headed form.
    const system = geminiSystemMemory(blocks, ["AGENTS.md", "GEMINI.md"]);
    expect(
      system.startsWith("\n# Contextual Instructions (AGENTS.md, GEMINI.md)\nThe following content is loaded from local and global configuration files.\n"),
    ).toBe(true);
    expect(system.endsWith(`\n\n<loaded_context>\n${ctx(global, "global prefs")}\n</loaded_context>`)).toBe(true);
    expect(geminiSessionMemory(blocks)).toBe(
      `\n<loaded_context>\n<project_context>\n${ctx(tree.path("GEMINI.md"), "project rules")}\n</project_context>\n</loaded_context>`,
    );
  });

  it("reads global files under $GEMINI_CLI_HOME and follows the configured names there too", async () => {
    const tree = await createTree({ "alt/.gemini/AGENTS.md": "alt agents", "alt/.gemini/GEMINI.md": "alt gemini", "p/": null });
    const session = await openSession(tree, {
      preset: "gemini",
      cwd: tree.path("p"),
      env: { GEMINI_CLI_HOME: tree.path("alt") },
      config: { files: { names: ["AGENTS.md"] } },
    });
    expect(session.initialFiles.map((file) => [file.path, file.layer])).toEqual([
      [tree.path("alt/.gemini/AGENTS.md"), "user"],
      [tree.path("alt/.gemini/GEMINI.md"), "user"],
    ]);
  });

  it("loads one file once when two names are the same file (device + inode)", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "shared", "sub/x.ts": "" });
    await link(tree.path("AGENTS.md"), tree.path("GEMINI.md"));
    await link(tree.path("AGENTS.md"), tree.path("sub/GEMINI.md"));
    const session = await openSession(tree, { preset: "gemini", config: { files: { names: ["AGENTS.md"] } } });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("AGENTS.md")]);
    expect(session.initialLoad!.duplicates).toEqual([expect.objectContaining({ path: tree.path("GEMINI.md"), sameAs: tree.path("AGENTS.md") })]);
    // Just in time, a hard link to a loaded file is not delivered again.
    expect(await session.touch([tree.path("sub/x.ts")])).toEqual([]);
    expect((await session.resolve(tree.path("sub/x.ts"))).files).toEqual([]);
  });

  it("delivers just-in-time files root to leaf in Gemini's framing, without ignore rules or limits", async () => {
    const big = "x".repeat(300 * 1024);
    const tree = await createTree({
      ".git/": null,
      "GEMINI.md": "root",
      "node_modules/pkg/GEMINI.md": big,
      "node_modules/pkg/lib/GEMINI.md": "lib",
      "node_modules/pkg/lib/x.js": "",
    });
    const session = await openSession(tree, { preset: "gemini" });
    const blocks = await session.touch([tree.path("node_modules/pkg/lib/x.js")]);
    expect(blocks.map((block) => block.path).sort()).toEqual([tree.path("node_modules/pkg/GEMINI.md"), tree.path("node_modules/pkg/lib/GEMINI.md")]);
    expect(session.renderInline(blocks)).toBe(
      `--- Newly Discovered Project Context ---\n${ctx(tree.path("node_modules/pkg/GEMINI.md"), big)}\n\n${ctx(tree.path("node_modules/pkg/lib/GEMINI.md"), "lib")}\n--- End Project Context ---`,
    );
    expect(await session.touch([tree.path("node_modules/pkg/lib/x.js")])).toEqual([]);
  });

  it("Gemini has no budget: agentsmd's default (1 MiB) applies, a config lifts it", async () => {
    const tree = await createTree({ ".git/": null, "GEMINI.md": "y".repeat(2 * 1024 * 1024) });
    const session = await openSession(tree, { preset: "gemini" });
    expect(session.initialFiles[0]).toMatchObject({ sizeBytes: 2 * 1024 * 1024, truncated: true });
    expect(session.initialFiles[0]!.includedBytes).toBeLessThanOrEqual(1024 * 1024);
    const lifted = await openSession(tree, { preset: "gemini", config: { initial: { maxBytes: 4 * 1024 * 1024 } } });
    expect(lifted.initialFiles[0]).toMatchObject({ includedBytes: 2 * 1024 * 1024, truncated: false });
  });

  it("trims and judges blank text as JavaScript's trim() does (U+0085 is text, U+FEFF is not)", async () => {
    const tree = await createTree({ ".git/": null, "GEMINI.md": "\u0085", "a/GEMINI.md": "rules\u0085\n", "a/b/GEMINI.md": "\uFEFF \n", "a/b/x.ts": "" });
    const session = await openSession(tree, { preset: "gemini", cwd: tree.path("a") });
    expect(session.initialMessage).toBe(
      `<loaded_context>\n<project_context>\n${ctx(tree.path("GEMINI.md"), "\u0085")}\n\n${ctx(tree.path("a/GEMINI.md"), "rules\u0085")}\n</project_context>\n</loaded_context>`,
    );
    expect(await session.touch([tree.path("a/b/x.ts")])).toEqual([]);
  });

  it("drops a project file that is a global file under another name (hard link): the global one loads", async () => {
    const tree = await createTree({ ".git/": null, "sub/GEMINI.md": "sub" });
    await tree.write(".test-home/.gemini/GEMINI.md", "shared\n");
    await link(tree.path(".test-home/.gemini/GEMINI.md"), tree.path("GEMINI.md"));
    const session = await openSession(tree, { preset: "gemini", cwd: tree.path("sub") });
    expect(session.initialFiles.map((file) => [file.path, file.layer])).toEqual([
      [tree.path(".test-home/.gemini/GEMINI.md"), "user"],
      [tree.path("sub/GEMINI.md"), "project"],
    ]);
    expect(session.initialLoad!.duplicates).toEqual([
      expect.objectContaining({ path: tree.path("GEMINI.md"), sameAs: tree.path(".test-home/.gemini/GEMINI.md") }),
    ]);
  });

  it("offers just-in-time files only for targets inside cwd, and never offers a loaded file again after an edit", async () => {
    const tree = await createTree({ ".git/": null, "app/src/GEMINI.md": "src v1", "app/src/a.ts": "", "other/GEMINI.md": "other", "other/b.ts": "" });
    const session = await openSession(tree, { preset: "gemini", cwd: tree.path("app") });
    expect(await session.touch([tree.path("other/b.ts")])).toEqual([]);
    expect((await session.touch([tree.path("app/src/a.ts")])).map((block) => block.content)).toEqual(["src v1"]);
    await tree.write("app/src/GEMINI.md", "src v2, edited in place");
    await tree.setMtime("app/src/GEMINI.md", 1_900_000_000);
    expect(await session.touch([tree.path("app/src/a.ts")])).toEqual([]);
  });

  it("expands @imports as Gemini CLI does: failures become comments, the root is the file's git root or its own directory", async () => {
    const tree = await createTree({ "GEMINI.md": "root", "shared.md": "shared", "sub/GEMINI.md": "A @../shared.md B @./missing.md C @alice", "sub/x.ts": "" });
    const session = await openSession(tree, { preset: "gemini" });
    const [block] = await session.touch([tree.path("sub/x.ts")]);
    expect(block!.content).toBe(
      `A <!-- Import failed: ../shared.md - Path traversal attempt --> B <!-- Import failed: ./missing.md - ENOENT: no such file or directory, access '${tree.path("sub/missing.md")}' --> C <!-- Import failed: alice - ENOENT: no such file or directory, access '${tree.path("sub/alice")}' -->`,
    );
    expect(session.diagnostics.filter((diagnostic) => diagnostic.code === "import-failed")).toHaveLength(3);
  });

  it("expands @imports with Gemini's markers naming the path as written", async () => {
    const tree = await createTree({ ".git/": null, "GEMINI.md": "Style: @./docs/style.md", "docs/style.md": "two spaces\n" });
    const session = await openSession(tree, { preset: "gemini" });
    expect(session.initialMessage).toContain("Style: <!-- Imported from: ./docs/style.md -->\ntwo spaces\n\n<!-- End of import from: ./docs/style.md -->");
  });
});
