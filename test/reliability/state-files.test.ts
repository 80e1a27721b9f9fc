/**
 * Reliability (docs/reliability.md), state files: hostile and oversized documents exit 1 and leave the file as it was; a
 * writer killed mid-write leaves a state that parses; eight CLI processes on one state file lose
 * no update and present no file twice; stale locks are recovered, one breaker at a time.
 * Truncated, foreign, other-version, binary and empty files are in test/cli.test.ts.
 */
import { spawn } from "node:child_process";
import { open, readFile, readdir, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { StateError } from "../../src/core/errors.js";
import { ResolvedAgentsSchema, SessionStateSchema, type SessionState } from "../../src/core/schema.js";
import { MAX_STATE_BYTES, breakGuardPath, readStateFile, withLock } from "../../src/io/state-store.js";
import { createTree, makeFifo, openSession, runCli, type Tree } from "../helpers/tree.js";
import { REPO, deadPid, ensureBuilt, runBin } from "../helpers/bin.js";

async function repo(): Promise<Tree> {
  return createTree({ "repo/.git/": null, "repo/AGENTS.md": "root", "repo/pkg/AGENTS.md": "pkg" });
}

async function validState(tree: Tree): Promise<SessionState> {
  return (await openSession(tree, { cwd: tree.path("repo") })).snapshot();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("bad state files: exit 1, a message naming the file and the problem, the file untouched", () => {
  const cases: Array<[string, (state: SessionState) => string | Uint8Array, RegExp]> = [
    [
      "a __proto__ key at the top",
      (state) => JSON.stringify(state).replace('{"version"', '{"__proto__":{"polluted":true},"version"'),
      /Unrecognized key: "__proto__"/,
    ],
    [
      "a __proto__ key in the config",
      (state) => JSON.stringify({ ...state, config: JSON.parse('{"__proto__":{"enabled":false}}') }),
      /config: Unrecognized key: "__proto__"/,
    ],
    [
      "a constructor.prototype key",
      (state) => JSON.stringify({ ...state, config: { constructor: { prototype: { polluted: true } } } }),
      /config: Unrecognized key: "constructor"/,
    ],
    [
      "a __proto__ key in a loaded entry",
      (state) => JSON.stringify({ ...state, loaded: [JSON.parse('{"path":"/x","mtimeMs":1,"layer":"path","__proto__":{"polluted":true}}')] }),
      /loaded\.0/,
    ],
    ["a JSON array", () => "[]", /expected object/],
    ["JSON null", () => "null", /expected object/],
    ["a JSON string", () => '"state"', /expected object/],
    ["a missing key", (state) => JSON.stringify({ ...state, loaded: undefined }), /loaded/],
    ["a number as a string", (state) => JSON.stringify({ ...state, lazyLoadedFiles: "3" }), /lazyLoadedFiles/],
    ["a negative mtime", (state) => JSON.stringify({ ...state, loaded: [{ path: "/x", mtimeMs: -1, layer: "path" }] }), /loaded\.0\.mtimeMs/],
    ["an unknown layer", (state) => JSON.stringify({ ...state, loaded: [{ path: "/x", mtimeMs: 1, layer: "root" }] }), /loaded\.0\.layer/],
    ["version 0", (state) => JSON.stringify({ ...state, version: 0 }), /version 0; this agentsmd reads version 1/],
    ["a version string", (state) => JSON.stringify({ ...state, version: "1" }), /version "1"/],
    ["an invalid config inside", (state) => JSON.stringify({ ...state, config: { initial: { maxBytes: -1 } } }), /config\.initial\.maxBytes/],
    ["nesting 100,000 deep", () => `${"[".repeat(100_000)}${"]".repeat(100_000)}`, /expected object/],
    ["a huge array (1,000,001 covered dirs)", (state) => JSON.stringify({ ...state, coveredDirs: Array.from({ length: 1_000_001 }, () => "") }), /coveredDirs/],
  ];

  for (const [name, make, why] of cases) {
    it(`resolve exits 1 on ${name}`, async () => {
      const tree = await repo();
      const state = tree.path("s.json");
      await writeFile(state, make(await validState(tree)));
      const before = await readFile(state);
      const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "resolve", tree.path("repo/pkg/x.ts"), "--state", state], { cwd: tree.root });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(state);
      expect(run.stderr).toMatch(why);
      expect(run.stderr).toContain(`fix: delete ${state}`);
      expect((await readFile(state)).equals(before)).toBe(true);
      expect((await readdir(tree.root)).filter((entry) => entry.startsWith("s.json"))).toEqual(["s.json"]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  }

  it("a state file larger than the cap exits 1 without reading past it", async () => {
    const tree = await repo();
    const state = tree.path("s.json");
    const handle = await open(state, "w");
    await handle.truncate(MAX_STATE_BYTES + 1);
    await handle.close();
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "resume", "--state", state], { cwd: tree.root });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`larger than ${MAX_STATE_BYTES} bytes`);
    expect((await stat(state)).size).toBe(MAX_STATE_BYTES + 1);
  });

  it("a FIFO or a directory as the state file exits 1 at once (never blocks)", { timeout: 5000 }, async () => {
    const tree = await repo();
    const fifo = await makeFifo(tree, "fifo.json");
    await tree.add({ "dir.json/": null });
    for (const state of [fifo, tree.path("dir.json")]) {
      const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "resolve", "x.ts", "--state", state], { cwd: tree.root });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(state);
    }
    expect((await stat(fifo)).isFIFO()).toBe(true);
  });

  it("readStateFile never writes: a rejected file keeps its bytes and mtime", async () => {
    const tree = await repo();
    const state = await tree.write("s.json", '{"version":1,');
    await utimes(state, 1_700_000_000, 1_700_000_000);
    await expect(readStateFile(state)).rejects.toBeInstanceOf(StateError);
    expect((await stat(state)).mtimeMs).toBe(1_700_000_000_000);
  });
});

