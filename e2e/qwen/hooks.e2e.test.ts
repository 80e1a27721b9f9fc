/**
 * Qwen Code end to end: the real pinned `qwen` (0.24.4) with agentsmd installed the way
 * the README says (`agentsmd install qwen`: hooks in ~/.qwen/settings.json), driven by a scripted
 * Chat Completions server. Every instruction file carries one unique token; counting a token in
 * the last request counts what the model has in front of it (system prompt included).
 *
 * Needs `npm run build` and `npm ci --prefix e2e/qwen`. Each agent run is bounded (QWEN_RUN_TIMEOUT_MS).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { cleanupAfterEach } from "../lib/cleanups.js";
import { assertAgentsmdBuilt } from "../lib/agentsmd.js";
import {
  classifyChatRequest,
  messageText,
  startOpenAIChatServer,
  systemTexts,
  type ChatRequestBody,
  type OpenAIChatServer,
  type ScriptStep,
} from "../lib/openai-chat-server.js";
import { createQwenFixture, describeQwenRun, editFile, qwenEntry, runQwen, type QwenFixture, type QwenRun } from "./harness.js";

const FILES = {
  "QWEN.md": "# Qwen\nToken QW-ROOT-1: Qwen Code loads this file itself.\n",
  "AGENTS.md": "# Root\nToken AG-ROOT-1: two-space indentation.\n",
  "packages/api/AGENTS.md": "# API\nToken AG-API-2: every handler validates its input.\n",
  "packages/api/src/handler.ts": "export const handler = 1;\n",
  "packages/api/src/db/AGENTS.md": "# DB\nToken AG-DB-3: migrations are append-only.\n",
  "packages/api/src/db/schema.ts": "export const schema = {};\n",
  "packages/web/AGENTS.md": "# Web\nToken AG-WEB-5: function components only.\n",
  "packages/web/App.tsx": "export function App() { return null; }\n",
  "packages/unused/AGENTS.md": "# Unused\nToken AG-UNUSED-6: never touched, never delivered.\n",
};
const ALL = ["QW-ROOT-1", "AG-ROOT-1", "AG-API-2", "AG-DB-3", "AG-WEB-5", "AG-UNUSED-6"];

const cleanups = cleanupAfterEach();

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await qwenEntry();
}, 600_000);

/** Qwen's agent loop is the request with its own system prompt; its background memory-extraction subagent (also with tools) is a side request. */
function qwenRequestKind(body: ChatRequestBody) {
  const kind = classifyChatRequest(body);
  return kind === "main" && !(systemTexts(body)[0] ?? "").startsWith("You are Qwen Code") ? "other" : kind;
}

async function setup(options: { install?: boolean } = {}): Promise<{ fx: QwenFixture; server: OpenAIChatServer }> {
  const fx = await createQwenFixture(FILES);
  // A compaction's summary must look much smaller than what it replaced, or Qwen rejects it.
  const server = await startOpenAIChatServer({ script: [], classify: qwenRequestKind, sideUsage: () => ({ prompt_tokens: 985_000, completion_tokens: 10 }) });
  cleanups.push(
    () => fx.tree.cleanup(),
    () => server.close(),
  );
  if (options.install !== false) await fx.installAgentsmd();
  return { fx, server };
}

async function turn(fx: QwenFixture, server: OpenAIChatServer, script: ScriptStep[], options: { cwd?: string; resume?: boolean } = {}): Promise<QwenRun> {
  server.setScript(script);
  const run = await runQwen(fx, server, { prompt: "Work on the task.", ...options });
  expect(run.code, describeQwenRun(run, server)).toBe(0);
  expect(server.turnsUsed, describeQwenRun(run, server)).toBe(script.length);
  return run;
}

function requestText(body: ChatRequestBody): string {
  return (body.messages ?? []).map(messageText).join("\n");
}

function lastRequest(server: OpenAIChatServer): string {
  const last = server.mainRequests().at(-1);
  expect(last?.body).toBeTruthy();
  return requestText(last!.body!);
}

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

function counts(text: string, tokens: readonly string[]): Record<string, number> {
  return Object.fromEntries(tokens.map((token) => [token, occurrences(text, token)]));
}

