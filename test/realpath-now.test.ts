/**
 * io/realpath-now.ts: realpath through an open descriptor and /proc. Every answer and every error
 * code must be realpath(3)'s (`realpathSync.native`), over trees of directories, files, FIFOs and
 * symlinks (relative, absolute, dangling, looping), and the quick way must really be taken.
 */
import { describe, expect, it, vi } from "vitest";
import * as fc from "fast-check";
import * as fs from "node:fs";
import { createTree, makeFifo, makeSymlink } from "./helpers/tree.js";

// Spies on the calls that tell which way a path was resolved.
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  const realpathSync = Object.assign((...args: Parameters<typeof real.realpathSync>) => real.realpathSync(...args), {
    native: vi.fn(real.realpathSync.native),
  });
  return { ...real, realpathSync, readlinkSync: vi.fn(real.readlinkSync), openSync: vi.fn(real.openSync) };
});

const { realpathNow, realpathNowUsesProc } = await import("../src/io/realpath-now.js");

/** What a resolve came to: the path, or the error code. */
function outcome(resolve: (path: string) => string, path: string): string {
  try {
    return resolve(path);
  } catch (error) {
    return `error ${(error as { code?: string }).code}`;
  }
}

const native = (path: string) => fs.realpathSync.native(path);

describe("realpathNow", () => {
  it("answers what realpath(3) answers, errors included, over random trees of links", async () => {
    const names = ["a", "b", "c", "l1", "l2", "f", "p"];
    const entry = fc.record({
      dir: fc.constantFrom("", "a", "a/b", "c"),
      name: fc.constantFrom(...names),
      kind: fc.constantFrom("dir", "file", "fifo", "link"),
      target: fc.constantFrom("a", "../a", "b", "..", ".", "missing", "l1", "l2", "/", "f", "../f", "p", "a/b", "a/b/f", "../../x"),
    });
    const query = fc.array(fc.constantFrom(...names, ".", "..", "missing", ""), { minLength: 0, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 12 }), fc.array(query, { minLength: 1, maxLength: 8 }), async (entries, queries) => {
        const tree = await createTree({ "a/b/f": "x", "c/": null, f: "x" });
        try {
          for (const { dir, name, kind, target } of entries) {
            const rel = dir ? `${dir}/${name}` : name;
            if (fs.existsSync(tree.path(rel)) || fs.lstatSync(tree.path(rel), { throwIfNoEntry: false })) continue;
            if (!fs.existsSync(tree.path(dir))) continue;
            if (kind === "dir") fs.mkdirSync(tree.path(rel));
            else if (kind === "file") fs.writeFileSync(tree.path(rel), "x");
            else if (kind === "fifo") await makeFifo(tree, rel);
            else await makeSymlink(tree, rel, target.startsWith("/") ? tree.path() : target);
          }
          // Every entry made, as it is and with something after it, and the random paths.
          const made = entries.map(({ dir, name }) => (dir ? `${dir}/${name}` : name));
          const paths = [...made.flatMap((rel) => [rel, `${rel}/f`, `${rel}/..`, `${rel}/b/f`]), ...queries.map((parts) => parts.join("/"))];
          for (const rel of paths) {
            const path = `${tree.path()}/${rel}`;
            expect(outcome(realpathNow, path), path).toBe(outcome(native, path));
          }
        } finally {
          await tree.cleanup();
        }
      }),
      { numRuns: 100 },
    );
  });

  it.runIf(process.platform === "linux")("resolves a deep directory and a file in it through /proc, not by an lstat per level", async () => {
    expect(realpathNowUsesProc()).toBe(true);
    const tree = await createTree({ "r/": null });
    const deep = tree.path(`r/${Array.from({ length: 30 }, (_, i) => `d${i}`).join("/")}`);
    fs.mkdirSync(deep, { recursive: true });
    fs.writeFileSync(`${deep}/AGENTS.md`, "x");
    await makeSymlink(tree, "link", deep);
    for (const [path, real] of [
      [deep, deep],
      [`${deep}/AGENTS.md`, `${deep}/AGENTS.md`],
      [tree.path("link"), deep],
      [`${tree.path("link")}/AGENTS.md`, `${deep}/AGENTS.md`],
    ] as const) {
      vi.mocked(fs.realpathSync.native).mockClear();
      vi.mocked(fs.readlinkSync).mockClear();
      expect(realpathNow(path)).toBe(real);
      expect(fs.realpathSync.native, path).not.toHaveBeenCalled();
      expect(vi.mocked(fs.readlinkSync).mock.calls, path).toEqual([[expect.stringMatching(/^\/proc\/self\/fd\/\d+$/)]]);
    }
    await tree.cleanup();
  });

  it("never blocks on a FIFO, as the path or as a component of it", async () => {
    const tree = await createTree({ "r/": null });
    const fifo = await makeFifo(tree, "r/AGENTS.md");
    expect(realpathNow(fifo)).toBe(fifo);
    expect(outcome(realpathNow, `${fifo}/x`)).toBe("error ENOTDIR");
    await tree.cleanup();
  });

  it("a symlinked file is resolved to its target; a relative path, a trailing slash and '..' as realpath(3) does", async () => {
    const tree = await createTree({ "r/real.md": "x", "r/d/": null });
    await makeSymlink(tree, "r/d/AGENTS.md", "../real.md");
    for (const path of [tree.path("r/d/AGENTS.md"), tree.path("r/real.md/"), tree.path("r/d/.."), tree.path("r/d/AGENTS.md/..")]) {
      expect(outcome(realpathNow, path), path).toBe(outcome(native, path));
    }
    expect(realpathNow(tree.path("r/d/AGENTS.md"))).toBe(tree.path("r/real.md"));
    await tree.cleanup();
  });

  it.runIf(process.platform === "linux")("asks the C library for a directory it may search but not read (open refused)", async () => {
    const tree = await createTree({ "r/d/x.md": "x" });
    vi.mocked(fs.realpathSync.native).mockClear();
    vi.mocked(fs.openSync).mockImplementationOnce(() => {
      throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
    });
    expect(realpathNow(tree.path("r/d"))).toBe(tree.path("r/d"));
    expect(fs.realpathSync.native).toHaveBeenCalledTimes(1);
    await tree.cleanup();
  });

  it.runIf(process.platform === "linux")("asks the C library when the descriptor's file was removed meanwhile, and once /proc is missing", async () => {
    const tree = await createTree({ "r/d/": null });
    const dir = tree.path("r/d");
    vi.mocked(fs.realpathSync.native).mockClear();
    vi.mocked(fs.readlinkSync).mockImplementationOnce(() => `${dir} (deleted)`);
    expect(realpathNow(dir)).toBe(dir);
    expect(fs.realpathSync.native).toHaveBeenCalledTimes(1);
    vi.mocked(fs.readlinkSync).mockImplementationOnce(() => {
      throw Object.assign(new Error("no /proc"), { code: "ENOENT" });
    });
    expect(realpathNow(dir)).toBe(dir);
    expect(realpathNowUsesProc()).toBe(false);
    vi.mocked(fs.readlinkSync).mockClear();
    expect(realpathNow(dir)).toBe(dir);
    expect(fs.readlinkSync).not.toHaveBeenCalled();
    await tree.cleanup();
  });
});
