/**
 * Issue 18 rows 9-10 on every host (host-table.ts) and the CLI's `--state`: a state file swapped
 * for a symbolic link, a FIFO or a device is refused, never written through (the user's file keeps
 * its bytes, the FIFO and the device stay what they were, a dangling link's target is not created,
 * a lock file that is a link is refused at once); a state directory another user owns, or that
 * group or others may write, is refused before anything in it is read or written. FIFOs and
 * devices are tried in child processes with a timeout (the built CLI and the built plugins), so a
 * blocking open fails the row instead of hanging the suite.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { StateError } from "../../src/core/errors.js";
import { closeDirectory } from "../../src/io/file-system.js";
import { HOOK_HOSTS } from "../../src/integrations/hosts.js";
import { conversationPath } from "../../src/integrations/host/store.js";
import { createTree, makeFifo, runCli, type Tree } from "../helpers/tree.js";
import { BIN, REPO, ensureBuilt } from "../helpers/bin.js";
import { injectFs } from "../helpers/faults.js";
import { HOOK_EVENTS, hostCases, type HostCase } from "./host-table.js";
import { KiloAgents } from "../../src/integrations/kilo/index.js";
import { OpenCodeAgents } from "../../src/integrations/opencode/index.js";

const HOSTS = hostCases();
/** Someone else: nobody. */
const OTHER_UID = 65534;
const USER_BYTES = "the user's own file\n";

async function repo(): Promise<Tree> {
  // A CLAUDE.md turns Claude Code's own AGENTS.md loading off, so the hook delivers AGENTS.md itself.
  const tree = await createTree({
    "r/.git/": null,
    "r/CLAUDE.md": "CLAUDE\n",
    "r/AGENTS.md": "ROOT\n",
    "r/pkg/AGENTS.md": "PKG\n",
    "r/pkg/x.ts": "x\n",
    "user/notes.txt": USER_BYTES,
  });
  return tree;
}

/** What a call came to: its answer ("" for none), or the error it failed with (hook runners throw; plugins swallow). */
async function attempt(call: () => Promise<string>): Promise<{ text: string; error?: unknown }> {
  try {
    return { text: await call() };
  } catch (error) {
    return { text: "", error };
  }
}

/** The names in a directory, or [] when it is not there. */
function names(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Runs node with `args`, killed after `timeoutMs`: a blocking open is a failure, not a hang. */
function run(args: string[], options: { stdin?: string; env?: Record<string, string>; timeoutMs?: number } = {}) {
  return new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string; ms: number }>((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? "", ...options.env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 15_000);
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
    child.stdin.end(options.stdin ?? "");
  });
}

/** One tool call of `host` reading `path`, in its own process: the built hook, or the built plugin. */
function readInChild(host: string, setup: { cwd: string; home: string; stateDir: string; id: string; path: string }) {
  const env = { HOME: setup.home };
  const events = HOOK_EVENTS[host];
  if (events) {
    const flags = Object.entries(events.flags?.("read") ?? {}).flatMap(([name, value]) => {
      const flag = HOOK_HOSTS[host]!.flags!.find((entry) => entry.name === name)!;
      return [flag.flags.split(" ")[0]!, value];
    });
    const stdin = JSON.stringify(events.read(setup.cwd, setup.id, setup.path));
    return run([BIN, "hook", host, ...flags, "--state-dir", setup.stateDir], { stdin, env });
  }
  const dist = (module: string) => JSON.stringify(join(REPO, "dist/integrations", module));
  const s = JSON.stringify(setup);
  const script =
    host === "pi"
      ? `import { PiAgents } from ${dist("pi/index.js")}; const s = ${s};
         const agents = new PiAgents({ stateDir: s.stateDir }, { home: s.home, env: {} });
         const delivered = await agents.afterTool(s.id, s.cwd, "read", { path: s.path }).catch((error) => void console.error(String(error)));
         process.stdout.write(delivered?.text ?? "");
         process.exit(0);`
      : `import { ${host === "kilo" ? "KiloAgents" : "OpenCodeAgents"} as Agents } from ${dist(`${host}/index.js`)}; const s = ${s};
         const agents = new Agents({ directory: s.cwd, worktree: s.cwd, home: s.home, env: {} }, { stateDir: s.stateDir });
         const output = { title: "", output: "x", metadata: {} };
         await agents.hooks()["tool.execute.after"]({ tool: "read", sessionID: s.id, callID: "c1", args: { filePath: s.path } }, output);
         process.stdout.write(output.output);
         process.exit(0);`;
  return run(["--input-type=module", "-e", script], { env });
}

