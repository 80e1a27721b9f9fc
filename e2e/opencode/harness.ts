/**
 * Runs the real OpenCode CLI (`opencode-ai`, pinned in e2e/opencode/package.json) non-interactively
 * against the scripted model server, fully offline, inside a throwaway fixture:
 *
 *   <base>/home            HOME and every XDG dir (config, data, cache, state): nothing of the
 *                          user's OpenCode setup is read or written
 *   <base>/repo            a git repository (so OpenCode's worktree is the repo, not `/`) holding
 *                          the test's files, `opencode.json` with a custom OpenAI-compatible
 *                          provider pointed at the server, and `.opencode/plugin/*.js`
 *
 * The CLI is installed on first use with `npm ci --prefix e2e/opencode` (what CI runs up front).
 *
 * @example
 * const fixture = await createOpenCodeFixture({
 *   files: { "src/a.ts": "export {}\n" },
 *   plugins: { "marker.js": "export const Marker = async () => ({})" },
 * });
 * try {
 *   const run = await fixture.run({
 *     prompt: "read it",
 *     script: [{ toolCalls: [{ tool: "read", args: { filePath: fixture.path("src/a.ts") } }] }, { text: "done" }],
 *   });
 *   run.mainRequests; // what the model saw, step by step
 * } finally {
 *   await fixture.cleanup();
 * }
 */
import { spawn, execFileSync } from "node:child_process";
import { existsSync, openSync, readSync, closeSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  startOpenAIChatServer,
  type OpenAIChatServer,
  type OpenAIChatServerOptions,
  type RecordedRequest,
  type ScriptStep,
} from "../lib/openai-chat-server.js";
import { ensureInstalled } from "../lib/install.js";

export const OPENCODE_VERSION = "1.18.33";
/** The recording plugin (see fixtures/recorder-plugin.js); pass its source in `plugins`. */
export const RECORDER_PLUGIN_FILE = fileURLToPath(new URL("./fixtures/recorder-plugin.js", import.meta.url));
export const PROVIDER_ID = "scripted";
export const MODEL_ID = "scripted-model";

const HERE = dirname(fileURLToPath(import.meta.url));
const INSTALL_HINT = "OpenCode CLI not installed: run `npm ci --prefix e2e/opencode`";

function isNativeExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    const fd = openSync(file, "r");
    try {
      const head = Buffer.alloc(4);
      readSync(fd, head, 0, 4, 0);
      const elf = head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
      const macho = [0xfeedfacf, 0xcffaedfe, 0xcafebabe, 0xbebafeca].includes(head.readUInt32BE(0));
      const pe = head[0] === 0x4d && head[1] === 0x5a;
      return elf || macho || pe;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

/**
 * The native OpenCode binary from e2e/opencode/node_modules, or `null` when not installed.
 * Prefers the platform package itself, so it works even when npm skipped `opencode-ai`'s
 * postinstall script (which only copies that binary to `opencode-ai/bin/opencode.exe`).
 */
export function findOpenCodeBinary(modulesDir = join(HERE, "node_modules")): string | null {
  if (process.env.AGENTSMD_E2E_OPENCODE_BIN) return process.env.AGENTSMD_E2E_OPENCODE_BIN;
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const exe = process.platform === "win32" ? "opencode.exe" : "opencode";
  const base = `opencode-${platform}-${process.arch}`;
  const candidates = [base, `${base}-baseline`, `${base}-musl`, `${base}-baseline-musl`].map((name) => join(modulesDir, name, "bin", exe));
  candidates.push(join(modulesDir, "opencode-ai", "bin", "opencode.exe"));
  return candidates.find(isNativeExecutable) ?? null;
}

let checkedBinary: Promise<string> | undefined;

/**
 * The pinned OpenCode binary, installing it first with `npm ci --prefix e2e/opencode` when missing
 * (AGENTSMD_E2E_NO_INSTALL=1 makes that an error instead). Checks `opencode --version`.
 */
export function requireOpenCodeBinary(): Promise<string> {
  checkedBinary ??= (async () => {
    if (!process.env.AGENTSMD_E2E_OPENCODE_BIN) {
      await ensureInstalled({ folder: "opencode", pkg: "opencode-ai", version: OPENCODE_VERSION });
    }
    const bin = findOpenCodeBinary();
    if (!bin) throw new Error(INSTALL_HINT);
    const version = execFileSync(bin, ["--version"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } }).trim();
    if (version !== OPENCODE_VERSION) {
      throw new Error(`expected OpenCode ${OPENCODE_VERSION}, found ${version} at ${bin}: run \`npm ci --prefix e2e/opencode\``);
    }
    return bin;
  })();
  checkedBinary.catch(() => (checkedBinary = undefined));
  return checkedBinary;
}

