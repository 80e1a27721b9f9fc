/**
 * One fixture for the CLIs of the OpenCode family (OpenCode itself, Kilo Code): the real binary run
 * non-interactively (`run <prompt> --format json`) against the scripted model server, fully
 * offline, inside a throwaway tree:
 *
 *   <base>/home            HOME and every XDG dir (config, data, cache, state): nothing of the
 *                          user's setup is read or written
 *   <base>/repo            a git repository (so the CLI's worktree is the repo, not `/`) holding
 *                          the test's files, the config file (`opencode.json`, `kilo.json`) with a
 *                          custom OpenAI-compatible provider pointed at the server, and local plugins
 *
 * What differs per CLI (binary, config file, plugin folder, environment, log folder) is a
 * {@link FamilyHost}; e2e/opencode/harness.ts and e2e/kilo/harness.ts each define one.
 *
 * @example
 * const fixture = await createFamilyFixture(KILO_HOST, { files: { "AGENTS.md": "rules\n" } });
 * const run = await fixture.run({ prompt: "go", script: [{ text: "done" }] });
 * run.mainRequests; // what the model saw, step by step
 * await fixture.cleanup();
 */
import { execFileSync } from "node:child_process";
import { existsSync, openSync, readSync, closeSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, beforeAll, expect } from "vitest";
import { runText } from "./exec.js";
import { ensureInstalled } from "./install.js";
import {
  messageText,
  startOpenAIChatServer,
  systemTexts,
  toolResults,
  type ChatRequestBody,
  type OpenAIChatServer,
  type OpenAIChatServerOptions,
  type RecordedRequest,
  type ScriptStep,
} from "./openai-chat-server.js";

const PROVIDER_ID = "scripted";
const MODEL_ID = "scripted-model";

/** XDG dirs of a fixture's HOME. */
export interface FamilyXdg {
  config: string;
  data: string;
  cache: string;
  state: string;
}

/** What one CLI of the family needs from the fixture. */
export interface FamilyHost {
  /** Temp-dir prefix and messages ("opencode", "kilo"). */
  name: string;
  /** The checked, pinned binary. */
  binary(): Promise<string>;
  /** The project config file the CLI reads (written at the repo root before each run). */
  configFile: string;
  /** `$schema` of that file. */
  schema: string;
  /** Local plugin folder, relative to the repo. */
  pluginDir: string;
  /** The environment that keeps the CLI offline, quiet and inside the fixture. */
  env(home: string, xdg: FamilyXdg, extra?: Record<string, string>): Record<string, string>;
  /** Where the CLI writes its log files. */
  logDir(xdg: FamilyXdg): string;
}

/**
 * True when `file` starts like a native executable (ELF, Mach-O or PE).
 * @example isNativeExecutable("/usr/bin/env") // true on Linux
 */
