/**
 * End-to-end harness for the real Cline CLI, pinned in e2e/cline/package.json as its linux-x64
 * native binary package `@cline/cli-linux-x64` (what the npm `cline` wrapper runs on this platform;
 * `npm ci --prefix e2e/cline`).
 *
 * It builds a throw-away fixture (a repo with `.git` and a HOME under the OS temp dir), points
 * Cline at the scripted Chat Completions server of e2e/lib/openai-chat-server.ts with
 * `cline auth -p openai -b <url>`, and runs `cline --json -t <s> <prompt>` (one task, tools
 * auto-approved) in it. Each run leaves a background "hub" daemon (`--cline-hub-daemon --cwd <dir>`);
 * the harness kills the ones started for its fixture, by pid.
 *
 * @example
 * const fx = await createClineFixture({ "AGENTS.md": "root\n" });
 * await fx.installAgentsmd();
 * const run = await runCline(fx, server, { prompt: "go" });
 */
import { spawn } from "node:child_process";
import { readdir, readFile, realpath } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { runInstall } from "../lib/agentsmd.js";
import { describeTextRun, homeEnv, runText } from "../lib/exec.js";
import type { OpenAIChatServer } from "../lib/openai-chat-server.js";
import { ensureInstalled } from "../lib/install.js";
import { createTree, dir, type BuiltTree, type TreeSpec } from "../lib/tree.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLINE_VERSION = JSON.parse(await readFile(path.join(HERE, "package.json"), "utf8")).dependencies["@cline/cli-linux-x64"] as string;
const CLINE_MODEL = "gpt-4.1";
/** Every agent run is killed after this long (Cline's own `-t` is shorter). */
const CLINE_RUN_TIMEOUT_MS = 150_000;

/** The CLI's native binary (linux x64), installing the pinned package on first use. */
export async function clineBin(): Promise<string> {
  const pkg = await ensureInstalled({ folder: "cline", pkg: "@cline/cli-linux-x64", version: CLINE_VERSION });
  return path.join(pkg, "bin", "cline");
}

export interface ClineFixture {
  tree: BuiltTree;
  repo: string;
  home: string;
  path(rel: string): string;
  /** Runs `agentsmd install cline` (user scope: ~/.cline/hooks/PostToolUse.sh) in this HOME. */
  installAgentsmd(): Promise<void>;
  env(): NodeJS.ProcessEnv;
}

/** A repo (`repo/` with `.git`) holding `files`, and an empty HOME. */
export async function createClineFixture(files: TreeSpec): Promise<ClineFixture> {
  const spec: Record<string, TreeSpec[string]> = { "repo/.git": dir(), "home/.local/state": dir() };
  for (const [rel, entry] of Object.entries(files)) spec[rel.startsWith("~/") ? `home/${rel.slice(2)}` : `repo/${rel}`] = entry;
  const tree = await createTree(spec, { prefix: "agentsmd-cline-" });
  const repo = await realpath(tree.path("repo"));
  const home = await realpath(tree.path("home"));
  const env = (): NodeJS.ProcessEnv => homeEnv(home);
  return {
    tree,
    repo,
    home,
    path: (rel) => (rel === "" ? repo : path.join(repo, ...rel.split("/"))),
    async installAgentsmd() {
      await runInstall(["install", "cline"], { env: env(), cwd: repo });
    },
    env,
  };
}

/** Kills the hub daemons Cline left for runs under `base` (matched by their `--cwd`), by pid. */
async function killHubs(base: string): Promise<number> {
  let killed = 0;
  for (const pid of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const args = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).split("\0");
    const at = args.indexOf("--cwd");
    if (!args.includes("--cline-hub-daemon") || at < 0 || !(args[at + 1] ?? "").startsWith(base)) continue;
    try {
      process.kill(Number(pid), "SIGKILL");
      killed++;
    } catch {
      // already gone
    }
  }
  return killed;
}

export interface ClineRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

/**
 * Points the fixture's Cline at `server` (`cline auth`). `model`: a model id Cline does not know
 * gets a 128,000-token window (what the compaction case needs). @default gpt-4.1
 */
