/**
 * io/real-path.ts `ChainRealPaths`: real paths of a chain's files from their directories' (one
 * lstat per level), the same answers realpath(3) gives, symlinks and missing paths included.
 */
import { describe, expect, it } from "vitest";
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ChainRealPaths } from "../src/io/real-path.js";
import { countingFileSystem, nodeFileSystem } from "../src/io/file-system.js";
import { createTree, makeSymlink } from "./helpers/tree.js";

describe("ChainRealPaths", () => {
  it("answers what realpath answers: plain files, links inside and outside the root, a linked file, the root, a path outside it", async () => {
    const tree = await createTree({
      "r/a/b/AGENTS.md": "b",
      "r/real/c/AGENTS.md": "c",
      "out/d/AGENTS.md": "d",
      "out/secret.md": "s",
    });
    await makeSymlink(tree, "r/a/in", "../real");
    await makeSymlink(tree, "r/a/out", tree.path("out"));
    await makeSymlink(tree, "r/a/b/CLAUDE.md", tree.path("out/secret.md"));
    const reals = new ChainRealPaths(nodeFileSystem, { root: tree.path("r"), real: await realpath(tree.path("r")) });
    for (const rel of ["r/a/b/AGENTS.md", "r/a/in/c/AGENTS.md", "r/a/out/d/AGENTS.md", "r/a/b/CLAUDE.md", "r", "r/a/in", "out/secret.md"]) {
      expect(await reals.of(tree.path(rel)), rel).toBe(await realpath(tree.path(rel)));
    }
  });

  it("rejects as realpath does for a path that is not there", async () => {
    const tree = await createTree({ "r/a/AGENTS.md": "a" });
    const reals = new ChainRealPaths(nodeFileSystem, { root: tree.path("r"), real: tree.path("r") });
    await expect(reals.of(tree.path("r/a/missing.md"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(reals.of(tree.path("r/gone/AGENTS.md"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("a file at every level of a 300-deep chain: one lstat per file and per directory, no realpath", async () => {
    const tree = await createTree({ "r/": null });
    const files: string[] = [];
    let dir = tree.path("r");
    for (let level = 0; level < 300; level++) {
      dir = join(dir, "a");
      await mkdir(dir);
      await writeFile(join(dir, "AGENTS.md"), `${level}\n`);
      files.push(join(dir, "AGENTS.md"));
    }
    const disk = countingFileSystem(nodeFileSystem);
    const reals = new ChainRealPaths(disk.fs, { root: tree.path("r"), real: tree.path("r") });
    const answers = await Promise.all(files.map((file) => reals.of(file)));
    expect(answers).toEqual(files);
    expect(disk.counters.realpath).toBe(0);
    // Before: realpath(3) per file, 300 of them, each reading every one of its up to 300 prefixes.
    expect(disk.counters.lstat).toBeLessThanOrEqual(2 * 300);
  });
});
