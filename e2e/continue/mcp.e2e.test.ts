/**
 * Continue CLI end to end: the real pinned `cn` (`@continuedev/cli` 1.5.47) with agentsmd installed
 * the way the docs say (`agentsmd install continue`: the MCP server in ~/.continue/config.yaml),
 * run as `cn -p --auto` against a scripted Chat Completions server (an `openai` model with
 * `apiBase` in the same config). cn 1.5.47 runs no hooks, so the scripted model calls the MCP tool
 * `agents_context` as the server's instructions tell it to. Every instruction file carries one
 * unique token; counting a token in the last request counts what the model has in front of it.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/continue`. Each agent run is bounded (RUN_TIMEOUT_MS).
 */
import { readdir, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cleanupAfterEach } from "../lib/cleanups.js";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { describeTextRun, homeEnv, runText } from "../lib/exec.js";
import {
  classifyChatRequest,
  messageText,
  startOpenAIChatServer,
  type ChatRequestBody,
  type RequestKind,
  type OpenAIChatServer,
  type ScriptStep,
} from "../lib/openai-chat-server.js";
import { createTree, dir, type BuiltTree } from "../lib/tree.js";
import { CN_VERSION as VERSION, cnBin, continueConfigText } from "./harness.js";

const RUN_TIMEOUT_MS = 90_000;

const FILES = {
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
const ALL = ["AG-ROOT-1", "AG-API-2", "AG-API-EDITED-7", "AG-DB-3", "AG-WEB-5", "AG-UNUSED-6"];

const cleanups = cleanupAfterEach();

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await cnBin();
}, 600_000);

interface Fixture {
  tree: BuiltTree;
  repo: string;
  home: string;
  path(rel: string): string;
}

async function setup(
  options: { files?: Record<string, string>; classify?: (body: ChatRequestBody) => RequestKind; config?: (text: string) => string } = {},
): Promise<{ fx: Fixture; server: OpenAIChatServer }> {
  const tree = await createTree({ ...FILES, ...options.files, "home/.continue": dir(), "home/.local/state": dir() }, { prefix: "agentsmd-continue-" });
  const server = await startOpenAIChatServer({ script: [], ...(options.classify ? { classify: options.classify } : {}) });
  cleanups.push(
    () => tree.cleanup(),
    () => server.close(),
  );
  const repo = await realpath(tree.path("repo"));
  const home = await realpath(tree.path("home"));
  const config = continueConfigText(server.baseURL);
  await writeFile(path.join(home, ".continue", "config.yaml"), options.config ? options.config(config) : config);
  const installed = await runAgentsmd(["install", "continue"], { env: homeEnv(home), cwd: repo });
  expect(installed.code, `agentsmd install continue failed:\n${installed.stdout}\n${installed.stderr}`).toBe(0);
  return { fx: { tree, repo, home, path: (rel) => path.join(repo, ...rel.split("/")) }, server };
}

async function turn(fx: Fixture, server: OpenAIChatServer, script: ScriptStep[], options: { cwd?: string; args?: string[] } = {}) {
  server.setScript(script);
  const config = path.join(fx.home, ".continue", "config.yaml");
  const run = await runText(process.execPath, [await cnBin(), "-p", "--auto", "--config", config, ...(options.args ?? []), "Work on the task."], {
    cwd: options.cwd ?? fx.repo,
    env: homeEnv(fx.home),
    timeoutMs: RUN_TIMEOUT_MS,
    stderrTail: 20_000,
  });
  expect(run.code, describeTextRun(run, server.requests)).toBe(0);
  expect(server.turnsUsed, describeTextRun(run, server.requests)).toBe(script.length);
  return run;
}

function body(server: OpenAIChatServer): ChatRequestBody {
  const last = server.mainRequests().at(-1);
  expect(last?.body).toBeTruthy();
  return last!.body as ChatRequestBody;
}

function lastRequest(server: OpenAIChatServer): string {
  return (body(server).messages ?? []).map(messageText).join("\n");
}

function counts(text: string, tokens: readonly string[]): Record<string, number> {
  return Object.fromEntries(tokens.map((token) => [token, text.split(token).length - 1]));
}

