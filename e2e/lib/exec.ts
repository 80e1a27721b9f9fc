/**
 * Run a child process and capture its exact output bytes, for end-to-end tests.
 *
 * Example:
 * ```ts
 * const r = await run(process.execPath, ["-e", "process.stdout.write('hi')"]);
 * r.code;                 // 0
 * r.stdout.toString();    // "hi"
 * ```
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RunOptions {
  cwd?: string;
  /** The complete environment of the child (nothing is inherited implicitly). */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed. Default: stdin is closed at once. */
  input?: string | Uint8Array;
  /** Kill the child (SIGKILL) after this many ms. Default 60 000. */
  timeoutMs?: number;
}

export interface RunResult {
  /** Exit code, or null when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  /** Wall time in ms. */
  ms: number;
  timedOut: boolean;
}

/** Runs `command args`; never rejects for a non-zero exit (only when it cannot spawn). */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const started = performance.now();
  const usage = observer ? usageWrapper(command, args) : undefined;
  return new Promise((resolve, reject) => {
    const child = spawn(usage?.command ?? command, usage?.args ?? args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: usage !== undefined,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (usage && child.pid !== undefined) killGroup(child.pid);
      else child.kill("SIGKILL");
    }, options.timeoutMs ?? 60_000);
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e) => {
      clearTimeout(timer);
      usage?.dispose();
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      if (usage) {
        const cpuMs = usage.read();
        usage.dispose();
        observer?.({ command, args, wallMs: ms, cpuMs, code, timedOut });
      }
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), ms, timedOut });
    });
    child.stdin.on("error", () => {
      /* the child may exit without reading stdin */
    });
    child.stdin.end(options.input ?? "");
  });
}

export interface TextRunOptions {
  cwd: string;
  /** The complete environment of the child (nothing is inherited implicitly). */
  env: NodeJS.ProcessEnv;
  /** Kill the child (SIGKILL) after this many ms. */
  timeoutMs: number;
  /** Keep only the last this many characters of stderr (a chatty agent's log). Default: all of it. */
  stderrTail?: number;
}

export interface TextRun {
  /** Exit code, or null when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time in ms. */
  ms: number;
  timedOut: boolean;
}

/**
 * Runs an agent CLI as the e2e harnesses do: stdin ignored, output decoded as UTF-8, SIGKILL after
 * `timeoutMs`; never rejects for a non-zero exit (only when it cannot spawn).
 * @example const r = await runText(process.execPath, ["-e", "console.log('hi')"], { cwd, env, timeoutMs: 5_000 }); // r.stdout "hi\n"
 */
export function runText(command: string, args: readonly string[], options: TextRunOptions): Promise<TextRun> {
  const started = performance.now();
  const usage = observer ? usageWrapper(command, args) : undefined;
  return new Promise((resolve, reject) => {
    const child = spawn(usage?.command ?? command, usage?.args ?? args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      // Measured: time(1) and the agent in a group of their own, so a timeout kills both.
      detached: usage !== undefined,
    });
    const tail = options.stderrTail;
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = tail === undefined ? stderr + chunk : (stderr + chunk).slice(-tail)));
    const timer = setTimeout(() => {
      timedOut = true;
      if (usage && child.pid !== undefined) killGroup(child.pid);
      else child.kill("SIGKILL");
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      usage?.dispose();
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      if (usage) {
        const cpuMs = usage.read();
        usage.dispose();
        observer?.({ command, args, wallMs: ms, cpuMs, code, timedOut });
      }
      resolve({ code, signal, stdout, stderr, ms, timedOut });
    });
  });
}

/** One agent run as an observer sees it: wall time, and the CPU of its whole process tree. */
export interface ObservedRun {
  command: string;
  args: readonly string[];
  wallMs: number;
  /** user + sys of the process and every child it waited for (wait4's rusage), ms; null when unreadable. */
  cpuMs: number | null;
  code: number | null;
  timedOut: boolean;
}

let observer: ((run: ObservedRun) => void) | undefined;

/**
 * While set, every `run` and `runText` runs its command under GNU time (`/usr/bin/time`: wait4's rusage, which
 * counts the hook processes an agent waited for) and reports it to `listener`; returns the un-set.
 * For bench/turn.ts; the e2e suites never set it. Throws when /usr/bin/time is missing.
 * @example const stop = observeRuns((run) => runs.push(run)); ...; stop();
 */
export function observeRuns(listener: (run: ObservedRun) => void): () => void {
  if (!existsSync(GNU_TIME)) throw new Error(`${GNU_TIME} is missing: install GNU time (apt-get install time) to measure the CPU of agent runs.`);
  observer = listener;
  return () => {
    if (observer === listener) observer = undefined;
  };
}

const GNU_TIME = "/usr/bin/time";

function usageWrapper(command: string, args: readonly string[]): { command: string; args: string[]; read(): number | null; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), "agentsmd-e2e-usage-"));
  const file = join(dir, "usage");
  return {
    command: GNU_TIME,
    args: ["-f", "%U %S", "-o", file, "--", command, ...args],
    read: () => parseTimeOutput(existsSync(file) ? readFileSync(file, "utf8") : ""),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * CPU ms from GNU time's `-f "%U %S"` output (its last line; a line about a signal or exit status may come first).
 * @example parseTimeOutput("Command exited with non-zero status 1\n0.52 0.10\n") // 620
 */
export function parseTimeOutput(text: string): number | null {
  const last = text.trim().split("\n").at(-1) ?? "";
  const match = /^(\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/.exec(last.trim());
  return match ? Math.round((Number(match[1]) + Number(match[2])) * 1000) : null;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/**
 * The environment of an agent CLI run in a throw-away HOME: no colours, a dumb terminal, XDG state
 * and config under that HOME, nothing else inherited but PATH and TMPDIR. Agent keys go on top.
 * @example { ...homeEnv(home), GEMINI_API_KEY: "e2e-key" }
 */
export function homeEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    USER: "e2e",
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    TMPDIR: process.env.TMPDIR ?? "/tmp",
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CONFIG_HOME: join(home, ".config"),
  };
}

/** A readable account of an agent run for assertion messages: exit, output tails, the model requests seen. */
export function describeTextRun(
  run: Pick<TextRun, "code" | "timedOut" | "ms" | "stdout" | "stderr">,
  requests: ReadonlyArray<{ kind: string; turn?: number | null | undefined }>,
): string {
  return [
    `exit ${run.code}${run.timedOut ? " (timed out)" : ""} after ${Math.round(run.ms)} ms`,
    `stdout: ${run.stdout.slice(-2000)}`,
    `stderr: ${run.stderr.slice(-4000)}`,
    `requests: ${requests.map((r) => `${r.kind}${r.turn ?? ""}`).join(" ")}`,
  ].join("\n");
}

/** Environment variables that change what agentsmd or the peer agents load; tests never inherit them. */
const LOADER_ENV_VARS: readonly string[] = [
  "AGENTSMD_ROOT",
  "AGENTSMD_MARKERS",
  "CODELIA_AGENTS_ROOT",
  "CODELIA_AGENTS_MARKERS",
  "CODEX_HOME",
  "XDG_CONFIG_HOME",
  "CLAUDE_CONFIG_DIR",
  "RUST_LOG",
];

/**
 * `process.env` without the loader variables above, with `extra` applied on top.
 * A value of `undefined` in `extra` removes that variable.
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of LOADER_ENV_VARS) delete env[name];
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}
