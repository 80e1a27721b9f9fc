/**
 * The hook server's client, run by the launcher (dist/hook/hook.cjs) before it loads the bundle:
 * a tool call sends its argv, env, cwd and stdin to the user's hook server (cli/hook-server.ts) and
 * writes back what it answers, so the process loads a few kilobytes instead of the hook. When there
 * is no server yet the call runs in process, as before, and starts one for the next calls.
 *
 * Trust: the socket's directory must be a real directory owned by the user that nobody else can
 * enter (0700, no symlink); otherwise the call runs in process. Whatever answers on a socket there
 * is the user's own server.
 */
import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { Socket } from "node:net";
import { join } from "node:path";
import { writeDescriptorSync } from "../io/descriptors.js";
import { ownDirectoryProblem } from "../io/own-directory.js";
import { commandOf } from "./argv.js";
import {
  LineReader,
  MAX_FRAME_BYTES,
  SERVER_SWITCH,
  SERVE_FLAG,
  SOCKET_PATH_MAX,
  WIRE_VERSION,
  frameText,
  serverDirOf,
  socketName,
  type HookRequest,
  type ServerFrame,
} from "./hook-wire.js";

type Env = Readonly<Record<string, string | undefined>>;
type Require = (id: string) => unknown;

/** The file name of the bundle in dist/hook/ (the server runs it; its size and mtime name the socket). */
const BUNDLE_NAME = "agentsmd-hook.cjs";
/** The launcher's own file name in dist/hook/ (what a new server is started with). */
const LAUNCHER_NAME = "hook.cjs";
/** Without a frame from the server for this long, the call runs in process instead. */
const ANSWER_TIMEOUT_MS = 10_000;
/** A server being started is waited for, not started again, for this long. */
const STARTING_MS = 10_000;

/**
 * Whether `path` is a real directory (no symlink) owned by `uid` (any owner when the platform has
 * no uids) with none of the `denied` mode bits: the one check (io/own-directory.ts, which state
 * directories ask too) of the launcher's own directories (the compile cache: nobody else may
 * write, 0o022; the server's socket: nobody else may enter, 0o077). Throws what lstat throws.
 */
export function ownDirectory(path: string, uid: number | undefined, denied: number): boolean {
  const info = lstatSync(path);
  return ownDirectoryProblem({ directory: info.isDirectory(), uid: info.uid, mode: info.mode }, uid, denied) === null;
}

/**
 * The socket of this build's hook server, its directory created (0700) if needed; undefined when
 * the server is off (`AGENTSMD_HOOK_SERVER=0`), the platform has no Unix sockets or uids, the
 * bundle is missing, or the directory is not the user's alone.
 */
export function hookServerSocket(env: Env, hookDir: string): string | undefined {
  const uid = process.getuid?.();
  if (env[SERVER_SWITCH] === "0" || uid === undefined || process.platform === "win32") return undefined;
  try {
    const bundle = statSync(join(hookDir, BUNDLE_NAME));
    const dir = serverDirOf(env, uid);
    const socket = join(dir, socketName(process.version, bundle.size, bundle.mtimeMs));
    if (socket.length > SOCKET_PATH_MAX) return undefined;
    try {
      return ownDirectory(dir, uid, 0o077) ? socket : undefined;
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") return undefined;
    }
    mkdirSync(dir, { mode: 0o700 });
    return ownDirectory(dir, uid, 0o077) ? socket : undefined;
  } catch {
    return undefined;
  }
}

/** argv a server may answer: a hook call (its command word, so a `show --cwd hook` is none) that is no request for help (which never reads stdin). */
export function serverMayAnswer(argv: readonly string[]): boolean {
  return commandOf(argv) === "hook" && !argv.some((arg) => arg === "-h" || arg === "--help" || arg === "help");
}

/** What a call to the server came to: an exit code, or why the call must run in process. */
export type ServerOutcome =
  /** `streamed`: some output went to a stream (its descriptor would block) and must drain before the process exits */
  { code: number; streamed: boolean } | { inProcess: "absent" | "fallback" | "timeout" | "refused" };

