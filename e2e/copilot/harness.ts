/**
 * End-to-end harness for the real GitHub Copilot CLI (`@github/copilot`, pinned in
 * e2e/copilot/package.json; install with `npm ci --prefix e2e/copilot`).
 *
 * It builds a throw-away fixture (a git repo and a HOME under the OS temp dir), runs
 * `copilot -p <prompt> --allow-all-tools --allow-all-paths --trust-folder -s` in BYOK offline mode
 * (`COPILOT_OFFLINE=true`, `COPILOT_PROVIDER_BASE_URL`) against the scripted Chat Completions server
 * of e2e/lib/openai-chat-server.ts, and hands back the requests the CLI sent. Nothing leaves
 * 127.0.0.1: the environment is built from scratch. The CLI unpacks itself (~235 MB) into
 * `$XDG_CACHE_HOME/copilot` on first use; the harness shares one cache directory between runs so
 * that happens once per machine, not once per fixture.
 *
 * Example:
 * ```ts
 * const fx = await createCopilotFixture({ files: { "AGENTS.md": "ROOT\n", "pkg/a.ts": "x\n" } });
 * const server = await startCopilotServer([{ toolCalls: [{ tool: "view", args: { path: fx.path("pkg/a.ts") } }] }, { text: "done" }]);
 * const run = await runCopilot({ fixture: fx, server, prompt: "read it" });
 * run.requests.at(-1); // the final main request
 * ```
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import { parse as parseJsonc } from "jsonc-parser";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll } from "vitest";
import {
  messageText,
  startOpenAIChatServer,
  type ChatRequestBody,
  type OpenAIChatServer,
  type RecordedRequest,
  type RequestKind,
  type ScriptStep,
} from "../lib/openai-chat-server.js";
import { assertAgentsmdBuilt } from "../lib/agentsmd.js";
import { runText } from "../lib/exec.js";
import { ensureInstalled } from "../lib/install.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The pinned version from e2e/copilot/package.json. */
export function pinnedCopilotVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(HERE, "package.json"), "utf8"));
  return pkg.dependencies["@github/copilot"];
}

/**
 * The native binary of the platform package (what the npm loader would spawn), or
 * `COPILOT_E2E_BIN`. Throws with the install command when missing.
 */
function copilotBinary(): string {
  if (process.env.COPILOT_E2E_BIN) return process.env.COPILOT_E2E_BIN;
  const platform = process.platform === "linux" ? "linux" : process.platform;
  const file = path.join(HERE, "node_modules", "@github", `copilot-${platform}-${process.arch}`, process.platform === "win32" ? "copilot.exe" : "copilot");
  if (!fs.existsSync(file)) throw new Error(`Copilot CLI not installed for the e2e tests (looked for ${file}). Run: npm ci --prefix e2e/copilot`);
  return file;
}

/** Installs the pinned CLI when missing and returns the binary's path. */
async function ensureCopilotInstalled(): Promise<string> {
  await ensureInstalled({ folder: "copilot", pkg: "@github/copilot", version: pinnedCopilotVersion() });
  return copilotBinary();
}

/** One cache directory for every run of this machine: the CLI unpacks its package there once. */
const COPILOT_CACHE_DIR = path.join(os.tmpdir(), "agentsmd-e2e-copilot-cache");

export interface CopilotFixture {
  base: string;
  /** The git repository (default cwd of the CLI). */
  repo: string;
  /** HOME of the CLI (`~/.copilot` lives here). */
  home: string;
  path(rel: string): string;
  write(rel: string, content: string): string;
  cleanup(): Promise<void>;
}

/**
 * A temp directory with `repo/` (git-initialised unless `git: false`) holding `files`, and `home/`.
 * @example const fx = await createCopilotFixture({ files: { "AGENTS.md": "ROOT\n" } });
 */
