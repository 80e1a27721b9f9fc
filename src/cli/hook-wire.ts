/**
 * The hook server's wire and place, shared by its client (the launcher, dist/hook/hook.cjs) and the
 * server (the bundle, cli/hook-server.ts). Pure: no I/O.
 *
 * One JSON object per line both ways over a Unix socket in a directory only the user can enter:
 * - client -> server: the request (`HookRequest`), then `{"ack":true}` once each `out` is written;
 * - server -> client: `{"out"}` (stdout text: write it, then ack), `{"err"}` (stderr text),
 *   `{"end"}` (the exit code: done) or `{"fallback":true}` (not a plain hook call: run it in
 *   process). A file counts as admitted only after its `out` was acknowledged.
 */

import { checksum } from "../core/checksum.js";

/** The request's protocol version: a server answers only its own. */
export const WIRE_VERSION = 1;

/** argv, cwd, env and stdin of one `agentsmd hook <host>` call. */
export interface HookRequest {
  agentsmd: typeof WIRE_VERSION;
  argv: readonly string[];
  /** The client's cwd; null when it was deleted (the server then uses `$PWD`, as a process would). */
  cwd: string | null;
  env: Readonly<Record<string, string | undefined>>;
  stdin: string;
}

export type ServerFrame = { out: string } | { err: string } | { end: number } | { fallback: true };

/** stdin is bounded to 16 MiB by the hook itself; the request adds argv and env. */
export const MAX_REQUEST_BYTES = 24 * 1024 * 1024;
/** An answer is at most a host's budget (tens of KB) plus diagnostics. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** `AGENTSMD_HOOK_SERVER=0` runs every hook call in its own process, as before the server. */
export const SERVER_SWITCH = "AGENTSMD_HOOK_SERVER";
/** Seconds without a call before the server exits (default 600). */
export const SERVER_IDLE_SWITCH = "AGENTSMD_HOOK_SERVER_IDLE";
export const DEFAULT_IDLE_MS = 600_000;
/** The launcher's argument that makes it the server: `node hook.cjs --agentsmd-serve <socket>`. */
export const SERVE_FLAG = "--agentsmd-serve";

/** Unix socket paths are cut at 104-108 bytes by the kernel: longer places are not used. */
export const SOCKET_PATH_MAX = 100;

/** One frame: a JSON line. */
export function frameText(value: HookRequest | ServerFrame | { ack: true }): string {
  return `${JSON.stringify(value)}\n`;
}

/**
 * The server's directory: `$XDG_RUNTIME_DIR/agentsmd` (the user's own, cleared at logout) when set,
 * else `<$TMPDIR or /tmp>/agentsmd-<uid>`. The caller checks it is a directory only the user can use.
 */
export function serverDirOf(env: Readonly<Record<string, string | undefined>>, uid: number): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && runtime.startsWith("/")) return `${runtime.replace(/\/+$/, "")}/agentsmd`;
  const tmp = env.TMPDIR && env.TMPDIR.startsWith("/") ? env.TMPDIR.replace(/\/+$/, "") : "/tmp";
  return `${tmp || ""}/agentsmd-${uid}`;
}

/**
 * The socket of the server for one build of the bundle on one Node: a rebuilt bundle or another
 * Node gets its own server, and the old one idles out. A checksum of the three, so the path stays
 * short under a long `$TMPDIR` (macOS: ~50 bytes before it).
 */
export function socketName(nodeVersion: string, bundleSize: number, bundleMtimeMs: number): string {
  return `hook-${checksum(`${nodeVersion}\0${bundleSize}\0${Math.trunc(bundleMtimeMs)}`)}.sock`;
}

/**
 * Splits a byte stream into lines, bounded: `push` returns the complete lines so far, or throws
 * once a line grows past `max` bytes.
 */
export class LineReader {
  #chunks: Buffer[] = [];
  #size = 0;
  constructor(private readonly max: number) {}

  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, at);
      this.#grow(part.length);
      lines.push(this.#chunks.length === 0 ? part.toString("utf8") : Buffer.concat([...this.#chunks, part]).toString("utf8"));
      this.#chunks = [];
      this.#size = 0;
      start = at + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#grow(rest.length);
      this.#chunks.push(rest);
    }
    return lines;
  }

  #grow(bytes: number): void {
    this.#size += bytes;
    if (this.#size > this.max) throw new Error(`a line of the hook server's wire is longer than ${this.max} bytes`);
  }
}