describe.each(HOSTS.map((host) => [host.name, host] as [string, HostCase]))("host %s", (name, host) => {
  describe("row 9: a state file that is not a regular file is never written through", () => {
    it("a link to the user's file: the file keeps its bytes, the link stays, nothing is answered or saved", async () => {
      const tree = await repo();
      const conversation = host.open({ cwd: tree.path("r"), home: tree.home, env: {}, id: "linked" }, tree.path("state"));
      const statePath = conversationPath(conversation.stateDir, { id: "linked" });
      mkdirSync(conversation.stateDir, { recursive: true, mode: 0o700 });
      symlinkSync(tree.path("user/notes.txt"), statePath);
      const outcome = await attempt(() => conversation.read(tree.path("r/pkg/x.ts")));
      expect(outcome.text, name).toBe("");
      if (outcome.error !== undefined) {
        expect(outcome.error).toBeInstanceOf(StateError);
        expect(String((outcome.error as Error).message)).toContain(`${statePath} is a symbolic link`);
      }
      expect(readFileSync(tree.path("user/notes.txt"), "utf8")).toBe(USER_BYTES);
      expect(readlinkSync(statePath)).toBe(tree.path("user/notes.txt"));
      // Nothing else appeared: no temp file, no lock left, no state written beside it.
      expect(names(conversation.stateDir)).toEqual(["linked.json"]);
      expect(names(tree.path("user"))).toEqual(["notes.txt"]);
    });

    it("a link to another state file (a valid one): it is not read nor replaced", async () => {
      const tree = await repo();
      const first = host.open({ cwd: tree.path("r"), home: tree.home, env: {}, id: "first" }, tree.path("state"));
      await first.start();
      await first.read(tree.path("r/pkg/x.ts"));
      const firstPath = conversationPath(first.stateDir, { id: "first" });
      const before = readFileSync(firstPath, "utf8");
      const second = host.open({ cwd: tree.path("r"), home: tree.home, env: {}, id: "second" }, tree.path("state"));
      symlinkSync(firstPath, conversationPath(second.stateDir, { id: "second" }));
      await tree.write("r/other/AGENTS.md", "OTHER\n");
      await tree.write("r/other/y.ts", "y\n");
      expect((await attempt(() => second.read(tree.path("r/other/y.ts")))).text, name).toBe("");
      expect(readFileSync(firstPath, "utf8")).toBe(before);
    });

    it("a dangling link: nothing is created where it points", async () => {
      const tree = await repo();
      const conversation = host.open({ cwd: tree.path("r"), home: tree.home, env: {}, id: "dangling" }, tree.path("state"));
      const statePath = conversationPath(conversation.stateDir, { id: "dangling" });
      mkdirSync(conversation.stateDir, { recursive: true, mode: 0o700 });
      symlinkSync(tree.path("user/planted.json"), statePath);
      expect((await attempt(() => conversation.read(tree.path("r/pkg/x.ts")))).text, name).toBe("");
      expect(existsSync(tree.path("user/planted.json"))).toBe(false);
      expect(lstatSync(statePath).isSymbolicLink()).toBe(true);
    });

    it.skipIf(name === "kilo" || name === "opencode")("the lock file a link to the user's file: refused at once, the file keeps its bytes", async () => {
      const tree = await repo();
      const conversation = host.open({ cwd: tree.path("r"), home: tree.home, env: {}, id: "locked" }, tree.path("state"));
      await conversation.start();
      const statePath = conversationPath(conversation.stateDir, { id: "locked" });
      mkdirSync(conversation.stateDir, { recursive: true, mode: 0o700 });
      symlinkSync(tree.path("user/notes.txt"), `${statePath}.lock`);
      const started = Date.now();
      const outcome = await attempt(() => conversation.read(tree.path("r/pkg/x.ts")));
      // At once: not after the lock's 10-second wait.
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(outcome.text, name).toBe("");
      if (outcome.error !== undefined) expect(String((outcome.error as Error).message)).toContain(`${statePath}.lock is a symbolic link`);
      expect(readFileSync(tree.path("user/notes.txt"), "utf8")).toBe(USER_BYTES);
      expect(lstatSync(`${statePath}.lock`).isSymbolicLink()).toBe(true);
    });
  });

  describe("row 10: a state directory others may write is refused", () => {
    /** The host's default state directory under XDG_STATE_HOME=<tree>/shared, made by `prepare`; one call reading pkg/x.ts. */
    async function attack(prepare: (shared: string, dir: string) => void) {
      const tree = await repo();
      const shared = tree.path("shared");
      const dir = join(shared, "agentsmd", name);
      prepare(shared, dir);
      const listing = () => [names(join(shared, "agentsmd")), names(dir)];
      const before = listing();
      const env = { HOME: tree.home, XDG_STATE_HOME: shared };
      const conversation = host.open({ cwd: tree.path("r"), home: tree.home, env, id: "victim", defaultStateDir: true }, "");
      const start = await attempt(() => conversation.start());
      const read = await attempt(() => conversation.read(tree.path("r/pkg/x.ts")));
      return { tree, dir, start, read, before, after: listing() };
    }

    it("agentsmd/<host> made 0777 by another user, a link planted in it: refused, nothing written, the user's file keeps its bytes", async () => {
      let user = "";
      const result = await attack((shared, dir) => {
        mkdirSync(dir, { recursive: true });
        chmodSync(dir, 0o777);
        chownSync(dir, OTHER_UID, OTHER_UID);
        user = join(shared, "..", "user/notes.txt");
        symlinkSync(user, join(dir, "victim.json"));
      });
      expect([result.start.text, result.read.text], name).toEqual(["", ""]);
      for (const outcome of [result.start, result.read]) {
        if (outcome.error === undefined) continue;
        expect(outcome.error).toBeInstanceOf(StateError);
        expect((outcome.error as StateError).message).toContain(`state directory ${result.dir} belongs to uid ${OTHER_UID}`);
        expect((outcome.error as StateError).fix).toContain("XDG_STATE_HOME");
      }
      expect(result.after).toEqual(result.before);
      expect(readFileSync(user, "utf8")).toBe(USER_BYTES);
    });

    it("agentsmd/ made 0777 by another user: no directory of the user's is made inside it", async () => {
      const result = await attack((shared) => {
        mkdirSync(join(shared, "agentsmd"), { recursive: true });
        chmodSync(join(shared, "agentsmd"), 0o777);
        chownSync(join(shared, "agentsmd"), OTHER_UID, OTHER_UID);
      });
      expect([result.start.text, result.read.text], name).toEqual(["", ""]);
      expect(result.after).toEqual([[], []]);
    });

    it("the user's own agentsmd/ and agentsmd/<host>, group-writable (an older agentsmd under umask 002): closed to 0700, and the call works", async () => {
      const result = await attack((_shared, dir) => {
        mkdirSync(dir, { recursive: true });
        chmodSync(dirname(dir), 0o775);
        chmodSync(dir, 0o770);
      });
      for (const outcome of [result.start, result.read]) expect(outcome.error, name).toBeUndefined();
      expect(result.read.text, name).toContain("PKG");
      for (const level of [dirname(result.dir), result.dir]) expect((lstatSync(level).mode & 0o777).toString(8), level).toBe("700");
    });

    it("directories agentsmd makes for state are 0700, and a call works there", async () => {
      const tree = await repo();
      const xdg = tree.path("fresh/xdg");
      const conversation = host.open(
        { cwd: tree.path("r"), home: tree.home, env: { HOME: tree.home, XDG_STATE_HOME: xdg }, id: "fine", defaultStateDir: true },
        "",
      );
      await conversation.start();
      expect(await conversation.read(tree.path("r/pkg/x.ts")), name).toContain("PKG");
      for (const dir of [xdg, join(xdg, "agentsmd"), join(xdg, "agentsmd", name)]) expect((lstatSync(dir).mode & 0o777).toString(8), dir).toBe("700");
    });
  });
});

