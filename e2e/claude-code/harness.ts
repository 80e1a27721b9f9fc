/**
 * End-to-end harness for the real Claude Code CLI (`@anthropic-ai/claude-code`, pinned in
 * e2e/claude-code/package.json; install with `npm ci --prefix e2e/claude-code`).
 *
 * It builds a throw-away fixture (a repo directory and a HOME directory under the OS temp dir),
 * runs `claude -p <prompt> --output-format json` in it against the scripted Anthropic server of
 * e2e/lib/anthropic-server.ts, and hands back the requests the CLI sent. Nothing leaves
 * 127.0.0.1: the environment is built from scratch (no ANTHROPIC_* or CLAUDE* variables of the
 * caller leak in) and non-essential traffic is switched off.
 *
 * Example:
 * ```ts
 * const fx = await createClaudeFixture({ files: { "CLAUDE.md": "# root\n", "pkg/a.ts": "x\n" } });
 * const server = await startAnthropicServer({ script: [
 *   { toolUses: [{ name: "Read", input: { file_path: fx.path("pkg/a.ts") } }] },
 *   { text: "done" },
 * ] });
 * const run = await runClaude({ fixture: fx, server, prompt: "read pkg/a.ts" });
 * expect(run.exitCode).toBe(0);
 * run.requests; // RecordedRequest[] sent during this run
 * ```
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AnthropicServer, RecordedRequest } from "../lib/anthropic-server.js";
import { afterEach, beforeAll } from "vitest";
import { assertAgentsmdBuilt } from "../lib/agentsmd.js";
import { runText } from "../lib/exec.js";
import { ensureInstalled } from "../lib/install.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Tools allowed without a permission prompt (`-p` mode cannot ask). */
const DEFAULT_ALLOWED_TOOLS = ["Read", "Edit", "Write", "Glob", "Grep", "NotebookEdit"];

function platformPackageKeys(): string[] {
  const arch = process.arch;
  if (process.platform === "linux") return [`linux-${arch}`, `linux-${arch}-musl`];
  return [`${process.platform}-${arch}`];
}

/**
 * Absolute path of the native `claude` binary: `CLAUDE_CODE_E2E_BIN` when set, else the binary the
 * package's postinstall put in `bin/claude.exe`, else the platform package's own binary (so an
 * install with `--ignore-scripts` works too). Throws with the install command when missing.
 */
function claudeCodeBinary(): string {
  const override = process.env.CLAUDE_CODE_E2E_BIN;
  if (override) return override;
  const scope = path.join(HERE, "node_modules", "@anthropic-ai");
  const candidates: string[] = [path.join(scope, "claude-code", "bin", "claude.exe")];
  for (const key of platformPackageKeys()) {
    candidates.push(path.join(scope, `claude-code-${key}`, process.platform === "win32" ? "claude.exe" : "claude"));
  }
  for (const file of candidates) {
    try {
      // The un-postinstalled placeholder is a few hundred bytes; the real binary is hundreds of MB.
      if (fs.statSync(file).size > 1_000_000) return file;
    } catch {
      // try the next one
    }
  }
  throw new Error(`Claude Code CLI not installed for the e2e tests (looked in ${scope}). Run: npm ci --prefix e2e/claude-code`);
}

/** The pinned version from e2e/claude-code/package.json. */
export function pinnedClaudeCodeVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(HERE, "package.json"), "utf8"));
  return pkg.dependencies["@anthropic-ai/claude-code"];
}

/**
 * Install the pinned CLI when it is missing (runs `npm ci --prefix e2e/claude-code` once;
 * AGENTSMD_E2E_NO_INSTALL=1 makes it fail instead) and return the binary's path.
 */
export async function ensureClaudeCodeInstalled(): Promise<string> {
  await ensureInstalled({ folder: "claude-code", pkg: "@anthropic-ai/claude-code", version: pinnedClaudeCodeVersion() });
  return claudeCodeBinary();
}

/** `claude --version`, e.g. `2.1.330 (Claude Code)`. */
export function claudeCodeVersion(): string {
  return execFileSync(claudeCodeBinary(), ["--version"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } }).trim();
}

export interface ClaudeFixture {
  /** Temp directory holding everything below. */
  base: string;
  /** The project (cwd of the CLI). */
  repo: string;
  /** HOME of the CLI (holds `.claude/`, `.claude.json`, XDG dirs). */
  home: string;
  /** TMPDIR of the CLI. */
  tmp: string;
  /** Absolute path of a file inside the repo. */
  path(rel: string): string;
  /** Write a repo file (parents created). Returns its absolute path. */
  write(rel: string, content: string): string;
  /** Write `<repo>/.claude/settings.json` (or another settings file relative to the repo). */
  writeSettings(settings: unknown, rel?: string): string;
  /** Remove the temp directory (skipped when AGENTSMD_E2E_KEEP=1). */
  cleanup(): Promise<void>;
}

