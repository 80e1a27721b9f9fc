/**
 * The hook server: `dist/hook/hook.cjs` hands a hook call to the user's long-lived
 * server when one answers, and otherwise runs it in process and starts one. Driven as hosts drive
 * it: the built launcher as a process, the event on stdin. What a server answered is told apart
 * from an in-process answer by what the client process loaded (`NODE_DEBUG=module`, without the
 * code cache: an in-process call requires the bundle).
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, REPO } from "./helpers/bin.js";
import { LineReader, SOCKET_PATH_MAX, frameText, serverDirOf, socketName } from "../src/cli/hook-wire.js";
import { serverMayAnswer } from "../src/cli/hook-client.js";

const LAUNCHER = join(REPO, "dist/hook/hook.cjs");
const BUNDLE = join(REPO, "dist/hook/agentsmd-hook.cjs");

interface Call {
  stdout: string;
  stderr: string;
  status: number | null;
  /** the client process required the bundle: it answered in process */
  inProcess: boolean;
}

let dir: string;
let project: string;
/** Servers a test started: stopped after each test, wherever it left them. */
const runtimes: string[] = [];

function pidsIn(runtime: string): number[] {
  const agentsmd = join(runtime, "agentsmd");
  if (!existsSync(agentsmd)) return [];
  return readdirSync(agentsmd)
    .filter((name) => name.endsWith(".pid"))
    .map((name) => Number(readFileSync(join(agentsmd, name), "utf8")));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A fresh runtime directory (the server's place) for one test. */
function runtimeDir(): string {
  const runtime = mkdtempSync(join(dir, "run-"));
  chmodSync(runtime, 0o700);
  runtimes.push(runtime);
  return runtime;
}

function envOf(runtime: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    XDG_RUNTIME_DIR: runtime,
    XDG_STATE_HOME: join(dir, "state"),
    AGENTSMD_COMPILE_CACHE: "0",
    AGENTSMD_CLAUDE_AGENTS_MD: "inject",
    NODE_DEBUG: "module",
    ...extra,
  };
}

function hook(event: object, env: Record<string, string>, argv: readonly string[] = ["claude-code"]): Call {
  const result = spawnSync(process.execPath, [LAUNCHER, ...argv], { input: JSON.stringify(event), encoding: "utf8", env, cwd: project });
  const debug = result.stderr.split("\n").filter((line) => /^MODULE \d+:/.test(line));
  return {
    stdout: result.stdout,
    stderr: result.stderr
      .split("\n")
      .filter((line) => !/^MODULE \d+:/.test(line))
      .join("\n"),
    status: result.status,
    inProcess: debug.some((line) => line.includes("agentsmd-hook.cjs")),
  };
}

const session = (id: string) => ({ session_id: id, cwd: "" });
const start = (id: string) => ({ ...session(id), cwd: project, hook_event_name: "SessionStart", source: "startup" });
const read = (id: string, file: string) => ({
  ...session(id),
  cwd: project,
  hook_event_name: "PostToolUse",
  tool_name: "Read",
  tool_input: { file_path: file },
});

/** The socket the server of `runtime` listens on. */
function socketIn(runtime: string): string {
  return join(
    runtime,
    "agentsmd",
    readdirSync(join(runtime, "agentsmd")).find((name) => name.endsWith(".sock"))!,
  );
}

/**
 * `hook` without blocking this process (for servers run by the test itself, and calls in
 * parallel); stdin from a file, as readable to its end as a host's pipe.
 */
function hookAsync(event: object, env: Record<string, string>): Promise<Call> {
  const input = join(dir, `event-${process.hrtime.bigint()}.json`);
  writeFileSync(input, JSON.stringify(event));
  const stdin = openSync(input, "r");
  return new Promise<Call>((resolve) => {
    const child = spawn(process.execPath, [LAUNCHER, "claude-code"], { env, cwd: project, stdio: [stdin, "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (status) => (closeSync(stdin), resolve({ stdout, stderr, status, inProcess: stderr.includes("agentsmd-hook.cjs") })));
  });
}

/** The first call starts the server; returns once it listens. */
async function serverUp(runtime: string, env = envOf(runtime)): Promise<number> {
  hook(start("warm-up"), env);
  await until(() => pidsIn(runtime).length === 1, "the server's pid file");
  const [pid] = pidsIn(runtime);
  await until(() => readdirSync(join(runtime, "agentsmd")).some((name) => name.endsWith(".sock")), "the socket");
  return pid!;
}

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "agentsmd-hook-server-"));
  project = join(dir, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(project, "pkg", "deep"), { recursive: true });
  writeFileSync(join(project, "AGENTS.md"), "# root rules\n");
  writeFileSync(join(project, "pkg", "AGENTS.md"), "# pkg rules\n");
  writeFileSync(join(project, "pkg", "deep", "a.ts"), "export {};\n");
}, 180_000);