export async function authCline(fixture: ClineFixture, server: OpenAIChatServer, model = CLINE_MODEL): Promise<void> {
  const auth = await runText(await clineBin(), ["auth", "-p", "openai", "-k", "e2e-key", "-m", model, "-b", server.baseURL], {
    cwd: fixture.repo,
    env: fixture.env(),
    timeoutMs: 120_000,
  });
  expect(auth.code, `cline auth failed:\n${auth.stdout}\n${auth.stderr}`).toBe(0);
}

/** Runs one non-interactive task (`args`: more of Cline's options, e.g. `--id <session>` to resume one); its hub daemon is killed afterwards. */
export async function runCline(fixture: ClineFixture, options: { prompt: string; cwd?: string; args?: readonly string[] }): Promise<ClineRun> {
  const cwd = await realpath(options.cwd ?? fixture.repo);
  try {
    return await runText(await clineBin(), ["--json", "-t", "120", ...(options.args ?? []), options.prompt], {
      cwd,
      env: fixture.env(),
      timeoutMs: CLINE_RUN_TIMEOUT_MS,
      stderrTail: 20_000,
    });
  } finally {
    await killHubs(fixture.tree.path(""));
  }
}

export function describeClineRun(run: ClineRun, server: OpenAIChatServer): string {
  return describeTextRun(run, server.requests);
}

/**
 * Resumes a saved task and sends it one prompt: `cline --json` refuses `--id` (it switches to the
 * interactive TUI), so this speaks Cline's Agent Client Protocol mode (`cline --acp`, JSON-RPC
 * lines on stdio): `initialize`, `session/load` (Cline reloads the session's messages with
 * `resume: true`), `session/prompt`, then the process is killed. Requests from Cline (permission,
 * file system) are answered with an error: tools are auto-approved (`--auto-approve true`).
 */
export async function resumeCline(fixture: ClineFixture, options: { sessionId: string; prompt: string; cwd?: string }): Promise<ClineRun> {
  const cwd = await realpath(options.cwd ?? fixture.repo);
  const started = performance.now();
  // ACP mode asks for a Cline account unless CLINE_API_KEY is set; the provider is the one `cline auth` stored.
  const env = { ...fixture.env(), CLINE_API_KEY: "e2e-key", CLINE_PROVIDER: "openai-compatible", CLINE_MODEL: CLINE_MODEL };
  const child = spawn(await clineBin(), ["--acp", "--auto-approve", "true"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let timedOut = false;
  let nextId = 1;
  const waiting = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  const call = (method: string, params: unknown) =>
    new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      send({ id, method, params });
    });
  let buffer = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      let message: { id?: number; method?: string; result?: unknown; error?: unknown };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        continue;
      }
      if (message.method !== undefined && message.id !== undefined)
        send({ id: message.id, error: { code: -32601, message: "not supported by the e2e client" } });
      else if (message.id !== undefined) (waiting.get(message.id)?.(message), waiting.delete(message.id));
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, CLINE_RUN_TIMEOUT_MS);
  let code: number | null;
  try {
    const steps = async () => {
      const init = await call("initialize", { protocolVersion: 1, clientCapabilities: {} });
      if (init.error) throw new Error(`initialize: ${JSON.stringify(init.error)}`);
      const load = await call("session/load", { sessionId: options.sessionId, cwd, mcpServers: [] });
      if (load.error) throw new Error(`session/load: ${JSON.stringify(load.error)}`);
      const prompt = await call("session/prompt", { sessionId: options.sessionId, prompt: [{ type: "text", text: options.prompt }] });
      if (prompt.error) throw new Error(`session/prompt: ${JSON.stringify(prompt.error)}`);
      return 0;
    };
    code = await Promise.race([steps(), exited.then(() => 1)]).catch((error: unknown) => {
      stderr += `\n${String(error)}`;
      return 1;
    });
  } finally {
    clearTimeout(timer);
    child.kill("SIGKILL");
    await exited;
    await killHubs(fixture.tree.path(""));
  }
  return { code, stdout, stderr, ms: performance.now() - started, timedOut };
}

/** The id of the one task saved under the fixture's HOME (`~/.cline/data/sessions/<id>/`). */
export async function savedSessionId(fixture: ClineFixture): Promise<string> {
  const ids = await readdir(path.join(fixture.home, ".cline", "data", "sessions"));
  expect(ids, "one saved Cline session").toHaveLength(1);
  return ids[0]!;
}