export interface FixtureOptions {
  /** Repo files: relative path -> content. */
  files?: Record<string, string>;
  /** Run `git init` in the repo (default true: a real project root for marker-based tools). */
  git?: boolean;
  /** Contents of `<repo>/.claude/settings.json`. */
  settings?: unknown;
  /** Prefix of the temp directory name. */
  prefix?: string;
}

/** Make a fixture repo + HOME under the OS temp dir (realpath'd, so paths match what the CLI reports). */
export async function createClaudeFixture(options: FixtureOptions = {}): Promise<ClaudeFixture> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), options.prefix ?? "agentsmd-e2e-cc-")));
  const repo = path.join(base, "repo");
  const home = path.join(base, "home");
  const tmp = path.join(base, "tmp");
  for (const dir of [repo, home, tmp]) fs.mkdirSync(dir, { recursive: true });
  const write = (rel: string, content: string) => {
    const file = path.join(repo, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    return file;
  };
  for (const [rel, content] of Object.entries(options.files ?? {})) write(rel, content);
  if (options.git !== false) {
    try {
      execFileSync("git", ["init", "-q"], { cwd: repo, stdio: "ignore" });
    } catch {
      fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
    }
  }
  const fixture: ClaudeFixture = {
    base,
    repo,
    home,
    tmp,
    path: (rel) => path.join(repo, rel),
    write,
    writeSettings: (settings, rel = ".claude/settings.json") => write(rel, JSON.stringify(settings, null, 2) + "\n"),
    cleanup: async () => {
      if (process.env.AGENTSMD_E2E_KEEP === "1") return;
      await fs.promises.rm(base, { recursive: true, force: true, maxRetries: 3 });
    },
  };
  if (options.settings !== undefined) fixture.writeSettings(options.settings);
  return fixture;
}

/**
 * The CLI's environment, built from scratch: HOME and XDG dirs in the fixture, the scripted server,
 * and every switch that keeps Claude Code off the network apart from ANTHROPIC_BASE_URL.
 */
function claudeEnv(fixture: ClaudeFixture, server: AnthropicServer, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: fixture.home,
    USER: process.env.USER ?? "e2e",
    SHELL: process.env.SHELL ?? "/bin/bash",
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    TMPDIR: fixture.tmp,
    XDG_CONFIG_HOME: path.join(fixture.home, ".config"),
    XDG_STATE_HOME: path.join(fixture.home, ".local", "state"),
    XDG_DATA_HOME: path.join(fixture.home, ".local", "share"),
    XDG_CACHE_HOME: path.join(fixture.home, ".cache"),
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-e2e-not-a-real-key",
    // Umbrella switch: autoupdater, telemetry, error reporting, feedback, release notes...
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
  };
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export interface RunClaudeOptions {
  fixture: ClaudeFixture;
  server: AnthropicServer;
  prompt: string;
  /** Session id to continue (`--resume <id>`). */
  resume?: string;
  /** `--model`; default: the CLI's own default (claude-opus-5-5 for 2.1.330 with an API key). */
  model?: string;
  /** `--allowedTools`; default DEFAULT_ALLOWED_TOOLS. */
  allowedTools?: string[];
  /** More CLI arguments. */
  args?: string[];
  /** Environment overrides (undefined deletes). */
  env?: Record<string, string | undefined>;
  /** Working directory relative to the repo (default: the repo). */
  cwd?: string;
  /** Kill after this long (default 90 s). */
  timeoutMs?: number;
}

export interface ClaudeRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** The `--output-format json` result document, when stdout parsed. */
  result: any;
  sessionId: string | undefined;
  durationMs: number;
  /** Requests the scripted server received during this run, in order. */
  requests: RecordedRequest[];
  /** The argv used (without the binary). */
  argv: string[];
}

/** Run `claude -p <prompt> --output-format json` in the fixture and collect what the server saw. */
export async function runClaude(options: RunClaudeOptions): Promise<ClaudeRunResult> {
  const { fixture, server } = options;
  const argv = ["-p", options.prompt, "--output-format", "json"];
  argv.push("--allowedTools", (options.allowedTools ?? DEFAULT_ALLOWED_TOOLS).join(","));
  if (options.model) argv.push("--model", options.model);
  if (options.resume) argv.push("--resume", options.resume);
  argv.push(...(options.args ?? []));
  const before = server.requests.length;
  const started = Date.now();
  const cwd = options.cwd ? path.join(fixture.repo, options.cwd) : fixture.repo;
  const timeoutMs = options.timeoutMs ?? 90_000;

  const outcome = await runText(claudeCodeBinary(), argv, { cwd, env: claudeEnv(fixture, server, options.env), timeoutMs });
  let result: any;
  try {
    result = JSON.parse(outcome.stdout);
  } catch {
    result = undefined;
  }
  return {
    exitCode: outcome.code,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    stdout: outcome.stdout,
    stderr: outcome.stderr,
    result,
    sessionId: typeof result?.session_id === "string" ? result.session_id : undefined,
    durationMs: Date.now() - started,
    requests: server.requests.slice(before),
    argv,
  };
}

