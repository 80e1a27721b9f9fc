/**
 * The default file system answers metadata synchronously; the thread-pool one must agree with it
 * call for call (a differential test: each is the other's oracle).
 */
import { describe, expect, it } from "vitest";
import { asyncFileSystem, nodeFileSystem } from "../src/file-system.js";
import { FsError } from "../src/errors.js";
import { createTree, makeFifo, makeSymlink } from "./helpers/tree.js";

async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    const value = await run();
    return { value };
  } catch (error) {
    return { error: error instanceof FsError ? error.code : String(error) };
  }
}

describe("nodeFileSystem (sync metadata) and asyncFileSystem (thread pool)", () => {
  it("give the same stat and lstat for files, directories, FIFOs, missing paths, dangling links and loops", async () => {
    const tree = await createTree({ "AGENTS.md": "text", "dir/": null, "file": "x" });
    await makeFifo(tree, "fifo");
    await makeSymlink(tree, "dangling", tree.path("nope"));
    await makeSymlink(tree, "loop", tree.path("loop"));
    await makeSymlink(tree, "link", tree.path("AGENTS.md"));
    const paths = ["AGENTS.md", "dir", "fifo", "nope", "dangling", "loop", "link", "file/below"].map((rel) => tree.path(rel));
    for (const path of paths) {
      expect(await outcome(() => nodeFileSystem.stat(path)), path).toEqual(await outcome(() => asyncFileSystem.stat(path)));
      expect(await outcome(() => nodeFileSystem.lstat(path)), path).toEqual(await outcome(() => asyncFileSystem.lstat(path)));
    }
    expect(await outcome(() => nodeFileSystem.stat(tree.path("loop")))).toEqual({ error: "ELOOP" });
    expect(await outcome(() => nodeFileSystem.stat(tree.path("nope")))).toEqual({ value: null });
  });

  it("reports a failing stat as a rejected promise, never a synchronous throw", async () => {
    const tree = await createTree({});
    await makeSymlink(tree, "loop", tree.path("loop"));
    const result = nodeFileSystem.stat(tree.path("loop"));
    expect(result).toBeInstanceOf(Promise);
    await expect(result).rejects.toBeInstanceOf(FsError);
  });
});
