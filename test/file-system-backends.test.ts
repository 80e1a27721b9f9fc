/**
 * The default file system answers metadata synchronously; the thread-pool one must agree with it
 * call for call (a differential test: each is the other's oracle).
 */
import { describe, expect, it } from "vitest";
import { lstatSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostname } from "node:os";
import { asyncFileSystem, hostName, nodeFileSystem, syncFileSystem, type FileSystem } from "../src/io/file-system.js";
import { homedir } from "../src/io/require.js";
import { homedir as osHomedir } from "node:os";
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

  it("give the same realpath, and the same error codes, for files, directories, links, missing paths and loops", async () => {
    const tree = await createTree({ "AGENTS.md": "text", "dir/sub/": null });
    await makeSymlink(tree, "dangling", tree.path("nope"));
    await makeSymlink(tree, "loop", tree.path("loop"));
    await makeSymlink(tree, "link", tree.path("dir"));
    for (const rel of ["AGENTS.md", "dir", "link", "link/sub", "nope", "dangling", "loop", "AGENTS.md/below"]) {
      const path = tree.path(rel);
      expect(await outcome(() => nodeFileSystem.realpath(path)), path).toEqual(await outcome(() => asyncFileSystem.realpath(path)));
    }
    expect(await outcome(() => nodeFileSystem.realpath(tree.path("link/sub")))).toEqual({ value: tree.path("dir/sub") });
    // Answered on the calling thread (a thread-pool round trip cost more than a 25-level realpath):
    // a failure is a rejected promise, never a synchronous throw.
    const failed = nodeFileSystem.realpath(tree.path("loop"));
    expect(failed).toBeInstanceOf(Promise);
    await expect(failed).rejects.toBeInstanceOf(FsError);
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

describe("syncFileSystem (every call on the calling thread, for a hook process) and asyncFileSystem", () => {
  /** Runs the same calls through `fs` in its own copy of a tree; returns what each call did and the tree after. */
  async function script(fs: FileSystem) {
    const tree = await createTree({ "AGENTS.md": "text", "dir/": null, "dir/a.json": "{}\n", "locked.lock": "1\n" });
    await makeFifo(tree, "fifo");
    await makeSymlink(tree, "link", tree.path("dir"));
    writeFileSync(tree.path("private.json"), "old\n", { mode: 0o640 });
    symlinkSync(tree.path("dir/a.json"), tree.path("linked.json"));
    symlinkSync(tree.path("dir/nothing.json"), tree.path("dangling.json"));
    const steps: Record<string, unknown> = {
      mkdir: await outcome(() => fs.mkdir(tree.path("new/deep/er"))),
      mkdirPrivate: await outcome(() => fs.mkdir(tree.path("private/deep"), 0o700)),
      exclusiveOverLink: await outcome(() => fs.createExclusive(tree.path("dangling.json"), "me\n")),
      mkdirOverFile: await outcome(() => fs.mkdir(tree.path("AGENTS.md/x"))),
      exclusive: await outcome(() => fs.createExclusive(tree.path("new.lock"), "me\n")),
      exclusiveTaken: await outcome(() => fs.createExclusive(tree.path("locked.lock"), "me\n")),
      exclusiveNoDir: await outcome(() => fs.createExclusive(tree.path("nodir/x.lock"), "me\n")),
      remove: await outcome(() => fs.remove(tree.path("locked.lock"))),
      removeGone: await outcome(() => fs.remove(tree.path("gone"))),
      removeDir: await outcome(() => fs.remove(tree.path("new"))),
      write: await outcome(() => fs.writeAtomic(tree.path("dir/b.json"), "b\n")),
      overwriteKeepsMode: await outcome(() => fs.writeAtomic(tree.path("private.json"), "new\n")),
      writeOverLink: await outcome(() => fs.writeAtomic(tree.path("linked.json"), "over\n")),
      writeNoDir: await outcome(() => fs.writeAtomic(tree.path("nodir/c.json"), "c\n")),
      realpath: await outcome(async () => (await fs.realpath(tree.path("link/a.json"))).slice(tree.root.length)),
      realpathMissing: await outcome(() => fs.realpath(tree.path("missing"))),
      readdir: await outcome(async () => (await fs.readdir(tree.root)).sort((a, b) => a.name.localeCompare(b.name))),
      readdirFile: await outcome(() => fs.readdir(tree.path("AGENTS.md"))),
    };
    const after: Record<string, string> = {};
    const walk = (dir: string) => {
      for (const name of readdirSync(dir).sort()) {
        const path = join(dir, name);
        const rel = path.slice(tree.root.length);
        const info = lstatSync(path);
        if (info.isSymbolicLink()) after[rel] = "link";
        else if (info.isDirectory()) ((after[rel] = `dir ${(info.mode & 0o777).toString(8)}`), walk(path));
        else if (info.isFile()) after[rel] = `${readFileSync(path, "utf8")} ${(statSync(path).mode & 0o777).toString(8)}`;
        else after[rel] = "other";
      }
    };
    walk(tree.root);
    return { steps, after };
  }

  it("create, replace, lock, remove, list and resolve alike, errors included (same codes, no temp file left)", async () => {
    const viaSync = await script(syncFileSystem);
    expect(viaSync).toEqual(await script(asyncFileSystem));
    expect(viaSync.steps.exclusiveTaken).toEqual({ value: false });
    expect(viaSync.after["/private.json"]).toBe("new\n 640");
    // The link is replaced, its target left alone (a state file swapped for a link, issue 18 row 9).
    expect(viaSync.after["/linked.json"]).toBe("over\n 600");
    expect(viaSync.after["/dir/a.json"]).toMatch(/^\{\}\n /);
    // A dangling link is an entry: nothing is created where it points.
    expect(viaSync.steps.exclusiveOverLink).toEqual({ value: false });
    expect(viaSync.after["/dangling.json"]).toBe("link");
    expect(viaSync.after["/dir/nothing.json"]).toBeUndefined();
    expect([viaSync.after["/private"], viaSync.after["/private/deep"]]).toEqual(["dir 700", "dir 700"]);
    expect(Object.keys(viaSync.after).filter((rel) => rel.endsWith(".tmp"))).toEqual([]);
  });
});

describe("node:os answers without node:os on the hook path", () => {
  it("hostName is os.hostname() (lock files compare it across processes); homedir is os.homedir()", () => {
    expect(hostName()).toBe(hostname());
    expect(homedir()).toBe(osHomedir());
  });
});
