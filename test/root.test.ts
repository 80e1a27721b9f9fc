/**
 * Root estimation (spec §4): override, env, markers (file or directory), no marker, stopAtFsRoot,
 * and the precedence of explicit options, env and the config file.
 */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { createSession } from "../src/session/session.js";
import { createTree, makeSymlink, openSession } from "./helpers/tree.js";

describe("root estimation", () => {
  it("uses projectRootOverride as the root", async () => {
    const tree = await createTree({ ".git/": null, "a/b/": null });
    const session = await openSession(tree, { cwd: tree.path("a/b"), config: { root: { projectRootOverride: tree.path("a") } } });
    expect(session.root).toBe(tree.path("a"));
    expect(session.rootReason).toBe("override");
  });

  it("resolves a relative projectRootOverride against cwd", async () => {
    const tree = await createTree({ ".git/": null, "a/b/": null });
    const session = await openSession(tree, { cwd: tree.path("a/b"), config: { root: { projectRootOverride: ".." } } });
    expect(session.root).toBe(tree.path("a"));
  });

  it.each(["CODELIA_AGENTS_ROOT", "AGENTSMD_ROOT"])("takes the override from %s", async (name) => {
    const tree = await createTree({ ".git/": null, "a/b/": null });
    const session = await openSession(tree, { cwd: tree.path("a/b"), env: { [name]: tree.path("a") } });
    expect(session.root).toBe(tree.path("a"));
    expect(session.rootReason).toBe("override");
  });

  it.each(["CODELIA_AGENTS_MARKERS", "AGENTSMD_MARKERS"])("takes comma-separated markers from %s", async (name) => {
    const tree = await createTree({ ".git/": null, "a/.two": "", "a/b/c/": null });
    const session = await openSession(tree, { cwd: tree.path("a/b/c"), env: { [name]: ".one, .two ," } });
    expect(session.config.root.markers).toEqual([".one", ".two"]);
    expect(session.root).toBe(tree.path("a"));
    expect(session.rootReason).toBe("marker");
  });

  it("takes the AGENTSMD_ alias over the CODELIA_ name when both are set, as documented", async () => {
    const tree = await createTree({ ".git/": null, "a/b/": null });
    const session = await openSession(tree, { cwd: tree.path("a/b"), env: { CODELIA_AGENTS_ROOT: tree.path("a/b"), AGENTSMD_ROOT: tree.path("a") } });
    expect(session.root).toBe(tree.path("a"));
  });

  it("finds a marker that is a directory", async () => {
    const tree = await createTree({ "repo/.jj/": null, "repo/src/": null });
    const session = await openSession(tree, { cwd: tree.path("repo/src") });
    expect(session.root).toBe(tree.path("repo"));
    expect(session.rootReason).toBe("marker");
  });

  it("finds a marker that is a regular file, like the .git file of a worktree or submodule", async () => {
    const tree = await createTree({ "repo/.git": "gitdir: /elsewhere/.git/worktrees/repo\n", "repo/src/deep/": null });
    const session = await openSession(tree, { cwd: tree.path("repo/src/deep") });
    expect(session.root).toBe(tree.path("repo"));
  });

  it("finds the .codelia marker by default", async () => {
    const tree = await createTree({ "repo/.codelia/": null, "repo/src/": null });
    const session = await openSession(tree, { cwd: tree.path("repo/src") });
    expect(session.config.root.markers).toEqual([".codelia", ".git", ".jj"]);
    expect(session.root).toBe(tree.path("repo"));
  });

  it("takes the nearest ancestor holding a marker", async () => {
    const tree = await createTree({ ".git/": null, "outer/sub/.git": "gitdir: x", "outer/sub/pkg/": null });
    const session = await openSession(tree, { cwd: tree.path("outer/sub/pkg") });
    expect(session.root).toBe(tree.path("outer/sub"));
  });

  it("takes cwd itself when cwd holds a marker", async () => {
    const tree = await createTree({ ".git/": null, "sub/.jj/": null });
    const session = await openSession(tree, { cwd: tree.path("sub") });
    expect(session.root).toBe(tree.path("sub"));
  });

  it("falls back to cwd when no ancestor holds a marker", async () => {
    const tree = await createTree({ "a/b/AGENTS.md": "b", "a/AGENTS.md": "a" });
    const session = await openSession(tree, { cwd: tree.path("a/b") });
    expect(session.root).toBe(tree.path("a/b"));
    expect(session.rootReason).toBe("no-marker");
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("a/b/AGENTS.md")]);
  });

  it("ignores a marker name that exists only as a dangling symlink", async () => {
    const tree = await createTree({ "a/b/": null });
    await makeSymlink(tree, "a/.git", "nowhere");
    const session = await openSession(tree, { cwd: tree.path("a/b") });
    expect(session.root).toBe(tree.path("a/b"));
  });

  describe("stopAtFsRoot", () => {
    const spec = { "home/.git/": null, "home/proj/src/": null, ".codelia/": null };

    it("false: stops below home, so a marker in home itself is not used", async () => {
      const tree = await createTree(spec);
      const session = await openSession(tree, { cwd: tree.path("home/proj/src"), home: tree.path("home"), config: { root: { stopAtFsRoot: false } } });
      expect(session.root).toBe(tree.path("home/proj/src"));
      expect(session.rootReason).toBe("no-marker");
    });

    it("false: still finds a marker below home", async () => {
      const tree = await createTree({ ...spec, "home/proj/.git": "gitdir: x" });
      const session = await openSession(tree, { cwd: tree.path("home/proj/src"), home: tree.path("home"), config: { root: { stopAtFsRoot: false } } });
      expect(session.root).toBe(tree.path("home/proj"));
    });

    it("false: honours a home path given with dot segments or a trailing slash", async () => {
      const tree = await createTree(spec);
      for (const home of [`${tree.path("home")}/`, `${tree.path("home/proj")}/..`, `${tree.root}/./home`]) {
        const session = await openSession(tree, { cwd: tree.path("home/proj/src"), home, config: { root: { stopAtFsRoot: false } } });
        expect(session.root).toBe(tree.path("home/proj/src"));
      }
    });

    it("true: walks up through home", async () => {
      const tree = await createTree(spec);
      const session = await openSession(tree, { cwd: tree.path("home/proj/src"), home: tree.path("home"), config: { root: { stopAtFsRoot: true } } });
      expect(session.root).toBe(tree.path("home"));
    });

    it("unset: walks up like true", async () => {
      const tree = await createTree(spec);
      const session = await openSession(tree, { cwd: tree.path("home/proj/src"), home: tree.path("home") });
      expect(session.config.root.stopAtFsRoot).toBe(true);
      expect(session.root).toBe(tree.path("home"));
    });

    it("true: walks above home when home holds no marker", async () => {
      const tree = await createTree({ "home/proj/src/": null, ".codelia/": null });
      const session = await openSession(tree, { cwd: tree.path("home/proj/src"), home: tree.path("home") });
      expect(session.root).toBe(tree.root);
    });
  });

  describe("precedence", () => {
    const spec = {
      ".filemark": "",
      "a/.envmark": "",
      "a/b/.optmark": "",
      "a/b/c/": null,
      "config.json": JSON.stringify({ root: { markers: [".filemark"], stopAtFsRoot: true } }),
    };

    it("explicit options beat env, env beats the config file (markers)", async () => {
      const tree = await createTree(spec);
      const cwd = tree.path("a/b/c");
      const configFile = tree.path("config.json");
      const fileOnly = await openSession(tree, { cwd, configFile });
      expect(fileOnly.root).toBe(tree.root);
      const withEnv = await openSession(tree, { cwd, configFile, env: { CODELIA_AGENTS_MARKERS: ".envmark" } });
      expect(withEnv.root).toBe(tree.path("a"));
      const withExplicit = await openSession(tree, {
        cwd,
        configFile,
        env: { CODELIA_AGENTS_MARKERS: ".envmark" },
        config: { root: { markers: [".optmark"] } },
      });
      expect(withExplicit.root).toBe(tree.path("a/b"));
    });

    it("explicit options beat env, env beats the config file (override)", async () => {
      const tree = await createTree({ "x/y/z/": null, "config.json": JSON.stringify({ root: { projectRootOverride: "PLACEHOLDER" } }) });
      await tree.write("config.json", JSON.stringify({ root: { projectRootOverride: tree.root } }));
      const cwd = tree.path("x/y/z");
      const configFile = tree.path("config.json");
      expect((await openSession(tree, { cwd, configFile })).root).toBe(tree.root);
      expect((await openSession(tree, { cwd, configFile, env: { AGENTSMD_ROOT: tree.path("x") } })).root).toBe(tree.path("x"));
      expect(
        (await openSession(tree, { cwd, configFile, env: { AGENTSMD_ROOT: tree.path("x") }, config: { root: { projectRootOverride: tree.path("x/y") } } }))
          .root,
      ).toBe(tree.path("x/y"));
    });

    it("an unset or empty env var never erases a configured value", async () => {
      const tree = await createTree(spec);
      const session = await openSession(tree, {
        cwd: tree.path("a/b/c"),
        configFile: tree.path("config.json"),
        env: { CODELIA_AGENTS_MARKERS: "", AGENTSMD_MARKERS: "  ", CODELIA_AGENTS_ROOT: undefined, AGENTSMD_ROOT: "" },
      });
      expect(session.config.root.markers).toEqual([".filemark"]);
      expect(session.root).toBe(tree.root);
    });

    it("an env var for one key leaves the file's other keys of the same section in place", async () => {
      const tree = await createTree({ ...spec, "config.json": JSON.stringify({ root: { markers: [".filemark"], stopAtFsRoot: false } }) });
      const session = await openSession(tree, { cwd: tree.path("a/b/c"), configFile: tree.path("config.json"), env: { CODELIA_AGENTS_ROOT: tree.path("a") } });
      expect(session.root).toBe(tree.path("a"));
      expect(session.config.root.markers).toEqual([".filemark"]);
      expect(session.config.root.stopAtFsRoot).toBe(false);
    });

    it("explicit options for one key leave env-configured keys in place", async () => {
      const tree = await createTree(spec);
      const session = await openSession(tree, {
        cwd: tree.path("a/b/c"),
        env: { CODELIA_AGENTS_MARKERS: ".envmark" },
        config: { root: { stopAtFsRoot: true }, initial: { maxFiles: 3 } },
      });
      expect(session.config.root.markers).toEqual([".envmark"]);
      expect(session.root).toBe(tree.path("a"));
    });
  });

  it("an override that is not an ancestor of cwd still works and says so in diagnostics", async () => {
    const tree = await createTree({
      ".git/": null,
      "elsewhere/AGENTS.md": "elsewhere rules",
      "elsewhere/deeper/AGENTS.md": "deeper: not in the chain",
      "work/AGENTS.md": "work: not under the root",
      "work/src/": null,
    });
    const session = await openSession(tree, { cwd: tree.path("work/src"), config: { root: { projectRootOverride: tree.path("elsewhere") } } });
    expect(session.root).toBe(tree.path("elsewhere"));
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("elsewhere/AGENTS.md")]);
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "root-not-ancestor", level: "warning", path: tree.path("elsewhere") }));
  });

  it("an override that is not an existing directory is an error naming it", async () => {
    const tree = await createTree({ "file.txt": "x" });
    for (const override of [tree.path("missing"), tree.path("file.txt")]) {
      const attempt = createSession({ cwd: tree.root, home: tree.home, env: {}, config: { root: { projectRootOverride: override } } });
      await expect(attempt).rejects.toBeInstanceOf(ConfigError);
      await expect(attempt).rejects.toThrow(override);
    }
  });
});
