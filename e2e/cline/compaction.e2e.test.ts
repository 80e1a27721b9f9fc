/**
 * Cline end to end: a compaction. Cline 3.0.65 runs no hook when it compacts; agentsmd learns of
 * it from Cline's record (`<id>.compaction.json`) at the next tool event. The recipe, observed
 * with the binary: a model id Cline does not know (a 128,000-token window), the scripted server
 * reporting 1,000,000 prompt tokens per turn, and a `read_files` call of twelve 100 KB files push
 * Cline's estimate past 90% of 32,000 tokens: it sends a summary request (no tools offered), then
 * replaces the older messages with `Context summary: ...`, keeping the latest ones.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/cline`. One agent run, bounded (CLINE_RUN_TIMEOUT_MS).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { cleanupAfterEach } from "../lib/cleanups.js";
import { assertAgentsmdBuilt } from "../lib/agentsmd.js";
import { messageText, startOpenAIChatServer, type ChatRequestBody } from "../lib/openai-chat-server.js";
import { authCline, clineBin, createClineFixture, describeClineRun, runCline } from "./harness.js";

const LINE = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor\n";
const BIG = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`big/f${String(i).padStart(2, "0")}.txt`, LINE.repeat(100)]));
const FILES = {
  "AGENTS.md": "# Root\nToken AG-ROOT-1: two-space indentation.\n",
  "packages/api/src/db/AGENTS.md": "# DB\nToken AG-DB-3: migrations are append-only.\n",
  "packages/api/src/db/schema.ts": "export const schema = {};\n",
  "packages/web/AGENTS.md": "# Web\nToken AG-WEB-5: function components only.\n",
  "packages/web/App.tsx": "export function App() { return null; }\n",
  ...BIG,
};
const TOKENS = ["AG-ROOT-1", "AG-DB-3", "AG-WEB-5"];
/** What the scripted server reports per turn: far over the window, so Cline's estimate counts. */
const USAGE = { prompt_tokens: 1_000_000, completion_tokens: 10 };
/** What it reports once the conversation was compacted. */
const SMALL = { prompt_tokens: 1_000, completion_tokens: 10 };
/** A model id Cline 3.0.65 does not know: a 128,000-token window (gpt-4.1's is too large to reach). */
const UNKNOWN_MODEL = "e2e-unknown-model";

const cleanups = cleanupAfterEach();

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await clineBin();
}, 600_000);

const requestText = (body: ChatRequestBody | null): string => (body?.messages ?? []).map(messageText).join("\n");
const counts = (text: string): Record<string, number> => Object.fromEntries(TOKENS.map((token) => [token, text.split(token).length - 1]));

describe("Cline 3.0.65 compaction with `agentsmd install cline`", () => {
  it("a nested AGENTS.md summarised away by Cline's auto-compaction comes back once with the next tool event; one the kept messages still hold is not repeated", async () => {
    const fx = await createClineFixture(FILES);
    // The summary request must look small, or Cline would compact its own summary again.
    const server = await startOpenAIChatServer({ script: [], sideUsage: () => ({ prompt_tokens: 100, completion_tokens: 10 }) });
    cleanups.push(
      () => fx.tree.cleanup(),
      () => server.close(),
    );
    await authCline(fx, server, UNKNOWN_MODEL);
    await fx.installAgentsmd();
    const read = (paths: string[], usage = USAGE) => ({
      toolCalls: [{ tool: "read_files", args: { files: paths.map((path) => ({ path: fx.path(path) })) } }],
      usage,
    });
    const script = [
      read(["packages/api/src/db/schema.ts"]),
      read(["packages/web/App.tsx"]),
      read(Object.keys(BIG)),
      // After the compaction the server reports a small prompt, or Cline would compact once more before the next request.
      read(["packages/api/src/db/schema.ts"], SMALL),
      { text: "done", usage: SMALL },
    ];
    server.setScript(script);
    const run = await runCline(fx, { prompt: "Work on the task." });
    expect(run.code, describeClineRun(run, server)).toBe(0);
    expect(server.turnsUsed, describeClineRun(run, server)).toBe(script.length);

    const main = server.mainRequests();
    const compacted = main.findIndex((request) => requestText(request.body).includes("Context summary:"));
    expect(compacted, "Cline compacted (a main request starts from `Context summary:`)").toBeGreaterThan(0);
    expect(
      server.requests.some((request) => request.kind !== "main" && requestText(request.body).includes("Summarize")),
      "a summary request was sent",
    ).toBe(true);
    const after = main.slice(compacted).map((request) => counts(requestText(request.body)));
    // Right after the compaction the DB file is gone (summarised away), the web file kept.
    expect(after[0], "the first request after the compaction").toEqual({ "AG-ROOT-1": 1, "AG-DB-3": 0, "AG-WEB-5": 1 });
    // The next tool event brings it back, once; nothing the model kept comes twice.
    expect(after.at(-1), "the last request").toEqual({ "AG-ROOT-1": 1, "AG-DB-3": 1, "AG-WEB-5": 1 });
    for (const [index, seen] of after.entries()) expect(Math.max(...Object.values(seen)), `request ${compacted + index}: no file twice`).toBeLessThanOrEqual(1);
  });
});
