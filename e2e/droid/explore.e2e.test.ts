/**
 * Factory Droid end to end: the real pinned `droid` (0.215.0, native binary) with agentsmd
 * installed the way the README says (`agentsmd install droid`: hooks in ~/.factory/settings.json),
 * run as `droid exec -m custom:<model> --auto high` against a scripted Chat Completions server
 * (a `customModels` entry in the same settings file). Every instruction file carries one unique
 * token; counting a token in the last request counts what the model has in front of it.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/droid`. Each agent run is bounded (RUN_TIMEOUT_MS).
 */
import { readFile, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { describeTextRun, homeEnv, runText } from "../lib/exec.js";
import { ensureInstalled } from "../lib/install.js";
import { messageText, startOpenAIChatServer, type ChatRequestBody, type OpenAIChatServer, type ScriptStep } from "../lib/openai-chat-server.js";
import { createTree, dir, type BuiltTree } from "../lib/tree.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const VERSION = JSON.parse(await readFile(path.join(HERE, "package.json"), "utf8")).dependencies["@factory/cli-linux-x64"] as string;
const MODEL = "e2e-model";
const RUN_TIMEOUT_MS = 60_000;

async function droidBin(): Promise<string> {
  return path.join(await ensureInstalled({ folder: "droid", pkg: "@factory/cli-linux-x64", version: VERSION }), "bin", "droid");
}

const FILES = {
  "home/.factory/AGENTS.md": "# Global\nToken AG-GLOBAL-0: Droid loads this file itself.\n",
  "repo/.git": dir(),
  "repo/AGENTS.md": "# Root\nToken AG-ROOT-1: two-space indentation.\n",
  "repo/packages/api/AGENTS.md": "# API\nToken AG-API-2: every handler validates its input.\n",
  "repo/packages/api/src/handler.ts": "export const handler = 1;\n",
  "repo/packages/api/src/db/AGENTS.md": "# DB\nToken AG-DB-3: migrations are append-only.\n",
  "repo/packages/api/src/db/schema.ts": "export const schema = {};\n",
  "repo/packages/web/AGENTS.md": "# Web\nToken AG-WEB-5: function components only.\n",
  "repo/packages/web/App.tsx": "export function App() { return null; }\n",
  "repo/packages/unused/AGENTS.md": "# Unused\nToken AG-UNUSED-6: never touched, never delivered.\n",
};
const ALL = ["AG-GLOBAL-0", "AG-ROOT-1", "AG-API-2", "AG-DB-3", "AG-WEB-5", "AG-UNUSED-6"];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await droidBin();
}, 600_000);

interface Fixture {
  tree: BuiltTree;
  repo: string;
  home: string;
  path(rel: string): string;
}

