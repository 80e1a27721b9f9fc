/**
 * agentsmd/watch: one fs.watch per scanned directory invalidates the cache, so a session that trusts its cache until told
 * otherwise still sees edits, creations (also in directories that did not exist) and deletions.
 * Every wait is a condition with a timeout, never a fixed sleep.
 */
import { describe, expect, it } from "vitest";
import { mkdir, rename } from "node:fs/promises";
import { watchSession, type SessionWatcher, type WatchDirectory, type WatchOptions } from "../src/session/watch.js";
import { FsError } from "../src/core/errors.js";
import { watchDirectory } from "../src/io/file-system.js";
import type { AgentsSession } from "../src/session/session.js";
import { createTree, openSession, type Tree } from "./helpers/tree.js";

async function waitFor<T>(probe: () => Promise<T> | T, accept: (value: T) => boolean, what: string, timeoutMs = 5000): Promise<T> {
  const started = Date.now();
  let last: T;
  for (;;) {
    last = await probe();
    if (accept(last)) return last;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const paths = (found: { files: Array<{ path: string }> }) => found.files.map((file) => file.path);

/** A session on `tree` with a watcher; each test waits for the watcher to settle before touching the disk. */
async function watched(tree: Tree, options: WatchOptions = {}): Promise<{ session: AgentsSession; watcher: SessionWatcher }> {
  const session = await openSession(tree, { cwd: tree.path("repo") });
  const watcher = await watchSession(session, { debounceMs: 5, ...options });
  return { session, watcher };
}

async function repo(): Promise<Tree> {
  return createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "ROOT",
    "repo/a/AGENTS.md": "A",
    "repo/a/file.ts": "",
    "repo/b/file.ts": "",
  });
}

