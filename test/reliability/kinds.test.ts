/**
 * Reliability (docs/reliability.md), file kinds named like an instruction file: device nodes, a FIFO swapped in between stat
 * and read, and symlinks leaving the root under both `files.symlinks` policies. Directories, FIFOs,
 * sockets, dangling symlinks and loops are in test/file-kinds.test.ts.
 */
import { rename, rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { countingFileSystem, type FileSystem } from "../../src/io/file-system.js";
import { createTree, makeFifo, makeSymlink, openSession, runCli, type Tree } from "../helpers/tree.js";
import { injectFs } from "../helpers/faults.js";

/** The real file system, recording every path opened for reading. */
function recordingFs(): { fs: FileSystem; reads: string[] } {
  const reads: string[] = [];
  return { reads, fs: injectFs({ read: ([path, max], next) => (reads.push(path), next(path, max)) }) };
}

const files = (list: ReadonlyArray<{ path: string }>) => list.map((file) => file.path);

describe("device nodes named AGENTS.md", () => {
  for (const device of ["/dev/null", "/dev/zero", "/dev/urandom"]) {
    it(`skips a symlink to ${device} everywhere without opening it, and says so`, { timeout: 5000 }, async () => {
      const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root", "repo/dev/sub/AGENTS.md": "sub" });
      const link = await makeSymlink(tree, "repo/dev/AGENTS.md", device);
      const { fs, reads } = recordingFs();
      const session = await openSession(tree, { cwd: tree.path("repo/dev/sub"), fs, config: { files: { symlinks: "follow" } } });
      expect(files(session.initialFiles)).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/dev/sub/AGENTS.md")]);
      expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "not-a-regular-file", path: link }));

      const other = await openSession(tree, { cwd: tree.path("repo"), fs, config: { files: { symlinks: "follow" } } });
      expect(files((await other.resolve(tree.path("repo/dev/x.ts"))).files)).toEqual([]);
      expect(await other.touch([tree.path("repo/dev/sub/x.ts")])).toEqual([expect.objectContaining({ path: tree.path("repo/dev/sub/AGENTS.md") })]);
      expect(reads).not.toContain(link);
    });
  }

  it("refuses to read a device directly: no bytes, ENOTREG", { timeout: 5000 }, async () => {
    const { fs, counters } = countingFileSystem();
    await expect(fs.read("/dev/zero", 1024)).rejects.toMatchObject({ code: "ENOTREG" });
    expect(counters.bytesRead).toBe(0);
  });
});

describe("a file replaced by a FIFO between stat and read", () => {
  it("never blocks: the read fails as not-a-regular-file and the rest loads", { timeout: 5000 }, async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root", "repo/a/AGENTS.md": "soon a fifo", "repo/a/b/AGENTS.md": "b" });
    const victim = tree.path("repo/a/AGENTS.md");
    const fs = injectFs({
      read: async ([path, max], next) => {
        if (path === victim) {
          await rm(victim);
          await makeFifo(tree, "repo/a/AGENTS.md");
        }
        return next(path, max);
      },
    });
    const session = await openSession(tree, { cwd: tree.path("repo/a/b"), fs });
    expect(files(session.initialFiles)).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/a/b/AGENTS.md")]);
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "read-ENOTREG", path: victim }));
  });
});