export async function createCopilotFixture(options: { files?: Record<string, string>; git?: boolean; prefix?: string } = {}): Promise<CopilotFixture> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), options.prefix ?? "agentsmd-e2e-copilot-")));
  const repo = path.join(base, "repo");
  const home = path.join(base, "home");
  fs.mkdirSync(repo, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  if (options.git !== false) {
    try {
      execFileSync("git", ["init", "-q"], { cwd: repo, stdio: "ignore" });
    } catch {
      fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
    }
  }
  const fx: CopilotFixture = {
    base,
    repo,
    home,
    path: (rel) => (rel === "" || rel === "." ? repo : path.join(repo, ...rel.split("/"))),
    write(rel, content) {
      const file = fx.path(rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      return file;
    },
    cleanup: async () => {
      if (process.env.AGENTSMD_E2E_KEEP !== "1") fs.rmSync(base, { recursive: true, force: true });
    },
  };
  for (const [rel, content] of Object.entries(options.files ?? {})) fx.write(rel, content);
  return fx;
}

/** The user message Copilot sends when it compacts the history (its summarisation request). */
const COMPACTION_PROMPT_START = "Please create a detailed summary of the conversation so far.";

/** Copilot's requests: its compaction request also offers tools, so it is recognised by its last user message. */
function classifyCopilotRequest(body: ChatRequestBody): RequestKind {
  const last = body.messages?.at(-1);
  if (last?.role === "user" && messageText(last).startsWith(COMPACTION_PROMPT_START)) return "compaction";
  return Array.isArray(body.tools) && body.tools.length > 0 ? "main" : "other";
}

/** A scripted server that tells Copilot's compaction requests apart. */
export function startCopilotServer(script: ScriptStep[]): Promise<OpenAIChatServer> {
  return startOpenAIChatServer({
    script,
    classify: classifyCopilotRequest,
    sideReply: (kind) => (kind === "compaction" ? "<overview>scripted summary</overview>" : "ok"),
  });
}

export interface CopilotRun {
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  ms: number;
  /** Main requests sent during this run, in order. */
  requests: RecordedRequest[];
  /** Every request of this run (compaction included). */
  all: RecordedRequest[];
}

export interface RunCopilotOptions {
  fixture: CopilotFixture;
  server: OpenAIChatServer;
  prompt: string;
  /** cwd relative to the repo. @default "" */
  cwd?: string;
  /** Extra environment (undefined removes). */
  env?: Record<string, string | undefined>;
  /** Extra CLI arguments. */
  args?: string[];
  /** Kill after this many ms. @default 90 000 */
  timeoutMs?: number;
  /**
   * Continue the most recent session (`--continue`). Copilot refuses `--trust-folder` with it, so
   * the repository is trusted through `trustedFolders` in the fixture's ~/.copilot/config.json.
   */
  resume?: boolean;
}

/**
 * The environment of a run, from scratch: the fixture's HOME, the shared unpack cache, BYOK
 * offline mode against the server.
 */
function copilotEnv(fixture: CopilotFixture, server: OpenAIChatServer, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: fixture.home,
    TMPDIR: os.tmpdir(),
    XDG_CACHE_HOME: COPILOT_CACHE_DIR,
    COPILOT_OFFLINE: "true",
    COPILOT_AUTO_UPDATE: "false",
    COPILOT_PROVIDER_BASE_URL: server.baseURL,
    COPILOT_PROVIDER_API_KEY: "x",
    COPILOT_MODEL: "gpt-4.1",
    NO_COLOR: "1",
  };
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/**
 * Runs `copilot -p` once, bounded by `timeoutMs`.
 * @example const run = await runCopilot({ fixture: fx, server, prompt: "go", cwd: "pkg" });
 */
export async function runCopilot(options: RunCopilotOptions): Promise<CopilotRun> {
  const before = options.server.requests.length;
  if (options.resume) trustRepository(options.fixture);
  const session = options.resume ? ["--continue"] : ["--trust-folder"];
  const args = ["-p", options.prompt, "--allow-all-tools", "--allow-all-paths", ...session, "-s", ...(options.args ?? [])];
  const run = await runText(copilotBinary(), args, {
    cwd: options.fixture.path(options.cwd ?? ""),
    env: copilotEnv(options.fixture, options.server, options.env),
    timeoutMs: options.timeoutMs ?? 90_000,
  });
  const all = options.server.requests.slice(before);
  const { code: exitCode, timedOut, stdout, stderr, ms } = run;
  return { exitCode, timedOut, stdout, stderr, ms, requests: all.filter((request) => request.kind === "main"), all };
}

/** Lists the fixture's repository in `trustedFolders` of its ~/.copilot/config.json (kept otherwise). */
function trustRepository(fixture: CopilotFixture): void {
  const file = path.join(fixture.home, ".copilot", "config.json");
  const config = fs.existsSync(file) ? ((parseJsonc(fs.readFileSync(file, "utf8")) ?? {}) as { trustedFolders?: string[] }) : {};
  const trusted = new Set(config.trustedFolders ?? []);
  trusted.add(fixture.repo);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...config, trustedFolders: [...trusted] }, null, 2));
}