/**
 * Sends one hook call to the server at `socket` and writes its answer to descriptors 1 and 2.
 */
export function askHookServer(socket: string, request: HookRequest, require: Require): Promise<ServerOutcome> {
  const net = require("node:net") as typeof import("node:net");
  return new Promise((resolve) => {
    const connection: Socket = net.connect(socket);
    const lines = new LineReader(MAX_FRAME_BYTES);
    let wrote = false;
    let streamed = false;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (outcome: ServerOutcome) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      connection.destroy();
      resolve(outcome);
    };
    // Once an answer is out, the call is the server's: never run it again in process.
    const gone = () => settle(wrote ? { code: 0, streamed } : { inProcess: "fallback" });
    const wait = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => settle(wrote ? { code: 0, streamed } : { inProcess: "timeout" }), ANSWER_TIMEOUT_MS);
    };
    const ack = () => connection.write(frameText({ ack: true }));
    const onFrame = (frame: ServerFrame) => {
      if ("out" in frame && typeof frame.out === "string") {
        wrote = true;
        const rest = writeDescriptorSync(1, frame.out);
        if (rest) ((streamed = true), process.stdout.write(rest, ack));
        else ack();
      } else if ("err" in frame && typeof frame.err === "string") {
        const rest = writeDescriptorSync(2, frame.err);
        if (rest) ((streamed = true), process.stderr.write(rest));
      } else if ("end" in frame && typeof frame.end === "number") settle({ code: frame.end, streamed });
      else if ("fallback" in frame && !wrote) settle({ inProcess: "fallback" });
      else gone();
    };
    connection.once("connect", () => {
      wait();
      connection.write(frameText(request));
    });
    connection.on("data", (chunk: Buffer) => {
      wait();
      try {
        for (const line of lines.push(chunk)) onFrame(JSON.parse(line) as ServerFrame);
      } catch {
        gone();
      }
    });
    connection.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") settle({ inProcess: "absent" });
      else if (error.code === "EACCES" || error.code === "EPERM") settle({ inProcess: "refused" });
      else gone();
    });
    connection.once("close", gone);
  });
}

/**
 * Starts a hook server on `socket` in the background (detached, no stdio), unless one is being
 * started: a marker file next to the socket, created exclusively, stands for that start until the
 * server listens (it removes the marker) or STARTING_MS passes.
 */
export function startHookServer(socket: string, env: Env, hookDir: string, require: Require): void {
  const marker = `${socket}.starting`;
  try {
    closeSync(openSync(marker, "wx", 0o600));
  } catch {
    try {
      if (Date.now() - lstatSync(marker).mtimeMs > STARTING_MS) rmSync(marker, { force: true });
    } catch {
      // gone meanwhile: the next call starts one
    }
    return;
  }
  try {
    const { spawn } = require("node:child_process") as typeof import("node:child_process");
    const child = spawn(process.execPath, [join(hookDir, LAUNCHER_NAME), SERVE_FLAG, socket], { detached: true, stdio: "ignore", cwd: "/", env: { ...env } });
    child.on("error", () => rmSync(marker, { force: true }));
    child.unref();
  } catch {
    rmSync(marker, { force: true });
  }
}

/** The request of this process's hook call. */
export function hookRequest(argv: readonly string[], env: Env, stdin: Buffer): HookRequest {
  let cwd: string | null;
  try {
    cwd = process.cwd();
  } catch {
    cwd = null;
  }
  return { agentsmd: WIRE_VERSION, argv, cwd, env, stdin: stdin.toString("utf8") };
}

/** The server's side of its files: the pid next to the socket while it listens, the start marker removed. */
export function serverListening(socket: string): void {
  rmSync(`${socket}.starting`, { force: true });
  writeFileSync(`${socket}.pid`, `${process.pid}\n`, { mode: 0o600 });
}

export function serverStopped(socket: string): void {
  try {
    if (Number(readFileSync(`${socket}.pid`, "utf8").trim()) === process.pid) rmSync(`${socket}.pid`, { force: true });
  } catch {
    // already gone
  }
}
