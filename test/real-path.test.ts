/**
 * io/real-path.ts `ChainRealPaths`: real paths of a chain's files from their directories' (one
 * lstat per level), the same answers realpath(3) gives, symlinks and missing paths included.
 */
import { describe, expect, it, vi } from "vitest";
import { mkdir, realpath, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ChainRealPaths, PlainSightings } from "../src/io/real-path.js";
import { countingFileSystem, nodeFileSystem, type FileSystem } from "../src/io/file-system.js";
import { RACY_MS } from "../src/io/unchanged.js";
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

describe("ChainRealPaths with the sightings of earlier batches", () => {
  /** A batch after the trust window (`at` 1,000 ms after the first, window 50 ms). */
  const later = (sightings: PlainSightings, step: number) => sightings.batch(1_000 * step, 50);

  it("a later batch asks no lstat while the directories are unchanged, and sees a changed directory's entries again", async () => {
    const tree = await createTree({ "r/a/b/AGENTS.md": "b", "r/a/AGENTS.md": "a" });
    const files = [tree.path("r/a/AGENTS.md"), tree.path("r/a/b/AGENTS.md")];
    const disk = countingFileSystem(nodeFileSystem);
    const sightings = new PlainSightings();
    const root = { root: tree.path("r"), real: tree.path("r") };
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      // The first look with the wall clock ahead: the tree, just written, counts as old.
      vi.setSystemTime(Date.now() + RACY_MS);
      const first = new ChainRealPaths(disk.fs, root, { sightings, batch: later(sightings, 0) });
      expect(await Promise.all(files.map((file) => first.of(file)))).toEqual(files);
    } finally {
      vi.useRealTimers();
    }
    expect(disk.counters.lstat).toBe(4); // a, a/AGENTS.md, a/b, a/b/AGENTS.md
    disk.reset();
    const second = new ChainRealPaths(disk.fs, root, { sightings, batch: later(sightings, 1) });
    expect(await Promise.all(files.map((file) => second.of(file)))).toEqual(files);
    expect({ lstat: disk.counters.lstat, realpath: disk.counters.realpath }).toEqual({ lstat: 0, realpath: 0 });
    expect(disk.counters.stat).toBe(3); // the directories holding what was seen: r, r/a, r/a/b
    // A change in r/a/b (a new entry, more than a kernel clock tick after the first look): what was
    // seen there is seen again, nothing else.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writeFile(tree.path("r/a/b/new.md"), "new");
    disk.reset();
    const third = new ChainRealPaths(disk.fs, root, { sightings, batch: later(sightings, 2) });
    expect(await Promise.all(files.map((file) => third.of(file)))).toEqual(files);
    expect(disk.counters.lstat).toBe(1);
  });

  it("what was seen in a directory is seen again once the directory itself is (another directory by that name), whatever its timestamps say", async () => {
    const tree = await createTree({ "r/a/b/AGENTS.md": "b", "swap/b/": null, "out/AGENTS.md": "secret" });
    // Timestamps that vouch for every directory but the root: a file system where a directory
    // renamed into place keeps its old ctime.
    const fs: FileSystem = {
      ...nodeFileSystem,
      stat: async (path) => {
        const info = await nodeFileSystem.stat(path);
        return info && info.kind === "directory" && path !== tree.path("r") ? { ...info, mtimeMs: 0, ctimeMs: 0 } : info;
      },
    };
    const sightings = new PlainSightings();
    const root = { root: tree.path("r"), real: tree.path("r") };
    const file = tree.path("r/a/b/AGENTS.md");
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + RACY_MS);
      expect(await new ChainRealPaths(fs, root, { sightings, batch: later(sightings, 0) }).of(file)).toBe(file);
    } finally {
      vi.useRealTimers();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    // r/a is replaced by another directory whose b leads outside.
    await makeSymlink(tree, "swap/b/AGENTS.md", tree.path("out/AGENTS.md"));
    await rename(tree.path("r/a"), tree.path("old-a"));
    await rename(tree.path("swap"), tree.path("r/a"));
    const real = await new ChainRealPaths(fs, root, { sightings, batch: later(sightings, 1) }).of(file);
    expect(real).toBe(await realpath(tree.path("out/AGENTS.md")));
  });
});