describe("watchSession", () => {
  it("trusts the cache while watching and restores the revalidation window on close", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo") });
    const before = session.cache.revalidateMs;
    const watcher = await watchSession(session);
    expect(session.cache.revalidateMs).toBe(Number.POSITIVE_INFINITY);
    expect(watcher.watchedDirs()).toContain(tree.path("repo"));
    const closing = watcher.close();
    expect(watcher.close()).toBe(closing);
    await closing;
    expect(session.cache.revalidateMs).toBe(before);
  });

  it("presents an edited AGENTS.md again although the cache trusts its entries", async () => {
    const tree = await repo();
    const { session, watcher } = await watched(tree);
    const target = tree.path("repo/a/file.ts");
    expect(paths(await session.resolve(target))).toEqual([tree.path("repo/a/AGENTS.md")]);
    await watcher.settled();
    expect(await session.resolve(target)).toEqual({ files: [] });
    await tree.write("repo/a/AGENTS.md", "A, edited");
    await tree.setMtime("repo/a/AGENTS.md", 2_000_000_000);
    const found = await waitFor(
      () => session.resolve(target),
      (value) => value.files.length > 0,
      "the edit to be seen",
    );
    expect(found.files).toEqual([expect.objectContaining({ path: tree.path("repo/a/AGENTS.md"), mtimeMs: 2_000_000_000_000 })]);
  });

  it("sees an AGENTS.md created in a directory that did not exist when it was scanned", async () => {
    const tree = await repo();
    const { session, watcher } = await watched(tree);
    const target = tree.path("repo/new/deep/file.ts");
    expect(await session.resolve(target)).toEqual({ files: [] });
    await watcher.settled();
    await mkdir(tree.path("repo/new/deep"), { recursive: true });
    await tree.write("repo/new/deep/AGENTS.md", "DEEP");
    const found = await waitFor(
      () => session.resolve(target),
      (value) => value.files.length > 0,
      "the new file to be seen",
    );
    expect(paths(found)).toEqual([tree.path("repo/new/deep/AGENTS.md")]);
  });

  it("sees a deletion, and the file again when it is re-created", async () => {
    const tree = await repo();
    const { session, watcher } = await watched(tree);
    const target = tree.path("repo/a/file.ts");
    await session.resolve(target);
    await watcher.settled();
    await tree.remove("repo/a/AGENTS.md");
    await waitFor(
      () => session.cache.peekDir(tree.path("repo/a"), session.cache.now()),
      (probe) => probe === undefined,
      "the deletion to invalidate the probe",
    );
    expect(await session.resolve(target)).toEqual({ files: [] });
    await tree.write("repo/a/AGENTS.md", "A again");
    await tree.setMtime("repo/a/AGENTS.md", 2_000_000_000);
    const found = await waitFor(
      () => session.resolve(target),
      (value) => value.files.length > 0,
      "the re-created file",
    );
    expect(paths(found)).toEqual([tree.path("repo/a/AGENTS.md")]);
  });

  it("sees a directory removed and re-created with a new AGENTS.md", async () => {
    const tree = await repo();
    const { session, watcher } = await watched(tree);
    const target = tree.path("repo/a/file.ts");
    await session.resolve(target);
    await watcher.settled();
    await tree.remove("repo/a");
    await waitFor(
      () => session.cache.peekDir(tree.path("repo/a"), session.cache.now()),
      (probe) => probe === undefined,
      "the removal to be seen",
    );
    expect(await session.resolve(target)).toEqual({ files: [] });
    await tree.write("repo/a/AGENTS.md", "A, new dir");
    await tree.setMtime("repo/a/AGENTS.md", 2_000_000_000);
    const found = await waitFor(
      () => session.resolve(target),
      (value) => value.files.length > 0,
      "the file in the re-created directory",
    );
    expect(paths(found)).toEqual([tree.path("repo/a/AGENTS.md")]);
  });

  it("sees a renamed directory under its new name and nothing under the old one", async () => {
    const tree = await repo();
    const { session, watcher } = await watched(tree);
    expect(paths(await session.resolve(tree.path("repo/a/file.ts")))).toEqual([tree.path("repo/a/AGENTS.md")]);
    await watcher.settled();
    await rename(tree.path("repo/a"), tree.path("repo/c"));
    const found = await waitFor(
      () => session.resolve(tree.path("repo/c/file.ts"), { admit: false }),
      (value) => value.files.length > 0,
      "the renamed directory's file",
    );
    expect(paths(found)).toEqual([tree.path("repo/c/AGENTS.md")]);
    session.release(found.files);
    expect(await session.resolve(tree.path("repo/a/file.ts"))).toEqual({ files: [] });
    // Renamed back, and edited: the old path is watched again.
    await rename(tree.path("repo/c"), tree.path("repo/a"));
    await waitFor(
      () => session.cache.peekDir(tree.path("repo/a"), session.cache.now()),
      (probe) => probe === undefined,
      "the move back to be seen",
    );
    await session.resolve(tree.path("repo/a/file.ts"));
    await watcher.settled();
    await tree.write("repo/a/AGENTS.md", "A, moved back and edited");
    await tree.setMtime("repo/a/AGENTS.md", 2_000_000_000);
    const edited = await waitFor(
      () => session.resolve(tree.path("repo/a/file.ts")),
      (value) => value.files.length > 0,
      "the edit after the move back",
    );
    expect(edited.files).toEqual([expect.objectContaining({ path: tree.path("repo/a/AGENTS.md"), mtimeMs: 2_000_000_000_000 })]);
  });

  it("sees an AGENTS.md created in an ancestor of a memoised chain", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/x/y/z/file.ts": "" });
    const session = await openSession(tree, { cwd: tree.path("repo") });
    const watcher = await watchSession(session, { debounceMs: 5 });
    const target = tree.path("repo/x/y/z/file.ts");
    expect(await session.resolve(target)).toEqual({ files: [] });
    expect(await session.resolve(target)).toEqual({ files: [] });
    await watcher.settled();
    await tree.write("repo/x/AGENTS.md", "X");
    const found = await waitFor(
      () => session.resolve(target),
      (value) => value.files.length > 0,
      "the new ancestor file",
    );
    expect(paths(found)).toEqual([tree.path("repo/x/AGENTS.md")]);
  });

  it("watches a candidate's folder (.github/copilot-instructions.md) and sees it appear", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/a/file.ts": "" });
    const session = await openSession(tree, {
      cwd: tree.path("repo"),
      config: { files: { names: [".github/copilot-instructions.md", "AGENTS.md"], select: "all" } },
    });
    const watcher = await watchSession(session, { debounceMs: 5 });
    const target = tree.path("repo/a/file.ts");
    expect(await session.resolve(target)).toEqual({ files: [] });
    await watcher.settled();
    await tree.write("repo/a/.github/copilot-instructions.md", "COPILOT");
    const found = await waitFor(
      () => session.resolve(target),
      (value) => value.files.length > 0,
      "the file in a new candidate folder",
    );
    expect(paths(found)).toEqual([tree.path("repo/a/.github/copilot-instructions.md")]);
    expect(watcher.watchedDirs()).toContain(tree.path("repo/a/.github"));
    await tree.write("repo/a/.github/copilot-instructions.md", "COPILOT, edited");
    await tree.setMtime("repo/a/.github/copilot-instructions.md", 2_000_000_000);
    const edited = await waitFor(
      () => session.resolve(target),
      (value) => value.files.length > 0,
      "the edit in the candidate folder",
    );
    expect(edited.files).toEqual([expect.objectContaining({ mtimeMs: 2_000_000_000_000 })]);
  });

  it("sees the root removed and re-created", async () => {
    const tree = await repo();
    const { session, watcher } = await watched(tree);
    const target = tree.path("repo/a/file.ts");
    expect(paths(await session.resolve(target))).toEqual([tree.path("repo/a/AGENTS.md")]);
    await watcher.settled();
    await tree.remove("repo");
    await waitFor(
      () => session.cache.peekDir(tree.path("repo"), session.cache.now()),
      (probe) => probe === undefined,
      "the removal of the root",
    );
    expect(await session.resolve(target)).toEqual({ files: [] });
    await watcher.settled();
    await tree.add({ "repo/.git/": null, "repo/a/file.ts": "" });
    await tree.write("repo/AGENTS.md", "ROOT again");
    await tree.setMtime("repo/AGENTS.md", 2_000_000_000);
    const found = await waitFor(
      () => session.resolve(target),
      (value) => value.files.length > 0,
      "the re-created root's file",
    );
    expect(paths(found)).toEqual([tree.path("repo/AGENTS.md")]);
  });

  it("falls back to stat validation with a diagnostic when a watch cannot be set (ENOSPC), never throwing", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo"), config: { cache: { revalidateMs: 0 } } });
    const errors: Error[] = [];
    let calls = 0;
    const limited: WatchDirectory = (path, onEvent, onError) => {
      if (++calls > 1) throw new FsError(`cannot watch ${path}: ENOSPC`, { path, code: "ENOSPC" });
      return watchDirectory(path, onEvent, onError);
    };
    const watcher = await watchSession(session, { onError: (error) => errors.push(error) }, limited);
    // The root is watched; the first new directory fails.
    expect(watcher.active()).toBe(true);
    const target = tree.path("repo/a/file.ts");
    expect(paths(await session.resolve(target))).toEqual([tree.path("repo/a/AGENTS.md")]);
    expect(watcher.active()).toBe(false);
    expect(watcher.watchedDirs()).toEqual([]);
    expect(session.cache.revalidateMs).toBe(0);
    expect(errors.map((error) => (error as FsError).code)).toEqual(["ENOSPC"]);
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "watch-unavailable", path: tree.path("repo/a") }));
    // Stat validation sees an edit at once (window 0).
    await tree.write("repo/a/AGENTS.md", "A, edited");
    await tree.setMtime("repo/a/AGENTS.md", 2_000_000_000);
    expect(paths(await session.resolve(target))).toEqual([tree.path("repo/a/AGENTS.md")]);
    await watcher.close();
    expect(session.cache.revalidateMs).toBe(0);
  });

  it("falls back the same way when a watch breaks later", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo"), config: { cache: { revalidateMs: 0 } } });
    let breakIt: ((error: FsError) => void) | undefined;
    const breaking: WatchDirectory = (path, onEvent, onError) => {
      breakIt ??= onError;
      return watchDirectory(path, onEvent, onError);
    };
    const watcher = await watchSession(session, {}, breaking);
    expect(session.cache.revalidateMs).toBe(Number.POSITIVE_INFINITY);
    breakIt!(new FsError(`cannot watch ${tree.path("repo")}: EMFILE`, { path: tree.path("repo"), code: "EMFILE" }));
    expect(watcher.active()).toBe(false);
    expect(session.cache.revalidateMs).toBe(0);
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "watch-unavailable", fix: expect.stringContaining("ulimit") }));
  });

  it("reports instruction-file changes to onChange in debounced batches, and nothing about other files", async () => {
    const tree = await repo();
    const batches: string[][] = [];
    const { session, watcher } = await watched(tree, { debounceMs: 150, onChange: (batch) => batches.push(batch) });
    await session.resolve(tree.path("repo/a/file.ts"));
    await session.resolve(tree.path("repo/b/file.ts"));
    await watcher.settled();
    await tree.write("repo/a/file.ts", "export {};\n");
    await tree.write("repo/a/AGENTS.md", "A2");
    await tree.write("repo/b/AGENTS.md", "B");
    const all = () => new Set(batches.flat());
    await waitFor(all, (seen) => seen.has(tree.path("repo/a/AGENTS.md")) && seen.has(tree.path("repo/b/AGENTS.md")), "both changes to be reported");
    expect(batches.length).toBe(1);
    expect(all().has(tree.path("repo/a/file.ts"))).toBe(false);
  });

  it("starts from createSession({ watch: true }) and stops with session.close()", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo"), watch: true });
    expect(session.cache.revalidateMs).toBe(Number.POSITIVE_INFINITY);
    await session.close();
    expect(session.cache.revalidateMs).toBe(session.config.cache.revalidateMs);
  });

  it("is closed by session.close()", async () => {
    const tree = await repo();
    const session = await openSession(tree, { cwd: tree.path("repo") });
    const watcher = await watchSession(session);
    await session.close();
    expect(session.cache.revalidateMs).toBe(session.config.cache.revalidateMs);
    await expect(watcher.close()).resolves.toBeUndefined();
  });
});