/** A one-paragraph description of a failed run, for assertion messages. */
export function describeRun(run: ClaudeRunResult): string {
  return [
    `claude ${run.argv.map((a) => JSON.stringify(a)).join(" ")}`,
    `exit=${run.exitCode} signal=${run.signal} timedOut=${run.timedOut} ${run.durationMs}ms`,
    `stdout: ${run.stdout.slice(0, 2000)}`,
    `stderr: ${run.stderr.slice(0, 2000)}`,
    `requests: ${run.requests.map((r) => `${r.method} ${r.path} ${r.kind}${r.turn === undefined ? "" : `#${r.turn}`}`).join(", ")}`,
  ].join("\n");
}

/**
 * Write a tiny command hook (a node ESM script) that appends every stdin event as one JSON line
 * to `logFile` and answers with `additionalContext` from `contexts`, keyed by
 * `"<event>:<source|tool_name>"` or `"<event>"` (first match wins). Events without an entry get no
 * output. Returns the shell command to put in settings (`node <script>`).
 */
export function writeRecordingHook(file: string, logFile: string, contexts: Record<string, string>): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const source = `import fs from "node:fs";
const contexts = ${JSON.stringify(contexts)};
let raw = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (c) => (raw += c));
process.stdin.on("end", () => {
  let input;
  try { input = JSON.parse(raw); } catch { input = { unparsed: raw }; }
  const envKeys = Object.keys(process.env).filter((k) => /^CLAUDE/.test(k)).sort();
  fs.appendFileSync(${JSON.stringify(logFile)}, JSON.stringify({ input, env: Object.fromEntries(envKeys.map((k) => [k, process.env[k]])) }) + "\\n");
  const event = input.hook_event_name;
  const sub = input.source ?? input.tool_name ?? input.trigger ?? "";
  const text = contexts[event + ":" + sub] ?? contexts[event];
  if (text !== undefined) {
    process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } }));
  }
});
`;
  fs.writeFileSync(file, source);
  return `node ${JSON.stringify(file)}`;
}

export interface HookLogEntry {
  input: any;
  env: Record<string, string>;
}

/** The events a recording hook saw, in order (empty when it never ran). */
export function readHookLog(logFile: string): HookLogEntry[] {
  if (!fs.existsSync(logFile)) return [];
  return fs
    .readFileSync(logFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as HookLogEntry);
}

/** Settings JSON registering one command for the given events (tool events get `matcher`). */
export function hookSettings(command: string, events: Record<string, string | undefined>): unknown {
  const hooks: Record<string, unknown[]> = {};
  for (const [event, matcher] of Object.entries(events)) {
    hooks[event] = [{ ...(matcher === undefined ? {} : { matcher }), hooks: [{ type: "command", command, timeout: 30 }] }];
  }
  return { hooks };
}

/** The transcript (`~/.claude/projects/<slug>/<session>.jsonl`) of a session, one parsed object a line. */
export function readTranscript(fixture: ClaudeFixture, sessionId: string): any[] {
  const projects = path.join(fixture.home, ".claude", "projects");
  for (const slug of fs.existsSync(projects) ? fs.readdirSync(projects) : []) {
    const file = path.join(projects, slug, `${sessionId}.jsonl`);
    if (fs.existsSync(file)) {
      return fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line));
    }
  }
  throw new Error(`no transcript for session ${sessionId} under ${projects}`);
}

export interface HookRun {
  /** e.g. `hook_success`; any other `hook_*` attachment type except `hook_additional_context` is a failure. */
  type: string;
  hookName: string;
  command?: string;
  exitCode?: number;
  stdout?: string;
  stderr?: string;
}

/** Every command-hook run recorded in a transcript (Claude Code logs each with exit code and stderr). */
export function hookRuns(transcript: any[]): HookRun[] {
  return transcript
    .map((entry) => entry?.attachment)
    .filter((a) => a && typeof a.type === "string" && a.type.startsWith("hook_") && a.type !== "hook_additional_context")
    .map((a) => ({ type: a.type, hookName: a.hookName, command: a.command, exitCode: a.exitCode, stdout: a.stdout, stderr: a.stderr }));
}

/**
 * The hooks every agentsmd Claude Code suite needs: the built CLI and the pinned Claude Code
 * before the first test, and the cleanups tests push run after each test.
 * @example const cleanups = useAgentsmdClaudeSuite(); cleanups.push(() => fixture.cleanup());
 */
export function useAgentsmdClaudeSuite(): Array<() => Promise<void>> {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
  });
  beforeAll(async () => {
    await assertAgentsmdBuilt();
    await ensureClaudeCodeInstalled();
  }, 15 * 60_000);
  return cleanups;
}