describe("rows 9-10 in separate processes: a FIFO or a device never blocks a call and stays what it was", () => {
  beforeAll(ensureBuilt, 180_000);

  it.each(HOSTS.map((host) => host.name))("host %s: a FIFO, a device, and links to each at the state path", async (name) => {
    const tree = await repo();
    const fifo = await makeFifo(tree, "user/pipe");
    const device = tree.path("user/null-like");
    // A character device with /dev/null's numbers, in the tree: a write through it would replace the node.
    execFileSync("mknod", [device, "c", "1", "3"]);
    const rdev = lstatSync(device).rdev;
    const kinds: Array<[string, (at: string) => void]> = [
      // The control: with nothing in the way, the same call answers and saves.
      ["regular", () => undefined],
      ["fifo", (at) => execFileSync("mkfifo", [at])],
      ["link-to-fifo", (at) => symlinkSync(fifo, at)],
      ["device", (at) => execFileSync("mknod", [at, "c", "1", "3"])],
      ["link-to-device", (at) => symlinkSync(device, at)],
    ];
    const results = await Promise.all(
      kinds.map(async ([kind, make]) => {
        const stateDir = tree.path(`state-${kind}`);
        mkdirSync(stateDir, { mode: 0o700 });
        const at = conversationPath(stateDir, { id: kind });
        make(at);
        const result = await readInChild(name, { cwd: tree.path("r"), home: tree.home, stateDir, id: kind, path: tree.path("r/pkg/x.ts") });
        return { kind, at, stateDir, result };
      }),
    );
    for (const { kind, at, stateDir, result } of results) {
      expect(result.signal, `${name} ${kind}: killed after ${result.ms} ms\n${result.stderr}`).toBeNull();
      expect(result.code, `${name} ${kind}\n${result.stderr}`).toBe(0);
      if (kind === "regular") {
        expect(result.stdout, `${name}\n${result.stderr}`).toContain("PKG");
        expect(lstatSync(at).isFile()).toBe(true);
        continue;
      }
      expect(result.stdout.replace(/^x$/, ""), `${name} ${kind}`).toBe("");
      // The hooks and pi's extension say which file (the plugins of the OpenCode family have no stderr of their own).
      if (name !== "kilo" && name !== "opencode") expect(result.stderr, `${name} ${kind}`).toContain(at);
      const info = lstatSync(at);
      if (kind.startsWith("link")) expect(info.isSymbolicLink(), kind).toBe(true);
      else expect(kind === "fifo" ? info.isFIFO() : info.isCharacterDevice(), kind).toBe(true);
      expect(names(stateDir), `${name} ${kind}`).toEqual([`${kind}.json`]);
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync(device).isCharacterDevice()).toBe(true);
    expect(lstatSync(device).rdev).toBe(rdev);
  });

  it("the built hook: a refused state directory is one line on stderr, exit 0, no answer, nothing written", async () => {
    const tree = await repo();
    const dir = tree.path("shared/agentsmd/claude-code");
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777);
    chownSync(dir, OTHER_UID, OTHER_UID);
    const event = HOOK_EVENTS["claude-code"]!.read(tree.path("r"), "s1", tree.path("r/pkg/x.ts"));
    const result = await run([BIN, "hook", "claude-code", "--agents-md", "inject"], {
      stdin: JSON.stringify(event),
      env: { HOME: tree.home, XDG_STATE_HOME: tree.path("shared") },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`agentsmd hook claude-code: state directory ${dir} belongs to uid ${OTHER_UID}`);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(names(dir)).toEqual([]);
  });
});