async function setup(): Promise<{ fx: Fixture; server: OpenAIChatServer }> {
  const tree = await createTree({ ...FILES, "home/.local/state": dir() }, { prefix: "agentsmd-droid-" });
  const server = await startOpenAIChatServer({ script: [] });
  cleanups.push(
    () => tree.cleanup(),
    () => server.close(),
  );
  const repo = await realpath(tree.path("repo"));
  const home = await realpath(tree.path("home"));
  const settings = {
    customModels: [
      { model: MODEL, displayName: "e2e", baseUrl: server.baseURL, apiKey: "e2e-key", provider: "generic-chat-completion-api", maxOutputTokens: 4096 },
    ],
  };
  await writeFile(path.join(home, ".factory", "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
  const installed = await runAgentsmd(["install", "droid"], { env: homeEnv(home), cwd: repo });
  expect(installed.code, `agentsmd install droid failed:\n${installed.stdout}\n${installed.stderr}`).toBe(0);
  return { fx: { tree, repo, home, path: (rel) => path.join(repo, ...rel.split("/")) }, server };
}

async function turn(fx: Fixture, server: OpenAIChatServer, script: ScriptStep[], options: { cwd?: string } = {}) {
  server.setScript(script);
  const run = await runText(await droidBin(), ["exec", "-m", `custom:${MODEL}`, "--auto", "high", "Work on the task."], {
    cwd: options.cwd ?? fx.repo,
    env: homeEnv(fx.home),
    timeoutMs: RUN_TIMEOUT_MS,
    stderrTail: 20_000,
  });
  expect(run.code, describeTextRun(run, server.requests)).toBe(0);
  expect(server.turnsUsed, describeTextRun(run, server.requests)).toBe(script.length);
  return run;
}

function lastRequest(server: OpenAIChatServer): string {
  const last = server.mainRequests().at(-1);
  expect(last?.body).toBeTruthy();
  return ((last!.body as ChatRequestBody).messages ?? []).map(messageText).join("\n");
}

function counts(text: string, tokens: readonly string[]): Record<string, number> {
  return Object.fromEntries(tokens.map((token) => [token, text.split(token).length - 1]));
}


it("explore droid stream-json", async () => {
  const { spawn } = await import("node:child_process");
  const { fx, server } = await setup();
  const settingsPath = path.join(fx.home, ".factory", "settings.json");
  const settings = JSON.parse(await readFile(settingsPath, "utf8"));
  for (const event of ["UserPromptSubmit", "PostToolUse", "SessionStart"]) {
    settings.hooks[event] = [...(settings.hooks[event] ?? []), { hooks: [{ type: "command", command: `cat >> ${fx.home}/hook-${event}.log; echo >> ${fx.home}/hook-${event}.log` }] }];
  }
  console.log("HOOKS", JSON.stringify(settings.hooks).slice(0, 1500));
  await writeFile(settingsPath, JSON.stringify(settings, null, 2));
  server.setScript([
    { toolCalls: [{ tool: "Read", args: { file_path: fx.path("packages/api/src/db/schema.ts") } }] },
    { text: "done" },
    { toolCalls: [{ tool: "Read", args: { file_path: fx.path("packages/api/src/db/schema.ts") } }] },
    { text: "again" },
  ]);
  const child = spawn(await droidBin(), ["exec", "-m", `custom:${MODEL}`, "--auto", "high", "--input-format", "stream-json", "-o", "stream-json"], { cwd: fx.repo, env: homeEnv(fx.home), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.on("data", (c) => (err += c));
  child.stdout.on("data", (c) => (out += c));
  const waitFor = async (n: number) => { for (let i = 0; i < 200 && server.turnsUsed < n * 2; i++) await new Promise((r) => setTimeout(r, 200)); await new Promise((r) => setTimeout(r, 1500)); };
  child.stdin.write(JSON.stringify({ role: "user", content: "Work on the task." }) + "\n");
  await waitFor(1);
  console.log("AFTER1", server.turnsUsed, out.slice(-1500), err.slice(-1500));
  await writeFile(fx.path("packages/api/src/db/AGENTS.md"), "# DB\nToken AG-DB-EDITED-7: x.\n");
  child.stdin.write(JSON.stringify({ role: "user", content: "Work on the second task." }) + "\n");
  await waitFor(2);
  child.stdin.end();
  await new Promise((r) => setTimeout(r, 2000));
  child.kill("SIGKILL");
  console.log("AFTER2", server.turnsUsed, out.slice(-1500), err.slice(-1500));
  const lastBody = server.mainRequests().at(-1)!.body!;
  console.log("TAIL", JSON.stringify(lastBody.messages.slice(-6).map((m) => [m.role, messageText(m).slice(0, 700)]), null, 1));
  console.log("OUTTYPES", out.split("\n").map((l) => l.slice(0, 120)).join("\n").slice(0, 3000));
  const { execSync } = await import("node:child_process");
  console.log("HOOKLOGS", execSync(`for f in ${fx.home}/hook-*.log; do echo "== $f"; cut -c1-400 $f; done; ls ${fx.home}/.local/state/agentsmd/droid 2>&1 | head`).toString());
  console.log("COUNTS", JSON.stringify(counts(lastRequest(server), [...ALL, "AG-DB-EDITED-7"])));
}, 300_000);
