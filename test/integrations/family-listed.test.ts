/**
 * The OpenCode-family plugins keep the files their host's config `instructions` list per plugin
 * instance (integrations/host/listed-paths.ts): a tool call with the config and tree unchanged lists
 * no directory; a file created later that a glob matches counts as the host's on the next call.
 */
import { describe, expect, it } from "vitest";
import { readdir, utimes } from "node:fs/promises";
import { join } from "node:path";
import type { Hooks } from "@opencode-ai/plugin";
import { OpenCodeAgents } from "../../src/integrations/opencode/index.js";
import { KiloAgents } from "../../src/integrations/kilo/index.js";
import type { FamilyAgents, FamilyPluginContext, FamilyPluginOptions } from "../../src/integrations/host/plugin-family.js";
import { ListedPaths } from "../../src/integrations/host/listed-paths.js";
import { DirStamps, stampsHold } from "../../src/io/dir-stamps.js";
import { OPENCODE_CONFIG_LAYOUT, listFamilyInstructions } from "../../src/presets/opencode-instructions.js";
import { countingFileSystem } from "../../src/io/file-system.js";
import { FsError } from "../../src/core/errors.js";
import { createTree, type Tree } from "../helpers/tree.js";

type Make = (context: FamilyPluginContext, options: FamilyPluginOptions) => FamilyAgents;
const HOSTS: Array<{ name: string; config: string; make: Make }> = [
  { name: "opencode", config: "opencode.json", make: (context, options) => new OpenCodeAgents(context, options) },
  { name: "kilo", config: "kilo.json", make: (context, options) => new KiloAgents(context, options) },
];

/** Every directory's mtime an hour back: a repository not being edited (a fresh mtime is never trusted). */
async function age(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) if (entry.isDirectory()) await age(join(dir, entry.name));
  const old = new Date(Date.now() - 3_600_000);
  await utimes(dir, old, old);
}

async function broadTree(config: string, glob = "**/*.md"): Promise<Tree> {
  const spec: Record<string, string | null> = {
    "repo/.git/": null,
    "repo/AGENTS.md": "ROOT\n",
    [`repo/${config}`]: JSON.stringify({ instructions: [glob] }),
    "state/": null,
    "managed/": null,
  };
  for (let i = 0; i < 30; i++) spec[`repo/d${i % 5}/e${i}/x.ts`] = "x\n";
  const tree = await createTree(spec);
  await age(tree.root);
  return tree;
}

async function call(hooks: Hooks, tool: string, filePath: string, id: string): Promise<string> {
  const output = { title: "", output: "ok", metadata: {} };
  await hooks["tool.execute.after"]!({ tool, sessionID: "s1", callID: id, args: { filePath } }, output);
  return output.output;
}

