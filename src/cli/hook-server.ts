/**
 * The hook server: one long-lived process per user (and per build of the bundle) that answers
 * `agentsmd hook <host>` calls for the launcher (cli/hook-client.ts), so a tool call costs a small
 * client process instead of loading and compiling the hook in every one.
 *
 * Each call runs exactly as in its own process (`runHookArgv`), with the client's argv, env, cwd
 * and stdin, one call at a time. Every call reads and saves the conversation's state file under its
 * lock, as a hook process does, so a server and in-process calls (a first call, a client that gave
 * up) can share a conversation. Between calls the server keeps compiled code and, for a tool call,
 * the open session of a conversation as its state file held it (`KeptSessions`): taken back only
 * when the file still holds that very text and the session's trust window has passed. A hand-over waits for the client's acknowledgement that the answer is on its
 * stdout; if the client went away first, nothing is admitted and the next call gives it again.
 *
 * The socket lives in a directory only the user can enter (cli/hook-client.ts checks it before
 * connecting); the server exits after `AGENTSMD_HOOK_SERVER_IDLE` seconds without a call
 * (default 600), within 30 s of its socket being removed or replaced, when its heap grows past
 * 256 MiB, or on SIGTERM.
 */
import type { Server, Socket } from "node:net";
import { quoteControls } from "../core/quote.js";
import { DEADLINE_ENV, STALL_GRACE_MS, deadlineMsOf } from "../core/deadline.js";
import { currentDir, type CliIo } from "./io.js";
import { runHookArgv } from "./hook.js";
import type { SessionKeeper } from "../integrations/host/deliver.js";
import type { AgentsSession } from "../session/session.js";
import {
  DEFAULT_IDLE_MS,
  LineReader,
  MAX_REQUEST_BYTES,
  SERVER_IDLE_SWITCH,
  WIRE_VERSION,
  frameText,
  type HookRequest,
  type ServerFrame,
} from "./hook-wire.js";

/** How often the server checks its socket is still there (and its own); at least 4 times per idle time. */
const REACHABLE_CHECK_MS = 30_000;
/** How long a connection may take to send its request. */
const REQUEST_TIMEOUT_MS = 10_000;
/** How long a hand-over waits for the client to say the answer is written. */
const ACK_TIMEOUT_MS = 10_000;
/** Past this heap, the server answers the call and exits: the next client starts a fresh one. */
const MAX_HEAP_BYTES = 256 * 1024 * 1024;

type Env = Readonly<Record<string, string | undefined>>;

/** The server's idle time from its environment: `AGENTSMD_HOOK_SERVER_IDLE` seconds, else 600 s. */
function idleMsOf(env: Env): number {
  const seconds = Number(env[SERVER_IDLE_SWITCH]);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, 2 ** 31 - 1) : DEFAULT_IDLE_MS;
}

function parseRequest(line: string): HookRequest | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const request = value as Partial<HookRequest> | null;
  const strings = (list: unknown): list is string[] => Array.isArray(list) && list.every((item) => typeof item === "string");
  if (request === null || typeof request !== "object" || request.agentsmd !== WIRE_VERSION || !strings(request.argv)) return null;
  if (typeof request.stdin !== "string" || (request.cwd !== null && typeof request.cwd !== "string")) return null;
  if (request.env === null || typeof request.env !== "object" || Array.isArray(request.env)) return null;
  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, val] of Object.entries(request.env)) if (typeof val === "string") env[key] = val;
  return { agentsmd: WIRE_VERSION, argv: request.argv, cwd: request.cwd ?? null, env, stdin: request.stdin };
}

/** Conversations whose sessions the server keeps open between calls (the most recent ones). */
const KEPT_SESSIONS = 16;

/**
 * The server's open sessions, the most recently used last; past KEPT_SESSIONS the oldest is closed.
 * A session handed out is the call's alone until given back.
 *
 * A session is handed back only once its stat cache's trust window (`cache.revalidateMs`, 50 ms by
 * default) has passed since it was kept: then everything it saw is checked against the disk again,
 * as in a session reopened from the state file, so a call answers exactly as a hook process would
 * (an edit made a millisecond before is seen). Calls closer together than that reopen.
 */
export class KeptSessions implements SessionKeeper {
  readonly #open = new Map<string, { session: AgentsSession; keptAt: number }>();
  constructor(private readonly max = KEPT_SESSIONS) {}

