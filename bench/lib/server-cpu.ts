/**
 * CPU of the hook server (src/cli/hook-server.ts) a run of hook calls used: the hook rows charge it
 * to the calls it answered, next to the client processes' own CPU. Read from the kernel per thread
 * (`/proc/<pid>/task/<tid>/schedstat`, nanoseconds), so a few milliseconds a call are resolved.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The pid of the hook server whose files are in `runtime/agentsmd/`, or undefined when none listens. */
function hookServerPid(runtime: string): number | undefined {
  const dir = join(runtime, "agentsmd");
  if (!existsSync(dir)) return undefined;
  const pidFile = readdirSync(dir).find((name) => name.endsWith(".sock.pid"));
  if (!pidFile) return undefined;
  const pid = Number(readFileSync(join(dir, pidFile), "utf8").trim());
  return Number.isInteger(pid) && existsSync(`/proc/${pid}`) ? pid : undefined;
}

/** CPU time the process has used so far, ms (every thread: the main one, V8's and libuv's). */
export function processCpuMs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1e6;
}

/** Waits (synchronously, polling) until the server of `runtime` listens; its pid. */
export function waitForServer(runtime: string, ms = 10_000): number {
  const end = Date.now() + ms;
  for (;;) {
    const pid = hookServerPid(runtime);
    if (pid !== undefined) return pid;
    if (Date.now() > end) throw new Error(`no hook server started in ${runtime} within ${ms} ms`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
  }
}
