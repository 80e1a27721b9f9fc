/**
 * Factory Droid end to end: the real pinned `droid` (0.215.0, native binary) with agentsmd
 * installed the way the README says (`agentsmd install droid`: hooks in ~/.factory/settings.json),
 * run as `droid exec -m custom:<model> --auto high` against a scripted Chat Completions server
 * (a `customModels` entry in the same settings file). Every instruction file carries one unique
 * token; counting a token in the last request counts what the model has in front of it.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/droid`. Each agent run is bounded (RUN_TIMEOUT_MS).
 */
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cleanupAfterEach } from "../lib/cleanups.js";
import { assertAgentsmdBuilt, runInstall } from "../lib/agentsmd.js";
import { describeTextRun, homeEnv, runText } from "../lib/exec.js";
import { messageText, startOpenAIChatServer, type ChatRequestBody, type OpenAIChatServer, type ScriptStep } from "../lib/openai-chat-server.js";
import { dir, createRepoHomeTree, type RepoHomeTree } from "../lib/tree.js";
import { DROID_EXEC_ARGS, DROID_MODEL, droidBin, droidSettingsText } from "./harness.js";

const RUN_TIMEOUT_MS = 60_000;

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

const cleanups = cleanupAfterEach();

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await droidBin();
}, 600_000);

async function setup(): Promise<{ fx: RepoHomeTree; server: OpenAIChatServer }> {
  const fx = await createRepoHomeTree({ ...FILES, "home/.local/state": dir() }, { prefix: "agentsmd-droid-" });
  const server = await startOpenAIChatServer({ script: [] });
  cleanups.push(
    () => fx.tree.cleanup(),
    () => server.close(),
  );
  await writeFile(path.join(fx.home, ".factory", "settings.json"), droidSettingsText(server.baseURL));
  await runInstall(["install", "droid"], { env: homeEnv(fx.home), cwd: fx.repo });
  return { fx, server };
}

async function turn(fx: RepoHomeTree, server: OpenAIChatServer, script: ScriptStep[], options: { cwd?: string } = {}) {
  server.setScript(script);
  const run = await runText(await droidBin(), DROID_EXEC_ARGS, {
    cwd: options.cwd ?? fx.repo,
    env: homeEnv(fx.home),
    timeoutMs: RUN_TIMEOUT_MS,
    stderrTail: 20_000,
  });
  expect(run.code, describeTextRun(run, server.requests)).toBe(0);
  expect(server.turnsUsed, describeTextRun(run, server.requests)).toBe(script.length);
  return run;
}

/**
 * Two turns of one session in one process: `droid exec --input-format stream-json` reads one user
 * message a line (`{"role":"user","content":...}`) from stdin. (`droid exec -s <id>` fetches the
 * session from Factory's cloud, which fails offline.) `between` runs after the first turn's script
 * is used up. The process is killed when the second turn's script is used up (or at RUN_TIMEOUT_MS).
 */
async function twoTurns(fx: RepoHomeTree, server: OpenAIChatServer, first: ScriptStep[], second: ScriptStep[], between: () => Promise<void>) {
  server.setScript([...first, ...second]);
  const child = spawn(await droidBin(), ["exec", "-m", `custom:${DROID_MODEL}`, "--auto", "high", "--input-format", "stream-json", "-o", "stream-json"], {
    cwd: fx.repo,
    env: homeEnv(fx.home),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output = (output + chunk).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  // A turn is over once its script is used up: its last request already holds what the model saw
  // (Droid queues a line that arrives while it is still finishing the turn).
  const until = async (turns: number) => {
    while (server.turnsUsed < turns) {
      if (Date.now() > deadline) throw new Error(`droid stream-json: ${server.turnsUsed} of ${turns} turns used\n${output.slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  try {
    child.stdin.write(`${JSON.stringify({ role: "user", content: "Work on the task." })}\n`);
    await until(first.length);
    await between();
    child.stdin.write(`${JSON.stringify({ role: "user", content: "Work on the next task." })}\n`);
    await until(first.length + second.length);
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
}

function lastRequest(server: OpenAIChatServer): string {
  const last = server.mainRequests().at(-1);
  expect(last?.body).toBeTruthy();
  return ((last!.body as ChatRequestBody).messages ?? []).map(messageText).join("\n");
}

function counts(text: string, tokens: readonly string[]): Record<string, number> {
  return Object.fromEntries(tokens.map((token) => [token, text.split(token).length - 1]));
}

describe("Factory Droid 0.215.0 with `agentsmd install droid`", () => {
  it("from the repo root: a read (Droid attaches), a file created in a new directory (agentsmd adds): each applicable AGENTS.md once, a sibling never", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [
      { toolCalls: [{ tool: "Read", args: { file_path: fx.path("packages/api/src/db/schema.ts") } }] },
      { toolCalls: [{ tool: "Create", args: { file_path: fx.path("packages/web/feature/new.ts"), content: "export {};\n" } }] },
      { text: "done" },
    ]);
    expect(counts(lastRequest(server), ALL)).toEqual({ "AG-GLOBAL-0": 1, "AG-ROOT-1": 1, "AG-API-2": 1, "AG-DB-3": 1, "AG-WEB-5": 1, "AG-UNUSED-6": 0 });
  });

  it("from a subdirectory: Droid's own chain (root included) not repeated; a listing below brings the nested file once (Droid attaches it; agentsmd adds nothing)", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [{ toolCalls: [{ tool: "LS", args: { directory_path: fx.path("packages/api/src/db") } }] }, { text: "done" }], {
      cwd: fx.path("packages/api"),
    });
    expect(counts(lastRequest(server), ALL)).toEqual({ "AG-GLOBAL-0": 1, "AG-ROOT-1": 1, "AG-API-2": 1, "AG-DB-3": 1, "AG-WEB-5": 0, "AG-UNUSED-6": 0 });
  });

  it("a second turn of one session (stream-json): an AGENTS.md Droid attached and then edited comes again, once, with the next Read there (Droid attaches a file once a session); nothing else repeated", async () => {
    const { fx, server } = await setup();
    const readSchema = { toolCalls: [{ tool: "Read", args: { file_path: fx.path("packages/api/src/db/schema.ts") } }] };
    await twoTurns(fx, server, [readSchema, { text: "done" }], [readSchema, { text: "again" }], () =>
      writeFile(fx.path("packages/api/src/db/AGENTS.md"), "# DB\nToken AG-DB-EDITED-7: migrations are append-only and reviewed.\n"),
    );
    expect(counts(lastRequest(server), [...ALL, "AG-DB-EDITED-7"])).toEqual({
      "AG-GLOBAL-0": 1,
      "AG-ROOT-1": 1,
      "AG-API-2": 1,
      "AG-DB-3": 1,
      "AG-WEB-5": 0,
      "AG-UNUSED-6": 0,
      "AG-DB-EDITED-7": 1,
    });
  });
});