describe("a symlink leaving the root (files.symlinks)", () => {
  /** repo/AGENTS.md is regular; repo/pkg/AGENTS.md links to outside/rules.md; repo/inside/AGENTS.md links inside. */
  async function escaping(): Promise<Tree> {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/AGENTS.md": "root",
      "repo/docs/shared.md": "shared inside",
      "repo/inside/": null,
      "repo/pkg/src/": null,
      "outside/rules.md": "rules from outside the repository",
    });
    await makeSymlink(tree, "repo/pkg/AGENTS.md", "../../outside/rules.md");
    await makeSymlink(tree, "repo/inside/AGENTS.md", "../docs/shared.md");
    return tree;
  }

  it('follows it with "follow" (opt-in), as agents do, with no realpath calls', async () => {
    const tree = await escaping();
    const { fs, counters } = countingFileSystem();
    const session = await openSession(tree, { cwd: tree.path("repo/pkg/src"), fs, config: { files: { symlinks: "follow" } } });
    expect(files(session.initialFiles)).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/pkg/AGENTS.md")]);
    expect(session.initialMessage).toContain("rules from outside the repository");
    expect(session.diagnostics).toEqual([]);
    expect(counters.realpath).toBe(0);
  });

  it('"inside-root" skips it in the initial load, resolve and touch, with a symlink-outside-root diagnostic', async () => {
    const tree = await escaping();
    const config = { files: { symlinks: "inside-root" as const } };
    const { fs, reads } = recordingFs();
    const initial = await openSession(tree, { cwd: tree.path("repo/pkg/src"), fs, config });
    expect(files(initial.initialFiles)).toEqual([tree.path("repo/AGENTS.md")]);
    expect(initial.initialMessage).not.toContain("outside the repository");
    expect(initial.diagnostics).toContainEqual({
      level: "warning",
      code: "symlink-outside-root",
      message: expect.stringContaining(tree.path("outside/rules.md")),
      path: tree.path("repo/pkg/AGENTS.md"),
    });

    const session = await openSession(tree, { cwd: tree.path("repo"), fs, config });
    expect(files((await session.resolve(tree.path("repo/pkg/src/x.ts"))).files)).toEqual([]);
    expect(await session.touch([tree.path("repo/pkg/src/x.ts")])).toEqual([]);
    expect(reads).not.toContain(tree.path("repo/pkg/AGENTS.md"));
    // A symlink that stays inside the root is still followed.
    expect(files((await session.resolve(tree.path("repo/inside/x.ts"))).files)).toEqual([tree.path("repo/inside/AGENTS.md")]);
  });

  it('"inside-root" also confines files under a symlinked directory that leads outside', async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root", "vendor/lib/AGENTS.md": "vendored rules" });
    await makeSymlink(tree, "repo/lib", "../vendor/lib");
    const follow = await openSession(tree, { cwd: tree.path("repo"), config: { files: { symlinks: "follow" } } });
    expect(files((await follow.resolve(tree.path("repo/lib/x.ts"))).files)).toEqual([tree.path("repo/lib/AGENTS.md")]);
    const confined = await openSession(tree, { cwd: tree.path("repo"), config: { files: { symlinks: "inside-root" } } });
    expect(files((await confined.resolve(tree.path("repo/lib/x.ts"))).files)).toEqual([]);
    expect(confined.diagnostics).toContainEqual(expect.objectContaining({ code: "symlink-outside-root", path: tree.path("repo/lib/AGENTS.md") }));
  });

  it('"inside-root" compares real paths: a root reached through a symlink keeps its own files', async () => {
    const tree = await createTree({ "real/repo/.git/": null, "real/repo/AGENTS.md": "root", "real/repo/pkg/AGENTS.md": "pkg" });
    await makeSymlink(tree, "link", "real/repo");
    const session = await openSession(tree, { cwd: tree.path("link/pkg"), config: { files: { symlinks: "inside-root" } } });
    expect(session.root).toBe(tree.path("link"));
    expect(files(session.initialFiles)).toEqual([tree.path("link/AGENTS.md"), tree.path("link/pkg/AGENTS.md")]);
    expect(session.diagnostics).toEqual([]);
  });

  it('"inside-root" treats a link target deleted between stat and realpath as absent, not as an error', async () => {
    const tree = await escaping();
    const fs = injectFs({
      realpath: async ([path], next) => {
        if (path === tree.path("repo/inside/AGENTS.md")) await rename(tree.path("repo/docs/shared.md"), tree.path("repo/docs/gone.md"));
        return next(path);
      },
    });
    const session = await openSession(tree, { cwd: tree.path("repo"), fs, config: { files: { symlinks: "inside-root" } } });
    expect(await session.resolve(tree.path("repo/inside/x.ts"))).toEqual({ files: [] });
    expect(session.diagnostics).toEqual([]);
  });

  it("the CLI takes the policy from a config file and reports the skip on stderr", async () => {
    const tree = await escaping();
    const config = await tree.write("cfg.json", JSON.stringify({ files: { symlinks: "inside-root" } }));
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo/pkg/src"), "--config", config, "paths"], { cwd: tree.root });
    expect(run).toEqual({
      code: 0,
      stdout: `${tree.path("repo/AGENTS.md")}\n`,
      stderr: expect.stringContaining(`${tree.path("repo/pkg/AGENTS.md")} resolves to`),
    });
  });

  it("rejects an unknown policy, naming the key", async () => {
    const tree = await escaping();
    const config = await tree.write("cfg.json", JSON.stringify({ files: { symlinks: "sometimes" } }));
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "--config", config, "paths"], { cwd: tree.root });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("files.symlinks");
  });
});
