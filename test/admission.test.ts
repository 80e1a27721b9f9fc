/**
 * Two-phase admission (seed 003: never mark instructions loaded before they are admitted):
 * `resolve`/`touch` with `{admit:false}` propose and claim; `admit` records the proposed version;
 * `release` (or a lost process) makes the proposal available again; concurrent proposals never
 * surface the same file.
 */
import { describe, expect, it } from "vitest";
import { restoreSession } from "../src/session/session.js";
import { createTree, openSession, type Tree } from "./helpers/tree.js";

async function tree(): Promise<Tree> {
  return createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "ROOT",
    "repo/a/AGENTS.md": "A",
    "repo/a/b/AGENTS.md": "B",
    "repo/a/b/file.ts": "",
    "repo/a/c/file.ts": "",
  });
}

describe("two-phase admission", () => {
  it("touch with admit: false returns bodies without marking them loaded, and claims them", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo") });
    const blocks = await session.touch([t.path("repo/a/b/file.ts")], { admit: false });
    expect(blocks.map((block) => [block.path, block.content])).toEqual([
      [t.path("repo/a/AGENTS.md"), "A"],
      [t.path("repo/a/b/AGENTS.md"), "B"],
    ]);
    expect(session.loadedVersion(t.path("repo/a/AGENTS.md"))).toBeUndefined();
    // Claimed: neither touch nor resolve offers them while the proposal is open.
    expect(await session.touch([t.path("repo/a/c/file.ts")], { admit: false })).toEqual([]);
    expect(await session.resolve(t.path("repo/a/b/file.ts"), { admit: false })).toEqual({ files: [] });
  });

  it("admits at the proposed version, so an edit made after the proposal is offered again", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo"), config: { cache: { revalidateMs: 0 } } });
    const target = t.path("repo/a/c/file.ts");
    const [proposal] = await session.touch([target], { admit: false });
    expect(proposal?.path).toBe(t.path("repo/a/AGENTS.md"));
    await t.write("repo/a/AGENTS.md", "A, edited before admission");
    await t.setMtime("repo/a/AGENTS.md", 1_900_000_000);
    session.admit([proposal!]);
    expect(session.loadedVersion(t.path("repo/a/AGENTS.md"))?.mtimeMs).toBe(proposal!.mtimeMs);
    const again = await session.touch([target]);
    expect(again.map((block) => [block.path, block.mtimeMs, block.content])).toEqual([
      [t.path("repo/a/AGENTS.md"), 1_900_000_000_000, "A, edited before admission"],
    ]);
    expect(await session.touch([target])).toEqual([]);
  });

  it("offers released proposals again, and only those", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo") });
    const blocks = await session.touch([t.path("repo/a/b/file.ts")], { admit: false });
    const [a, b] = blocks;
    session.admit([b!]);
    session.release([a!]);
    const again = await session.touch([t.path("repo/a/b/file.ts")], { admit: false });
    expect(again.map((block) => block.path)).toEqual([t.path("repo/a/AGENTS.md")]);
  });

  it("does not persist open proposals: a restored session offers them again", async () => {
    const t = await tree();
    const session = await openSession(t, { cwd: t.path("repo") });
    const proposed = await session.resolve(t.path("repo/a/b/file.ts"), { admit: false });
    expect(proposed.files).toHaveLength(2);
    const { session: restored } = await restoreSession(session.snapshot(), { home: t.home, env: {} });
    expect(await restored.resolve(t.path("repo/a/b/file.ts"))).toEqual(proposed);
    await restored.close();
  });

  it("concurrent proposals never surface the same file, for resolve and multi-target touch alike", async () => {
    const spec: Record<string, string | null> = { "repo/.git/": null, "repo/AGENTS.md": "root" };
    const targets: string[] = [];
    for (let i = 0; i < 5; i++) {
      spec[`repo/p${i}/AGENTS.md`] = `p${i}`;
      for (let j = 0; j < 4; j++) {
        spec[`repo/p${i}/q${j}/AGENTS.md`] = `q${j}`;
        targets.push(`repo/p${i}/q${j}/file.ts`);
      }
    }
    const t = await createTree(spec);
    const all = Object.keys(spec)
      .filter((rel) => rel.endsWith("AGENTS.md") && rel !== "repo/AGENTS.md")
      .map((rel) => t.path(rel));
    for (const revalidateMs of [0, 60_000]) {
      const session = await openSession(t, { cwd: t.path("repo"), config: { cache: { revalidateMs }, resolver: { maxFilesPerResolve: 64 } } });
      // Touches with several targets each (they await between targets) race with single resolves.
      const groups = targets.map((target, index) =>
        [target, targets[(index + 7) % targets.length]!, targets[(index + 13) % targets.length]!].map((rel) => t.path(rel)),
      );
      const results = await Promise.all([
        ...groups.map(async (group) => (await session.touch(group, { admit: false })).map((block) => block.path)),
        ...targets.map(async (target) => (await session.resolve(t.path(target), { admit: false })).files.map((file) => file.path)),
      ]);
      const surfaced = results.flat();
      expect(new Set(surfaced).size).toBe(surfaced.length);
      expect(new Set(surfaced)).toEqual(new Set(all));
      await session.close();
    }
  });
});
