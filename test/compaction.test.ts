/**
 * Compaction (seed 002 §3.6): the files in force for a summariser, most specific kept first,
 * rendered root first, cut to a token budget with a visible line naming what to re-read; after a
 * compaction, path-layer files are offered again; both survive snapshot/restore.
 */
import { describe, expect, it } from "vitest";
import { buildCompactionContext, estimateTokens } from "../src/session/compaction.js";
import { restoreSession } from "../src/session/session.js";
import { createTree, openSession, type Tree } from "./helpers/tree.js";

async function tree(): Promise<Tree> {
  return createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "ROOT RULES",
    "repo/a/AGENTS.md": "A RULES",
    "repo/a/b/AGENTS.md": "B RULES",
    "repo/a/b/file.ts": "",
  });
}

describe("estimateTokens", () => {
  it("is ceil(UTF-8 bytes / 4)", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
    expect(estimateTokens("é".repeat(4))).toBe(2);
  });
});

describe("session.compactionContext", () => {
  it("renders the initial chain and admitted path files root first when they fit", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo") });
    await session.touch([t.path("repo/a/b/file.ts")]);
    const context = await session.compactionContext();
    expect(context.text).toBe(
      [
        '<agents_context scope="compaction">',
        "These instruction files (AGENTS.md) are in force for this session. Keep them in the summary: they still apply after it.",
        `Instructions from: ${t.path("repo/AGENTS.md")}`,
        "ROOT RULES",
        "",
        `Instructions from: ${t.path("repo/a/AGENTS.md")}`,
        "A RULES",
        "",
        `Instructions from: ${t.path("repo/a/b/AGENTS.md")}`,
        "B RULES",
        "</agents_context>",
      ].join("\n"),
    );
    expect(context.omitted).toEqual([]);
    expect(context.tokens).toBe(estimateTokens(context.text));
  });

  it("keeps the most specific files first under a small budget and names the rest in a visible line", async () => {
    const t = await tree();
    await t.write("repo/AGENTS.md", "ROOT RULES ".repeat(200));
    const session = await openSession(t, { cwd: t.path("repo") });
    await session.touch([t.path("repo/a/b/file.ts")]);
    const context = await session.compactionContext({ maxTokens: 150 });
    expect(context.tokens).toBeLessThanOrEqual(150);
    expect(context.included.map((file) => file.path)).toEqual([t.path("repo/a/AGENTS.md"), t.path("repo/a/b/AGENTS.md")]);
    expect(context.omitted).toEqual([t.path("repo/AGENTS.md")]);
    expect(context.text).toContain(`[agentsmd: instruction files cut to fit 150 tokens; read these again in full: ${t.path("repo/AGENTS.md")}]`);
    expect(context.text.indexOf("A RULES")).toBeLessThan(context.text.indexOf("B RULES"));
  });

  it("cuts a file that does not fit whole at a line boundary and names it", () => {
    const lines = Array.from({ length: 100 }, (_, index) => `rule ${index}`).join("\n");
    const context = buildCompactionContext([{ path: "/r/AGENTS.md", layer: "project", content: lines }], { maxTokens: 120 });
    expect(context.tokens).toBeLessThanOrEqual(120);
    expect(context.included).toEqual([{ path: "/r/AGENTS.md", layer: "project", partial: true }]);
    expect(context.text).toContain("rule 0\nrule 1\n");
    expect(context.text).not.toContain("rule 99");
    expect(context.text).toContain("read these again in full: /r/AGENTS.md]");
  });

  it("uses the token counter it is given", () => {
    const files = [
      { path: "/r/AGENTS.md", layer: "project" as const, content: "one two three" },
      { path: "/r/a/AGENTS.md", layer: "path" as const, content: "four five" },
    ];
    const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
    const roomy = buildCompactionContext(files, { maxTokens: 1000, countTokens: words });
    expect(roomy.omitted).toEqual([]);
    const tight = buildCompactionContext(files, { maxTokens: roomy.tokens - 1 + 12, countTokens: words });
    expect(tight.tokens).toBeLessThanOrEqual(roomy.tokens - 1 + 12);
    expect(tight.included.map((file) => file.path)).toContain("/r/a/AGENTS.md");
  });

  it("leaves out deleted files and can be limited to layers", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo") });
    await session.touch([t.path("repo/a/b/file.ts")]);
    await t.remove("repo/a/AGENTS.md");
    const pathOnly = await session.compactionContext({ layers: ["path"] });
    expect(pathOnly.included.map((file) => file.path)).toEqual([t.path("repo/a/b/AGENTS.md")]);
    expect((await session.compactionContext({ exclude: [t.path("repo/AGENTS.md")] })).included.map((file) => file.path)).toEqual([
      t.path("repo/a/b/AGENTS.md"),
    ]);
    expect(await openSession(t, { cwd: t.path("repo/a") }).then((fresh) => fresh.compactionContext({ layers: ["path"] }))).toEqual({
      text: "",
      tokens: 0,
      included: [],
      omitted: [],
    });
  });
});

describe("session.compacted", () => {
  it("unadmits path-layer files so the next touch re-injects them, and keeps the initial ones", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo") });
    const target = t.path("repo/a/b/file.ts");
    expect((await session.touch([target])).map((block) => block.path)).toEqual([t.path("repo/a/AGENTS.md"), t.path("repo/a/b/AGENTS.md")]);
    expect(await session.touch([target])).toEqual([]);
    expect(session.compacted().sort()).toEqual([t.path("repo/a/AGENTS.md"), t.path("repo/a/b/AGENTS.md")]);
    expect(session.loadedVersion(t.path("repo/AGENTS.md"))).toBeDefined();
    expect(session.isCovered(target)).toBe(false);
    expect((await session.touch([target])).map((block) => block.path)).toEqual([t.path("repo/a/AGENTS.md"), t.path("repo/a/b/AGENTS.md")]);
  });

  it("survives snapshot and restore", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo") });
    const target = t.path("repo/a/b/file.ts");
    await session.touch([target]);
    const beforeCompaction = session.snapshot();
    session.compacted();
    const { session: restored } = await restoreSession(session.snapshot(), { home: t.home, env: {} });
    expect((await restored.touch([target])).map((block) => block.path)).toEqual([t.path("repo/a/AGENTS.md"), t.path("repo/a/b/AGENTS.md")]);
    const { session: uncompacted } = await restoreSession(beforeCompaction, { home: t.home, env: {} });
    expect(await uncompacted.touch([target])).toEqual([]);
    expect((await uncompacted.compactionContext()).included.map((file) => file.path)).toEqual([
      t.path("repo/AGENTS.md"),
      t.path("repo/a/AGENTS.md"),
      t.path("repo/a/b/AGENTS.md"),
    ]);
    await restored.close();
    await uncompacted.close();
  });
});
