/**
 * Snapshots and resume (spec §11.3): the session.resume.diff reminder, "" when nothing changed,
 * and state documents that do not validate are refused.
 */
import { describe, expect, it } from "vitest";
import { StateError } from "../src/core/errors.js";
import { SessionStateSchema } from "../src/core/schema.js";
import { restoreSession } from "../src/session/session.js";
import { createTree, openSession, type Tree } from "./helpers/tree.js";

async function repo(): Promise<Tree> {
  const tree = await createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "root",
    "repo/a/AGENTS.md": "a",
    "repo/b/AGENTS.md": "b",
    "repo/b/deep/": null,
  });
  await tree.setMtime("repo/AGENTS.md", 1_738_960_000);
  await tree.setMtime("repo/a/AGENTS.md", 1_738_965_000);
  await tree.setMtime("repo/b/AGENTS.md", 1_738_973_000);
  return tree;
}

async function restore(tree: Tree, state: unknown, cwd: string, extra: Parameters<typeof restoreSession>[1] = {}) {
  const result = await restoreSession(state, { cwd, home: tree.home, env: {}, ...extra });
  await result.session.close();
  return result;
}

describe("resume", () => {
  it("renders the §11.3 diff exactly: a line for what changed (cwd here, not root or markers), then the AGENTS.md to re-check", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo/a") });
    const { diff } = await restore(tree, session.snapshot(), tree.path("repo/b"));
    const r = tree.path("repo");
    expect(diff).toBe(`<system-reminder type="session.resume.diff">
Session resumed with context changes:
- cwd: ${r}/a -> ${r}/b
Re-check AGENTS.md for current scope:
- ${r}/b/AGENTS.md (mtime: 1738973000000)
</system-reminder>`);
  });

  it("returns an empty diff when nothing changed", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo/a") });
    await session.resolve(tree.path("repo/b/x.ts"));
    const { diff, session: resumed } = await restore(tree, JSON.parse(JSON.stringify(session.snapshot())), tree.path("repo/a"));
    expect(diff).toBe("");
    expect(resumed.initialMessage).toBe(session.initialMessage);
  });

  it("reads a state written by earlier builds, with the directories it reached (seenDirs), and writes none", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo/a") });
    await session.resolve(tree.path("repo/b/x.ts"));
    const state = JSON.parse(JSON.stringify(session.snapshot()));
    expect(state).not.toHaveProperty("seenDirs");
    const older = { ...state, seenDirs: [tree.path("repo"), tree.path("repo/b")] };
    const { diff, session: resumed } = await restore(tree, older, tree.path("repo/a"));
    expect(diff).toBe("");
    expect(resumed.snapshot()).toEqual(state);
  });

  it("returns an empty diff for a file the initial budget left out, when nothing changed", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo/a"), config: { initial: { maxFiles: 1 } } });
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/a/AGENTS.md")]);
    const state = JSON.parse(JSON.stringify(session.snapshot()));
    expect((await restore(tree, state, tree.path("repo/a"))).diff).toBe("");
    // Still not delivered: the resolver offers it, as it would have without the resume.
    const { session: resumed } = await restoreSession(state, { cwd: tree.path("repo/a"), home: tree.home, env: {} });
    expect((await resumed.resolve(tree.path("repo/a/x.ts"))).files.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md")]);
    await resumed.close();
  });

  it("lists a file the initial budget left out once it changes", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo/a"), config: { initial: { maxFiles: 1 } } });
    const state = session.snapshot();
    await tree.setMtime("repo/AGENTS.md", 1_738_999_000);
    expect((await restore(tree, state, tree.path("repo/a"))).diff).toContain(`- ${tree.path("repo/AGENTS.md")} (mtime: 1738999000000)`);
  });

  it("lists AGENTS.md of the current scope that changed on disk since the snapshot", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo/a") });
    const state = session.snapshot();
    await tree.setMtime("repo/AGENTS.md", 1_738_999_000);
    const { diff } = await restore(tree, state, tree.path("repo/a"));
    const r = tree.path("repo");
    expect(diff).toBe(`<system-reminder type="session.resume.diff">
Session resumed with context changes:
Re-check AGENTS.md for current scope:
- ${r}/AGENTS.md (mtime: 1738999000000)
</system-reminder>`);
  });

  it("lists an AGENTS.md created in the current scope since the snapshot", async () => {
    const tree = await repo();
    await tree.add({ "repo/a/sub/": null });
    const session = await openSession(tree, { cwd: tree.path("repo/a/sub") });
    const state = session.snapshot();
    await tree.write("repo/a/sub/AGENTS.md", "new");
    await tree.setMtime("repo/a/sub/AGENTS.md", 1_738_980_000);
    const { diff } = await restore(tree, state, tree.path("repo/a/sub"));
    expect(diff).toContain(`Re-check AGENTS.md for current scope:\n- ${tree.path("repo/a/sub/AGENTS.md")} (mtime: 1738980000000)\n</system-reminder>`);
  });

  it("does not list files outside the current scope, even when they changed", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo/a") });
    await session.resolve(tree.path("repo/b/x.ts"));
    const state = session.snapshot();
    await tree.setMtime("repo/b/AGENTS.md", 1_738_999_000);
    expect((await restore(tree, state, tree.path("repo/a"))).diff).toBe("");
  });

  it("shows changed markers and root", async () => {
    const tree = await repo();
    await tree.add({ "repo/a/.mark": "" });
    const session = await openSession(tree, { cwd: tree.path("repo/a") });
    const { diff } = await restore(tree, session.snapshot(), tree.path("repo/a"), { config: { root: { markers: [".mark"] } } });
    expect(diff).toContain(`- root: ${tree.path("repo")} -> ${tree.path("repo/a")}\n`);
    expect(diff).toContain(`- markers: [".codelia",".git",".jj"] -> [".mark"]\n`);
    // the cwd did not change: no `X -> X` line for it
    expect(diff).not.toContain("- cwd:");
  });

  it("marks the re-check files as delivered, unless admit is false", async () => {
    const tree = await repo();
    const state = (await openSession(tree, { cwd: tree.path("repo/a") })).snapshot();
    const admitted = await restoreSession(state, { cwd: tree.path("repo/b"), home: tree.home, env: {} });
    expect(await admitted.session.resolve(tree.path("repo/b/x.ts"))).toEqual({ files: [] });
    const proposed = await restoreSession(state, { cwd: tree.path("repo/b"), home: tree.home, env: {}, admit: false });
    expect((await proposed.session.resolve(tree.path("repo/b/x.ts"))).files.map((file) => file.path)).toEqual([tree.path("repo/b/AGENTS.md")]);
    await admitted.session.close();
    await proposed.session.close();
  });

  it("keeps what the session had loaded: a resumed session does not offer it again", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo") });
    await session.resolve(tree.path("repo/b/deep/x.ts"));
    const { session: resumed } = await restore(tree, session.snapshot(), tree.path("repo"));
    expect(await resumed.resolve(tree.path("repo/b/deep/x.ts"))).toEqual({ files: [] });
    expect((await resumed.resolve(tree.path("repo/a/x.ts"))).files.map((file) => file.path)).toEqual([tree.path("repo/a/AGENTS.md")]);
  });

  it("snapshots validate against SessionStateSchema and survive a JSON round trip", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo/a") });
    await session.resolve(tree.path("repo/b/x.ts"));
    const state = session.snapshot();
    expect(SessionStateSchema.parse(JSON.parse(JSON.stringify(state)))).toEqual(state);
  });

  it.each<[string, unknown]>([
    ["a non-object", "not a state"],
    ["an object of another program", { name: "some-package", version: "1.0.0" }],
    ["a state of another version", { version: 2 }],
    ["a state with a wrong field type", { version: 1, preset: "codelia", cwd: 5 }],
  ])("refuses %s with a StateError", async (_name, state) => {
    const tree = await repo();
    await expect(restoreSession(state, { cwd: tree.path("repo"), home: tree.home, env: {} })).rejects.toBeInstanceOf(StateError);
  });

  it("refuses a snapshot with an extra key (strict)", async () => {
    const tree = await repo();
    const state = { ...(await openSession(tree, { cwd: tree.path("repo") })).snapshot(), extra: true };
    await expect(restoreSession(state, { cwd: tree.path("repo"), home: tree.home, env: {} })).rejects.toThrow(/extra/);
  });
});