const context = (target: string) => ({ toolCalls: [{ tool: "agents_context", args: { path: target } }] });

/** The system message cn sent ends with what `agentsmd show --preset continue` prints for that cwd. */
async function expectPresetMatches(fx: Fixture, server: OpenAIChatServer, cwd: string) {
  const shown = await runAgentsmd(["show", "--preset", "continue"], { env: homeEnv(fx.home), cwd });
  expect(shown.code, shown.stderr.toString("utf8")).toBe(0);
  const preset = shown.stdout.toString("utf8");
  expect(preset).toMatch(/^<context name="userRules">\n/);
  const system = messageText(body(server).messages[0]!);
  expect(system.endsWith(`\n\n${preset}`), `system message:\n${system.slice(-400)}\n---\npreset:\n${preset}`).toBe(true);
}

describe(`Continue CLI ${VERSION} with \`agentsmd install continue\` (MCP)`, () => {
  it("from the repo root: cn loads the root file itself (preset continue, byte for byte); agents_context gives the nested ones once, again only after an edit", async () => {
    const { fx, server } = await setup();
    const target = fx.path("packages/api/src/db/schema.ts");
    await turn(fx, server, [
      context(target),
      context(target),
      async () => {
        await writeFile(fx.path("packages/api/AGENTS.md"), "# API\nToken AG-API-EDITED-7: handlers return typed errors.\n");
        return context(target);
      },
      context(fx.path("packages/web/App.tsx")),
      { text: "done" },
    ]);
    expect(counts(lastRequest(server), ALL)).toEqual({ "AG-ROOT-1": 1, "AG-API-2": 1, "AG-API-EDITED-7": 1, "AG-DB-3": 1, "AG-WEB-5": 1, "AG-UNUSED-6": 0 });
    await expectPresetMatches(fx, server, fx.repo);
  });

  it("from a subdirectory: cn loads only that directory's file; agents_context gives the root's and the nested one once, not cn's again", async () => {
    const { fx, server } = await setup();
    const api = fx.path("packages/api");
    await turn(fx, server, [context(fx.path("packages/api/src/db/schema.ts")), context(fx.path("packages/api/src/handler.ts")), { text: "done" }], {
      cwd: api,
    });
    expect(counts(lastRequest(server), ALL)).toEqual({ "AG-ROOT-1": 1, "AG-API-2": 1, "AG-API-EDITED-7": 0, "AG-DB-3": 1, "AG-WEB-5": 0, "AG-UNUSED-6": 0 });
    await expectPresetMatches(fx, server, api);
  });

  it("from a directory without a file: cn loads none (nor the root's), and agents_context gives the root's file with the nested one", async () => {
    const { fx, server } = await setup();
    const packages = fx.path("packages");
    await turn(fx, server, [context(fx.path("packages/web/App.tsx")), { text: "done" }], { cwd: packages });
    expect(counts(lastRequest(server), ALL)).toEqual({ "AG-ROOT-1": 1, "AG-API-2": 0, "AG-API-EDITED-7": 0, "AG-DB-3": 0, "AG-WEB-5": 1, "AG-UNUSED-6": 0 });
    expect(messageText(body(server).messages[0]!)).not.toContain('<context name="userRules">');
    const shown = await runAgentsmd(["show", "--preset", "continue"], { env: homeEnv(fx.home), cwd: packages });
    expect(shown.stdout.toString("utf8")).toBe("");
  });

  /**
   * Two runs over one target: run 1 asks for it, the API file is edited, run 2 (`args(fx)`: how cn
   * continues run 1) asks again. Run 2's first request must hold run 1 whole, then the new
   * question; in the last request the edited file comes once more, and the one run 1's history
   * holds (the new server process reads cn's session file) does not come again.
   */
  async function secondRun(args: (fx: Fixture) => Promise<string[]>): Promise<Fixture> {
    const { fx, server } = await setup();
    const target = fx.path("packages/api/src/db/schema.ts");
    await turn(fx, server, [context(target), { text: "done" }]);
    const cnArgs = await args(fx);
    await writeFile(fx.path("packages/api/AGENTS.md"), "# API\nToken AG-API-EDITED-7: handlers return typed errors.\n");
    await turn(fx, server, [context(target), { text: "again" }], { args: cnArgs });
    const first = server
      .mainRequests()
      .filter((request) => request.turn === 0)
      .at(-1)!.body as ChatRequestBody;
    expect(first.messages.filter((message) => message.role === "user").map(messageText)).toEqual(["Work on the task.", "Work on the task."]);
    expect(counts(lastRequest(server), ALL)).toEqual({
      "AG-ROOT-1": 1,
      "AG-API-2": 1,
      "AG-API-EDITED-7": 1,
      "AG-DB-3": 1,
      "AG-WEB-5": 0,
      "AG-UNUSED-6": 0,
    });
    return fx;
  }

  const sessionFiles = async (fx: Fixture) =>
    (await readdir(path.join(fx.home, ".continue", "sessions"))).filter((name) => name.endsWith(".json") && name !== "sessions.json");

  it("`cn -p --resume` (offline, the last session of ~/.continue/sessions): the first run's history comes back whole; an AGENTS.md edited in between comes once more; an unedited one the resumed history holds is not given again (the new MCP process reads cn's session file)", async () => {
    await secondRun(async () => ["--resume"]);
  });

  it("`cn -p --fork <id>` (a new session started from run 1's `<id>.json`): the forked history comes back; an AGENTS.md edited in between comes once more; an unedited one the forked history holds is not given again (the MCP server reads `--fork <id>` on cn's command line)", async () => {
    let first = "";
    const fx = await secondRun(async (fx) => {
      const files = await sessionFiles(fx);
      expect(files).toHaveLength(1);
      first = files[0]!;
      return ["--fork", first.slice(0, -".json".length)];
    });
    // cn saved the fork as a new session: run 1's file is still there, beside another one.
    const after = await sessionFiles(fx);
    expect(after).toContain(first);
    expect(after).toHaveLength(2);
  });

  it("auto-compaction inside one `cn -p` run (a small contextLength, a large Read): cn replaces the history with its summary and tells the MCP server nothing; the server reads the summary in cn's session file and gives the nested files again, once", async () => {
    const summary = "Please provide a concise summary of our conversation so far";
    const isSummary = (body: ChatRequestBody) => messageText(body.messages.at(-1) ?? { role: "user" }).startsWith(summary);
    const { fx, server } = await setup({
      files: { "repo/big.txt": "lorem ipsum dolor sit amet\n".repeat(1000) },
      classify: (body) => (isSummary(body) ? "compaction" : classifyChatRequest(body)),
      config: (text) =>
        text.replace("    roles: [chat]\n", "    roles: [chat]\n    defaultCompletionOptions:\n      contextLength: 8000\n      maxTokens: 500\n"),
    });
    const target = fx.path("packages/api/src/db/schema.ts");
    await turn(fx, server, [context(target), { toolCalls: [{ tool: "Read", args: { filepath: fx.path("big.txt") } }] }, context(target), { text: "done" }]);
    expect(server.requests.filter((request) => request.kind === "compaction")).toHaveLength(1);
    const texts = server.mainRequests().map((request) => ((request.body as ChatRequestBody).messages ?? []).map(messageText).join("\n"));
    // Before: agents_context gave the nested files; the Read's large result made cn compact: the history is its system message and the summary.
    expect(counts(texts[1]!, ALL)).toMatchObject({ "AG-ROOT-1": 1, "AG-API-2": 1, "AG-DB-3": 1 });
    expect(texts[2]).not.toContain("lorem ipsum");
    expect(counts(texts[2]!, ALL)).toMatchObject({ "AG-ROOT-1": 1, "AG-API-2": 0, "AG-DB-3": 0 });
    // After: asked again, agents_context gives them back once (cn's own root file stayed in its system message).
    expect(counts(lastRequest(server), ALL)).toMatchObject({ "AG-ROOT-1": 1, "AG-API-2": 1, "AG-DB-3": 1 });
    expect(lastRequest(server)).not.toContain("beyond those already given in this session");
  });
});