describe.each(HOSTS)("$name plugin: config instructions listed once per change, not per tool call", ({ name, config, make }) => {
  const env = (tree: Tree) => ({ KILO_TEST_MANAGED_CONFIG_DIR: tree.path("managed"), OPENCODE_TEST_MANAGED_CONFIG_DIR: tree.path("managed") });

  for (const watch of [true, false]) {
    it(`a second tool call with nothing changed lists no directory (watch: ${watch})`, async () => {
      const tree = await broadTree(config);
      const { fs, counters, reset } = countingFileSystem();
      const agents = make(
        { directory: tree.path("repo"), worktree: tree.path("repo"), home: tree.home, env: env(tree), fs },
        { stateDir: tree.path("state"), watch },
      );
      const hooks = agents.hooks();
      await call(hooks, "read", tree.path("repo/d1/e1/x.ts"), "c1");
      // The first call walks `**/*.md`: every one of the 36 directories.
      expect(counters.readdir).toBeGreaterThanOrEqual(36);
      reset();
      await call(hooks, "read", tree.path("repo/d2/e2/x.ts"), "c2");
      expect(counters.readdir).toBe(0);
      // Watching, the glob costs nothing more; otherwise one stat per directory it depended on.
      if (watch) expect(counters.stat + counters.lstat).toBeLessThan(36);
      await agents.dispose();
    });

    it(`a file created later that a glob matches is the host's from the next tool call on (watch: ${watch})`, async () => {
      const tree = await broadTree(config, "**/AGENTS.md");
      const agents = make(
        { directory: tree.path("repo"), worktree: tree.path("repo"), home: tree.home, env: env(tree) },
        { stateDir: tree.path("state"), watch },
      );
      const hooks = agents.hooks();
      expect(await call(hooks, "read", tree.path("repo/d1/e1/x.ts"), "c1")).toBe("ok");
      expect(await call(hooks, "read", tree.path("repo/d1/e6/x.ts"), "c2")).toBe("ok");
      // The agent writes a nested AGENTS.md, then a file beside it: the host lists it in its
      // system prompt at the next step (its glob runs every step), so the plugin gives nothing.
      await tree.write("repo/d3/new/AGENTS.md", "NEW RULES\n");
      await tree.write("repo/d3/new/y.ts", "y\n");
      expect(await call(hooks, "write", tree.path("repo/d3/new/y.ts"), "c3")).toBe("ok");
      expect(await agents.systemPaths()).toContain(tree.path("repo/d3/new/AGENTS.md"));
      // A file no glob entry matches (a CLAUDE.md, OpenCode's second name) is still the plugin's to deliver.
      await tree.write("repo/d4/CLAUDE.md", "CLAUDE RULES\n");
      if (name === "opencode") expect(await call(hooks, "write", tree.path("repo/d4/z.ts"), "c4")).toContain("CLAUDE RULES");
      await agents.dispose();
    });
  }

  it("a file another process creates where nothing was touched is listed once its change event arrived (watching)", async () => {
    const tree = await broadTree(config, "**/AGENTS.md");
    const agents = make({ directory: tree.path("repo"), worktree: tree.path("repo"), home: tree.home, env: env(tree) }, { stateDir: tree.path("state") });
    expect(await agents.systemPaths()).not.toContain(tree.path("repo/d2/e7/AGENTS.md"));
    await tree.write("repo/d2/e7/AGENTS.md", "LATE\n");
    await expect.poll(() => agents.systemPaths(), { timeout: 10_000, interval: 20 }).toContain(tree.path("repo/d2/e7/AGENTS.md"));
    await agents.dispose();
  });
});

