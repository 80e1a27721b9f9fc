/**
 * Bad file kinds named AGENTS.md: a directory, FIFO or socket is skipped without
 * being opened for reading; a symlink to a regular file counts; a dangling one does not.
 */
import { describe, expect, it } from "vitest";
import { FsError } from "../src/core/errors.js";
import { nodeFileSystem, type FileSystem } from "../src/io/file-system.js";
import { createTree, makeFifo, makeSocket, makeSymlink, openSession } from "./helpers/tree.js";

/** The real file system, recording every path opened for reading. */
function recordingFs(): { fs: FileSystem; reads: string[] } {
  const reads: string[] = [];
  return { reads, fs: { ...nodeFileSystem, read: (path, maxBytes) => (reads.push(path), nodeFileSystem.read(path, maxBytes)) } };
}

async function treeWith(kind: (tree: Awaited<ReturnType<typeof createTree>>) => Promise<unknown>) {
  const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root rules", "repo/odd/sub/": null, "repo/odd/sub/AGENTS.md": "sub rules" });
  await kind(tree);
  return tree;
}

describe("special files named AGENTS.md", () => {
  const cases: Array<[string, (tree: Awaited<ReturnType<typeof createTree>>) => Promise<unknown>]> = [
    ["a directory", (tree) => tree.add({ "repo/odd/AGENTS.md/": null })],
    ["a FIFO", (tree) => makeFifo(tree, "repo/odd/AGENTS.md")],
    ["a socket", (tree) => makeSocket(tree, "repo/odd/AGENTS.md")],
    ["a symlink to a directory", async (tree) => (await tree.add({ "repo/target-dir/": null }), makeSymlink(tree, "repo/odd/AGENTS.md", "../target-dir"))],
  ];

  for (const [name, make] of cases) {
    it(`skips ${name} in the initial load without opening it, and says so`, { timeout: 5000 }, async () => {
      const tree = await treeWith(make);
      const { fs, reads } = recordingFs();
      const session = await openSession(tree, { cwd: tree.path("repo/odd/sub"), fs });
      expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/odd/sub/AGENTS.md")]);
      expect(reads).not.toContain(tree.path("repo/odd/AGENTS.md"));
      expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "not-a-regular-file", path: tree.path("repo/odd/AGENTS.md") }));
    });

    it(`never offers ${name} through the resolver`, { timeout: 5000 }, async () => {
      const tree = await treeWith(make);
      const { fs, reads } = recordingFs();
      const session = await openSession(tree, { cwd: tree.path("repo"), fs });
      const found = await session.resolve(tree.path("repo/odd/sub/file.ts"));
      expect(found.files.map((file) => file.path)).toEqual([tree.path("repo/odd/sub/AGENTS.md")]);
      expect(await session.touch([tree.path("repo/odd/x.ts")])).toEqual([]);
      expect(reads).not.toContain(tree.path("repo/odd/AGENTS.md"));
    });
  }

  it("a FIFO never blocks even when read directly", { timeout: 5000 }, async () => {
    const tree = await createTree();
    const fifo = await makeFifo(tree, "AGENTS.md");
    await expect(nodeFileSystem.read(fifo, 100)).rejects.toMatchObject({ code: "ENOTREG" });
  });

  it("counts a symlink to a regular file, under the symlink's own path", async () => {
    const tree = await createTree({ "repo/.git/": null, "shared/rules.md": "shared rules\n", "repo/pkg/": null });
    await makeSymlink(tree, "repo/AGENTS.md", "../shared/rules.md");
    await makeSymlink(tree, "repo/pkg/AGENTS.md", tree.path("shared/rules.md"));
    const session = await openSession(tree, { cwd: tree.path("repo/pkg"), config: { files: { symlinks: "follow" } } });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/pkg/AGENTS.md")]);
    expect(session.initialMessage).toBe(
      [
        '<agents_context scope="initial">',
        `Instructions from: ${tree.path("repo/AGENTS.md")}`,
        "shared rules",
        "",
        `Instructions from: ${tree.path("repo/pkg/AGENTS.md")}`,
        "shared rules",
        "</agents_context>",
      ].join("\n"),
    );
  });

  it("offers a symlink to a regular file through the resolver", async () => {
    const tree = await createTree({ "repo/.git/": null, "shared/rules.md": "shared rules\n", "repo/pkg/": null });
    await makeSymlink(tree, "repo/pkg/AGENTS.md", "../../shared/rules.md");
    const session = await openSession(tree, { cwd: tree.path("repo"), config: { files: { symlinks: "follow" } } });
    expect(await session.resolve(tree.path("repo/pkg/a.ts"))).toEqual({
      files: [{ path: tree.path("repo/pkg/AGENTS.md"), mtimeMs: expect.any(Number), sizeBytes: "shared rules\n".length }],
    });
  });

  it("ignores a dangling symlink silently", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root", "repo/a/b/": null });
    await makeSymlink(tree, "repo/a/AGENTS.md", "gone.md");
    const session = await openSession(tree, { cwd: tree.path("repo/a/b") });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md")]);
    expect(await session.resolve(tree.path("repo/a/b/x.ts"))).toEqual({ files: [] });
    expect(session.diagnostics).toEqual([]);
  });

  it("neither loads nor offers a symlink loop", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root", "repo/a/b/": null });
    await makeSymlink(tree, "repo/a/b/AGENTS.md", "AGENTS.md");
    const session = await openSession(tree, { cwd: tree.path("repo/a/b") });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md")]);
    expect(await session.resolve(tree.path("repo/a/b/x.ts"))).toEqual({ files: [] });
  });

  it("a dangling symlink that gets a target later is offered then", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/a/": null });
    await makeSymlink(tree, "repo/a/AGENTS.md", "../real.md");
    const session = await openSession(tree, { cwd: tree.path("repo"), config: { cache: { revalidateMs: 0 } } });
    expect(await session.resolve(tree.path("repo/a/x.ts"))).toEqual({ files: [] });
    await tree.write("repo/real.md", "now real");
    expect((await session.resolve(tree.path("repo/a/x.ts"))).files.map((file) => file.path)).toEqual([tree.path("repo/a/AGENTS.md")]);
  });

  it("skips a file it cannot read with a diagnostic naming it, and loads the rest", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root", "repo/a/AGENTS.md": "locked" });
    const locked = tree.path("repo/a/AGENTS.md");
    const fs: FileSystem = {
      ...nodeFileSystem,
      read: (path, maxBytes) =>
        path === locked ? Promise.reject(new FsError(`cannot open ${path}: EACCES`, { path, code: "EACCES" })) : nodeFileSystem.read(path, maxBytes),
    };
    const session = await openSession(tree, { cwd: tree.path("repo/a"), fs });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md")]);
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "read-EACCES", path: locked }));
  });
});