afterEach(() => {
  for (const runtime of runtimes.splice(0)) for (const pid of pidsIn(runtime)) if (alive(pid)) process.kill(pid, "SIGKILL");
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the hook server's wire", () => {
  it("splits lines across chunks and refuses a line past its bound", () => {
    const lines = new LineReader(10);
    expect(lines.push(Buffer.from('{"a"'))).toEqual([]);
    expect(lines.push(Buffer.from(':1}\n{"b":2}\n{'))).toEqual(['{"a":1}', '{"b":2}']);
    expect(lines.push(Buffer.from("}\n"))).toEqual(["{}"]);
    expect(() => lines.push(Buffer.from("x".repeat(11)))).toThrow(/longer than 10 bytes/);
    expect(frameText({ ack: true })).toBe('{"ack":true}\n');
  });

  it("lives in the user's runtime directory, else in a per-user directory under TMPDIR; one socket per build and Node", () => {
    expect(serverDirOf({ XDG_RUNTIME_DIR: "/run/user/1000/" }, 1000)).toBe("/run/user/1000/agentsmd");
    expect(serverDirOf({ XDG_RUNTIME_DIR: "relative" }, 1000)).toBe("/tmp/agentsmd-1000");
    expect(serverDirOf({ TMPDIR: "/var/tmp/" }, 7)).toBe("/var/tmp/agentsmd-7");
    expect(socketName("v20.20.2", 10, 1234.9)).toMatch(/^hook-[0-9a-f]{16}\.sock$/);
    expect(socketName("v20.20.2", 10, 1234.9)).toBe(socketName("v20.20.2", 10, 1234.2));
    expect(
      new Set([socketName("v20.20.2", 10, 1234), socketName("v22.1.0", 10, 1234), socketName("v20.20.2", 11, 1234), socketName("v20.20.2", 10, 1235)]).size,
    ).toBe(4);
    // under macOS's long per-user TMPDIR the whole path stays within the kernel's limit
    expect(
      `${serverDirOf({ TMPDIR: "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/" }, 501)}/${socketName("v20.20.2", 10, 1234)}`.length,
    ).toBeLessThanOrEqual(SOCKET_PATH_MAX);
    expect(SOCKET_PATH_MAX).toBeLessThan(104);
  });

  it("takes only plain hook calls (help never reads stdin)", () => {
    expect(serverMayAnswer(["hook", "claude-code"])).toBe(true);
    expect(serverMayAnswer(["hook", "claude-code", "--help"])).toBe(false);
    expect(serverMayAnswer(["hook", "-h"])).toBe(false);
    expect(serverMayAnswer(["--version"])).toBe(false);
  });
});

