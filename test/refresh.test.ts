/**
 * Turn-boundary updates (seed 003's context epochs): `session.refresh()` compares everything
 * admitted with the disk; `refreshNotice` renders the update and removal notices; the initial
 * message never changes.
 */
import { describe, expect, it } from "vitest";
import { createTree, openSession, type Tree } from "./helpers/tree.js";

async function tree(): Promise<Tree> {
  return createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "ROOT",
    "repo/a/AGENTS.md": "A",
    "repo/a/file.ts": "",
    "repo/b/AGENTS.md": "B",
    "repo/b/file.ts": "",
  });
}

describe("session.refresh", () => {
  it("finds nothing when nothing changed, and renders nothing", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo") });
    await session.resolve(t.path("repo/a/file.ts"));
    const result = await session.refresh();
    expect(result).toEqual({ changed: [], deleted: [], blocks: [] });
    expect(session.refreshNotice(result)).toBe("");
  });

  it("reports changed and deleted admitted files, initial ones included, and never touches the initial message", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo") });
    const initialMessage = session.initialMessage;
    await session.resolve(t.path("repo/a/file.ts"));
    await session.resolve(t.path("repo/b/file.ts"));
    const rootBefore = session.loadedVersion(t.path("repo/AGENTS.md"))!.mtimeMs;
    await t.write("repo/AGENTS.md", "ROOT v2");
    await t.setMtime("repo/AGENTS.md", 1_900_000_000);
    await t.remove("repo/b/AGENTS.md");
    const result = await session.refresh();
    expect(result.changed).toEqual([
      { path: t.path("repo/AGENTS.md"), layer: "project", mtimeMs: 1_900_000_000_000, sizeBytes: 7, previousMtimeMs: rootBefore },
    ]);
    expect(result.deleted).toEqual([expect.objectContaining({ path: t.path("repo/b/AGENTS.md"), layer: "path" })]);
    expect(session.refreshNotice(result)).toBe(
      [
        '<system-reminder type="agents.updated">',
        "These AGENTS.md files changed since you read them:",
        `- ${t.path("repo/AGENTS.md")} (mtime: 1900000000000)`,
        "Read them again; the current version replaces the one you had.",
        "</system-reminder>",
        '<system-reminder type="agents.removed">',
        "These AGENTS.md files were deleted:",
        `- ${t.path("repo/b/AGENTS.md")} no longer applies`,
        "Stop following the instructions they gave.",
        "</system-reminder>",
      ].join("\n"),
    );
    expect(session.initialMessage).toBe(initialMessage);
    // Admitted: the new version is known, the deleted file is forgotten.
    expect(session.loadedVersion(t.path("repo/AGENTS.md"))?.mtimeMs).toBe(1_900_000_000_000);
    expect(session.loadedVersion(t.path("repo/b/AGENTS.md"))).toBeUndefined();
    expect(await session.refresh()).toEqual({ changed: [], deleted: [], blocks: [] });
  });

  it("offers a deleted-then-recreated file again through resolve", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo"), config: { cache: { revalidateMs: 0 } } });
    await session.resolve(t.path("repo/b/file.ts"));
    await t.remove("repo/b/AGENTS.md");
    await session.refresh();
    await t.write("repo/b/AGENTS.md", "B again");
    expect((await session.resolve(t.path("repo/b/file.ts"))).files.map((file) => file.path)).toEqual([t.path("repo/b/AGENTS.md")]);
  });

  it("carries the new bodies in inline mode", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo") });
    await session.touch([t.path("repo/a/file.ts")]);
    await t.write("repo/a/AGENTS.md", "A v2");
    await t.setMtime("repo/a/AGENTS.md", 1_900_000_000);
    const result = await session.refresh({ inline: true });
    expect(result.blocks.map((block) => [block.path, block.content])).toEqual([[t.path("repo/a/AGENTS.md"), "A v2"]]);
    expect(session.refreshNotice(result)).toBe(
      [
        '<system-reminder type="agents.updated">',
        "These AGENTS.md files changed; the current version below replaces the one you had:",
        '<agents_context scope="path">',
        `Instructions from: ${t.path("repo/a/AGENTS.md")}`,
        "A v2",
        "</agents_context>",
        "</system-reminder>",
      ].join("\n"),
    );
  });

  it("with admit: false, claims the changes until admit/forget, and release offers them again", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo"), config: { cache: { revalidateMs: 0 } } });
    await session.resolve(t.path("repo/a/file.ts"));
    const before = session.loadedVersion(t.path("repo/a/AGENTS.md"))!.mtimeMs;
    await t.write("repo/a/AGENTS.md", "A v2");
    await t.setMtime("repo/a/AGENTS.md", 1_900_000_000);
    const proposed = await session.refresh({ admit: false });
    expect(proposed.changed.map((file) => file.path)).toEqual([t.path("repo/a/AGENTS.md")]);
    expect(session.loadedVersion(t.path("repo/a/AGENTS.md"))?.mtimeMs).toBe(before);
    // Claimed: a concurrent resolve does not present it too, nor a second refresh.
    expect(await session.resolve(t.path("repo/a/file.ts"))).toEqual({ files: [] });
    expect((await session.refresh({ admit: false })).changed).toEqual([]);
    session.release(proposed.changed);
    const again = await session.refresh();
    expect(again.changed.map((file) => file.mtimeMs)).toEqual([1_900_000_000_000]);
    expect(session.loadedVersion(t.path("repo/a/AGENTS.md"))?.mtimeMs).toBe(1_900_000_000_000);
  });
});
