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
import { readdir, readFile, realpath } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { runAgentsmd } from "../lib/agentsmd.js";
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
      const result = await runAgentsmd(["install", "cline"], { env: env(), cwd: repo });
      expect(result.code, `agentsmd install cline failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
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

/** Points the fixture's Cline at `server` (`cline auth`). */
export async function authCline(fixture: ClineFixture, server: OpenAIChatServer): Promise<void> {
  const auth = await runText(await clineBin(), ["auth", "-p", "openai", "-k", "e2e-key", "-m", CLINE_MODEL, "-b", server.baseURL], {
    cwd: fixture.repo,
    env: fixture.env(),
    timeoutMs: 120_000,
  });
  expect(auth.code, `cline auth failed:\n${auth.stdout}\n${auth.stderr}`).toBe(0);
}

/** Runs one non-interactive task; its hub daemon is killed afterwards. */
export async function runCline(fixture: ClineFixture, options: { prompt: string; cwd?: string }): Promise<ClineRun> {
  const cwd = await realpath(options.cwd ?? fixture.repo);
  try {
    return await runText(await clineBin(), ["--json", "-t", "120", options.prompt], {
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