describe("ListedPaths", () => {
  const layoutList = (tree: Tree, fs = countingFileSystem().fs) => {
    const context = { cwd: tree.path("repo"), worktree: tree.path("repo"), home: tree.home, env: {}, fs };
    return (observer: Parameters<ConstructorParameters<typeof ListedPaths>[0]>[0]) =>
      listFamilyInstructions(OPENCODE_CONFIG_LAYOUT, context, ["docs/*.md", "missing/deep/NOTES.md"], [], observer).then((listed) => listed.paths);
  };

  it("falls back to stamps when a watch cannot be set (the inotify limit), and still sees a new file", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/docs/a.md": "A\n" });
    await age(tree.root);
    const { fs, counters, reset } = countingFileSystem();
    const failing = () => {
      throw new FsError("watch failed", { path: tree.path("repo"), code: "ENOSPC" });
    };
    const listed = new ListedPaths(layoutList(tree, fs), { fs, watch: true, watchDir: failing });
    expect(await listed.paths()).toEqual([tree.path("repo/docs/a.md")]);
    expect(listed.watching()).toBe(false);
    expect(listed.watchedDirs()).toEqual([]);
    reset();
    expect(await listed.paths()).toEqual([tree.path("repo/docs/a.md")]);
    expect(counters.readdir).toBe(0);
    await tree.write("repo/docs/b.md", "B\n");
    expect((await listed.paths()).sort()).toEqual([tree.path("repo/docs/a.md"), tree.path("repo/docs/b.md")]);
  });

  it("a literal entry under directories that do not exist yet is seen once they are created", async () => {
    const tree = await createTree({ "repo/.git/": null });
    await age(tree.root);
    const { fs } = countingFileSystem();
    for (const watch of [false, true]) {
      const listed = new ListedPaths(layoutList(tree, fs), { fs, watch });
      expect(await listed.paths()).toEqual([]);
      await tree.write(`repo/missing/deep/NOTES.md`, "N\n");
      // The creation changed repo (the nearest existing ancestor), stamped and watched.
      await expect
        .poll(() => listed.paths([tree.path("repo/missing/deep/NOTES.md")]), { timeout: 10_000, interval: 20 })
        .toEqual([tree.path("repo/missing/deep/NOTES.md")]);
      listed.close();
      await tree.remove("repo/missing");
      await age(tree.root);
    }
  });

  it("watching, a tool call's own targets are checked by stat: the host's write counts before its change event arrives", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/docs/a.md": "A\n" });
    await age(tree.root);
    const { fs } = countingFileSystem();
    // Watches that never report: only the check of the touched paths can see the new file.
    const silent = () => ({ close: () => undefined });
    const listed = new ListedPaths(layoutList(tree, fs), { fs, watch: true, watchDir: silent });
    expect(await listed.paths()).toEqual([tree.path("repo/docs/a.md")]);
    await tree.write("repo/docs/b.md", "B\n");
    expect(await listed.paths([tree.path("repo/src/x.ts")])).toEqual([tree.path("repo/docs/a.md")]);
    expect((await listed.paths([tree.path("repo/docs/b.md")])).sort()).toEqual([tree.path("repo/docs/a.md"), tree.path("repo/docs/b.md")]);
  });

  it("a listing that failed keeps nothing: the next call lists again, not the listing from before the change", async () => {
    const tree = await createTree({ "repo/": null });
    const { fs } = countingFileSystem();
    let report: (kind: "rename" | "change", name: string | null) => void = () => undefined;
    const watchDir = (_dir: string, onEvent: typeof report) => ((report = onEvent), { close: () => undefined });
    const results: Array<string[] | Error> = [["a"], new Error("EIO"), ["b"]];
    const listed = new ListedPaths(
      async (observer) => {
        await observer.listing(tree.path("repo"));
        const next = results.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
      { fs, watch: true, watchDir },
    );
    expect(await listed.paths()).toEqual(["a"]);
    report("rename", "x.md");
    await expect(listed.paths()).rejects.toThrow("EIO");
    expect(await listed.paths()).toEqual(["b"]);
  });

  it("closes its watches on close, and keeps one per directory it depended on", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/docs/a.md": "A\n" });
    const listed = new ListedPaths(layoutList(tree), { fs: countingFileSystem().fs, watch: true });
    await listed.paths();
    // repo/missing and repo/missing/deep do not exist: repo is watched for them.
    expect(listed.watchedDirs().sort()).toEqual([tree.path("repo"), tree.path("repo/docs")]);
    listed.close();
    expect(listed.watchedDirs()).toEqual([]);
  });
});

describe("DirStamps", () => {
  it("stamps a listed directory and its parent, an absent one with its nearest existing ancestor; a fresh mtime never holds", async () => {
    const tree = await createTree({ "a/b/": null });
    await age(tree.root);
    const { fs } = countingFileSystem();
    const stamps = new DirStamps(fs);
    await stamps.listing(tree.path("a/b"));
    await stamps.probing(tree.path("a/b/c/d/x.md"));
    const taken = await stamps.settled();
    expect([...taken.keys()].sort()).toEqual([tree.path("a"), tree.path("a/b"), tree.path("a/b/c"), tree.path("a/b/c/d")]);
    expect(taken.get(tree.path("a/b/c"))).toBe("absent");
    expect(await stampsHold(fs, taken)).toBe(true);
    await tree.write("a/b/c/d/x.md", "x\n");
    expect(await stampsHold(fs, taken)).toBe(false);
    // Stamped within two seconds of a change: not vouched for.
    const fresh = new DirStamps(fs);
    await fresh.listing(tree.path("a/b"));
    expect(await stampsHold(fs, await fresh.settled())).toBe(false);
  });
});