describe("ChainRealPaths with the batch's chain announced (expect): one realpath of its deepest directory", () => {
  /** r/l1/.../l<depth> with an AGENTS.md at every fifth level; `dirs` the chain root first, `files` its AGENTS.md files. */
  async function chainOf(depth: number) {
    const tree = await createTree({ "r/": null, "out/": null });
    const dirs = [tree.path("r")];
    const files: string[] = [];
    for (let level = 1; level <= depth; level++) {
      dirs.push(join(dirs[level - 1]!, `l${level}`));
      await mkdir(dirs[level]!);
      if (level % 5 === 0) {
        await writeFile(join(dirs[level]!, "AGENTS.md"), `${level}\n`);
        files.push(join(dirs[level]!, "AGENTS.md"));
      }
    }
    return { tree, dirs, files, root: { root: tree.path("r"), real: tree.path("r") } };
  }

  it("vouches for every level when it answers the lexical path: no lstat of a directory", async () => {
    const { dirs, files, root } = await chainOf(20);
    const disk = countingFileSystem(nodeFileSystem);
    const reals = new ChainRealPaths(disk.fs, root);
    reals.expect(dirs);
    expect(await Promise.all(files.map((file) => reals.of(file)))).toEqual(files);
    // Before: an lstat per level (20) and per file (4).
    expect({ realpath: disk.counters.realpath, lstat: disk.counters.lstat }).toEqual({ realpath: 1, lstat: files.length });
    // A file whose lstat the caller made (a probe's) costs nothing more.
    disk.reset();
    const again = new ChainRealPaths(disk.fs, root);
    again.expect(dirs);
    expect(await Promise.all(files.map((file) => again.of(file, { symlink: false })))).toEqual(files);
    expect({ realpath: disk.counters.realpath, lstat: disk.counters.lstat }).toEqual({ realpath: 1, lstat: 0 });
  });

  for (const level of [1, 10, 20])
    for (const to of ["outside", "inside"] as const)
      it(`a symlinked directory at level ${level} of 20 leading ${to} the root: every answer is realpath(3)'s`, async () => {
        const { tree, dirs, files, root } = await chainOf(20);
        // The directory moves away and a symlink to it takes its place (inside: a sibling under the root).
        const moved = to === "outside" ? tree.path("out/moved") : tree.path("r/moved");
        await rename(dirs[level]!, moved);
        await makeSymlink(tree, dirs[level]!.slice(tree.root.length + 1), moved);
        const disk = countingFileSystem(nodeFileSystem);
        const reals = new ChainRealPaths(disk.fs, root);
        reals.expect(dirs);
        const answers = await Promise.all(files.map((file) => reals.of(file)));
        expect(answers).toEqual(await Promise.all(files.map((file) => realpath(file))));
        if (to === "outside")
          expect(answers.filter((answer) => answer.startsWith(tree.path("out/")))).toHaveLength(files.filter((file) => file.startsWith(dirs[level]!)).length);
      });

  it("a directory announced off the line to the deepest is derived level by level: the realpath vouches only for its own prefixes", async () => {
    const { tree, dirs, files, root } = await chainOf(20);
    await writeFile(tree.path("out/AGENTS.md"), "outside\n");
    await makeSymlink(tree, "r/side", tree.path("out"));
    const reals = new ChainRealPaths(nodeFileSystem, root);
    reals.expect([tree.path("r"), tree.path("r/side"), ...dirs.slice(1)]);
    expect(await reals.of(tree.path("r/side/AGENTS.md"))).toBe(await realpath(tree.path("out/AGENTS.md")));
    expect(await Promise.all(files.map((file) => reals.of(file)))).toEqual(files);
  });

  it("the deepest directory gone: each level is derived as before", async () => {
    const { dirs, files, root } = await chainOf(20);
    const reals = new ChainRealPaths(nodeFileSystem, root);
    reals.expect([...dirs, join(dirs[20]!, "gone", "deeper")]);
    expect(await Promise.all(files.map((file) => reals.of(file)))).toEqual(files);
  });

  it("a chain announced a few levels at a time (a touch per directory) asks no realpath: realpath(3) would read every prefix each time", async () => {
    const { dirs, files, root } = await chainOf(60);
    const disk = countingFileSystem(nodeFileSystem);
    const reals = new ChainRealPaths(disk.fs, root);
    const answers: string[] = [];
    for (let level = 3; level <= 60; level += 3) {
      reals.expect(dirs.slice(level - 2, level + 1));
      for (const file of files) if (file.startsWith(`${dirs[level - 2]!}/`) && !file.startsWith(`${dirs[level]!}/l`)) answers.push(await reals.of(file));
    }
    expect(answers).toEqual(files);
    // At most the first step's (3 levels of a 6-deep path: no dearer than their lstats); before
    // the rule, one per step (20), each reading every prefix: cubic at 2,000 levels.
    expect(disk.counters.realpath).toBeLessThanOrEqual(1);
    expect(disk.counters.lstat).toBeLessThanOrEqual(60 + files.length);
  });

  it("a later batch after the window trusts what the realpath vouched for: no lstat, no realpath", async () => {
    const { dirs, files, root } = await chainOf(20);
    const disk = countingFileSystem(nodeFileSystem);
    const sightings = new PlainSightings();
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + RACY_MS);
      const first = new ChainRealPaths(disk.fs, root, { sightings, batch: sightings.batch(0, 50) });
      first.expect(dirs);
      expect(await Promise.all(files.map((file) => first.of(file, { symlink: false })))).toEqual(files);
    } finally {
      vi.useRealTimers();
    }
    expect({ realpath: disk.counters.realpath, lstat: disk.counters.lstat }).toEqual({ realpath: 1, lstat: 0 });
    disk.reset();
    const second = new ChainRealPaths(disk.fs, root, { sightings, batch: sightings.batch(1_000, 50) });
    second.expect(dirs);
    expect(await Promise.all(files.map((file) => second.of(file, { symlink: false })))).toEqual(files);
    expect({ realpath: disk.counters.realpath, lstat: disk.counters.lstat }).toEqual({ realpath: 0, lstat: 0 });
  });
});
