/**
 * The e2e set-up every harness shares: e2e/lib/exec.ts `runText` (the one spawn of an agent CLI:
 * text output, stdin closed, a bounded stderr, a kill after the timeout) and e2e/lib/listen.ts
 * `listenLocal` (the scripted servers' port and idempotent close).
 */
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { describeTextRun, homeEnv, observeRuns, parseTimeOutput, run, runText, type ObservedRun } from "../e2e/lib/exec.js";
import { listenLocal } from "../e2e/lib/listen.js";

const node = (script: string, options: { timeoutMs?: number; stderrTail?: number } = {}) =>
  runText(process.execPath, ["-e", script], { cwd: tmpdir(), env: { PATH: process.env.PATH ?? "" }, timeoutMs: options.timeoutMs ?? 20_000, ...options });

describe("runText", () => {
  it("collects stdout and stderr as text, with the exit code, and never rejects for a failure", async () => {
    const run = await node("process.stdout.write('h\\u00e9llo'); process.stderr.write('warn'); process.exit(3)");
    expect(run).toMatchObject({ code: 3, signal: null, stdout: "héllo", stderr: "warn", timedOut: false });
    expect(run.ms).toBeGreaterThan(0);
  });

  it("gives the child no stdin (a read ends at once) and keeps only the stderr tail asked for", async () => {
    const run = await node(
      "let n = 0; process.stdin.on('data', (b) => (n += b.length)).on('end', () => { process.stderr.write('x'.repeat(1000) + 'END'); console.log(n); })",
      {
        stderrTail: 10,
      },
    );
    expect(run.stdout).toBe("0\n");
    expect(run.stderr).toBe("xxxxxxxEND");
  });

  it("kills a child that outlives the timeout", async () => {
    const run = await node("setInterval(() => {}, 1000)", { timeoutMs: 300 });
    expect(run).toMatchObject({ code: null, signal: "SIGKILL", timedOut: true });
  });
});

describe("observeRuns (bench/turn.ts: the CPU of an agent's process tree)", () => {
  it("reports each run's wall time and the CPU of the process and the children it waited for, and nothing once stopped", async () => {
    const seen: ObservedRun[] = [];
    const stop = observeRuns((each) => seen.push(each));
    // The parent spins ~150 ms in a child it waits for and sleeps itself: the CPU is the child's.
    const spin = "const t = Date.now(); while (Date.now() - t < 150);";
    const parent = `require('node:child_process').execFileSync(process.execPath, ['-e', ${JSON.stringify(spin)}]); process.stdout.write('ok')`;
    try {
      const result = await node(parent);
      expect(result).toMatchObject({ code: 0, stdout: "ok" });
      const other = await run(process.execPath, ["-e", "process.exit(2)"], { cwd: tmpdir(), env: { PATH: process.env.PATH ?? "" } });
      expect(other.code).toBe(2);
    } finally {
      stop();
    }
    await node("0");
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ command: process.execPath, code: 0, timedOut: false });
    expect(seen[0]!.cpuMs).toBeGreaterThanOrEqual(140);
    expect(seen[0]!.wallMs).toBeGreaterThanOrEqual(150);
    expect(seen[1]).toMatchObject({ code: 2 });
  });

  it("kills the measured agent too when it outlives the timeout", async () => {
    const seen: ObservedRun[] = [];
    const stop = observeRuns((each) => seen.push(each));
    try {
      const result = await node("setTimeout(() => {}, 60_000)", { timeoutMs: 300 });
      expect(result.timedOut).toBe(true);
    } finally {
      stop();
    }
    expect(seen[0]).toMatchObject({ timedOut: true });
  });

  it("reads GNU time's last line, after a note on the exit status; anything else is no figure", () => {
    expect(parseTimeOutput("0.52 0.10\n")).toBe(620);
    expect(parseTimeOutput("Command exited with non-zero status 1\n0.01 0.00\n")).toBe(10);
    expect(parseTimeOutput("Command terminated by signal 9\n")).toBeNull();
    expect(parseTimeOutput("")).toBeNull();
  });
});

describe("listenLocal", () => {
  it("serves on a local ephemeral port and closes once, dropping kept-alive connections", async () => {
    const server = createServer((_req, res) => res.end("ok"));
    const { url, port, close } = await listenLocal(server);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(await (await fetch(url)).text()).toBe("ok");
    const first = close();
    expect(close()).toBe(first);
    await first;
    expect(server.listening).toBe(false);
  });

  it("rejects when the server cannot listen", async () => {
    const server = createServer();
    server.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    await expect(listenLocal(server)).rejects.toThrow();
    server.close();
  });
});

describe("homeEnv and describeTextRun", () => {
  it("an agent's environment lives in the throw-away HOME and inherits nothing but PATH and TMPDIR", () => {
    const env = homeEnv("/tmp/h");
    expect(env).toMatchObject({ HOME: "/tmp/h", XDG_STATE_HOME: "/tmp/h/.local/state", XDG_CONFIG_HOME: "/tmp/h/.config", NO_COLOR: "1", TERM: "dumb" });
    expect(Object.keys(env).sort()).toEqual(["HOME", "LANG", "NO_COLOR", "PATH", "SHELL", "TERM", "TMPDIR", "USER", "XDG_CONFIG_HOME", "XDG_STATE_HOME"]);
  });

  it("a run's account names the exit, the tails of its output and the requests by kind and turn", () => {
    const text = describeTextRun({ code: null, timedOut: true, ms: 12.4, stdout: "out", stderr: "err" }, [
      { kind: "main", turn: 0 },
      { kind: "side", turn: null },
    ]);
    expect(text).toBe("exit null (timed out) after 12 ms\nstdout: out\nstderr: err\nrequests: main0 side");
  });
});