describe("processes on one state file (the built CLI)", () => {
  beforeAll(ensureBuilt, 180_000);

  it("a writer killed mid-write (SIGKILL) always leaves a state that parses", { timeout: 60_000 }, async () => {
    const tree = await repo();
    const state = tree.path("state/s.json");
    const base = tree.path("base.json");
    await writeFile(base, JSON.stringify(await validState(tree)));
    // Rewrites the state forever with bodies of 0.5-4 MiB, so a kill lands inside a write.
    const script = `
      import { readFileSync } from "node:fs";
      import { writeStateFile } from ${JSON.stringify(join(REPO, "dist/io/state-store.js"))};
      const base = JSON.parse(readFileSync(${JSON.stringify(base)}, "utf8"));
      for (let n = 0; ; n++) {
        await writeStateFile(${JSON.stringify(state)}, { ...base, initialMessage: "gen " + n + " " + "x".repeat(524288 * (1 + (n % 8))) });
        if (n === 0) process.stdout.write("ready\\n");
      }`;
    for (let round = 0; round < 6; round++) {
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      await sleep(10 + Math.random() * 120);
      const closed = new Promise((resolve) => child.once("close", resolve));
      child.kill("SIGKILL");
      await closed;
      const parsed = await readStateFile(state);
      expect(parsed?.initialMessage).toMatch(/^gen \d+ x+$/);
      expect(SessionStateSchema.parse(parsed)).toBeTruthy();
    }
    // Only temp files the killed writers left behind sit next to it; they never replace the state.
    for (const entry of await readdir(tree.path("state"))) expect(entry === "s.json" || /^s\.json\.\d+\..+\.tmp$/.test(entry)).toBe(true);
  });

  async function eightProcesses(tree: Tree, state: string) {
    const dirs = Array.from({ length: 16 }, (_, i) => `m${i}`);
    // Each directory is asked for by two processes.
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, p) =>
        runBin(
          [
            "--home",
            tree.home,
            "--cwd",
            tree.path("repo"),
            "--json",
            "resolve",
            ...[0, 1, 2, 3].map((k) => tree.path(`repo/${dirs[(2 * p + k) % 16]}/x.ts`)),
            "--state",
            state,
          ],
          {
            cwd: tree.root,
          },
        ),
      ),
    );
    for (const run of runs) expect(run).toMatchObject({ code: 0, stderr: "" });
    return { dirs, presented: runs.flatMap((run) => ResolvedAgentsSchema.parse(JSON.parse(run.stdout)).files.map((file) => file.path)) };
  }

  async function sixteen(): Promise<Tree> {
    const tree = await repo();
    const spec: Record<string, string> = {};
    for (let i = 0; i < 16; i++) spec[`repo/m${i}/AGENTS.md`] = `m${i}`;
    await tree.add({ ...spec, "state/": null });
    return tree;
  }

  it("eight concurrent resolve processes lose no update and present no file twice", { timeout: 60_000 }, async () => {
    const tree = await sixteen();
    await tree.add({ "state/": null });
    const state = tree.path("state/s.json");
    let reading = true;
    let reads = 0;
    const reader = (async () => {
      while (reading) {
        const parsed = await readStateFile(state);
        if (parsed) reads++;
        await sleep(1);
      }
    })();
    const { dirs, presented } = await eightProcesses(tree, state);
    reading = false;
    await reader;
    expect([...presented].sort()).toEqual(dirs.map((dir) => tree.path(`repo/${dir}/AGENTS.md`)).sort());
    const final = (await readStateFile(state))!;
    for (const dir of dirs) expect(final.loaded.map((entry) => entry.path)).toContain(tree.path(`repo/${dir}/AGENTS.md`));
    expect(reads).toBeGreaterThan(0);
    expect(await readdir(tree.path("state"))).toEqual(["s.json"]);
  });

  it("the same, starting from a lock left by a killed process", { timeout: 60_000 }, async () => {
    const tree = await sixteen();
    await tree.add({ "state/": null });
    const state = tree.path("state/s.json");
    await writeFile(`${state}.lock`, `${await deadPid()}\n`);
    const { dirs, presented } = await eightProcesses(tree, state);
    expect([...presented].sort()).toEqual(dirs.map((dir) => tree.path(`repo/${dir}/AGENTS.md`)).sort());
    expect(await readdir(tree.path("state"))).toEqual(["s.json"]);
  });
});

