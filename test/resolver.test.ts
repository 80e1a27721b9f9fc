/**
 * The resolver (spec §5.3, §6, §11.2): only new or changed files, root side first, capped per call,
 * metadata only, target-dir rules, outside-root handling, the §6.1 trigger, concurrency.
 */
import { describe, expect, it } from "vitest";
import { ResolvedAgentsSchema } from "../src/core/schema.js";
import { createTree, openSession, type Tree } from "./helpers/tree.js";

async function deepTree(): Promise<Tree> {
  return createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "ROOT BODY",
    "repo/a/AGENTS.md": "A BODY",
    "repo/a/b/AGENTS.md": "B BODY",
    "repo/a/b/c/AGENTS.md": "C BODY",
    "repo/a/b/c/file.ts": "",
    "repo/a/file.ts": "",
  });
}

const paths = (found: { files: Array<{ path: string }> }) => found.files.map((file) => file.path);

describe("resolver", () => {
  it("returns only the files not yet loaded, root side first", async () => {
    const tree = await deepTree();
    const session = await openSession(tree, { cwd: tree.path("repo") });
    expect(paths(await session.resolve(tree.path("repo/a/b/c/file.ts")))).toEqual([
      tree.path("repo/a/AGENTS.md"),
      tree.path("repo/a/b/AGENTS.md"),
      tree.path("repo/a/b/c/AGENTS.md"),
    ]);
  });

  it("returns at most resolver.maxFilesPerResolve files and the rest on the next call", async () => {
    const tree = await deepTree();
    const session = await openSession(tree, { cwd: tree.path("repo"), config: { resolver: { maxFilesPerResolve: 2 } } });
    const target = tree.path("repo/a/b/c/file.ts");
    expect(paths(await session.resolve(target))).toEqual([tree.path("repo/a/AGENTS.md"), tree.path("repo/a/b/AGENTS.md")]);
    expect(paths(await session.resolve(target))).toEqual([tree.path("repo/a/b/c/AGENTS.md")]);
    expect(await session.resolve(target)).toEqual({ files: [] });
  });

  it("never returns file bodies: the result parses against the strict ResolvedAgentsSchema", async () => {
    const tree = await deepTree();
    await tree.setMtime("repo/a/AGENTS.md", 1_700_000_000);
    const session = await openSession(tree, { cwd: tree.path("repo") });
    const found = await session.resolve(tree.path("repo/a/b/c/file.ts"));
    expect(ResolvedAgentsSchema.parse(found)).toEqual(found);
    expect(found.files[0]).toEqual({ path: tree.path("repo/a/AGENTS.md"), mtimeMs: 1_700_000_000_000, sizeBytes: "A BODY".length });
    expect(JSON.stringify(found)).not.toMatch(/BODY/);
    expect(session.reminder(found)).not.toMatch(/BODY/);
  });

  describe("target directory", () => {
    it("is the target itself when it is an existing directory", async () => {
      const tree = await deepTree();
      const session = await openSession(tree, { cwd: tree.path("repo") });
      expect(paths(await session.resolve(tree.path("repo/a/b")))).toEqual([tree.path("repo/a/AGENTS.md"), tree.path("repo/a/b/AGENTS.md")]);
    });

    it("is the parent when the target is an existing file", async () => {
      const tree = await deepTree();
      const session = await openSession(tree, { cwd: tree.path("repo") });
      expect(paths(await session.resolve(tree.path("repo/a/file.ts")))).toEqual([tree.path("repo/a/AGENTS.md")]);
    });

    it("is the parent when the target does not exist yet (a write creates it)", async () => {
      const tree = await deepTree();
      const session = await openSession(tree, { cwd: tree.path("repo") });
      expect(paths(await session.resolve(tree.path("repo/a/b/new-file.ts")))).toEqual([tree.path("repo/a/AGENTS.md"), tree.path("repo/a/b/AGENTS.md")]);
    });

    it("does not treat a not-yet-existing path as a directory, even without an extension", async () => {
      const tree = await deepTree();
      const session = await openSession(tree, { cwd: tree.path("repo") });
      // repo/a/b exists and is a directory; repo/a/bb does not exist: its parent governs.
      expect(paths(await session.resolve(tree.path("repo/a/bb")))).toEqual([tree.path("repo/a/AGENTS.md")]);
    });

    it("walks through directories that do not exist yet", async () => {
      const tree = await deepTree();
      const session = await openSession(tree, { cwd: tree.path("repo") });
      expect(paths(await session.resolve(tree.path("repo/a/b/new/deeper/file.ts")))).toEqual([tree.path("repo/a/AGENTS.md"), tree.path("repo/a/b/AGENTS.md")]);
    });

    it("resolves a relative target against cwd", async () => {
      const tree = await deepTree();
      const session = await openSession(tree, { cwd: tree.path("repo/a") });
      expect(paths(await session.resolve("b/c/file.ts"))).toEqual([tree.path("repo/a/b/AGENTS.md"), tree.path("repo/a/b/c/AGENTS.md")]);
    });
  });

  describe("targets outside the root", () => {
    async function twoRepos() {
      const tree = await createTree({
        "repo/.git/": null,
        "repo/AGENTS.md": "repo",
        "other/.git/": null,
        "other/AGENTS.md": "other root",
        "other/pkg/AGENTS.md": "other pkg",
        "other/pkg/x.ts": "",
      });
      return tree;
    }

    it("return nothing by default", async () => {
      const tree = await twoRepos();
      const session = await openSession(tree, { cwd: tree.path("repo") });
      expect(await session.resolve(tree.path("other/pkg/x.ts"))).toEqual({ files: [] });
      expect(await session.afterToolCall({ tool: "read", path: tree.path("other/pkg/x.ts") })).toBe("");
    });

    it('return the chain of the target\'s own root with resolver.outsideRoot "own-root"', async () => {
      const tree = await twoRepos();
      const session = await openSession(tree, { cwd: tree.path("repo"), config: { resolver: { outsideRoot: "own-root" } } });
      expect(paths(await session.resolve(tree.path("other/pkg/x.ts")))).toEqual([tree.path("other/AGENTS.md"), tree.path("other/pkg/AGENTS.md")]);
      expect(await session.resolve(tree.path("other/pkg/x.ts"))).toEqual({ files: [] });
    });
  });

  describe("the §6.1 trigger for tool calls", () => {
    it.each(["read", "edit", "write", "Read", "WRITE"])("runs the resolver for a %s call and returns the reminder to append", async (tool) => {
      const tree = await deepTree();
      const session = await openSession(tree, { cwd: tree.path("repo") });
      const text = await session.afterToolCall({ tool, path: tree.path("repo/a/file.ts") });
      expect(text).toMatch(/^<system-reminder type="agents.resolve.paths">\n/);
      expect(text).toContain(`- ${tree.path("repo/a/AGENTS.md")} (mtime: `);
    });

    it.each(["bash", "grep", "list"])("does nothing for a %s call", async (tool) => {
      const tree = await deepTree();
      const session = await openSession(tree, { cwd: tree.path("repo") });
      expect(await session.afterToolCall({ tool, path: tree.path("repo/a/file.ts") })).toBe("");
      // Nothing was marked: a later read still gets the reminder.
      expect(await session.afterToolCall({ tool: "read", path: tree.path("repo/a/file.ts") })).not.toBe("");
    });

    it("does nothing for a call without a path", async () => {
      const tree = await deepTree();
      const session = await openSession(tree, { cwd: tree.path("repo") });
      expect(await session.afterToolCall({ tool: "read" })).toBe("");
    });
  });

  it("renders the §11.2 reminder exactly as the spec's example", async () => {
    const tree = await createTree({});
    const session = await openSession(tree);
    expect(
      session.reminder({
        files: [
          { path: "/repo/feature/AGENTS.md", mtimeMs: 1738970000000, sizeBytes: 10 },
          { path: "/repo/feature/sub/AGENTS.md", mtimeMs: 1738971000000, sizeBytes: 20 },
        ],
      }),
    ).toBe(`<system-reminder type="agents.resolve.paths">
Additional AGENTS.md may apply for this path:
- /repo/feature/AGENTS.md (mtime: 1738970000000)
- /repo/feature/sub/AGENTS.md (mtime: 1738971000000)
Read and apply these files before editing files in this scope.
</system-reminder>`);
    expect(session.reminder({ files: [] })).toBe("");
  });

  it("two concurrent resolves never return the same file", async () => {
    const spec: Record<string, string | null> = { "repo/.git/": null };
    const targets: string[] = [];
    for (let i = 0; i < 6; i++) {
      spec[`repo/p${i}/AGENTS.md`] = `p${i}`;
      for (let j = 0; j < 4; j++) {
        spec[`repo/p${i}/q${j}/AGENTS.md`] = `q${j}`;
        targets.push(`repo/p${i}/q${j}/file.ts`, `repo/p${i}/q${j}`, `repo/p${i}/new.ts`);
      }
    }
    spec["repo/AGENTS.md"] = "root";
    const tree = await createTree(spec);
    for (const revalidateMs of [0, 60_000]) {
      const session = await openSession(tree, { cwd: tree.path("repo/p0/q0"), config: { cache: { revalidateMs }, resolver: { maxFilesPerResolve: 64 } } });
      const results = await Promise.all([...targets, ...targets].map((target) => session.resolve(tree.path(target))));
      const returned = results.flatMap(paths);
      expect(new Set(returned).size).toBe(returned.length);
      const expected = Object.keys(spec)
        .filter((rel) => rel.endsWith("AGENTS.md"))
        .map((rel) => tree.path(rel));
      const initial = session.initialFiles.map((file) => file.path);
      expect(new Set([...returned, ...initial])).toEqual(new Set(expected));
      await session.close();
    }
  });

  it("covered dirs start as the parents of the adopted initial files, and grow with each resolve", async () => {
    const tree = await deepTree();
    await tree.add({ "repo/a/b/c/d/": null });
    const session = await openSession(tree, { cwd: tree.path("repo/a/b/c/d"), config: { initial: { maxFiles: 2 } } });
    expect([...session.coveredDirs].sort()).toEqual([tree.path("repo/a/b"), tree.path("repo/a/b/c")]);
    expect(session.isCovered(tree.path("repo/a/b/c/file.ts"))).toBe(true);
    expect(session.isCovered(tree.path("repo/a/file.ts"))).toBe(false);
    await session.resolve(tree.path("repo/a/file.ts"));
    expect(session.isCovered(tree.path("repo/a/file.ts"))).toBe(true);
  });

  it("offers a file created after its directory was first resolved", async () => {
    const tree = await deepTree();
    await tree.add({ "repo/new/": null });
    const session = await openSession(tree, { cwd: tree.path("repo"), config: { cache: { revalidateMs: 0 } } });
    expect(await session.resolve(tree.path("repo/new/x.ts"))).toEqual({ files: [] });
    await tree.write("repo/new/AGENTS.md", "created");
    expect(paths(await session.resolve(tree.path("repo/new/x.ts")))).toEqual([tree.path("repo/new/AGENTS.md")]);
  });

  it("offers nothing for a deleted file, and a recreated file with a new mtime again", async () => {
    const tree = await deepTree();
    const session = await openSession(tree, { cwd: tree.path("repo"), config: { cache: { revalidateMs: 0 } } });
    const target = tree.path("repo/a/file.ts");
    expect(paths(await session.resolve(target))).toEqual([tree.path("repo/a/AGENTS.md")]);
    await tree.remove("repo/a/AGENTS.md");
    expect(await session.resolve(target)).toEqual({ files: [] });
    await tree.write("repo/a/AGENTS.md", "back");
    await tree.setMtime("repo/a/AGENTS.md", 1_800_000_000);
    expect(await session.resolve(target)).toEqual({ files: [{ path: tree.path("repo/a/AGENTS.md"), mtimeMs: 1_800_000_000_000, sizeBytes: 4 }] });
  });

  it("does not offer an empty AGENTS.md, and offers it once it has content", async () => {
    const tree = await deepTree();
    await tree.add({ "repo/empty/AGENTS.md": "" });
    const session = await openSession(tree, { cwd: tree.path("repo"), config: { cache: { revalidateMs: 0 } } });
    expect(await session.resolve(tree.path("repo/empty/x.ts"))).toEqual({ files: [] });
    await tree.write("repo/empty/AGENTS.md", "now with rules");
    expect(paths(await session.resolve(tree.path("repo/empty/x.ts")))).toEqual([tree.path("repo/empty/AGENTS.md")]);
  });

  it("reports paths with spaces and non-ASCII characters verbatim", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/my dir/ünï cødé/AGENTS.md": "x", "repo/my dir/ünï cødé/f.ts": "" });
    await tree.setMtime("repo/my dir/ünï cødé/AGENTS.md", 1_700_000_000);
    const session = await openSession(tree, { cwd: tree.path("repo") });
    const text = await session.afterToolCall({ tool: "edit", path: tree.path("repo/my dir/ünï cødé/f.ts") });
    expect(text).toContain(`\n- ${tree.path("repo/my dir/ünï cødé/AGENTS.md")} (mtime: 1700000000000)\n`);
  });

  it("returns nothing when the resolver or the whole feature is disabled", async () => {
    const tree = await deepTree();
    for (const config of [{ resolver: { enabled: false } }, { enabled: false }]) {
      const session = await openSession(tree, { cwd: tree.path("repo"), config });
      expect(await session.resolve(tree.path("repo/a/b/c/file.ts"))).toEqual({ files: [] });
    }
  });

  it("with admit: false, proposes without marking: claimed until admitted or released", async () => {
    const tree = await deepTree();
    const session = await openSession(tree, { cwd: tree.path("repo") });
    const target = tree.path("repo/a/file.ts");
    const proposed = await session.resolve(target, { admit: false });
    expect(paths(proposed)).toEqual([tree.path("repo/a/AGENTS.md")]);
    expect(session.loadedVersion(tree.path("repo/a/AGENTS.md"))).toBeUndefined();
    expect(await session.resolve(target, { admit: false })).toEqual({ files: [] });
    session.release(proposed.files);
    expect(await session.resolve(target, { admit: false })).toEqual(proposed);
    session.admit(proposed.files);
    expect(session.loadedVersion(tree.path("repo/a/AGENTS.md"))?.mtimeMs).toBe(proposed.files[0]!.mtimeMs);
    expect(await session.resolve(target)).toEqual({ files: [] });
  });
});
