/**
 * End-to-end harness for the real Gemini CLI (`@google/gemini-cli`, pinned in
 * e2e/gemini-cli/package.json; `npm ci --prefix e2e/gemini-cli`).
 *
 * It builds a throw-away fixture (a repo with `.git` and a HOME under the OS temp dir), runs
 * `gemini -p <prompt> --approval-mode yolo --skip-trust` in it against the scripted Gemini API
 * server of e2e/lib/gemini-server.ts (`GOOGLE_GEMINI_BASE_URL`), and `--resume latest` for the
 * next turn of the same session. The environment is built from scratch, so nothing of the caller
 * leaks in and nothing leaves 127.0.0.1.
 *
 * @example
 * const fx = await createGeminiFixture({ "AGENTS.md": "root\n", "pkg/a.ts": "x\n" });
 * await fx.installAgentsmd();
 * const server = await startGeminiServer({ script: [{ calls: [{ name: "read_file", args: { file_path: "pkg/a.ts" } }] }, { text: "done" }] });
 * const run = await runGemini(fx, server, { prompt: "read pkg/a.ts" });
 * run.code; // 0
 */
import { mkdir, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { runInstall } from "../lib/agentsmd.js";
import { describeTextRun, homeEnv, runText } from "../lib/exec.js";
import type { GeminiServer } from "../lib/gemini-server.js";
import { ensureInstalled } from "../lib/install.js";
import { createTree, dir, type BuiltTree, type TreeSpec } from "../lib/tree.js";

const GEMINI_CLI_VERSION = "0.61.0";
/** The model name sent (a real one, so Gemini's token limits apply: 1,048,576). */
const GEMINI_MODEL = "gemini-2.5-flash";
/** Every agent run is killed after this long. */
const GEMINI_RUN_TIMEOUT_MS = 90_000;

/** The CLI's entry script, installing the pinned package on first use. */
export async function geminiEntry(): Promise<string> {
  const pkg = await ensureInstalled({ folder: "gemini-cli", pkg: "@google/gemini-cli", version: GEMINI_CLI_VERSION });
  return path.join(pkg, "bundle", "gemini.js");
}

export interface GeminiFixture {
  tree: BuiltTree;
  /** The repository (holds `.git`). */
  repo: string;
  home: string;
  /** Absolute path of a repo-relative path. */
  path(rel: string): string;
  /** Runs `agentsmd install gemini` (user scope: the extension folder) in this HOME. */
  installAgentsmd(extra?: readonly string[]): Promise<void>;
  /** The environment the CLI and agentsmd get. */
  env(server?: GeminiServer): NodeJS.ProcessEnv;
}

/** Settings that keep Gemini CLI quiet and offline: no usage statistics, no update checks, no telemetry. */
const QUIET_SETTINGS = {
  security: { auth: { selectedType: "gemini-api-key" } },
  privacy: { usageStatisticsEnabled: false },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
  telemetry: { enabled: false },
};

/** A repo (`repo/` with `.git`) holding `files`, and an empty HOME with quiet Gemini settings. */
export async function createGeminiFixture(files: TreeSpec, options: { settings?: Record<string, unknown> } = {}): Promise<GeminiFixture> {
  const spec: Record<string, TreeSpec[string]> = {
    "repo/.git": dir(),
    "home/.gemini/settings.json": JSON.stringify({ ...QUIET_SETTINGS, ...options.settings }),
  };
  for (const [rel, entry] of Object.entries(files)) spec[`repo/${rel}`] = entry;
  const tree = await createTree(spec, { prefix: "agentsmd-gemini-" });
  const repo = tree.path("repo");
  const home = tree.path("home");
  await mkdir(path.join(home, ".local", "state"), { recursive: true });
  const env = (server?: GeminiServer): NodeJS.ProcessEnv => ({
    ...homeEnv(home),
    GEMINI_API_KEY: "e2e-key",
    GEMINI_CLI_NO_RELAUNCH: "true",
    ...(server ? { GOOGLE_GEMINI_BASE_URL: server.url } : {}),
  });
  return {
    tree,
    repo,
    home,
    path: (rel) => (rel === "" ? repo : path.join(repo, ...rel.split("/"))),
    async installAgentsmd(extra = []) {
      await runInstall(["install", "gemini", ...extra], { env: env(), cwd: repo });
    },
    env,
  };
}

export interface GeminiRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time of the run, ms. */
  ms: number;
  timedOut: boolean;
}

/** Runs one non-interactive turn (`--resume latest` continues the fixture's last session). */
export async function runGemini(
  fixture: GeminiFixture,
  server: GeminiServer,
  options: { prompt: string; cwd?: string; resume?: boolean; timeoutMs?: number; extraArgs?: readonly string[] },
): Promise<GeminiRun> {
  const entry = await geminiEntry();
  const cwd = await realpath(options.cwd ?? fixture.repo);
  const args = [
    entry,
    "-p",
    options.prompt,
    "--approval-mode",
    "yolo",
    "--skip-trust",
    "-m",
    GEMINI_MODEL,
    ...(options.resume ? ["--resume", "latest"] : []),
    ...(options.extraArgs ?? []),
  ];
  const run = await runText(process.execPath, args, {
    cwd,
    env: fixture.env(server),
    timeoutMs: options.timeoutMs ?? GEMINI_RUN_TIMEOUT_MS,
    stderrTail: 50_000,
  });
  return { code: run.code, stdout: run.stdout, stderr: run.stderr, ms: run.ms, timedOut: run.timedOut };
}

/** A readable account of a run for assertion messages. */
export function describeGeminiRun(run: GeminiRun, server: GeminiServer): string {
  return describeTextRun(run, server.requests);
}

/**
 * How often `needle` occurs in `text`.
 * @example occurrences("a-b-a", "a") // 2
 */
export function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** Writes `text` to a repo file (an edit between turns). */
export async function editFile(fixture: GeminiFixture, rel: string, text: string): Promise<void> {
  await writeFile(fixture.path(rel), text);
}