describe("Qwen Code 0.24.4 with `agentsmd install qwen`", () => {
  it("from the repo root: read a nested file, write in a new directory, list and search: each applicable AGENTS.md once, nothing Qwen loaded repeated, a sibling never", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [
      { toolCalls: [{ tool: "read_file", args: { file_path: fx.path("packages/api/src/db/schema.ts") } }] },
      { toolCalls: [{ tool: "write_file", args: { file_path: fx.path("packages/web/feature/deep/new.ts"), content: "export {};\n" } }] },
      { toolCalls: [{ tool: "list_directory", args: { path: fx.path("packages/api") } }] },
      { toolCalls: [{ tool: "grep_search", args: { pattern: "handler", path: fx.path("packages/api/src") } }] },
      { text: "done" },
    ]);
    expect(counts(lastRequest(server), ALL)).toEqual({ "QW-ROOT-1": 1, "AG-ROOT-1": 1, "AG-API-2": 1, "AG-DB-3": 1, "AG-WEB-5": 1, "AG-UNUSED-6": 0 });
  });

  it("from a subdirectory: Qwen's own chain is not repeated, the nested file comes on read, a sibling never", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [{ toolCalls: [{ tool: "read_file", args: { file_path: fx.path("packages/api/src/db/schema.ts") } }] }, { text: "done" }], {
      cwd: fx.path("packages/api"),
    });
    expect(counts(lastRequest(server), ALL)).toEqual({ "QW-ROOT-1": 1, "AG-ROOT-1": 1, "AG-API-2": 1, "AG-DB-3": 1, "AG-WEB-5": 0, "AG-UNUSED-6": 0 });
  });

  it("an AGENTS.md edited between turns comes again, once; unchanged, nothing more", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [{ toolCalls: [{ tool: "read_file", args: { file_path: fx.path("packages/api/src/db/schema.ts") } }] }, { text: "done" }]);
    await editFile(fx, "packages/api/src/db/AGENTS.md", "# DB\nToken AG-DB-EDITED-7: migrations are append-only and reviewed.\n");
    await turn(fx, server, [{ text: "noted" }], { resume: true });
    expect(counts(lastRequest(server), ["AG-DB-EDITED-7", "AG-DB-3", "AG-API-2", "AG-ROOT-1"])).toEqual({
      "AG-DB-EDITED-7": 1,
      "AG-DB-3": 1,
      "AG-API-2": 1,
      "AG-ROOT-1": 1,
    });
    await turn(fx, server, [{ toolCalls: [{ tool: "read_file", args: { file_path: fx.path("packages/api/src/db/schema.ts") } }] }, { text: "again" }], {
      resume: true,
    });
    expect(counts(lastRequest(server), ["AG-DB-EDITED-7", "AG-API-2", "AG-ROOT-1"])).toEqual({ "AG-DB-EDITED-7": 1, "AG-API-2": 1, "AG-ROOT-1": 1 });
  });

  it("after a compaction the nested files it took away come back once (SessionStart compact), what it kept is not repeated", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [{ toolCalls: [{ tool: "read_file", args: { file_path: fx.path("packages/api/src/db/schema.ts") } }] }, { text: "done" }]);
    await turn(
      fx,
      server,
      [
        { toolCalls: [{ tool: "read_file", args: { file_path: fx.path("packages/web/App.tsx") } }], usage: { prompt_tokens: 990_000, completion_tokens: 10 } },
        { toolCalls: [{ tool: "glob", args: { pattern: "*.md", path: fx.path("packages") } }] },
        { text: "done" },
      ],
      { resume: true },
    );
    const text = lastRequest(server);
    expect(text).toContain("Resume the prior task using the summary above");
    expect(counts(text, ALL)).toEqual({ "QW-ROOT-1": 1, "AG-ROOT-1": 1, "AG-API-2": 1, "AG-DB-3": 1, "AG-WEB-5": 1, "AG-UNUSED-6": 0 });
  });

  it("wall time of one turn with and without agentsmd (reported, not asserted)", async () => {
    const script = (fx: QwenFixture): ScriptStep[] => [
      { toolCalls: [{ tool: "read_file", args: { file_path: fx.path("packages/api/src/db/schema.ts") } }] },
      { toolCalls: [{ tool: "write_file", args: { file_path: fx.path("packages/web/x/new.ts"), content: "x\n" } }] },
      { text: "done" },
    ];
    const plain = await setup({ install: false });
    const withHooks = await setup();
    const without = await turn(plain.fx, plain.server, script(plain.fx));
    const withAgentsmd = await turn(withHooks.fx, withHooks.server, script(withHooks.fx));
    expect(occurrences(lastRequest(plain.server), "AG-DB-3")).toBe(0);
    expect(occurrences(lastRequest(withHooks.server), "AG-DB-3")).toBe(1);
    console.log(
      `qwen turn wall time: without agentsmd ${Math.round(without.ms)} ms, with agentsmd ${Math.round(withAgentsmd.ms)} ms (ratio ${(withAgentsmd.ms / without.ms).toFixed(2)})`,
    );
  });
});