  take(key: string): AgentsSession | undefined {
    const kept = this.#open.get(key);
    if (!kept) return undefined;
    this.#open.delete(key);
    const { cache } = kept.session;
    if (cache.now() - kept.keptAt > cache.revalidateMs) return kept.session;
    void kept.session.close();
    return undefined;
  }

  keep(key: string, session: AgentsSession): void {
    const before = this.#open.get(key);
    if (before && before.session !== session) void before.session.close();
    this.#open.delete(key);
    this.#open.set(key, { session, keptAt: session.cache.now() });
    for (const [oldest, old] of this.#open) {
      if (this.#open.size <= this.max) break;
      this.#open.delete(oldest);
      void old.session.close();
    }
  }

  get size(): number {
    return this.#open.size;
  }
}

/** One connection: the request line, then acknowledgements. */
class Call {
  readonly #socket: Socket;
  readonly #lines = new LineReader(MAX_REQUEST_BYTES);
  #request: ((request: HookRequest | null) => void) | undefined;
  #ack: { resolve(): void; reject(error: Error): void } | undefined;
  #closed = false;
  readonly request: Promise<HookRequest | null>;

  constructor(socket: Socket) {
    this.#socket = socket;
    this.request = new Promise((resolve) => (this.#request = resolve));
    socket.on("data", (chunk: Buffer) => {
      let lines: string[];
      try {
        lines = this.#lines.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const line of lines) this.#line(line);
    });
    socket.on("error", () => this.#close());
    socket.on("close", () => this.#close());
  }

  #line(line: string): void {
    if (this.#request) {
      const resolve = this.#request;
      this.#request = undefined;
      resolve(parseRequest(line));
    } else if (this.#ack && line === frameText({ ack: true }).trimEnd()) {
      const ack = this.#ack;
      this.#ack = undefined;
      ack.resolve();
    }
  }

  #close(): void {
    this.#closed = true;
    this.#request?.(null);
    this.#request = undefined;
    this.#ack?.reject(new Error("the hook client went away before the answer was written: nothing was marked delivered"));
    this.#ack = undefined;
  }

  send(frame: ServerFrame): void {
    if (!this.#closed) this.#socket.write(frameText(frame));
  }

  /** Resolves once the client wrote the last `out` frame to its stdout. */
  handedOver(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("the hook client went away before the answer was written: nothing was marked delivered"));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#ack = undefined;
        reject(new Error(`the hook client did not confirm the answer within ${ACK_TIMEOUT_MS / 1000} s: nothing was marked delivered`));
        this.#socket.destroy();
      }, ACK_TIMEOUT_MS);
      this.#ack = {
        resolve: () => (clearTimeout(timer), resolve()),
        reject: (error) => (clearTimeout(timer), reject(error)),
      };
    });
  }

  end(): void {
    if (!this.#closed) this.#socket.end();
  }

  /** Ends the call for good: a stalled answer's later frames go nowhere, its hand-over is refused. */
  abandon(): void {
    this.end();
    this.#close();
  }
}

/**
 * Answers one call as `agentsmd hook` would in its own process; `fallback` when argv is not a
 * plain hook call (help, a wrong option: the client runs those in process, with the full CLI).
 */
async function answer(call: Call, request: HookRequest | null, kept: KeptSessions): Promise<void> {
  if (request === null) return call.end();
  let cwd: string | undefined;
  const io: CliIo = {
    stdout: (text) => call.send({ out: text }),
    stderr: (text) => call.send({ err: text }),
    handedOver: () => call.handedOver(),
    readStdin: () => Promise.resolve(request.stdin),
    env: request.env,
    get cwd() {
      // As the client's process would: its cwd, else $PWD when that directory was deleted.
      return (cwd ??=
        request.cwd ??
        currentDir(request.env, () => {
          throw Object.assign(new Error("the client's current directory was deleted"), { code: "ENOENT" });
        }));
    },
  };
  let code: number | null;
  try {
    code = await runHookArgv(request.argv, io, kept);
  } catch (error) {
    // runHook reports every problem itself; this is a defect of the server, said the same way.
    call.send({ err: `agentsmd hook server: ${quoteControls(error instanceof Error ? error.message : String(error))}\n` });
    code = 0;
  }
  call.send(code === null ? { fallback: true } : { end: code });
  call.end();
}

/**
 * `answer`, but a call still running past its deadline and the grace (stalled where no check runs)
 * is ended with a line on stderr, so the queue moves on: one stuck call never holds the server.
 * What the stalled call does later reaches nobody (the connection is closed: nothing is admitted).
 */
