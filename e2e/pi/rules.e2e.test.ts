/**
 * Scoped rules through the built `agentsmd/pi` extension inside the real pi CLI (0.87.1): pi reads
 * no rule format itself, so every format agentsmd knows reaches the model from agentsmd, once: an
 * always-apply rule with the startup files (at the first turn), a glob rule right after the tool
 * call that touched a matching file, never one whose glob nothing touched.
 *
 * Needs `npm run build` and the pinned pi (`npm ci --prefix e2e/pi`, done on first use).
 */
import { access } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { REPO_ROOT } from "../lib/install.js";
import { messageText, toolResults, type ChatRequestBody } from "../lib/openai-chat-server.js";
import { createPiFixture, requirePi, type PiFixture } from "./harness.js";

let fixture: PiFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

beforeAll(async () => {
  await access(join(REPO_ROOT, "dist", "plugin", "pi.js"));
  await requirePi();
}, 15 * 60_000);

const FILES = {
  "AGENTS.md": "# Root\nToken AG-ROOT-1.\n",
  "packages/api/src/index.ts": "export const api = 1;\n",
  "packages/web/src/Button.tsx": "export function Button() { return null; }\n",
  "docs/guide.md": "# Guide\n",
  ".github/instructions/api.instructions.md": '---\napplyTo: "packages/api/**/*.ts"\n---\nToken RULE-COPILOT-1: API handlers return Result values.\n',
  ".claude/rules/api.md": "---\npaths:\n  - packages/api/**\n---\nToken RULE-CLAUDE-2: errors carry a code.\n",
  ".cursor/rules/web.mdc": "---\ndescription: web\nglobs: packages/web/**\nalwaysApply: false\n---\nToken RULE-CURSOR-3: components are function components.\n",
  ".qwen/rules/always.md": "Token RULE-QWEN-4: write commit messages in the imperative.\n",
  ".cursor/rules/unused.mdc": "---\nglobs: never/**\n---\nToken RULE-UNUSED-5: never touched.\n",
};
const TOKENS = ["AG-ROOT-1", "RULE-COPILOT-1", "RULE-CLAUDE-2", "RULE-CURSOR-3", "RULE-QWEN-4", "RULE-UNUSED-5"];

function count(body: ChatRequestBody, marker: string): number {
  return body.messages.map(messageText).join("\n").split(marker).length - 1;
}

const ext = { extensions: [REPO_ROOT], args: ["--no-extensions", "--tools", "read,bash,edit,write,grep,find,ls"] };

describe("scoped rules through agentsmd/pi in pi 0.87.1", () => {
  test.each([
    ["the repo root", ""],
    ["a subdirectory", "packages"],
  ])("from %s: every rule format once, right after the touch that applies it; an always-apply rule at the start", async (_label, sub) => {
    fixture = await createPiFixture({ files: FILES });
    const prefix = sub === "" ? "" : "../";
    const run = await fixture.run({
      ...ext,
      ...(sub === "" ? {} : { cwd: fixture.path(sub) }),
      prompt: "work on the repo",
      script: [
        { toolCalls: [{ tool: "read", args: { path: `${prefix}docs/guide.md` } }] },
        { toolCalls: [{ tool: "read", args: { path: `${sub === "" ? "packages/" : ""}api/src/index.ts` } }] },
        { toolCalls: [{ tool: "read", args: { path: `${sub === "" ? "packages/" : ""}web/src/Button.tsx` } }] },
        { toolCalls: [{ tool: "read", args: { path: `${sub === "" ? "packages/" : ""}api/src/index.ts` } }] },
        { text: "done" },
      ],
    });
    expect(run.exitCode, `pi failed: ${run.stderr.slice(-2000)}`).toBe(0);
    expect(run.turnsLeft).toBe(0);
    const body = run.mainRequests.at(-1)!.body!;
    const counts = Object.fromEntries(TOKENS.map((token) => [token, count(body, token)]));
    expect(counts, JSON.stringify(body.messages.map(messageText), null, 1).slice(0, 6000)).toEqual({
      "AG-ROOT-1": 1,
      "RULE-COPILOT-1": 1,
      "RULE-CLAUDE-2": 1,
      "RULE-CURSOR-3": 1,
      "RULE-QWEN-4": 1,
      "RULE-UNUSED-5": 0,
    });
    const results = toolResults(body);
    expect(results[0]!.content).not.toContain("RULE-");
    expect(results[1]!.content).toContain("RULE-COPILOT-1");
    expect(results[1]!.content).toContain("RULE-CLAUDE-2");
    expect(results[2]!.content).toContain("RULE-CURSOR-3");
    expect(results[3]!.content).not.toContain("RULE-");
  });
});
