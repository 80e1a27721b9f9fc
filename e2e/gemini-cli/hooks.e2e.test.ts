/**
 * Gemini CLI end to end: the real pinned `gemini` (0.61.0) with agentsmd installed the
 * way the README says (`agentsmd install gemini`: an extension folder in the fixture's HOME),
 * driven by a scripted Gemini API server. Every instruction file carries one unique token, so
 * counting a token in the last request counts the deliveries the model has in front of it.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/gemini-cli`. Each agent run is bounded
 * (GEMINI_RUN_TIMEOUT_MS).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { cleanupAfterEach } from "../lib/cleanups.js";
import { assertAgentsmdBuilt } from "../lib/agentsmd.js";
import { geminiRequestText, startGeminiServer, type GeminiServer, type GeminiStep } from "../lib/gemini-server.js";
import { createGeminiFixture, describeGeminiRun, editFile, geminiEntry, occurrences, runGemini, type GeminiFixture, type GeminiRun } from "./harness.js";

const FILES = {
  "GEMINI.md": "# Gemini\nToken GM-ROOT-1: Gemini CLI loads this file itself.\n",
  "AGENTS.md": "# Root\nToken AG-ROOT-1: two-space indentation.\n",
  "packages/api/AGENTS.md": "# API\nToken AG-API-2: every handler validates its input.\n",
  "packages/api/src/handler.ts": "export const handler = 1;\n",
  "packages/api/src/db/AGENTS.md": "# DB\nToken AG-DB-3: migrations are append-only.\n",
  "packages/api/src/db/schema.ts": "export const schema = {};\n",
  "packages/web/GEMINI.md": "# Web (Gemini)\nToken GM-WEB-4: Gemini loads this nested file just in time.\n",
  "packages/web/AGENTS.md": "# Web\nToken AG-WEB-5: function components only.\n",
  "packages/web/App.tsx": "export function App() { return null; }\n",
  "packages/unused/AGENTS.md": "# Unused\nToken AG-UNUSED-6: never touched, never delivered.\n",
};

const cleanups = cleanupAfterEach();

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await geminiEntry();
}, 600_000);

async function setup(options: { install?: boolean } = {}): Promise<{ fx: GeminiFixture; server: GeminiServer }> {
  const fx = await createGeminiFixture(FILES);
  const server = await startGeminiServer({ script: [] });
  cleanups.push(
    () => fx.tree.cleanup(),
    () => server.close(),
  );
  if (options.install !== false) await fx.installAgentsmd();
  return { fx, server };
}

/** Runs one turn with `script`, expecting success. */
async function turn(fx: GeminiFixture, server: GeminiServer, script: GeminiStep[], options: { cwd?: string; resume?: boolean } = {}): Promise<GeminiRun> {
  server.setScript(script);
  const run = await runGemini(fx, server, { prompt: "Work on the task.", ...options });
  expect(run.code, describeGeminiRun(run, server)).toBe(0);
  expect(server.turnsUsed, describeGeminiRun(run, server)).toBe(script.length);
  return run;
}

/** The text of the last request of the agent loop. */
function lastRequest(server: GeminiServer): string {
  const last = server.mainRequests().at(-1);
  expect(last?.body).toBeTruthy();
  return geminiRequestText(last!.body!);
}

function counts(text: string, tokens: readonly string[]): Record<string, number> {
  return Object.fromEntries(tokens.map((token) => [token, occurrences(text, token)]));
}

const ALL = ["GM-ROOT-1", "AG-ROOT-1", "AG-API-2", "AG-DB-3", "GM-WEB-4", "AG-WEB-5", "AG-UNUSED-6"];

