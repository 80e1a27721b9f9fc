/**
 * Reliability (docs/reliability.md), permissions: an unreadable file, an unreadable or unsearchable directory in the chain,
 * and I/O errors. Injected through the file-system seam (tests run as root, where chmod changes
 * nothing), then once for real with the built CLI run as `nobody` when that is possible.
 */
import { spawnSync } from "node:child_process";
import { chmod, chown } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createTree, openSession } from "../helpers/tree.js";
import { fsError, injectFs, under } from "../helpers/faults.js";
import { REPO, ensureBuilt, runBin } from "../helpers/bin.js";

const files = (list: ReadonlyArray<{ path: string }>) => list.map((file) => file.path);

async function chainTree() {
  return createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "root",
    "repo/a/AGENTS.md": "a",
    "repo/a/locked/AGENTS.md": "locked",
    "repo/a/locked/deep/AGENTS.md": "deep",
    "repo/b/AGENTS.md": "b",
  });
}

describe("an unreadable instruction file", () => {
  for (const code of ["EACCES", "EPERM", "EIO"]) {
    it(`touch skips it on ${code} with a diagnostic, delivers the rest, and offers it again once readable`, async () => {
      const tree = await chainTree();
      const bad = tree.path("repo/a/AGENTS.md");
      let broken = true;
      const fs = injectFs({ read: ([path, max], next) => (broken && path === bad ? Promise.reject(fsError(path, code, "open")) : next(path, max)) });
      const session = await openSession(tree, { cwd: tree.path("repo"), fs });
      expect(files(await session.touch([tree.path("repo/a/locked/deep/x.ts")]))).toEqual([
        tree.path("repo/a/locked/AGENTS.md"),
        tree.path("repo/a/locked/deep/AGENTS.md"),
      ]);
      expect(session.diagnostics).toContainEqual(expect.objectContaining({ level: "warning", code: `read-${code}`, path: bad }));
      expect(session.loadedVersion(bad)).toBeUndefined();
      broken = false;
      expect(files(await session.touch([tree.path("repo/a/x.ts")]))).toEqual([bad]);
    });
  }
});

describe("an unreadable or unsearchable directory in the chain", () => {
  /** stat, lstat and realpath of anything below `dir` fail with `code`, as a directory without search permission does. */
  function lockedDir(dir: string, code = "EACCES") {
    let locked = true;
    const below = (path: string) => locked && path !== dir && under(path, dir);
    const fs = injectFs({
      stat: ([path], next) => (below(path) ? Promise.reject(fsError(path, code, "stat")) : next(path)),
      lstat: ([path], next) => (below(path) ? Promise.reject(fsError(path, code, "lstat")) : next(path)),
      realpath: ([path], next) => (below(path) ? Promise.reject(fsError(path, code, "resolve")) : next(path)),
      read: ([path, max], next) => (locked && under(path, dir) ? Promise.reject(fsError(path, code, "open")) : next(path, max)),
    });
    return { fs, unlock: () => (locked = false) };
  }

  it("the initial load skips what is below it with a diagnostic naming the path, and keeps the rest", async () => {
    const tree = await chainTree();
    const { fs } = lockedDir(tree.path("repo/a/locked"));
    const session = await openSession(tree, { cwd: tree.path("repo/a/locked/deep"), fs });
    expect(files(session.initialFiles)).toEqual([tree.path("repo/AGENTS.md"), tree.path("repo/a/AGENTS.md")]);
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "probe-EACCES", path: tree.path("repo/a/locked/AGENTS.md") }));
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "probe-EACCES", path: tree.path("repo/a/locked/deep/AGENTS.md") }));
  });

  it("resolve returns the readable part of the chain, and the rest once the directory is readable again", async () => {
    const tree = await chainTree();
    const { fs, unlock } = lockedDir(tree.path("repo/a/locked"));
    const session = await openSession(tree, { cwd: tree.path("repo/b"), fs, config: { cache: { revalidateMs: 0 } } });
    const target = tree.path("repo/a/locked/deep/x.ts");
    expect(files((await session.resolve(target)).files)).toEqual([tree.path("repo/a/AGENTS.md")]);
    expect(session.diagnostics.map((each) => each.code)).toContain("probe-EACCES");
    unlock();
    expect(files((await session.resolve(target)).files)).toEqual([tree.path("repo/a/locked/AGENTS.md"), tree.path("repo/a/locked/deep/AGENTS.md")]);
  });

  it("an I/O error (EIO) on a directory probe is reported and the walk goes on", async () => {
    const tree = await chainTree();
    const { fs } = lockedDir(tree.path("repo/a/locked"), "EIO");
    const session = await openSession(tree, { cwd: tree.path("repo"), fs });
    expect(files((await session.resolve(tree.path("repo/a/locked/deep/x.ts"))).files)).toEqual([tree.path("repo/a/AGENTS.md")]);
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "probe-EIO" }));
  });

  it("an unreadable root marker counts as absent, so the walk finds the next one up", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "outer", "inner/.git/": null, "inner/AGENTS.md": "inner" });
    const fs = injectFs({ stat: ([path], next) => (path === tree.path("inner/.git") ? Promise.reject(fsError(path, "EACCES", "stat")) : next(path)) });
    const session = await openSession(tree, { cwd: tree.path("inner"), fs });
    expect(session.root).toBe(tree.root);
    expect(files(session.initialFiles)).toEqual([tree.path("AGENTS.md"), tree.path("inner/AGENTS.md")]);
  });
});

const NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
// Also needs the checkout itself to be reachable by nobody (a clone under a 0700 temp dir is not).
const canDropPrivileges =
  process.getuid?.() === 0 &&
  spawnSync("setpriv", ["--version"]).status === 0 &&
  spawnSync(NOBODY[0]!, [...NOBODY.slice(1), process.execPath, "-e", "require('fs').accessSync(process.argv[1])", join(REPO, "package.json")]).status === 0;

describe.runIf(canDropPrivileges)("for real, as nobody (setpriv)", () => {
  beforeAll(ensureBuilt, 180_000);

  it("an unreadable file and an unsearchable directory are skipped with warnings naming them; the rest loads; exit 0", async () => {
    const tree = await chainTree();
    await tree.add({ "state/": null });
    await chmod(tree.root, 0o755);
    await chmod(tree.home, 0o755);
    // nobody's own state directory: one anyone may write is refused (issue 18 row 10).
    await chown(tree.path("state"), 65534, 65534);
    await chmod(tree.path("state"), 0o700);
    await chmod(tree.path("repo/a/AGENTS.md"), 0o000);
    await chmod(tree.path("repo/a/locked"), 0o600); // readable, not searchable
    const asNobody = { prefix: NOBODY, cwd: "/" };
    try {
      const list = await runBin(["--home", tree.home, "--cwd", tree.path("repo/a"), "--json", "list"], asNobody);
      expect(list.code).toBe(0);
      expect(JSON.parse(list.stdout).files.map((file: { path: string }) => file.path)).toEqual([tree.path("repo/AGENTS.md")]);
      expect(list.stderr).toContain(`cannot read ${tree.path("repo/a/AGENTS.md")}`);

      const state = tree.path("state/s.json");
      const resolve = await runBin(
        ["--home", tree.home, "--cwd", tree.path("repo/a"), "--json", "resolve", tree.path("repo/a/locked/deep/x.ts"), "--state", state],
        asNobody,
      );
      expect(resolve.code).toBe(0);
      // The unreadable file exists: it is offered (the model's own read will fail visibly); nothing below the locked directory is.
      expect(JSON.parse(resolve.stdout).files.map((file: { path: string }) => file.path)).toEqual([tree.path("repo/a/AGENTS.md")]);
      expect(resolve.stderr).toContain(`${tree.path("repo/a/locked/AGENTS.md")}: EACCES`);
    } finally {
      await chmod(tree.path("repo/a/locked"), 0o755);
    }
  });
});
