/**
 * The FileSystem port covers writes, so faults reach state, lock and config files: a failed write
 * names the path and leaves the old file as it was; a lock that cannot be created never runs the
 * critical section; a config file that cannot be read is a ConfigError naming it.
 */
import { dirname } from "node:path";
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ConfigError, FsError, StateError } from "../../src/core/errors.js";
import { countingFileSystem } from "../../src/io/file-system.js";
import { readStateFile, withLock, writeStateFile } from "../../src/io/state-store.js";
import { loadConfigFile } from "../../src/load/config.js";
import { createSession } from "../../src/session/session.js";
import { fsError, injectFs } from "../helpers/faults.js";
import { createTree, openSession } from "../helpers/tree.js";

describe("write faults through the FileSystem port", () => {
  it("a state write that fails (EIO at rename) throws FsError naming the file and keeps the old state", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root", "pkg/AGENTS.md": "pkg" });
    const file = tree.path("state.json");
    const first = (await openSession(tree, { cwd: tree.path() })).snapshot();
    await writeStateFile(file, first);
    const before = await readFile(file, "utf8");
    const session = await openSession(tree, { cwd: tree.path() });
    await session.resolve(tree.path("pkg/x.ts"));
    const fs = injectFs({ writeAtomic: ([path]) => Promise.reject(fsError(path, "EIO", "write")) });
    const error = await writeStateFile(file, session.snapshot(), fs).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FsError);
    expect((error as FsError).path).toBe(file);
    expect(await readFile(file, "utf8")).toBe(before);
    expect(await readStateFile(file)).toEqual(first);
  });

  it("a lock that cannot be created (EACCES) fails with the lock's path and never runs the critical section", async () => {
    const tree = await createTree({});
    const fs = injectFs({ createExclusive: ([path]) => Promise.reject(fsError(path, "EACCES", "create")) });
    let ran = false;
    const error = await withLock(tree.path("s.json"), async () => void (ran = true), { fs }).catch((caught: unknown) => caught);
    expect(ran).toBe(false);
    // The lock's own errno is the cause; the error names the lock, the directory and the way out.
    expect(error).toBeInstanceOf(StateError);
    expect((error as StateError).message).toContain(tree.path("s.json.lock"));
    expect((error as StateError).path).toBe(dirname(tree.path("s.json.lock")));
    expect((error as StateError).fix).toContain("XDG_STATE_HOME");
    expect((error as StateError).cause).toBeInstanceOf(FsError);
    expect(((error as StateError).cause as FsError).path).toBe(tree.path("s.json.lock"));
  });

  it("lock files go through the port: create, check and remove are counted, and none is left", async () => {
    const tree = await createTree({});
    const { fs, counters } = countingFileSystem();
    expect(await withLock(tree.path("s.json"), async () => "done", { fs })).toBe("done");
    expect(counters.write).toBeGreaterThanOrEqual(2); // createExclusive + remove
    await expect(readFile(tree.path("s.json.lock"), "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("a config file read fault is a ConfigError naming the file, also through createSession({ fs })", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root" });
    const config = tree.path("agentsmd.json");
    await writeFile(config, JSON.stringify({ initial: { maxFiles: 1 } }));
    const fs = injectFs({ read: ([path, max], next) => (path === config ? Promise.reject(fsError(path, "EACCES")) : next(path, max)) });
    const direct = await loadConfigFile(config, fs).catch((caught: unknown) => caught);
    expect(direct).toBeInstanceOf(ConfigError);
    expect((direct as ConfigError).message).toContain(config);
    const viaSession = await createSession({ cwd: tree.path(), home: tree.home, env: {}, configFile: config, fs }).catch((caught: unknown) => caught);
    expect(viaSession).toBeInstanceOf(ConfigError);
    // The same file read through the real file system works.
    await expect(loadConfigFile(config)).resolves.toMatchObject({ initial: { maxFiles: 1 } });
  });
});