export interface OpenCodeFixtureOptions {
  /** Files to create, path relative to the repo -> content. */
  files?: Record<string, string>;
  /** Local plugins: file name -> source, written to `<repo>/.opencode/plugin/`. */
  plugins?: Record<string, string>;
  /** Keys merged over the generated `opencode.json` (shallow). */
  config?: Record<string, unknown>;
  /** Files under the temp HOME: path relative to HOME -> content (e.g. `.config/opencode/AGENTS.md`). */
  homeFiles?: Record<string, string>;
  /** `git init` the repo so OpenCode's worktree is the repo. Default true. */
  git?: boolean;
  /** Model context limit announced in the provider config. Default 200000. */
  contextLimit?: number;
  /**
   * Model id. Default `scripted-model`. OpenCode 1.18.33 swaps `edit`/`write` for `apply_patch`
   * when the id contains `gpt-` (but not `gpt-4` or `oss`), e.g. `gpt-5-scripted`.
   */
  modelId?: string;
}

export interface OpenCodeRunOptions {
  prompt: string;
  script: ScriptStep[];
  /** Directory to run in, relative to the repo. Default: the repo. */
  cwd?: string;
  /** Extra CLI arguments after `run <prompt>` (e.g. `["--continue"]`). */
  args?: string[];
  /** Extra environment for the CLI. */
  env?: Record<string, string>;
  /** Kill the CLI after this long. Default 90 s. */
  timeoutMs?: number;
  /** Options for the model server besides the script. */
  server?: Omit<OpenAIChatServerOptions, "script">;
}

/** One line of `opencode run --format json` output. */
export interface OpenCodeEvent {
  type: string;
  [key: string]: unknown;
}

/** One hook call recorded by fixtures/recorder-plugin.js. */
export interface PluginCall {
  hook: string;
  time: number;
  input: any;
  output: any;
}

export interface OpenCodeRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Parsed JSON lines of stdout. */
  events: OpenCodeEvent[];
  /** Every request the model server received. */
  requests: RecordedRequest[];
  /** The agent-loop requests (one per step), in order. */
  mainRequests: RecordedRequest[];
  turnsUsed: number;
  turnsLeft: number;
  serverErrors: Error[];
  durationMs: number;
  /** Hook calls the recorder plugin logged during this run (empty without it). */
  pluginCalls: PluginCall[];
  /** Text of OpenCode's log files written during this run (they live under the temp XDG data dir). */
  logs: string;
}

export interface OpenCodeFixture {
  base: string;
  repo: string;
  home: string;
  /** XDG dirs of the temp HOME. */
  xdg: { config: string; data: string; cache: string; state: string };
  /** JSONL file the recorder plugin writes (env AGENTSMD_E2E_PLUGIN_LOG). */
  pluginLog: string;
  /** Absolute path of a repo-relative path. */
  path(relative: string): string;
  /** Write (or overwrite) a repo file, creating directories. */
  write(relative: string, content: string): Promise<void>;
  /** Run `opencode run` once against a fresh scripted server. */
  run(options: OpenCodeRunOptions): Promise<OpenCodeRunResult>;
  /** Remove the whole fixture (set AGENTSMD_E2E_KEEP=1 to keep it for inspection). */
  cleanup(): Promise<void>;
}

/** The environment that keeps OpenCode offline, quiet and inside the fixture. */
export function openCodeEnv(home: string, xdg: OpenCodeFixture["xdg"], extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: xdg.config,
    XDG_DATA_HOME: xdg.data,
    XDG_CACHE_HOME: xdg.cache,
    XDG_STATE_HOME: xdg.state,
    TMPDIR: process.env.TMPDIR ?? tmpdir(),
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    CI: "1",
    // OpenCode runs `npm install @opencode-ai/plugin` in each config dir (here <repo>/.opencode)
    // and waits for it (~70 s without network); offline makes it fail at once, and local
    // plugins still load. Keep npm's cache inside the fixture too.
    npm_config_offline: "true",
    npm_config_cache: join(xdg.cache, "npm"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_CLAUDE_CODE: "1",
    OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
    OPENCODE_DISABLE_TERMINAL_TITLE: "1",
    ...extra,
  };
  return env;
}

function baseConfig(baseURL: string, contextLimit: number, modelId: string): Record<string, unknown> {
  return {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    enabled_providers: [PROVIDER_ID],
    model: `${PROVIDER_ID}/${modelId}`,
    small_model: `${PROVIDER_ID}/${modelId}`,
    permission: { edit: "allow", bash: "allow", webfetch: "allow", external_directory: "allow" },
    provider: {
      [PROVIDER_ID]: {
        npm: "@ai-sdk/openai-compatible",
        name: "Scripted",
        options: { baseURL, apiKey: "scripted-key" },
        models: {
          [modelId]: {
            name: "Scripted model",
            tool_call: true,
            attachment: false,
            reasoning: false,
            temperature: true,
            limit: { context: contextLimit, output: 4096 },
          },
        },
      },
    },
  };
}

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const file = join(root, relative);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

