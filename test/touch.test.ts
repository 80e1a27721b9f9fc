/**
 * Inline (lazy) mode: `session.touch(paths)` and `agentsmd touch`.
 */
import { describe, expect, it } from "vitest";
import { createTree, openSession, runCli } from "./helpers/tree.js";
import { DEFAULT_EXCLUDES } from "../src/presets/preset.js";

const repo = {
  "repo/.git/": null,
  "repo/AGENTS.md": "root rules\n",
  "repo/pkg/AGENTS.md": "pkg rules\n",
  "repo/pkg/src/AGENTS.md": "src rules\n",
  "repo/pkg/src/deep/file.ts": "x",
  "repo/other/AGENTS.md": "other rules\n",
};

describe("inline mode (touch)", () => {
  it("returns the bodies of newly applicable files, root side first (docs/loading-rules.md#progressive-resolution), and nothing the second time", async () => {
    const t = await createTree(repo);
    const session = await openSession(t, { cwd: t.path("repo") });
    const blocks = await session.touch([t.path("repo/pkg/src/deep/file.ts")]);
    expect(blocks.map((block) => [block.path, block.content, block.layer])).toEqual([
      [t.path("repo/pkg/AGENTS.md"), "pkg rules\n", "path"],
      [t.path("repo/pkg/src/AGENTS.md"), "src rules\n", "path"],
    ]);
    expect(await session.touch([t.path("repo/pkg/src/deep/file.ts")])).toEqual([]);
    expect(await session.touch([t.path("repo/pkg/src/other.ts")])).toEqual([]);
  });

  it("keeps the agent's own order where it has one: nearest directory first for opencode, hygge and copilot, root side first for the rest; explain says which", async () => {
    const t = await createTree(repo);
    const target = t.path("repo/pkg/src/deep/file.ts");
    const order: Record<string, string[]> = {};
    for (const preset of ["codelia", "codex", "gemini", "opencode", "hygge", "copilot"]) {
      const session = await openSession(t, { cwd: t.path("repo"), preset, config: { files: { names: ["AGENTS.md"] } } });
      order[preset] = (await session.touch([target])).map((block) => block.path.slice(t.path("repo").length + 1));
      const explained = await runCli(["--home", t.home, "--cwd", t.path("repo"), "--preset", preset, "explain", target]);
      expect(explained.stdout, preset).toContain(
        ["opencode", "hygge", "copilot"].includes(preset)
          ? "then the files touch delivers, nearest directory first (the agent's own order"
          : "then the files touch delivers, root side first (docs/loading-rules.md#progressive-resolution)",
      );
    }
    const rootFirst = ["pkg/AGENTS.md", "pkg/src/AGENTS.md"];
    expect(order).toEqual({
      codelia: rootFirst,
      codex: rootFirst,
      gemini: rootFirst,
      opencode: [...rootFirst].reverse(),
      hygge: [...rootFirst].reverse(),
      copilot: [...rootFirst].reverse(),
    });
  });

  it("resolves relative paths against cwd; an existing directory starts at itself, anything else at its parent", async () => {
    const t = await createTree(repo);
    const session = await openSession(t, { cwd: t.path("repo") });
    expect((await session.touch(["pkg/src"])).map((block) => block.path)).toEqual([t.path("repo/pkg/AGENTS.md"), t.path("repo/pkg/src/AGENTS.md")]);
    // A file that does not exist yet (a write creates it) starts at its parent.
    expect((await session.touch(["other/new-file.ts"])).map((block) => block.path)).toEqual([t.path("repo/other/AGENTS.md")]);
  });

  it("presents a file again after its mtime changes", async () => {
    const t = await createTree(repo);
    const session = await openSession(t, { cwd: t.path("repo"), config: { cache: { revalidateMs: 0 } } });
    await session.touch([t.path("repo/pkg/x.ts")]);
    await t.write("repo/pkg/AGENTS.md", "pkg rules v2\n");
    await t.setMtime("repo/pkg/AGENTS.md", 2_000_000_000);
    const again = await session.touch([t.path("repo/pkg/x.ts")]);
    expect(again.map((block) => block.content)).toEqual(["pkg rules v2\n"]);
    expect(again[0]!.mtimeMs).toBe(2_000_000_000_000);
  });

  it("skips excluded directory names and everything below them on the path", async () => {
    const t = await createTree({
      ...repo,
      "repo/pkg/node_modules/dep/AGENTS.md": "dependency rules",
      "repo/pkg/node_modules/dep/lib/AGENTS.md": "deeper dependency rules",
      "repo/pkg/build/AGENTS.md": "build output rules",
    });
    const session = await openSession(t, { cwd: t.path("repo") });
    expect((await session.touch([t.path("repo/pkg/node_modules/dep/lib/index.js")])).map((block) => block.path)).toEqual([t.path("repo/pkg/AGENTS.md")]);
    expect(await session.touch([t.path("repo/pkg/build/out.js")])).toEqual([]);
    expect(DEFAULT_EXCLUDES).toEqual([".git", "node_modules", "vendor", ".venv", "__pycache__", "dist", "target", "bin", "build"]);
  });

  it("takes a configured exclusion list instead of the default", async () => {
    const t = await createTree({ ...repo, "repo/pkg/node_modules/dep/AGENTS.md": "dependency rules", "repo/generated/AGENTS.md": "gen" });
    const session = await openSession(t, { cwd: t.path("repo"), config: { lazy: { exclude: ["generated"] } } });
    expect((await session.touch([t.path("repo/pkg/node_modules/dep/i.js")])).map((block) => block.path)).toEqual([
      t.path("repo/pkg/AGENTS.md"),
      t.path("repo/pkg/node_modules/dep/AGENTS.md"),
    ]);
    expect(await session.touch([t.path("repo/generated/x")])).toEqual([]);
  });

  it("gives nothing for paths outside the root", async () => {
    const t = await createTree({ ...repo, "elsewhere/AGENTS.md": "outside" });
    const session = await openSession(t, { cwd: t.path("repo") });
    expect(await session.touch([t.path("elsewhere/file")])).toEqual([]);
  });

  it("stops at the first cap overflow with one diagnostic, never half-reading a file", async () => {
    const t = await createTree({ "repo/.git/": null, "repo/a/AGENTS.md": "a".repeat(60), "repo/b/AGENTS.md": "b".repeat(60), "repo/c/AGENTS.md": "c" });
    const session = await openSession(t, { cwd: t.path("repo"), config: { lazy: { maxBytes: 100 } } });
    expect((await session.touch([t.path("repo/a/x")])).map((block) => block.content.length)).toEqual([60]);
    expect(await session.touch([t.path("repo/b/x")])).toEqual([]);
    expect(await session.touch([t.path("repo/c/x")])).toEqual([]);
    const caps = session.diagnostics.filter((diagnostic) => diagnostic.code === "lazy-cap");
    expect(caps).toHaveLength(1);
    expect(caps[0]!.path).toBe(t.path("repo/b/AGENTS.md"));
  });

  it("caps the number of files per session", async () => {
    const t = await createTree({ "repo/.git/": null, "repo/a/AGENTS.md": "a", "repo/a/b/AGENTS.md": "b" });
    const session = await openSession(t, { cwd: t.path("repo"), config: { lazy: { maxFiles: 1 } } });
    expect((await session.touch([t.path("repo/a/b/x")])).map((block) => block.content)).toEqual(["a"]);
    expect(session.diagnostics.some((diagnostic) => diagnostic.code === "lazy-cap")).toBe(true);
  });

  it("does not return a file twice when one call touches several paths", async () => {
    const t = await createTree(repo);
    const session = await openSession(t, { cwd: t.path("repo") });
    const blocks = await session.touch([t.path("repo/pkg/src/a.ts"), t.path("repo/pkg/b.ts"), t.path("repo/other/c.ts")]);
    expect(blocks.map((block) => block.path)).toEqual([t.path("repo/pkg/AGENTS.md"), t.path("repo/pkg/src/AGENTS.md"), t.path("repo/other/AGENTS.md")]);
  });

  it("never re-delivers what the initial bundle already holds", async () => {
    const t = await createTree(repo);
    const session = await openSession(t, { cwd: t.path("repo/pkg") });
    expect((await session.touch([t.path("repo/pkg/src/deep/file.ts")])).map((block) => block.path)).toEqual([t.path("repo/pkg/src/AGENTS.md")]);
  });

  it("concurrent touches never deliver the same file twice", async () => {
    const t = await createTree(repo);
    const session = await openSession(t, { cwd: t.path("repo") });
    const results = await Promise.all(Array.from({ length: 8 }, () => session.touch([t.path("repo/pkg/src/deep/file.ts")])));
    const delivered = results.flat().map((block) => block.path);
    expect(delivered.sort()).toEqual([t.path("repo/pkg/AGENTS.md"), t.path("repo/pkg/src/AGENTS.md")].sort());
  });

  it("agentsmd touch prints the rendered bodies and --json the blocks, persisting what was delivered", async () => {
    const t = await createTree(repo);
    const state = t.path("state.json");
    const base = ["--home", t.home, "--cwd", t.path("repo")];
    const first = await runCli([...base, "touch", t.path("repo/other/x.ts"), "--state", state]);
    expect(first.code).toBe(0);
    // Piped: the exact text a host adds (no final newline of agentsmd's own); on a terminal a newline ends it.
    expect(first.stdout).toBe(`<agents_context scope="path">\nInstructions from: ${t.path("repo/other/AGENTS.md")}\nother rules\n</agents_context>`);
    const json = await runCli([...base, "--json", "touch", t.path("repo/pkg/src/deep/file.ts"), "--state", state]);
    expect(JSON.parse(json.stdout)).toEqual({
      blocks: [
        { path: t.path("repo/pkg/AGENTS.md"), layer: "path", content: "pkg rules\n", truncated: false },
        { path: t.path("repo/pkg/src/AGENTS.md"), layer: "path", content: "src rules\n", truncated: false },
      ],
    });
    const again = await runCli([...base, "--json", "touch", t.path("repo/pkg/src/deep/file.ts"), "--state", state]);
    expect(JSON.parse(again.stdout)).toEqual({ blocks: [] });
  });
});

describe("absolute paths", () => {
  it("normalises every absolute spelling to what path.resolve gives, and keeps normal ones as they are", async () => {
    const { absolute } = await import("../src/core/paths.js");
    const { resolve } = await import("node:path");
    for (const path of [
      "/",
      "/a",
      "/a/b",
      "/a//b",
      "/a/./b",
      "/a/../b",
      "/a/b/",
      "/a/b/.",
      "/a/b/..",
      "//a",
      "/a/.b",
      "/a/..b",
      "/a/b.",
      "/..",
      "/.",
      "rel/x",
      "./x",
      "../x",
    ]) {
      expect(absolute(path, "/base/dir"), path).toBe(resolve("/base/dir", path));
    }
  });
});
