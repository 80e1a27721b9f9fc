/**
 * Client of oracle.mjs: Gemini CLI's own startup and just-in-time loaders, run from the pinned
 * `@google/gemini-cli-core` in e2e/gemini/node_modules (installed on first use with
 * `npm ci --prefix e2e/gemini`, what CI runs up front).
 *
 * @example
 * const gemini = await startGeminiOracle();
 * const start = await gemini.start({ cwd: repo, home });
 * start.rendered;                                   // renderUserMemory(config.getUserMemory())
 * (await gemini.jit(start.session, file)).appended; // "\n\n--- Newly Discovered Project Context ---\n…"
 * await gemini.close();
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureInstalled } from "../lib/install.js";

export const GEMINI_CORE_VERSION = "0.61.0";
const ORACLE = path.join(path.dirname(fileURLToPath(import.meta.url)), "oracle.mjs");

/** What Gemini's `Config` holds after `MemoryContextManager.refresh()` (`getUserMemory()`). */
interface GeminiMemory {
  global: string;
  extension: string;
  project: string;
  userProjectMemory: string;
}

export interface GeminiStart {
  session: number;
  /** The context file names after `setGeminiMdFilename` (`getAllGeminiMdFilenames()`). */
  names: string[];
  memory: GeminiMemory;
  /** `getSystemInstructionMemory()`: the global memory string (or an object with private memory). */
  systemMemory: string | GeminiMemory;
  /** `getSessionMemory()`: what goes into the first user message, inside `<session_context>`. */
  sessionMemory: string;
  /** `renderUserMemory(getUserMemory(), names)`: every tier rendered by Gemini's own renderer. */
  rendered: string;
  /** `renderUserMemory(getSystemInstructionMemory(), names)`: what the system instruction gets. */
  systemRendered: string;
  /** `getGeminiMdFilePaths()`: every path marked loaded at startup. */
  loadedPaths: string[];
}

interface GeminiJit {
  /** `discoverJitContext(config, path)`. */
  jit: string;
  /** `appendJitContext("", jit)`: what a tool appends to its output ("" when nothing). */
  appended: string;
}

interface GeminiStartOptions {
  cwd: string;
  home: string;
  geminiCliHome?: string;
  /** `context.fileName`. */
  fileName?: string | string[];
  /** `context.memoryBoundaryMarkers`. */
  markers?: string[];
}

export interface GeminiOracle {
  start(options: GeminiStartOptions): Promise<GeminiStart>;
  jit(session: number, target: string): Promise<GeminiJit>;
  close(): Promise<void>;
}

/** Installs the pinned package if needed and starts oracle.mjs. */
export async function startGeminiOracle(): Promise<GeminiOracle> {
  const pkgDir = await ensureInstalled({ folder: "gemini", pkg: "@google/gemini-cli-core", version: GEMINI_CORE_VERSION });
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: process.env.TMPDIR, LANG: "C.UTF-8", NO_COLOR: "1" };
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [ORACLE, pkgDir, GEMINI_CORE_VERSION], { env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-20_000)));
  const pending = new Map<number, { resolve(value: Record<string, unknown>): void; reject(error: Error): void }>();
  let ready: (() => void) | undefined;
  let failed: Error | undefined;
  const readyPromise = new Promise<void>((resolve, reject) => {
    ready = resolve;
    child.once("exit", (code, signal) => {
      failed = new Error(`gemini oracle exited (${code ?? signal}):\n${stderr}`);
      reject(failed);
      for (const each of pending.values()) each.reject(failed);
      pending.clear();
    });
  });
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (!line.startsWith("{")) return; // anything Gemini printed itself
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    if (message.ready === true) return ready?.();
    const waiter = pending.get(message.id as number);
    if (!waiter) return;
    pending.delete(message.id as number);
    if (typeof message.error === "string") waiter.reject(new Error(`gemini oracle: ${message.error}\n${stderr}`));
    else waiter.resolve(message);
  });
  await readyPromise;
  let nextId = 1;
  const ask = (request: Record<string, unknown>): Promise<Record<string, unknown>> => {
    if (failed) return Promise.reject(failed);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
    });
  };
  let closed: Promise<void> | undefined;
  return {
    start: async (options) => (await ask({ op: "start", ...options })) as unknown as GeminiStart,
    jit: async (session, target) => (await ask({ op: "jit", session, path: target })) as unknown as GeminiJit,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.stdin.end();
        setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
      })),
  };
}