async function readPluginCalls(file: string, offset: number): Promise<PluginCall[]> {
  if (!existsSync(file)) return [];
  const text = (await readFile(file)).subarray(offset).toString("utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as PluginCall);
}

/** Source of fixtures/recorder-plugin.js, for `plugins: { "recorder.js": await recorderPluginSource() }`. */
export function recorderPluginSource(): Promise<string> {
  return readFile(RECORDER_PLUGIN_FILE, "utf8");
}

async function readLogs(dir: string, since: number): Promise<string> {
  if (!existsSync(dir)) return "";
  const names = (await readdir(dir)).filter((name) => name.endsWith(".log")).sort();
  const parts: string[] = [];
  for (const name of names) {
    const file = join(dir, name);
    if (statSync(file).mtimeMs >= since - 1000) parts.push(await readFile(file, "utf8"));
  }
  return parts.join("\n");
}

/**
 * Create a fixture repo and temp HOME. See the module comment.
 *
 * @example
 * const fixture = await createOpenCodeFixture({ files: { "AGENTS.md": "root rules\n" } });
 */
export async function createOpenCodeFixture(options: OpenCodeFixtureOptions = {}): Promise<OpenCodeFixture> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "agentsmd-e2e-opencode-")));
  const home = join(base, "home");
  const repo = join(base, "repo");
  const xdg = {
    config: join(home, ".config"),
    data: join(home, ".local", "share"),
    cache: join(home, ".cache"),
    state: join(home, ".local", "state"),
  };
  for (const dir of [repo, ...Object.values(xdg)]) await mkdir(dir, { recursive: true });
  await writeTree(repo, options.files ?? {});
  await writeTree(home, options.homeFiles ?? {});
  await writeTree(join(repo, ".opencode", "plugin"), options.plugins ?? {});
  if (options.git ?? true) {
    execFileSync("git", ["init", "-q", "-b", "main", repo], { stdio: "ignore" });
  }
  const contextLimit = options.contextLimit ?? 200_000;
  const pluginLog = join(base, "plugin-log.jsonl");

  const fixture: OpenCodeFixture = {
    base,
    repo,
    home,
    xdg,
    pluginLog,
    path: (relative) => resolve(repo, relative),
    write: (relative, content) => writeTree(repo, { [relative]: content }),
    async run(runOptions) {
      const bin = await requireOpenCodeBinary();
      const server: OpenAIChatServer = await startOpenAIChatServer({ ...runOptions.server, script: runOptions.script });
      try {
        const config = { ...baseConfig(server.baseURL, contextLimit, options.modelId ?? MODEL_ID), ...options.config };
        await writeFile(join(repo, "opencode.json"), `${JSON.stringify(config, null, 2)}\n`);
        const cwd = resolve(repo, runOptions.cwd ?? ".");
        const args = ["run", runOptions.prompt, "--format", "json", "--print-logs", "--log-level", "INFO", ...(runOptions.args ?? [])];
        const logOffset = existsSync(pluginLog) ? statSync(pluginLog).size : 0;
        const started = Date.now();
        const result = await spawnCollect(bin, args, {
          cwd,
          env: openCodeEnv(home, xdg, { AGENTSMD_E2E_PLUGIN_LOG: pluginLog, ...runOptions.env }),
          timeoutMs: runOptions.timeoutMs ?? 90_000,
        });
        const durationMs = Date.now() - started;
        const events: OpenCodeEvent[] = [];
        for (const line of result.stdout.split("\n")) {
          const trimmed = line.trim();
          if (!trimmed.startsWith("{")) continue;
          try {
            events.push(JSON.parse(trimmed) as OpenCodeEvent);
          } catch {
            // not an event line
          }
        }
        return {
          ...result,
          events,
          requests: [...server.requests],
          mainRequests: server.mainRequests(),
          turnsUsed: server.turnsUsed,
          turnsLeft: server.turnsLeft,
          serverErrors: [...server.errors],
          durationMs,
          pluginCalls: await readPluginCalls(pluginLog, logOffset),
          logs: await readLogs(join(xdg.data, "opencode", "log"), started),
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
  return fixture;
}

interface SpawnResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

function spawnCollect(bin: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs: number }): Promise<SpawnResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(bin, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (data: string) => (stdout += data));
    child.stderr.setEncoding("utf8").on("data", (data: string) => (stderr += data));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (exitCode, signal) => {
      clearTimeout(timer);
      resolvePromise({ exitCode, signal, timedOut, stdout, stderr });
    });
  });
}