/** A short description of a run for assertion messages. */
export function describeRun(run: CopilotRun): string {
  return `exit ${run.exitCode}${run.timedOut ? " (timed out)" : ""}, ${run.requests.length} main requests\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(-3000)}`;
}

/** `copilot instruction list --json` in `cwd` (relative to the repo): what Copilot says it loads. */
export async function instructionList(
  fixture: CopilotFixture,
  cwd = "",
): Promise<Array<{ id: string; location: string; type: string; sourcePath: string; applyTo?: string[] }>> {
  const child = spawn(copilotBinary(), ["instruction", "list", "--json"], {
    cwd: fixture.path(cwd),
    env: { PATH: process.env.PATH ?? "", HOME: fixture.home, XDG_CACHE_HOME: COPILOT_CACHE_DIR, COPILOT_OFFLINE: "true", COPILOT_AUTO_UPDATE: "false" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  await new Promise((resolve) => child.on("close", resolve)).finally(() => clearTimeout(timer));
  return JSON.parse(stdout);
}

/** The bodies of the `<custom_instruction>` blocks of the system message, in order. */
export function customInstructions(body: ChatRequestBody): string[] {
  const system = body.messages.find((message) => message.role === "system");
  const text = system ? messageText(system) : "";
  return [...text.matchAll(/<custom_instruction>\n([\s\S]*?)<\/custom_instruction>/g)].map((match) => match[1]!);
}

/** The run of `<custom_instruction>` blocks exactly as the system message holds it (what preset `copilot`'s `show` reproduces). */
export function customInstructionSection(body: ChatRequestBody): string {
  const system = body.messages.find((message) => message.role === "system");
  const text = system ? messageText(system) : "";
  const first = text.indexOf("<custom_instruction>");
  const last = text.lastIndexOf("</custom_instruction>");
  return first < 0 ? "" : text.slice(first, last + "</custom_instruction>".length);
}

/** Nested files Copilot attached itself after a `view`: `{rel, content}` from its `<system_reminder>` user messages. */
export function nativeReminders(body: ChatRequestBody): Array<{ rel: string; content: string }> {
  const out: Array<{ rel: string; content: string }> = [];
  for (const message of body.messages) {
    if (message.role !== "user") continue;
    for (const match of messageText(message).matchAll(
      /<system_reminder>\nCustom instructions from (.+?)\. Apply these to any code you write here:\n\n([\s\S]*?)\n<\/system_reminder>/g,
    ))
      out.push({ rel: match[1]!, content: match[2]! });
  }
  return out;
}

/** Text every message of a request carries, joined (to count tokens across the whole conversation). */
function requestText(body: ChatRequestBody): string {
  return body.messages.map((message) => messageText(message)).join("\n\u0000\n");
}

/** How often `token` occurs in the request. */
export function occurrences(body: ChatRequestBody, token: string): number {
  return requestText(body).split(token).length - 1;
}

/** Registers the per-file set-up: the build check, the install, and cleanups after each test. */
export function useCopilotSuite(): Array<() => unknown> {
  const cleanups: Array<() => unknown> = [];
  beforeAll(async () => {
    await assertAgentsmdBuilt();
    await ensureCopilotInstalled();
  }, 600_000);
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}