describe("stale locks (withLock)", () => {
  let dead = 0;
  beforeAll(async () => {
    dead = await deadPid();
  });

  async function lockTree() {
    const tree = await createTree({ "state/": null });
    const path = tree.path("state/s.json");
    await writeFile(path, "0");
    return { tree, path, lock: `${path}.lock` };
  }

  /** Eight contenders increment a counter under the lock with an await in between (a read-modify-write). */
  async function contend(path: string, count = 8) {
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: count }, async () => {
        await sleep(Math.random() * 4);
        await withLock(path, async () => {
          most = Math.max(most, ++inside);
          const n = Number(await readFile(path, "utf8"));
          await sleep(2);
          await writeFile(path, String(n + 1));
          inside--;
        });
      }),
    );
    return { most, total: Number(await readFile(path, "utf8")) };
  }

  it("breaks a lock whose owner is dead, at once", async () => {
    const { path, lock } = await lockTree();
    await writeFile(lock, `${dead}\n`);
    const started = Date.now();
    await withLock(path, async () => undefined, { timeoutMs: 2000 });
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(stat(lock)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("breaks a lock older than staleMs even when its pid is alive (pid reuse)", async () => {
    const { path, lock } = await lockTree();
    await writeFile(lock, `${process.pid}\n`);
    const old = Date.now() / 1000 - 60;
    await utimes(lock, old, old);
    await withLock(path, async () => undefined, { timeoutMs: 2000, staleMs: 30_000 });
  });

  it("waits for a live, fresh lock and times out with a message naming it, leaving it in place", async () => {
    const { path, lock } = await lockTree();
    await writeFile(lock, `${process.pid}\n`);
    const error = await withLock(path, async () => "ran", { timeoutMs: 200 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StateError);
    expect((error as StateError).message).toBe(`timed out waiting for the lock ${lock}`);
    expect((error as StateError).fix).toBe(`if no agentsmd process is running, delete ${lock}`);
    expect(await readFile(lock, "utf8")).toBe(`${process.pid}\n`);
  });

  it("does not judge a pid recorded by another host", async () => {
    const { path, lock } = await lockTree();
    await writeFile(lock, `${dead}\nanother-host.example\n`);
    await expect(withLock(path, async () => "ran", { timeoutMs: 200 })).rejects.toBeInstanceOf(StateError);
  });

  it("eight waiters on a stale lock never run at once and lose no update (one breaker at a time)", async () => {
    const { path, lock } = await lockTree();
    for (let round = 0; round < 15; round++) {
      await writeFile(path, "0");
      await writeFile(lock, `${dead}\n`);
      expect(await contend(path)).toEqual({ most: 1, total: 8 });
    }
  });

  it("recovers when a breaker died holding the break guard", async () => {
    const { path, lock } = await lockTree();
    for (let round = 0; round < 10; round++) {
      await writeFile(path, "0");
      await writeFile(lock, `${dead}\n`);
      await writeFile(breakGuardPath(lock, { text: `${dead}\n`, ino: (await stat(lock)).ino }), `${dead}\n`);
      expect(await contend(path)).toEqual({ most: 1, total: 8 });
    }
    expect(await readdir(join(path, ".."))).toEqual(["s.json"]);
  });

  it("does not delete a lock that is no longer its own when it finishes", async () => {
    const { path, lock } = await lockTree();
    await withLock(path, async () => {
      // Someone judged this holder stale and took the lock meanwhile.
      await writeFile(lock, "12345\nelsewhere\nother-token\n");
    });
    expect(await readFile(lock, "utf8")).toBe("12345\nelsewhere\nother-token\n");
  });
});