export function isNativeExecutable(file: string): boolean {
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
 * The platform packages' binaries under `modulesDir` (`<prefix>-<platform>-<arch>[-baseline][-musl]/bin/<exe>`), best first.
 * @example platformBinaries("/e2e/kilo/node_modules", "@kilocode/cli", "kilo")
 */
export function platformBinaries(modulesDir: string, prefix: string, exe: string): string[] {
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const file = process.platform === "win32" ? `${exe}.exe` : exe;
  const base = `${prefix}-${platform}-${process.arch}`;
  return [base, `${base}-baseline`, `${base}-musl`, `${base}-baseline-musl`].map((name) => join(modulesDir, ...name.split("/"), "bin", file));
}

/** `bin --version`, trimmed, with nothing of the caller's environment but PATH (the one spawn of e2e/lib/exec.ts). */
async function binaryVersion(bin: string): Promise<string> {
  const run = await runText(bin, ["--version"], { cwd: tmpdir(), env: { PATH: process.env.PATH ?? "" }, timeoutMs: 60_000 });
  if (run.code !== 0) throw new Error(`${bin} --version failed (exit ${run.code}${run.timedOut ? ", timed out" : ""}): ${run.stderr.slice(-1000)}`);
  return run.stdout.trim();
}

/** A CLI's pinned binary: its e2e folder, npm package and version, and where its binary lands. */
export interface PinnedBinary {
  /** The CLI's name in messages ("OpenCode", "Kilo"). */
  name: string;
  /** Its folder under e2e/ (with the package.json that pins it). */
  folder: string;
  pkg: string;
  version: string;
  /** Variable naming another binary to use (then nothing is installed). */
  override: string;
  /** The installed native binary, or null. */
  find(): string | null;
}

/**
 * The pinned binary of `spec`, installing it first with `npm ci --prefix e2e/<folder>` when
 * missing (AGENTSMD_E2E_NO_INSTALL=1 makes that an error instead); checks `--version` once.
 * @example export const requireKiloBinary = pinnedBinary({ name: "Kilo", folder: "kilo", pkg: "@kilocode/cli", version: "7.7.7", override: "AGENTSMD_E2E_KILO_BIN", find: findKiloBinary });
 */
export function pinnedBinary(spec: PinnedBinary): () => Promise<string> {
  let checked: Promise<string> | undefined;
  const fix = `run \`npm ci --prefix e2e/${spec.folder}\``;
  return () => {
    checked ??= (async () => {
      if (!process.env[spec.override]) await ensureInstalled({ folder: spec.folder, pkg: spec.pkg, version: spec.version });
      const bin = spec.find();
      if (!bin) throw new Error(`${spec.name} CLI not installed: ${fix}`);
      const version = await binaryVersion(bin);
      if (version !== spec.version) throw new Error(`expected ${spec.name} ${spec.version}, found ${version} at ${bin}: ${fix}`);
      return bin;
    })();
    checked.catch(() => (checked = undefined));
    return checked;
  };
}

export interface FamilyFixtureOptions {
  /** Files to create, path relative to the repo -> content. */
  files?: Record<string, string>;
  /** Local plugins: file name -> source, written to the host's plugin folder. */
  plugins?: Record<string, string>;
  /** Keys merged over the generated config file (shallow). */
  config?: Record<string, unknown>;
  /** Files under the temp HOME: path relative to HOME -> content (e.g. `.config/opencode/AGENTS.md`). */
  homeFiles?: Record<string, string>;
  /** `git init` the repo so the CLI's worktree is the repo. Default true. */
  git?: boolean;
  /** Model context limit announced in the provider config. Default 200000. */
  contextLimit?: number;
  /**
   * Model id. Default `scripted-model`. OpenCode 1.18.33 swaps `edit`/`write` for `apply_patch`
   * when the id contains `gpt-` (but not `gpt-4` or `oss`), e.g. `gpt-5-scripted`.
   */
  modelId?: string;
}

interface FamilyRunOptions {
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

/** One line of `run --format json` output. */
interface FamilyEvent {
  type: string;
  [key: string]: unknown;
}

/** One hook call recorded by e2e/opencode/fixtures/recorder-plugin.js. */
export interface PluginCall {
  hook: string;
  time: number;
  input: any;
  output: any;
}

export interface FamilyRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Parsed JSON lines of stdout. */
  events: FamilyEvent[];
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
  /** Text of the CLI's log files written during this run (they live under the temp XDG data dir). */
  logs: string;
}

export interface FamilyFixture {
  base: string;
  repo: string;
  home: string;
  /** XDG dirs of the temp HOME. */
  xdg: FamilyXdg;
  /** JSONL file the recorder plugin writes (env AGENTSMD_E2E_PLUGIN_LOG). */
  pluginLog: string;
  /** Absolute path of a repo-relative path. */
  path(relative: string): string;
  /** Write (or overwrite) a repo file, creating directories. */
  write(relative: string, content: string): Promise<void>;
  /** Run the CLI once against a fresh scripted server. */
  run(options: FamilyRunOptions): Promise<FamilyRunResult>;
  /** Remove the whole fixture (set AGENTSMD_E2E_KEEP=1 to keep it for inspection). */
  cleanup(): Promise<void>;
}

/**
 * The environment that keeps a CLI of the family offline, quiet and inside the fixture: HOME and
 * every XDG dir in the fixture, npm offline (the CLIs run `npm install` of their plugin package in
 * each config dir and wait for it; offline it fails at once and local plugins still load), and the
 * family's `<PREFIX>_DISABLE_*` switches (auto-update, sharing, model list, LSP downloads, default
 * plugins, Claude Code compatibility, external skills, terminal title).
 * @example familyEnv(home, xdg, "KILO", { KILO_NO_DAEMON: "1" })
 */
export function familyEnv(home: string, xdg: FamilyXdg, prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  const switches = ["AUTOUPDATE", "SHARE", "MODELS_FETCH", "LSP_DOWNLOAD", "DEFAULT_PLUGINS", "CLAUDE_CODE", "EXTERNAL_SKILLS", "TERMINAL_TITLE"];
  return {
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
    npm_config_offline: "true",
    npm_config_cache: join(xdg.cache, "npm"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    ...Object.fromEntries(switches.map((name) => [`${prefix}_DISABLE_${name}`, "1"])),
    ...extra,
  };
}

/**
 * The config keys that point the CLI at the scripted server: one OpenAI-compatible provider, its
 * one model as model and small model, every permission granted.
 */
function scriptedProviderConfig(schema: string, baseURL: string, contextLimit: number, modelId: string): Record<string, unknown> {
  return {
    $schema: schema,
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

/** Writes `files` (relative path -> text) under `root`, creating directories. */
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

function parseEvents(stdout: string): FamilyEvent[] {
  const events: FamilyEvent[] = [];
  for (const line of stdout.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("{")) continue;
    try {
      events.push(JSON.parse(trimmed) as FamilyEvent);
    } catch {
      // not an event line
    }
  }
  return events;
}

/**
 * Create a fixture repo and temp HOME for `host`. See the module comment.
 * @example const fixture = await createFamilyFixture(OPENCODE_HOST, { files: { "AGENTS.md": "root rules\n" } });
 */
export async function createFamilyFixture(host: FamilyHost, options: FamilyFixtureOptions = {}): Promise<FamilyFixture> {
  const base = await realpath(await mkdtemp(join(tmpdir(), `agentsmd-e2e-${host.name}-`)));
  const home = join(base, "home");
  const repo = join(base, "repo");
  const xdg: FamilyXdg = {
    config: join(home, ".config"),
    data: join(home, ".local", "share"),
    cache: join(home, ".cache"),
    state: join(home, ".local", "state"),
  };
  for (const dir of [repo, ...Object.values(xdg)]) await mkdir(dir, { recursive: true });
  await writeTree(repo, options.files ?? {});
  await writeTree(home, options.homeFiles ?? {});
  await writeTree(join(repo, host.pluginDir), options.plugins ?? {});
  if (options.git ?? true) {
    execFileSync("git", ["init", "-q", "-b", "main", repo], { stdio: "ignore" });
  }
  const contextLimit = options.contextLimit ?? 200_000;
  const pluginLog = join(base, "plugin-log.jsonl");

  return {
    base,
    repo,
    home,
    xdg,
    pluginLog,
    path: (relative) => resolve(repo, relative),
    write: (relative, content) => writeTree(repo, { [relative]: content }),
    async run(runOptions) {
      const bin = await host.binary();
      const server: OpenAIChatServer = await startOpenAIChatServer({ ...runOptions.server, script: runOptions.script });
      try {
        const config = { ...scriptedProviderConfig(host.schema, server.baseURL, contextLimit, options.modelId ?? MODEL_ID), ...options.config };
        await writeFile(join(repo, host.configFile), `${JSON.stringify(config, null, 2)}\n`);
        const cwd = resolve(repo, runOptions.cwd ?? ".");
        const args = ["run", runOptions.prompt, "--format", "json", "--print-logs", "--log-level", "INFO", ...(runOptions.args ?? [])];
        const logOffset = existsSync(pluginLog) ? statSync(pluginLog).size : 0;
        const started = Date.now();
        const result = await runText(bin, args, {
          cwd,
          env: host.env(home, xdg, { AGENTSMD_E2E_PLUGIN_LOG: pluginLog, ...runOptions.env }),
          timeoutMs: runOptions.timeoutMs ?? 90_000,
        });
        return {
          exitCode: result.code,
          signal: result.signal,
          timedOut: result.timedOut,
          stdout: result.stdout,
          stderr: result.stderr,
          events: parseEvents(result.stdout),
          requests: [...server.requests],
          mainRequests: server.mainRequests(),
          turnsUsed: server.turnsUsed,
          turnsLeft: server.turnsLeft,
          serverErrors: [...server.errors],
          durationMs: Date.now() - started,
          pluginCalls: await readPluginCalls(pluginLog, logOffset),
          logs: await readLogs(host.logDir(xdg), started),
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

/**
 * The fixture life cycle every suite of the family shares: before all tests, `ready` (the built
 * agentsmd, the host's pinned binary); after each, the fixture that test created is removed.
 * Call it at the top level of a suite file.
 * @example const newFixture = familyFixtures(KILO_HOST, [assertAgentsmdBuilt]); ... const fixture = await newFixture({ files });
 */
export function familyFixtures(
  host: FamilyHost,
  ready: ReadonlyArray<() => Promise<unknown>> = [],
): (options?: FamilyFixtureOptions) => Promise<FamilyFixture> {
  let current: FamilyFixture | undefined;
  beforeAll(async () => {
    for (const check of ready) await check();
    await host.binary();
  }, 15 * 60_000);
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  return async (options) => (current = await createFamilyFixture(host, options));
}

/** The last agent-loop request of a run: the whole conversation the model saw last. */
export function lastMain(run: FamilyRunResult): ChatRequestBody {
  const body = run.mainRequests.at(-1)?.body;
  if (!body) throw new Error("no main request recorded");
  return body;
}

/** How often `needle` occurs in the whole conversation the model saw in this request. */
export function occurrences(body: ChatRequestBody, needle: string): number {
  return body.messages.reduce((n, message) => n + messageText(message).split(needle).length - 1, 0);
}

/** Occurrences in the tool results only (system prompt excluded). */
export function toolOccurrences(body: ChatRequestBody, needle: string): number {
  return toolResults(body).reduce((n, r) => n + r.content.split(needle).length - 1, 0);
}

/** The run ended as scripted: no timeout, exit 0, no server error, the script used up, the plugin loaded. */
export function expectCleanRun(run: FamilyRunResult, name: string): void {
  expect(run.timedOut, `${name} timed out`).toBe(false);
  expect(run.exitCode, run.stderr.slice(-4000)).toBe(0);
  expect(run.serverErrors).toEqual([]);
  expect(run.turnsLeft, "script not fully consumed").toBe(0);
  expect(run.logs + run.stderr).not.toMatch(/failed to load plugin/i);
}

/** The tree of {@link expectListedOnce}: the config of the fixture lists `packages/api/AGENTS.md` in `instructions`. */
export const LISTED_FILES: Record<string, string> = {
  "AGENTS.md": "ROOT-RULES v1\n",
  "packages/api/AGENTS.md": "API-RULES v1\n",
  "packages/api/src/handler.ts": "export const handler = 1;\n",
  "packages/web/AGENTS.md": "WEB-RULES v1\n",
};

/**
 * Both plugins' proof that a file the host's config `instructions` list is native: from the repo
 * root, a write beside `packages/api/AGENTS.md` (listed), a read and an edit below it, then a
 * write into `packages/web` (listed by nothing). The listed file reaches the model once, in the
 * system prompt; the plugin adds nothing for it and gives `packages/web/AGENTS.md` once.
 * @example const final = await expectListedOnce(fixture, "kilo", { timeoutMs: 360_000 });
 */
export async function expectListedOnce(fx: FamilyFixture, name: string, options: { timeoutMs?: number } = {}): Promise<ChatRequestBody> {
  const handler = fx.path("packages/api/src/handler.ts");
  const run = await fx.run({
    prompt: "work",
    ...options,
    script: [
      // a write beside the listed file: the plugin would deliver it if it did not know the host lists it
      { toolCalls: [{ tool: "write", args: { filePath: fx.path("packages/api/src/new.ts"), content: "export const n = 1;\n" } }] },
      // a read below it: the host skips its own system-prompt files when it attaches nested ones
      { toolCalls: [{ tool: "read", args: { filePath: handler } }] },
      { toolCalls: [{ tool: "edit", args: { filePath: handler, oldString: "= 1", newString: "= 2" } }] },
      // a directory no entry lists still gets its file from the plugin
      { toolCalls: [{ tool: "write", args: { filePath: fx.path("packages/web/src/page.ts"), content: "export const p = 1;\n" } }] },
      { text: "done" },
    ],
  });
  expectCleanRun(run, name);
  const final = lastMain(run);
  expect(systemTexts(final).join("\n")).toContain(`Instructions from: ${fx.path("packages/api/AGENTS.md")}\nAPI-RULES v1\n`);
  expect(occurrences(final, "API-RULES v1")).toBe(1);
  expect(toolOccurrences(final, "API-RULES")).toBe(0);
  expect(toolOccurrences(final, "ROOT-RULES")).toBe(0);
  const [write, read, edit, web] = toolResults(final);
  expect(write).toMatchObject({ tool: "write", content: "Wrote file successfully." });
  expect(read?.tool).toBe("read");
  expect(read!.content).not.toContain("system-reminder");
  expect(edit).toMatchObject({ tool: "edit", content: "Edit applied successfully." });
  expect(web!.content).toContain(`<system-reminder>\nInstructions from: ${fx.path("packages/web/AGENTS.md")}\nWEB-RULES v1\n`);
  expect(occurrences(final, "WEB-RULES v1")).toBe(1);
  return final;
}

/** The tree of {@link expectCreatedListed}: the config of the fixture lists `packages/*\/AGENTS.md` in `instructions`. */
export const GLOB_LISTED_FILES: Record<string, string> = {
  "AGENTS.md": "ROOT-RULES v1\n",
  "packages/api/AGENTS.md": "API-RULES v1\n",
  "packages/api/src/handler.ts": "export const handler = 1;\n",
  "packages/web/src/page.ts": "export const page = 1;\n",
};

/**
 * Both plugins' proof that a file a config `instructions` glob matches counts as the host's from
 * the next tool call on, though the plugin keeps its listing between calls: after a read (the
 * plugin lists the glob), `packages/web/AGENTS.md` appears on disk, then a write beside it. The
 * host re-runs its globs every step, so the new file is in the next system prompt; the plugin
 * adds nothing for it (it would give it in the write's result if it kept the old listing).
 * @example await expectCreatedListed(fixture, "kilo", { timeoutMs: 360_000 });
 */
export async function expectCreatedListed(fx: FamilyFixture, name: string, options: { timeoutMs?: number } = {}): Promise<void> {
  const page = fx.path("packages/web/src/page.ts");
  const run = await fx.run({
    prompt: "work",
    ...options,
    script: [
      { toolCalls: [{ tool: "read", args: { filePath: fx.path("packages/api/src/handler.ts") } }] },
      async () => {
        await fx.write("packages/web/AGENTS.md", "WEB-LATE v1\n");
        return { toolCalls: [{ tool: "write", args: { filePath: page, content: "export const page = 2;\n" } }] };
      },
      { text: "done" },
    ],
  });
  expectCleanRun(run, name);
  const first = run.mainRequests[0]?.body;
  expect(first && systemTexts(first).join("\n")).not.toContain("WEB-LATE");
  const final = lastMain(run);
  expect(systemTexts(final).join("\n")).toContain(`Instructions from: ${fx.path("packages/web/AGENTS.md")}\nWEB-LATE v1\n`);
  expect(occurrences(final, "WEB-LATE v1")).toBe(1);
  expect(toolOccurrences(final, "WEB-LATE")).toBe(0);
  expect(toolResults(final).map((result) => result.tool)).toEqual(["read", "write"]);
}
