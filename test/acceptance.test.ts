/**
 * Spec §9: one test per acceptance criterion, named after it.
 */
import { describe, expect, it } from "vitest";
import { restoreSession } from "../src/session/session.js";
import { ResolvedAgentsSchema } from "../src/core/schema.js";
import { createTree, openSession } from "./helpers/tree.js";

const T1 = 1_738_970_000; // seconds; mtimeMs 1738970000000 as in the spec's examples
const T2 = 1_738_971_000;

describe("spec §9 acceptance criteria", () => {
  it("AC1: AGENTS.md of root -> cwd are injected once, in order", async () => {
    const tree = await createTree({
      "AGENTS.md": "ABOVE THE ROOT: must not load",
      "repo/.git/": null,
      "repo/AGENTS.md": "root rules\n",
      "repo/a/b/c/AGENTS.md": "c rules\n",
      "repo/a/AGENTS.md": "a rules\n",
      "repo/x/AGENTS.md": "SIBLING: must not load",
      "repo/a/b/c/d/": null,
    });
    const repo = tree.path("repo");
    const session = await openSession(tree, { cwd: tree.path("repo/a/b/c/d") });

    expect(session.root).toBe(repo);
    expect(session.initialMessage).toBe(
      [
        '<agents_context scope="initial">',
        `Instructions from: ${repo}/AGENTS.md`,
        "root rules",
        "",
        `Instructions from: ${repo}/a/AGENTS.md`,
        "a rules",
        "",
        `Instructions from: ${repo}/a/b/c/AGENTS.md`,
        "c rules",
        "</agents_context>",
      ].join("\n"),
    );
    expect(session.initialFiles.map((file) => file.path)).toEqual([`${repo}/AGENTS.md`, `${repo}/a/AGENTS.md`, `${repo}/a/b/c/AGENTS.md`]);
    // Only once: the resolver does not offer the initial files again for anything in the chain.
    expect(await session.resolve(tree.path("repo/a/b/c/d/file.ts"))).toEqual({ files: [] });
    expect(await session.resolve(tree.path("repo/a/b/c/d"))).toEqual({ files: [] });
  });

  it('AC2: reading a file in another hierarchy adds only "path + mtime" of the needed ancestor AGENTS.md in a <system-reminder>', async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/AGENTS.md": "root rules",
      "repo/feature/AGENTS.md": "FEATURE BODY",
      "repo/feature/sub/AGENTS.md": "SUB BODY",
      "repo/feature/sub/file.ts": "",
      "repo/app/": null,
    });
    await tree.setMtime("repo/feature/AGENTS.md", T1);
    await tree.setMtime("repo/feature/sub/AGENTS.md", T2);
    const repo = tree.path("repo");
    const session = await openSession(tree, { cwd: tree.path("repo/app") });

    const text = await session.afterToolCall({ tool: "read", path: tree.path("repo/feature/sub/file.ts") });

    expect(text).toBe(
      [
        '<system-reminder type="agents.resolve.paths">',
        "Additional AGENTS.md may apply for this path:",
        `- ${repo}/feature/AGENTS.md (mtime: 1738970000000)`,
        `- ${repo}/feature/sub/AGENTS.md (mtime: 1738971000000)`,
        "Read and apply these files before editing files in this scope.",
        "</system-reminder>",
      ].join("\n"),
    );
    expect(text).not.toContain("BODY");
    expect(text).not.toContain(`${repo}/AGENTS.md `); // the root file came with the initial bundle
  });

  it("AC3: AGENTS.md is not injected twice when the same layer is read again", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/AGENTS.md": "root",
      "repo/lib/AGENTS.md": "lib",
      "repo/lib/one.ts": "",
      "repo/lib/two.ts": "",
      "repo/lib/deeper/three.ts": "",
    });
    const session = await openSession(tree, { cwd: tree.path("repo") });

    const first = await session.afterToolCall({ tool: "read", path: tree.path("repo/lib/one.ts") });
    expect(first).toContain(tree.path("repo/lib/AGENTS.md"));

    expect(await session.afterToolCall({ tool: "read", path: tree.path("repo/lib/one.ts") })).toBe("");
    expect(await session.afterToolCall({ tool: "edit", path: tree.path("repo/lib/two.ts") })).toBe("");
    expect(await session.afterToolCall({ tool: "write", path: tree.path("repo/lib/deeper/three.ts") })).toBe("");
    expect(await session.resolve(tree.path("repo/lib"))).toEqual({ files: [] });
  });

  it("AC4: the initial system message does not change across turns, whatever happens on disk", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/AGENTS.md": "root v1",
      "repo/pkg/AGENTS.md": "pkg v1",
      "repo/pkg/src/": null,
      "repo/other/AGENTS.md": "other v1",
    });
    const session = await openSession(tree, { cwd: tree.path("repo/pkg/src"), config: { cache: { revalidateMs: 0 } } });
    const before = session.initialMessage;
    const copy = Buffer.from(before, "utf8");
    expect(before).toContain("root v1");

    for (let turn = 0; turn < 5; turn++) {
      await tree.write("repo/AGENTS.md", `root v${turn + 2} (edited)`);
      await tree.setMtime("repo/AGENTS.md", T1 + turn);
      await tree.write(`repo/pkg/src/new${turn}/AGENTS.md`, "created");
      if (turn === 2) await tree.remove("repo/pkg/AGENTS.md");
      if (turn === 3) await tree.write("repo/pkg/src/AGENTS.md", "created in cwd");
      await session.resolve(tree.path(`repo/pkg/src/new${turn}/x.ts`));
      await session.resolve(tree.path("repo/other/y.ts"));
      await session.resolve(tree.path("repo/pkg/src"));
      expect(Buffer.from(session.initialMessage, "utf8").equals(copy)).toBe(true);
    }
    // The resolver did see the changes: they are just not folded into the initial message.
    const again = await session.resolve(tree.path("repo/pkg/src/file.ts"));
    expect(again).toEqual({ files: [] });
    expect(session.loadedVersion(tree.path("repo/AGENTS.md"))?.mtimeMs).toBe((T1 + 4) * 1000);

    expect(session.snapshot().initialMessage).toBe(before);
    const { session: resumed } = await restoreSession(session.snapshot(), { cwd: tree.path("repo/pkg/src"), home: tree.home, env: {} });
    expect(resumed.initialMessage).toBe(before);
    await resumed.close();
  });

  it("AC5: switching root estimation with projectRootOverride and markers works", async () => {
    const tree = await createTree({
      ".codelia/": null,
      "AGENTS.md": "outer",
      "repo/.git": "gitdir: ../elsewhere/.git/worktrees/repo\n",
      "repo/AGENTS.md": "repo",
      "repo/pkg/.mymark": "",
      "repo/pkg/AGENTS.md": "pkg",
      "repo/pkg/src/": null,
    });
    const cwd = tree.path("repo/pkg/src");

    const byDefault = await openSession(tree, { cwd });
    expect(byDefault.root).toBe(tree.path("repo"));
    expect(byDefault.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/pkg/AGENTS.md")]);

    const byMarker = await openSession(tree, { cwd, config: { root: { markers: [".mymark"] } } });
    expect(byMarker.root).toBe(tree.path("repo/pkg"));
    expect(byMarker.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/pkg/AGENTS.md")]);

    const byOuterMarker = await openSession(tree, { cwd, config: { root: { markers: [".codelia"] } } });
    expect(byOuterMarker.root).toBe(tree.root);
    expect(byOuterMarker.initialFiles.map((file) => file.path)).toEqual([tree.path("AGENTS.md"), tree.path("repo/AGENTS.md"), tree.path("repo/pkg/AGENTS.md")]);

    const byOverride = await openSession(tree, { cwd, config: { root: { projectRootOverride: tree.path("repo/pkg") } } });
    expect(byOverride.root).toBe(tree.path("repo/pkg"));
    expect(byOverride.rootReason).toBe("override");
    expect(byOverride.initialMessage).toContain(tree.path("repo/pkg/AGENTS.md"));
    expect(byOverride.initialMessage).not.toContain(tree.path("repo/AGENTS.md"));
  });

  it("AC6: a known AGENTS.md whose mtime changes is presented again by the resolver", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/AGENTS.md": "root",
      "repo/feature/AGENTS.md": "feature",
      "repo/feature/a.ts": "",
    });
    await tree.setMtime("repo/AGENTS.md", T1);
    await tree.setMtime("repo/feature/AGENTS.md", T1);
    const session = await openSession(tree, { cwd: tree.path("repo"), config: { cache: { revalidateMs: 0 } } });
    const target = tree.path("repo/feature/a.ts");

    expect((await session.resolve(target)).files.map((file) => file.path)).toEqual([tree.path("repo/feature/AGENTS.md")]);
    expect(await session.resolve(target)).toEqual({ files: [] });

    // A resolver-found file is edited.
    await tree.write("repo/feature/AGENTS.md", "feature v2");
    await tree.setMtime("repo/feature/AGENTS.md", T2);
    const edited = ResolvedAgentsSchema.parse(await session.resolve(target));
    expect(edited.files).toEqual([{ path: tree.path("repo/feature/AGENTS.md"), mtimeMs: T2 * 1000, sizeBytes: "feature v2".length }]);
    expect(await session.resolve(target)).toEqual({ files: [] });

    // A file of the initial bundle is edited (only the mtime changes).
    await tree.setMtime("repo/AGENTS.md", T2);
    const reminder = await session.afterToolCall({ tool: "read", path: target });
    expect(reminder).toContain(`- ${tree.path("repo/AGENTS.md")} (mtime: ${T2 * 1000})`);
    expect(await session.resolve(target)).toEqual({ files: [] });
  });
});

describe("spec §8 prompt guidance", () => {
  it("is exported as PROMPT_GUIDANCE from the package entry, covering the five rules", async () => {
    const { PROMPT_GUIDANCE } = await import("../src/index.js");
    const rules = PROMPT_GUIDANCE.split("\n").filter((line) => /^\d\. /.test(line));
    expect(rules).toHaveLength(5);
    expect(PROMPT_GUIDANCE).toMatch(/every turn/);
    expect(PROMPT_GUIDANCE).toContain('<system-reminder type="agents.resolve.paths">');
    expect(PROMPT_GUIDANCE).toContain('<system-reminder type="session.resume.diff">');
  });
});