describe("rows 9-10 through the CLI's --state (resolve, touch, resume)", () => {
  const commands = (state: string, tree: Tree) => [
    ["resolve", tree.path("r/pkg/x.ts"), "--state", state],
    ["touch", tree.path("r/pkg/x.ts"), "--state", state],
    ["resume", "--state", state],
  ];
  const cli = (tree: Tree, argv: string[]) => runCli(["--home", tree.home, "--cwd", tree.path("r"), ...argv]);

  it("a link to another valid state file, a link to the user's file, a dangling link: exit 1 naming the file, nothing written through", async () => {
    const tree = await repo();
    mkdirSync(tree.path("st"), { mode: 0o700 });
    const real = tree.path("st/real.json");
    expect((await cli(tree, ["resolve", tree.path("r/pkg/x.ts"), "--state", real])).code).toBe(0);
    const realBytes = readFileSync(real, "utf8");
    for (const [link, target] of [
      ["st/to-state.json", real],
      ["st/to-user.json", tree.path("user/notes.txt")],
      ["st/dangling.json", tree.path("user/planted.json")],
    ] as const) {
      symlinkSync(target, tree.path(link));
      for (const argv of commands(tree.path(link), tree)) {
        const result = await cli(tree, argv);
        expect(result.code, `${argv[0]} ${link}`).toBe(1);
        expect(result.stderr).toContain(`${tree.path(link)} is a symbolic link`);
        expect(result.stderr).toContain(`fix: remove ${tree.path(link)}`);
        expect(readlinkSync(tree.path(link))).toBe(target);
      }
    }
    expect(readFileSync(real, "utf8")).toBe(realBytes);
    expect(readFileSync(tree.path("user/notes.txt"), "utf8")).toBe(USER_BYTES);
    expect(existsSync(tree.path("user/planted.json"))).toBe(false);
    expect(names(tree.path("st"))).toEqual(["dangling.json", "real.json", "to-state.json", "to-user.json"]);
  });

  it("the lock file a link to the user's file: exit 1 at once naming the lock", async () => {
    const tree = await repo();
    mkdirSync(tree.path("st"), { mode: 0o700 });
    symlinkSync(tree.path("user/notes.txt"), tree.path("st/s.json.lock"));
    const started = Date.now();
    const result = await cli(tree, ["resolve", tree.path("r/pkg/x.ts"), "--state", tree.path("st/s.json")]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${tree.path("st/s.json.lock")} is a symbolic link`);
    expect(readFileSync(tree.path("user/notes.txt"), "utf8")).toBe(USER_BYTES);
    expect(names(tree.path("st"))).toEqual(["s.json.lock"]);
  });

  it("a --state file in a directory another user owns, or group or others may write: exit 1 naming the directory and the fix; nothing written", async () => {
    const tree = await repo();
    for (const [rel, mode, owner] of [
      ["theirs", 0o755, OTHER_UID],
      ["open", 0o777, 0],
      ["group", 0o770, 0],
      ["sticky", 0o1777, 0],
    ] as const) {
      const dir = tree.path(rel);
      mkdirSync(dir);
      chmodSync(dir, mode);
      chownSync(dir, owner, owner);
      for (const argv of commands(join(dir, "s.json"), tree)) {
        const result = await cli(tree, argv);
        expect(result.code, `${argv[0]} ${rel}`).toBe(1);
        expect(result.stderr, rel).toContain(`state directory ${dir} `);
        expect(result.stderr, rel).toMatch(owner === 0 ? `fix: chmod 700 ${dir}` : `fix: have uid ${OTHER_UID} remove ${dir}`);
        expect(names(dir), rel).toEqual([]);
      }
    }
    // A --state file's directory must exist (nothing is created behind the user's back); the user's own 0700 one works.
    expect((await cli(tree, ["resolve", tree.path("r/pkg/x.ts"), "--state", tree.path("new/deep/s.json")])).code).toBe(1);
    expect(existsSync(tree.path("new"))).toBe(false);
    mkdirSync(tree.path("mine"), { mode: 0o700 });
    expect((await cli(tree, ["resolve", tree.path("r/pkg/x.ts"), "--state", tree.path("mine/s.json")])).code).toBe(0);
    expect(names(tree.path("mine"))).toEqual(["s.json"]);
  });

  it("a FIFO, a device and links to them as --state: exit 1 at once in a child process, each stays what it was", async () => {
    await ensureBuilt();
    const tree = await repo();
    mkdirSync(tree.path("st"), { mode: 0o700 });
    const fifo = await makeFifo(tree, "st/pipe");
    execFileSync("mknod", [tree.path("st/dev"), "c", "1", "3"]);
    symlinkSync(fifo, tree.path("st/to-pipe"));
    symlinkSync(tree.path("st/dev"), tree.path("st/to-dev"));
    for (const rel of ["st/pipe", "st/dev", "st/to-pipe", "st/to-dev"]) {
      const result = await run([BIN, "--home", tree.home, "--cwd", tree.path("r"), "resolve", tree.path("r/pkg/x.ts"), "--state", tree.path(rel)]);
      expect(result.signal, `${rel}: killed after ${result.ms} ms`).toBeNull();
      expect(result.code, rel).toBe(1);
      expect(result.stderr, rel).toContain(tree.path(rel));
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync(tree.path("st/dev")).isCharacterDevice()).toBe(true);
    expect(names(tree.path("st"))).toEqual(["dev", "pipe", "to-dev", "to-pipe"]);
  }, 60_000);
});

describe("row 9: a link swapped in between the read and the save", () => {
  it("the save replaces the link itself: the user's file keeps its bytes (the hosts' shared store, through Claude Code's runner)", async () => {
    const tree = await repo();
    const stateDir = tree.path("state");
    const statePath = conversationPath(stateDir, { id: "raced" });
    // Whoever writes in the state directory swaps the state file for a link just before agentsmd saves.
    const fs = injectFs({
      writeAtomic: ([path, data], next) => {
        if (path === statePath) {
          rmSync(statePath, { force: true });
          symlinkSync(tree.path("user/notes.txt"), statePath);
        }
        return next(path, data);
      },
    });
    const runner = await HOOK_HOSTS["claude-code"]!.load();
    const event = (hook: "start" | "read") =>
      JSON.stringify(
        hook === "start"
          ? HOOK_EVENTS["claude-code"]!.start(tree.path("r"), "raced")
          : HOOK_EVENTS["claude-code"]!.read(tree.path("r"), "raced", tree.path("r/pkg/x.ts")),
      );
    let answer: unknown = null;
    const options = {
      flags: { agentsMd: "inject" },
      env: {},
      home: tree.home,
      stateDir,
      session: { fs },
      deliver: (output: unknown) => void (answer = output),
    };
    await runner(event("start"), options);
    expect(readFileSync(tree.path("user/notes.txt"), "utf8")).toBe(USER_BYTES);
    expect(lstatSync(statePath).isFile()).toBe(true);
    // The conversation goes on from the state saved.
    await runner(event("read"), options);
    expect(JSON.stringify(answer)).toContain("PKG");
    expect(readFileSync(tree.path("user/notes.txt"), "utf8")).toBe(USER_BYTES);
  });
});

describe("row 10: the OpenCode-family plugins delete nothing in a state directory others may write", () => {
  it.each([
    ["kilo", KiloAgents],
    ["opencode", OpenCodeAgents],
  ] as const)("%s: session.deleted leaves the files of a 0777 directory of another user", async (_name, Agents) => {
    const tree = await repo();
    const dir = tree.path("shared/state");
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777);
    chownSync(dir, OTHER_UID, OTHER_UID);
    symlinkSync(tree.path("user/notes.txt"), join(dir, "victim.json"));
    const agents = new Agents({ directory: tree.path("r"), worktree: tree.path("r"), home: tree.home, env: {} }, { stateDir: dir });
    await agents.hooks().event!({ event: { type: "session.deleted", properties: { info: { id: "victim" } } } } as never);
    expect(names(dir)).toEqual(["victim.json"]);
    // Its own directory: the state file goes.
    const own = new Agents({ directory: tree.path("r"), worktree: tree.path("r"), home: tree.home, env: {} }, { stateDir: tree.path("own") });
    mkdirSync(tree.path("own"), { mode: 0o700 });
    writeFileSync(tree.path("own/gone.json"), "{}\n");
    await own.hooks().event!({ event: { type: "session.deleted", properties: { info: { id: "gone" } } } } as never);
    expect(names(tree.path("own"))).toEqual([]);
  });
});

describe("closing an older agentsmd folder to group and others", () => {
  it("changes the directory itself, never through a link, and only agentsmd's own folders (a --state directory stays refused)", async () => {
    const tree = await createTree({});
    mkdirSync(tree.path("target"), { mode: 0o775 });
    chmodSync(tree.path("target"), 0o775);
    symlinkSync(tree.path("target"), tree.path("link"));
    expect(closeDirectory(tree.path("link"))).toBe(false);
    expect((lstatSync(tree.path("target")).mode & 0o777).toString(8)).toBe("775");
    expect(closeDirectory(tree.path("target"))).toBe(true);
    expect((lstatSync(tree.path("target")).mode & 0o777).toString(8)).toBe("700");
    mkdirSync(tree.path("mine"));
    chmodSync(tree.path("mine"), 0o770);
    const result = await runCli(["resolve", tree.path("x.ts"), "--state", tree.path("mine/s.json")], { env: { HOME: tree.home } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`chmod 700 ${tree.path("mine")}`);
    expect((lstatSync(tree.path("mine")).mode & 0o777).toString(8)).toBe("770");
  });
});
