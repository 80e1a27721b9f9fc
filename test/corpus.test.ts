/**
 * The corpus: at least five real public repository layouts, recorded as data (paths,
 * sizes, symlink targets; no body), and the materialiser the oracle suites run over them with.
 */
import { lstat, readFile, readlink, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadCorpus, materialise, syntheticBody } from "./corpus/materialise.js";
import { createTree } from "./helpers/tree.js";

describe("corpus", () => {
  const corpus = loadCorpus();

  it("holds at least five real repositories, each with its commit, licence and working directories", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(5);
    expect(new Set(corpus.map((repo) => repo.repo)).size).toBe(corpus.length);
    for (const repo of corpus) expect(repo.entries.length, repo.name).toBeGreaterThan(0);
  });

  it("synthetic bodies have exactly the recorded size", () => {
    for (const size of [0, 1, 39, 40, 41, 30595]) expect(Buffer.byteLength(syntheticBody("pkg/AGENTS.md", size))).toBe(size);
    expect(syntheticBody("a/AGENTS.md", 80)).toContain("a/AGENTS.md: synthetic line 0001");
  });

  it("materialises every repository: files of the recorded sizes, symlinks with their targets, every cwd, a git repository", async () => {
    const tree = await createTree();
    for (const repo of corpus) {
      const root = materialise(repo, tree.path(repo.name));
      expect((await stat(path.join(root, ".git"))).isDirectory()).toBe(true);
      for (const cwd of repo.cwds) expect((await stat(path.join(root, cwd))).isDirectory(), `${repo.name} ${cwd}`).toBe(true);
      for (const entry of repo.entries) {
        const file = path.join(root, entry.path);
        if ("symlink" in entry) {
          expect((await lstat(file)).isSymbolicLink()).toBe(true);
          expect(await readlink(file)).toBe(entry.symlink);
        } else {
          expect((await readFile(file)).length, entry.path).toBe(entry.size);
        }
      }
    }
  });
});