describe("Gemini CLI 0.61.0 with `agentsmd install gemini`", () => {
  it("from the repo root: read a nested file, write a file in a new directory, list and search: each applicable AGENTS.md once, GEMINI.md never repeated, a sibling never", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [
      { calls: [{ name: "read_file", args: { file_path: "packages/api/src/db/schema.ts" } }] },
      { calls: [{ name: "write_file", args: { file_path: "packages/web/feature/deep/new.ts", content: "export {};\n" } }] },
      { calls: [{ name: "list_directory", args: { dir_path: "packages/api" } }] },
      { calls: [{ name: "grep_search", args: { pattern: "handler", dir_path: "packages/api/src" } }] },
      { text: "done" },
    ]);
    expect(counts(lastRequest(server), ALL)).toEqual({
      "GM-ROOT-1": 1,
      "AG-ROOT-1": 1,
      "AG-API-2": 1,
      "AG-DB-3": 1,
      "GM-WEB-4": 1,
      "AG-WEB-5": 1,
      "AG-UNUSED-6": 0,
    });
  });

  it("from a subdirectory: the chain root -> cwd at the start, a nested file on read, nothing from a sibling package", async () => {
    const { fx, server } = await setup();
    await turn(
      fx,
      server,
      [{ calls: [{ name: "read_file", args: { file_path: "src/db/schema.ts" } }] }, { calls: [{ name: "glob", args: { pattern: "*.ts" } }] }, { text: "done" }],
      {
        cwd: fx.path("packages/api"),
      },
    );
    const text = lastRequest(server);
    expect(counts(text, ALL)).toEqual({ "GM-ROOT-1": 1, "AG-ROOT-1": 1, "AG-API-2": 1, "AG-DB-3": 1, "GM-WEB-4": 0, "AG-WEB-5": 0, "AG-UNUSED-6": 0 });
  });

  it("an AGENTS.md edited between turns comes again, once, on the next turn; unchanged, nothing more", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [{ calls: [{ name: "read_file", args: { file_path: "packages/api/src/db/schema.ts" } }] }, { text: "done" }]);
    await editFile(fx, "packages/api/src/db/AGENTS.md", "# DB\nToken AG-DB-EDITED-7: migrations are append-only and reviewed.\n");
    await turn(fx, server, [{ text: "noted" }], { resume: true });
    let text = lastRequest(server);
    // Gemini CLI 0.61 replays a resumed session with each tool result twice and without its first
    // prompt (FINDINGS.md): the old text rides on every replayed copy of the read; the first
    // prompt's chain is gone, so agentsmd gives it again.
    const copies = occurrences(text, "export const schema = {};");
    expect(copies).toBeGreaterThan(0);
    expect(counts(text, ["AG-DB-EDITED-7", "AG-DB-3", "AG-ROOT-1", "AG-API-2"])).toEqual({
      "AG-DB-EDITED-7": 1,
      "AG-DB-3": copies,
      "AG-ROOT-1": 1,
      "AG-API-2": copies,
    });
    await turn(fx, server, [{ calls: [{ name: "read_file", args: { file_path: "packages/api/src/db/schema.ts" } }] }, { text: "again" }], { resume: true });
    text = lastRequest(server);
    expect(counts(text, ["AG-DB-EDITED-7", "AG-ROOT-1"]), text).toEqual({ "AG-DB-EDITED-7": 1, "AG-ROOT-1": 1 });
  });

  it("a resumed session keeps the user's first prompt (the startup files ride in a part of their own), and each file is in front of the model once", async () => {
    const { fx, server } = await setup();
    server.setScript([{ text: "one" }]);
    let run = await runGemini(fx, server, { prompt: "FIRST-PROMPT-Q1 fix the handler" });
    expect(run.code, describeGeminiRun(run, server)).toBe(0);
    expect(counts(lastRequest(server), ["FIRST-PROMPT-Q1", "AG-ROOT-1", "GM-ROOT-1"])).toEqual({ "FIRST-PROMPT-Q1": 1, "AG-ROOT-1": 1, "GM-ROOT-1": 1 });
    server.setScript([{ text: "two" }]);
    run = await runGemini(fx, server, { prompt: "SECOND-PROMPT-Q2", resume: true });
    expect(run.code, describeGeminiRun(run, server)).toBe(0);
    const text = lastRequest(server);
    // Gemini drops hook context on resume; agentsmd gives the chain back once at the next turn.
    expect(counts(text, ["FIRST-PROMPT-Q1", "SECOND-PROMPT-Q2", "AG-ROOT-1", "GM-ROOT-1"]), text).toEqual({
      "FIRST-PROMPT-Q1": 1,
      "SECOND-PROMPT-Q2": 1,
      "AG-ROOT-1": 1,
      "GM-ROOT-1": 1,
    });
  });

  it("after a chat compression the files it took away come back once, what it kept is not repeated", async () => {
    const { fx, server } = await setup();
    await turn(fx, server, [{ calls: [{ name: "read_file", args: { file_path: "packages/api/src/db/schema.ts" } }] }, { text: "done" }]);
    // Second turn: the model reports a huge prompt, so Gemini compresses before its next call; the
    // first turn (with the chain and AG-API/AG-DB) is summarized, this turn's AG-WEB is kept.
    await turn(
      fx,
      server,
      [
        { calls: [{ name: "read_file", args: { file_path: "packages/web/App.tsx" } }], promptTokens: 900_000 },
        { calls: [{ name: "glob", args: { pattern: "*.md", dir_path: "packages" } }] },
        { text: "done" },
      ],
      { resume: true },
    );
    expect(server.requests.some((request) => request.kind === "compression")).toBe(true);
    const text = lastRequest(server);
    expect(text).toContain("Scripted summary");
    expect(counts(text, ALL)).toEqual({ "GM-ROOT-1": 1, "AG-ROOT-1": 1, "AG-API-2": 1, "AG-DB-3": 1, "GM-WEB-4": 1, "AG-WEB-5": 1, "AG-UNUSED-6": 0 });
  });

  it("wall time of one turn with and without agentsmd (reported, not asserted)", async () => {
    const script = (): GeminiStep[] => [
      { calls: [{ name: "read_file", args: { file_path: "packages/api/src/db/schema.ts" } }] },
      { calls: [{ name: "write_file", args: { file_path: "packages/web/x/new.ts", content: "x\n" } }] },
      { text: "done" },
    ];
    const plain = await setup({ install: false });
    const withHooks = await setup();
    const without = await turn(plain.fx, plain.server, script());
    const withAgentsmd = await turn(withHooks.fx, withHooks.server, script());
    expect(occurrences(lastRequest(plain.server), "AG-DB-3")).toBe(0);
    expect(occurrences(lastRequest(withHooks.server), "AG-DB-3")).toBe(1);
    console.log(
      `gemini turn wall time: without agentsmd ${Math.round(without.ms)} ms, with agentsmd ${Math.round(withAgentsmd.ms)} ms (ratio ${(withAgentsmd.ms / without.ms).toFixed(2)})`,
    );
  });
});
