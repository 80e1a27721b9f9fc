/**
 * Cline end to end: the real pinned `cline` (3.0.65, native binary) with agentsmd installed the way
 * the README says (`agentsmd install cline`: ~/.cline/hooks/PostToolUse.sh), driven by a scripted
 * Chat Completions server. Every instruction file carries one unique token; counting a token in
 * the last request counts what the model has in front of it (system prompt included).
 *
 * Needs `npm run build` and `npm ci --prefix e2e/cline`. Each agent run is bounded (CLINE_RUN_TIMEOUT_MS).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { cleanupAfterEach } from "../lib/cleanups.js";
import { assertAgentsmdBuilt } from "../lib/agentsmd.js";
import { messageText, startOpenAIChatServer, type ChatRequestBody, type OpenAIChatServer, type ScriptStep } from "../lib/openai-chat-server.js";
import { authCline, clineBin, createClineFixture, describeClineRun, resumeCline, runCline, savedSessionId, type ClineFixture } from "./harness.js";
import { writeFile } from "node:fs/promises";

const FILES = {
  "~/.agents/AGENTS.md": "# Global\nToken AG-GLOBAL-0: Cline loads this file itself.\n",
  "AGENTS.md": "# Root\nToken AG-ROOT-1: two-space indentation.\n",
  "packages/api/AGENTS.md": "# API\nToken AG-API-2: every handler validates its input.\n",
  "packages/api/src/handler.ts": "export const handler = 1;\n",
  "packages/api/src/db/AGENTS.md": "# DB\nToken AG-DB-3: migrations are append-only.\n",
  "packages/api/src/db/schema.ts": "export const schema = {};\n",
  "packages/web/AGENTS.md": "# Web\nToken AG-WEB-5: function components only.\n",
  "packages/web/App.tsx": "export function App() { return null; }\n",
  "packages/unused/AGENTS.md": "# Unused\nToken AG-UNUSED-6: never touched, never delivered.\n",
};
const ALL = ["AG-GLOBAL-0", "AG-ROOT-1", "AG-API-2", "AG-DB-3", "AG-WEB-5", "AG-UNUSED-6"];

const cleanups = cleanupAfterEach();

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await clineBin();
}, 600_000);

async function setup(options: { install?: boolean } = {}): Promise<{ fx: ClineFixture; server: OpenAIChatServer }> {
  const fx = await createClineFixture(FILES);
  const server = await startOpenAIChatServer({ script: [] });
  cleanups.push(
    () => fx.tree.cleanup(),
    () => server.close(),
  );
  await authCline(fx, server);
  if (options.install !== false) await fx.installAgentsmd();
  return { fx, server };
}

async function turn(fx: ClineFixture, server: OpenAIChatServer, script: ScriptStep[], options: { cwd?: string } = {}) {
  server.setScript(script);
  const run = await runCline(fx, { prompt: "Work on the task.", ...options });
  expect(run.code, describeClineRun(run, server)).toBe(0);
  expect(server.turnsUsed, describeClineRun(run, server)).toBe(script.length);
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

function counts(text: string, tokens: readonly string[]): Record<string, number> {
  return Object.fromEntries(tokens.map((token) => [token, text.split(token).length - 1]));
}

const read = (path: string) => ({ toolCalls: [{ tool: "read_files", args: { files: [{ path }] } }] });

describe("Cline 3.0.65 with `agentsmd install cline`", () => {
  it("from the repo root: read a nested file, add a file by patch, search: each applicable AGENTS.md once, nothing Cline loaded repeated, a sibling never", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [
      read(fx.path("packages/api/src/db/schema.ts")),
      { toolCalls: [{ tool: "apply_patch", args: { input: "*** Begin Patch\n*** Add File: packages/web/feature/new.ts\n+export {};\n*** End Patch" } }] },
      { toolCalls: [{ tool: "search_codebase", args: { queries: ["handler"] } }] },
      { text: "done" },
    ]);
    expect(counts(lastRequest(server), ALL)).toEqual({ "AG-GLOBAL-0": 1, "AG-ROOT-1": 1, "AG-API-2": 1, "AG-DB-3": 1, "AG-WEB-5": 1, "AG-UNUSED-6": 0 });
  });

  it("from a subdirectory: Cline loads only that directory's file; agentsmd adds the root's and the nested one once, a sibling never", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [read("src/db/schema.ts"), read("src/handler.ts"), { text: "done" }], { cwd: fx.path("packages/api") });
    expect(counts(lastRequest(server), ALL)).toEqual({ "AG-GLOBAL-0": 1, "AG-ROOT-1": 1, "AG-API-2": 1, "AG-DB-3": 1, "AG-WEB-5": 0, "AG-UNUSED-6": 0 });
  });

  it("an AGENTS.md edited between tasks: the next task has its new text once, the old one nowhere", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [read(fx.path("packages/api/src/db/schema.ts")), { text: "done" }]);
    await writeFile(fx.path("packages/api/src/db/AGENTS.md"), "# DB\nToken AG-DB-EDITED-7: migrations are append-only and reviewed.\n");
    await turn(fx, server, [read(fx.path("packages/api/src/db/schema.ts")), read(fx.path("packages/api/src/handler.ts")), { text: "again" }]);
    expect(counts(lastRequest(server), ["AG-DB-EDITED-7", "AG-DB-3", "AG-API-2", "AG-ROOT-1"])).toEqual({
      "AG-DB-EDITED-7": 1,
      "AG-DB-3": 0,
      "AG-API-2": 1,
      "AG-ROOT-1": 1,
    });
  });

  it("an AGENTS.md edited within one task (between two tool calls): its new text once more with the next read under it, nothing else repeated", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [
      read(fx.path("packages/api/src/db/schema.ts")),
      async () => {
        await writeFile(fx.path("packages/api/src/db/AGENTS.md"), "# DB\nToken AG-DB-EDITED-7: migrations are append-only and reviewed.\n");
        return read(fx.path("packages/api/src/db/schema.ts"));
      },
      read(fx.path("packages/api/src/handler.ts")),
      { text: "done" },
    ]);
    // The old text stays in the history (Cline keeps every earlier message); the new one comes once.
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

  it("a resumed task (ACP session/load): nothing the earlier run gave is repeated, an AGENTS.md edited in between comes once with its new text", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [read(fx.path("packages/api/src/db/schema.ts")), { text: "done" }]);
    const sessionId = await savedSessionId(fx);
    await writeFile(fx.path("packages/api/src/db/AGENTS.md"), "# DB\nToken AG-DB-EDITED-7: migrations are append-only and reviewed.\n");
    const script = [read(fx.path("packages/api/src/db/schema.ts")), read(fx.path("packages/api/src/handler.ts")), { text: "again" }];
    server.setScript(script);
    const resumed = await resumeCline(fx, { sessionId, prompt: "Continue the task." });
    expect(resumed.code, describeClineRun(resumed, server)).toBe(0);
    expect(server.turnsUsed, describeClineRun(resumed, server)).toBe(script.length);
    const last = lastRequest(server);
    expect(last, "the resumed request holds the first run's messages").toContain("Work on the task.");
    expect(counts(last, [...ALL, "AG-DB-EDITED-7"])).toEqual({
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
