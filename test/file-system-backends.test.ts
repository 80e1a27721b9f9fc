/**
 * The default file system answers metadata synchronously; the thread-pool one must agree with it
 * call for call (a differential test: each is the other's oracle).
 */
import { describe, expect, it } from "vitest";
import { asyncFileSystem, nodeFileSystem } from "../src/io/file-system.js";
import { FsError } from "../src/core/errors.js";
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
    const tree = await createTree({ "AGENTS.md": "text", "dir/": null, file: "x" });
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

  it("read the same bytes, sizes and truncation, and refuse the same non-regular files", async () => {
    const tree = await createTree({ "AGENTS.md": "héllo world", empty: "", "dir/": null });
    await makeFifo(tree, "fifo");
    for (const rel of ["AGENTS.md", "empty", "dir", "fifo", "missing"]) {
      for (const limit of [0, 2, 5, 1000]) {
        const shape = async (fs: typeof nodeFileSystem) =>
          outcome(async () => {
            const result = await fs.read(tree.path(rel), limit);
            return { bytes: Buffer.from(result.bytes).toString("hex"), size: result.size, truncated: result.truncated };
          });
        expect(await shape(nodeFileSystem), `${rel} ${limit}`).toEqual(await shape(asyncFileSystem));
      }
    }
    expect(await outcome(() => nodeFileSystem.read(tree.path("fifo"), 10))).toEqual({ error: "ENOTREG" });
  });

  it("reports a failing stat as a rejected promise, never a synchronous throw", async () => {
    const tree = await createTree({});
    await makeSymlink(tree, "loop", tree.path("loop"));
    const result = nodeFileSystem.stat(tree.path("loop"));
    expect(result).toBeInstanceOf(Promise);
    await expect(result).rejects.toBeInstanceOf(FsError);
  });
});
