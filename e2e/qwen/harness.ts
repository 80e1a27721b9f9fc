/**
 * End-to-end harness for the real Qwen Code CLI (`@qwen-code/qwen-code`, pinned in
 * e2e/qwen/package.json; `npm ci --prefix e2e/qwen`).
 *
 * It builds a throw-away fixture (a repo with `.git` and a HOME under the OS temp dir), runs
 * `qwen -p <prompt> --yolo --auth-type openai` in it against the scripted Chat Completions server
 * of e2e/lib/openai-chat-server.ts (`OPENAI_BASE_URL`), and `--continue` for the next turn of the
 * same session. The environment is built from scratch.
 *
 * @example
 * const fx = await createQwenFixture({ "AGENTS.md": "root\n" });
 * await fx.installAgentsmd();
 * const run = await runQwen(fx, server, { prompt: "go" });
 */
import { mkdir, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { runInstall } from "../lib/agentsmd.js";
import { describeTextRun, homeEnv, runText } from "../lib/exec.js";
import type { OpenAIChatServer } from "../lib/openai-chat-server.js";
import { ensureInstalled } from "../lib/install.js";
import { createTree, dir, type BuiltTree, type TreeSpec } from "../lib/tree.js";

const QWEN_CLI_VERSION = "0.24.4";
const QWEN_MODEL = "qwen3-coder-plus";
/** Every agent run is killed after this long. */
const QWEN_RUN_TIMEOUT_MS = 90_000;

/** The CLI's entry script, installing the pinned package on first use. */
export async function qwenEntry(): Promise<string> {
  const pkg = await ensureInstalled({ folder: "qwen", pkg: "@qwen-code/qwen-code", version: QWEN_CLI_VERSION });
  return path.join(pkg, "cli.js");
}

export interface QwenFixture {
  tree: BuiltTree;
  repo: string;
  home: string;
  path(rel: string): string;
  /** Runs `agentsmd install qwen` (user scope: ~/.qwen/settings.json) in this HOME. */
  installAgentsmd(extra?: readonly string[]): Promise<void>;
  env(server?: OpenAIChatServer): NodeJS.ProcessEnv;
}

/** Settings that keep Qwen Code quiet and offline. */
const QUIET_SETTINGS = {
  general: { disableAutoUpdate: true, disableUpdateNag: true },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

/** A repo (`repo/` with `.git`) holding `files`, and a HOME with quiet Qwen settings. */
export async function createQwenFixture(files: TreeSpec): Promise<QwenFixture> {
  const spec: Record<string, TreeSpec[string]> = { "repo/.git": dir(), "home/.qwen/settings.json": JSON.stringify(QUIET_SETTINGS, null, 2) };
  for (const [rel, entry] of Object.entries(files)) spec[`repo/${rel}`] = entry;
  const tree = await createTree(spec, { prefix: "agentsmd-qwen-" });
  const repo = tree.path("repo");
  const home = tree.path("home");
  await mkdir(path.join(home, ".local", "state"), { recursive: true });
  const env = (server?: OpenAIChatServer): NodeJS.ProcessEnv => ({
    ...homeEnv(home),
    QWEN_CODE_NO_RELAUNCH: "true",
    QWEN_CODE_SUPPRESS_YOLO_WARNING: "1",
    OPENAI_API_KEY: "e2e-key",
    OPENAI_MODEL: QWEN_MODEL,
    ...(server ? { OPENAI_BASE_URL: server.baseURL } : {}),
  });
  return {
    tree,
    repo,
    home,
    path: (rel) => (rel === "" ? repo : path.join(repo, ...rel.split("/"))),
    async installAgentsmd(extra = []) {
      await runInstall(["install", "qwen", ...extra], { env: env(), cwd: repo });
    },
    env,
  };
}

export interface QwenRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

/** Runs one non-interactive turn (`--continue` resumes the fixture's last session). */
export async function runQwen(
  fixture: QwenFixture,
  server: OpenAIChatServer,
  options: { prompt: string; cwd?: string; resume?: boolean; timeoutMs?: number },
): Promise<QwenRun> {
  const entry = await qwenEntry();
  const cwd = await realpath(options.cwd ?? fixture.repo);
  const args = [entry, "-p", options.prompt, "--yolo", "--auth-type", "openai", "-m", QWEN_MODEL, ...(options.resume ? ["--continue"] : [])];
  const run = await runText(process.execPath, args, { cwd, env: fixture.env(server), timeoutMs: options.timeoutMs ?? QWEN_RUN_TIMEOUT_MS, stderrTail: 50_000 });
  return { code: run.code, stdout: run.stdout, stderr: run.stderr, ms: run.ms, timedOut: run.timedOut };
}

export function describeQwenRun(run: QwenRun, server: OpenAIChatServer): string {
  return describeTextRun(run, server.requests);
}

export async function editFile(fixture: QwenFixture, rel: string, text: string): Promise<void> {
  await writeFile(fixture.path(rel), text);
}