async function answerInTime(call: Call, request: HookRequest | null, kept: KeptSessions): Promise<void> {
  const limitMs = request ? deadlineMsOf(request.env) : Infinity;
  if (limitMs === Infinity) return answer(call, request, kept);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      call.send({
        err: `agentsmd hook server: no answer within the ${limitMs} ms deadline (${DEADLINE_ENV}) and ${STALL_GRACE_MS} ms more: stopped; nothing was marked delivered\n`,
      });
      call.send({ end: 0 });
      call.abandon();
      resolve();
    }, limitMs + STALL_GRACE_MS);
  });
  try {
    await Promise.race([answer(call, request, kept), late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface ServeOptions {
  socketPath: string;
  env: Env;
  /** Called once the socket is listening (the launcher writes the pid file then). */
  onListening?(): void;
  /** Called when the server stops, for any reason. */
  onStop?(): void;
}

async function listenOn(server: Server, socketPath: string): Promise<void> {
  const net = process.getBuiltinModule("node:net");
  const fs = process.getBuiltinModule("node:fs");
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => (server.off("error", reject), resolve()));
    });
  try {
    await listen();
  } catch (error) {
    if ((error as { code?: string }).code !== "EADDRINUSE") throw error;
    // A socket is there: another server answering (then this one is not needed), or one left by a
    // server that died (nobody answers: remove it and listen).
    const live = await new Promise<boolean>((resolve) => {
      const probe = net.connect(socketPath);
      probe.once("connect", () => (probe.destroy(), resolve(true)));
      probe.once("error", () => resolve(false));
    });
    if (live) throw Object.assign(new Error("another hook server answers on this socket"), { code: "EADDRINUSE" });
    fs.rmSync(socketPath, { force: true });
    await listen();
  }
}

/**
 * Listens on `socketPath` and answers hook calls until idle. Resolves when the server has stopped.
 */
export async function serveHooks(options: ServeOptions): Promise<void> {
  const net = process.getBuiltinModule("node:net");
  const fs = process.getBuiltinModule("node:fs");
  const idleMs = idleMsOf(options.env);
  let queue: Promise<void> = Promise.resolve();
  const kept = new KeptSessions();
  let busy = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  let ino: number | undefined;
  let reachable: NodeJS.Timeout | undefined;
  const stop = () => {
    if (timer) clearTimeout(timer);
    clearInterval(reachable);
    server.close();
    // Only this server's own socket: a successor may have replaced a removed one.
    try {
      if (ino !== undefined && fs.lstatSync(options.socketPath).ino === ino) fs.rmSync(options.socketPath, { force: true });
    } catch {
      // already gone
    }
    options.onStop?.();
    stopped();
  };
  const idle = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => (busy > 0 ? idle() : stop()), idleMs);
  };
  const server = net.createServer((socket) => {
    busy++;
    idle();
    const call = new Call(socket);
    // A call joins the queue once its request is in: a client that connects and sends nothing
    // (stopped, or not ours) holds no one up, and is dropped after REQUEST_TIMEOUT_MS.
    const late = setTimeout(() => socket.destroy(), REQUEST_TIMEOUT_MS);
    void call.request.then((request) => {
      clearTimeout(late);
      queue = queue
        .then(() => answerInTime(call, request, kept))
        .catch(() => call.end())
        .then(() => {
          busy--;
          idle();
          // V8's own count, no syscall (process.memoryUsage() reads the RSS too: ~2 ms a call here).
          if (process.getBuiltinModule("node:v8").getHeapStatistics().used_heap_size > MAX_HEAP_BYTES) stop();
        });
    });
  });
  await listenOn(server, options.socketPath);
  ino = fs.lstatSync(options.socketPath).ino;
  fs.chmodSync(options.socketPath, 0o600);
  options.onListening?.();
  idle();
  // A server nobody can reach any more (its socket removed, say with its directory, or replaced by
  // another's) stops rather than idle out.
  reachable = setInterval(
    () => {
      try {
        if (fs.lstatSync(options.socketPath).ino === ino) return;
      } catch {
        // removed
      }
      ino = undefined;
      stop();
    },
    Math.min(REACHABLE_CHECK_MS, idleMs / 4),
  );
  reachable.unref();
  process.once("SIGTERM", stop);
  await done;
}