describe("the hook server", () => {
  it("the first call answers in process and starts a server; the next calls are answered by it, byte for byte as in process", async () => {
    const runtime = runtimeDir();
    const env = envOf(runtime);
    const first = hook(start("s1"), env);
    expect(first.inProcess).toBe(true);
    expect(first.stdout).toContain("# root rules");
    await until(() => pidsIn(runtime).length === 1, "the server's pid file");
    const [pid] = pidsIn(runtime);
    expect(alive(pid!)).toBe(true);
    const socketDir = join(runtime, "agentsmd");
    const { mode } = (await import("node:fs")).statSync(socketDir);
    expect(mode & 0o777).toBe(0o700);

    const file = join(project, "pkg", "deep", "a.ts");
    const served = hook(read("s1", file), env);
    expect(served.inProcess).toBe(false);
    expect(served.stderr).toBe("");
    expect(served.status).toBe(0);
    // The same conversation in process, from scratch: the same answers.
    const alone = envOf(runtime, { AGENTSMD_HOOK_SERVER: "0", XDG_STATE_HOME: join(dir, "state-alone") });
    expect(hook(start("s1"), alone).stdout).toBe(first.stdout);
    const inProcess = hook(read("s1", file), alone);
    expect(inProcess.inProcess).toBe(true);
    expect(served.stdout).toBe(inProcess.stdout);
    expect(served.stdout).toContain("# pkg rules");
    // Seen now: nothing again, from the server.
    const again = hook(read("s1", file), env);
    expect(again).toMatchObject({ stdout: "", inProcess: false, status: 0 });
    // The state the server saved is read by a call in process: seen, nothing again.
    expect(hook(read("s1", file), { ...env, AGENTSMD_HOOK_SERVER: "0" })).toMatchObject({ stdout: "", inProcess: true, stderr: "" });
  }, 60_000);

  it("runs each call with the client's own environment and cwd", async () => {
    const runtime = runtimeDir();
    await serverUp(runtime);
    const file = join(project, "pkg", "deep", "a.ts");
    for (const state of ["state-a", "state-b"]) {
      const env = envOf(runtime, { XDG_STATE_HOME: join(dir, state) });
      const call = hook(read("env-1", file), env);
      expect(call.inProcess).toBe(false);
      expect(call.stdout).toContain("# pkg rules");
      expect(readdirSync(join(dir, state, "agentsmd", "claude-code")).some((name) => name.includes("env-1"))).toBe(true);
    }
    // A host flag and an env switch of the client: native mode gives nothing Claude Code loads itself.
    const native = hook(start("env-2"), envOf(runtime, { AGENTSMD_CLAUDE_AGENTS_MD: "native" }));
    expect(native).toMatchObject({ inProcess: false, stdout: "" });
    // A relative --cwd is taken against the client's cwd, not the server's.
    expect(hook(start("env-4"), envOf(runtime), ["--cwd", "pkg", "claude-code"])).toMatchObject({ inProcess: false, status: 0, stderr: "" });
    const usage = hook(start("env-3"), envOf(runtime), ["claude-code", "--wrong-flag"]);
    expect(usage.inProcess).toBe(true);
    expect(usage.status).toBe(2);
  }, 60_000);

  it("8 concurrent calls of one conversation, some through the server and some in process, give each file exactly once", async () => {
    const runtime = runtimeDir();
    const env = envOf(runtime);
    await serverUp(runtime, env);
    const files: string[] = [];
    for (let index = 0; index < 8; index++) {
      mkdirSync(join(project, "par", `p${index}`), { recursive: true });
      writeFileSync(join(project, "par", `p${index}`, "AGENTS.md"), `P${index}-RULES\n`);
      writeFileSync(join(project, "par", `p${index}`, "f.ts"), "");
      files.push(join(project, "par", `p${index}`, "f.ts"));
    }
    writeFileSync(join(project, "par", "AGENTS.md"), "PAR-RULES\n");
    const run = (event: object, extra: Record<string, string>) => hookAsync(event, { ...env, ...extra });
    expect((await run(start("par-1"), {})).stdout).toContain("# root rules");
    const calls = await Promise.all(files.map((file, index) => run(read("par-1", file), index % 2 === 0 ? {} : { AGENTSMD_HOOK_SERVER: "0" })));
    expect(calls.filter((call) => call.inProcess)).toHaveLength(4);
    const all = calls.map((call) => call.stdout).join("");
    expect(all.split("PAR-RULES").length - 1).toBe(1);
    for (let index = 0; index < 8; index++) expect(all.split(`P${index}-RULES`).length - 1, `P${index}`).toBe(1);
  }, 60_000);

  it("marks nothing delivered when the client goes away before it wrote the answer", async () => {
    const runtime = runtimeDir();
    const env = envOf(runtime);
    await serverUp(runtime, env);
    const socket = socketIn(runtime);
    const file = join(project, "pkg", "deep", "a.ts");
    // A client that reads the answer and leaves without acknowledging it.
    const out = await new Promise<string>((resolve, reject) => {
      const client = connect(socket);
      const lines = new LineReader(1 << 20);
      client.on("connect", () =>
        client.write(frameText({ agentsmd: 1, argv: ["hook", "claude-code"], cwd: project, env, stdin: JSON.stringify(read("gone-1", file)) })),
      );
      client.on("data", (chunk: Buffer) => {
        for (const line of lines.push(chunk)) {
          const frame = JSON.parse(line) as { out?: string };
          if (frame.out !== undefined) {
            client.destroy();
            resolve(frame.out);
          }
        }
      });
      client.on("error", reject);
    });
    expect(out).toContain("# pkg rules");
    // The server gave up on it: the next call of that conversation gives the file again.
    await until(() => {
      const call = hook(read("gone-1", file), env);
      expect(call.inProcess).toBe(false);
      return call.stdout.includes("# pkg rules");
    }, "the file given again");
  }, 60_000);

  it("a connection that sends nothing holds no call up", async () => {
    const runtime = runtimeDir();
    const env = envOf(runtime);
    await serverUp(runtime, env);
    const socket = socketIn(runtime);
    const silent = connect(socket);
    await new Promise((resolve) => silent.once("connect", resolve));
    try {
      // Answered by the server (not after the client's 10 s wait, in process).
      const call = hook(read("silent-1", join(project, "pkg", "deep", "a.ts")), env);
      expect(call).toMatchObject({ inProcess: false, status: 0, stderr: "" });
      expect(call.stdout).toContain("# pkg rules");
    } finally {
      silent.destroy();
    }
  }, 30_000);

  it("a server killed mid-life leaves a socket nobody answers: the call runs in process and a new server takes its place", async () => {
    const runtime = runtimeDir();
    const env = envOf(runtime);
    const pid = await serverUp(runtime, env);
    process.kill(pid, "SIGKILL");
    await until(() => !alive(pid), "the server to die");
    const file = join(project, "pkg", "deep", "a.ts");
    const call = hook(read("stale-1", file), env);
    expect(call).toMatchObject({ inProcess: true, status: 0, stderr: "" });
    expect(call.stdout).toContain("# pkg rules");
    await until(() => pidsIn(runtime).some((other) => other !== pid && alive(other)), "a new server");
    await until(() => !hook(read("stale-2", file), env).inProcess, "the new server answering");
  }, 60_000);

  it("exits after its idle time and removes its socket and pid file", async () => {
    const runtime = runtimeDir();
    const env = envOf(runtime, { AGENTSMD_HOOK_SERVER_IDLE: "1" });
    const pid = await serverUp(runtime, env);
    await until(() => !alive(pid), "the idle server to exit", 15_000);
    expect(readdirSync(join(runtime, "agentsmd")).filter((name) => !name.endsWith(".starting"))).toEqual([]);
  }, 30_000);

  it("stops soon after its socket is removed (say with a temporary directory), long before its idle time", async () => {
    const runtime = runtimeDir();
    // idle 40 s: the socket is checked every 10 s
    const pid = await serverUp(runtime, envOf(runtime, { AGENTSMD_HOOK_SERVER_IDLE: "40" }));
    const removed = Date.now();
    rmSync(join(runtime, "agentsmd"), { recursive: true, force: true });
    await until(() => !alive(pid), "the unreachable server to exit", 25_000);
    expect(Date.now() - removed).toBeLessThan(30_000);
  }, 40_000);

  it("is not used, nor started, when its directory is not the user's alone", async () => {
    const runtime = runtimeDir();
    const agentsmd = join(runtime, "agentsmd");
    mkdirSync(agentsmd, { mode: 0o700 });
    chmodSync(agentsmd, 0o777);
    const env = envOf(runtime);
    for (let i = 0; i < 2; i++) expect(hook(start(`open-${i}`), env)).toMatchObject({ inProcess: true, status: 0 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readdirSync(agentsmd)).toEqual([]);
    if (process.getuid?.() === 0) {
      chmodSync(agentsmd, 0o700);
      chownSync(agentsmd, 65534, 65534);
      expect(hook(start("foreign"), env)).toMatchObject({ inProcess: true, status: 0 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(readdirSync(agentsmd)).toEqual([]);
    }
    // Switched off: never a server.
    const off = runtimeDir();
    hook(start("off"), envOf(off, { AGENTSMD_HOOK_SERVER: "0" }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(join(off, "agentsmd"))).toBe(false);
  }, 30_000);

  it("whatever answers badly on the socket, the call is answered in process", async () => {
    const runtime = runtimeDir();
    const env = envOf(runtime);
    const bundle = (await import("node:fs")).statSync(BUNDLE);
    mkdirSync(join(runtime, "agentsmd"), { mode: 0o700 });
    const socket = join(runtime, "agentsmd", socketName(process.version, bundle.size, bundle.mtimeMs));
    const fakes: Array<(socket: import("node:net").Socket) => void> = [
      (client) => client.end("not json\n"),
      (client) => client.end(),
      (client) => client.end(frameText({ fallback: true })),
    ];
    for (const fake of fakes) {
      const open = new Set<import("node:net").Socket>();
      const server: Server = createServer((client) => (open.add(client), fake(client)));
      await new Promise<void>((resolve) => server.listen(socket, resolve));
      try {
        // the fake runs in this process: no spawnSync
        const call = await hookAsync(start(`fake-${fakes.indexOf(fake)}`), env);
        expect(open.size).toBe(1);
        expect(call).toMatchObject({ inProcess: true, status: 0 });
        expect(call.stdout).toContain("# root rules");
      } finally {
        for (const client of open) client.destroy();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  }, 30_000);
});
