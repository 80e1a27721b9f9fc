import { describe, expect, it } from "vitest";
import { scanTree } from "../src/inspect/scan.js";
import { countingFileSystem, nodeFileSystem } from "../src/io/file-system.js";
import { DEFAULT_EXCLUDES } from "../src/presets/preset.js";
import { createTree, makeSymlink } from "./helpers/tree.js";

const NAMES = ["AGENTS.md", "AGENTS.override.md", "CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md", "GEMINI.md"];

describe("scanTree", () => {
  it("finds instruction files by name, .claude/CLAUDE.md governing its parent", async () => {
    const tree = await createTree({
      "AGENTS.md": "a",
      "pkg/CLAUDE.md": "c",
      "pkg/.claude/CLAUDE.md": "cc",
      "pkg/src/GEMINI.md": "g",
      "pkg/src/readme.md": "not one",
    });
    const result = await scanTree({ fs: nodeFileSystem, root: tree.root, names: NAMES, exclude: DEFAULT_EXCLUDES });
    expect(result.files.map((file) => [file.path.slice(tree.root.length), file.name, file.scope.slice(tree.root.length)])).toEqual([
      ["/AGENTS.md", "AGENTS.md", ""],
      ["/pkg/.claude/CLAUDE.md", ".claude/CLAUDE.md", "/pkg"],
      ["/pkg/CLAUDE.md", "CLAUDE.md", "/pkg"],
      ["/pkg/src/GEMINI.md", "GEMINI.md", "/pkg/src"],
    ]);
    expect(result.dirs).toBe(5); // root, .test-home, pkg, pkg/.claude, pkg/src
  });

  it("skips .git and gitignored directories without listing them", async () => {
    const tree = await createTree({
      ".git/HEAD": "ref",
      ".git/AGENTS.md": "no",
      ".gitignore": "generated/\n",
      "generated/AGENTS.md": "no",
      "pkg/.gitignore": "local/",
      "pkg/local/AGENTS.md": "no",
      "pkg/AGENTS.md": "yes",
    });
    const { fs, counters } = countingFileSystem();
    const result = await scanTree({ fs, root: tree.root, names: NAMES, exclude: DEFAULT_EXCLUDES });
    expect(result.files.map((file) => file.path)).toEqual([tree.path("pkg/AGENTS.md")]);
    expect(result.ignoredDirs).toBe(2);
    expect(counters.readdir).toBe(3); // root, .test-home, pkg
  });

  it("applies the .gitignore files above the scanned directory, up to the git root", async () => {
    const tree = await createTree({ ".git/": null, ".gitignore": "secret/", "sub/secret/AGENTS.md": "no", "sub/AGENTS.md": "yes" });
    const result = await scanTree({ fs: nodeFileSystem, root: tree.path("sub"), names: NAMES, exclude: DEFAULT_EXCLUDES });
    expect(result.files.map((file) => file.path)).toEqual([tree.path("sub/AGENTS.md")]);
  });

  it("marks gitignored instruction files but still reports them", async () => {
    const tree = await createTree({ ".gitignore": "CLAUDE.local.md", "CLAUDE.local.md": "mine" });
    const result = await scanTree({ fs: nodeFileSystem, root: tree.root, names: NAMES, exclude: DEFAULT_EXCLUDES });
    expect(result.files).toEqual([expect.objectContaining({ name: "CLAUDE.local.md", gitignored: true })]);
  });

  it("lists an excluded directory's top level once without entering it", async () => {
    const tree = await createTree({ "build/AGENTS.md": "x", "build/deep/AGENTS.md": "y", "node_modules/pkg/AGENTS.md": "z" });
    const result = await scanTree({ fs: nodeFileSystem, root: tree.root, names: NAMES, exclude: DEFAULT_EXCLUDES });
    expect(result.files).toEqual([expect.objectContaining({ path: tree.path("build/AGENTS.md"), excludedBy: "build" })]);
    expect(result.excludedDirs).toEqual([tree.path("build"), tree.path("node_modules")]);
  });

  it("reports symlinked instruction files and directories without following them", async () => {
    const tree = await createTree({ "real/AGENTS.md": "x", "AGENTS.md": "root" });
    await makeSymlink(tree, "CLAUDE.md", "AGENTS.md");
    await makeSymlink(tree, "linked", tree.path("real"));
    const result = await scanTree({ fs: nodeFileSystem, root: tree.root, names: NAMES, exclude: DEFAULT_EXCLUDES });
    expect(result.files.find((file) => file.name === "CLAUDE.md")!.kind).toBe("symlink");
    expect(result.files.filter((file) => file.path.includes("/linked/"))).toEqual([]);
    expect(result.symlinkDirs).toEqual([tree.path("linked")]);
  });

  it("reports an unlistable directory as a diagnostic and goes on", async () => {
    const tree = await createTree({ "AGENTS.md": "x", "locked/AGENTS.md": "y" });
    const failing = {
      ...nodeFileSystem,
      readdir: async (path: string) =>
        path.endsWith("/locked") ? Promise.reject(Object.assign(new Error("EACCES"), { code: "EACCES" })) : nodeFileSystem.readdir(path),
    };
    const result = await scanTree({ fs: failing, root: tree.root, names: NAMES, exclude: DEFAULT_EXCLUDES });
    expect(result.files.map((file) => file.path)).toEqual([tree.path("AGENTS.md")]);
    expect(result.diagnostics).toEqual([expect.objectContaining({ path: tree.path("locked") })]);
  });
});
