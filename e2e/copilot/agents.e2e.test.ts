/**
 * End to end: the real GitHub Copilot CLI (pinned, see package.json here) with agentsmd
 * installed as the README says (`agentsmd install copilot`: ~/.copilot/hooks/agentsmd.json in the
 * fixture's HOME). A scripted model views, creates, edits and searches files in nested
 * directories; the recorded requests show what reached the model. Every instruction file carries
 * one unique token, so counting tokens in the final request counts deliveries.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/copilot`.
 */
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import type { ChatRequestBody } from "../lib/openai-chat-server.js";
import { runAgentsmd } from "../lib/agentsmd.js";
import {
  createCopilotFixture,
  describeRun,
  nativeReminders,
  occurrences,
  pinnedCopilotVersion,
  runCopilot,
  startCopilotServer,
  useCopilotSuite,
  type CopilotFixture,
  type CopilotRun,
} from "./harness.js";

const FILES: Record<string, string> = {
  "AGENTS.md": "Token AG-ROOT-1: root rules.\n",
  "CLAUDE.md": "Token CL-ROOT-2: Claude rules Copilot loads too.\n",
  ".github/copilot-instructions.md": "Token GH-ROOT-3: repository instructions.\n",
  "packages/api/AGENTS.md": "Token AG-API-4: api rules.\n",
  "packages/api/src/handler.ts": "export const h = 1;\n",
  "packages/api/src/db/AGENTS.md": "Token AG-DB-5: db rules.\n",
  "packages/api/src/db/schema.ts": "export const schema = {};\n",
  "packages/web/AGENTS.md": "Token AG-WEB-6: web rules.\n",
  "packages/web/GEMINI.md": "Token GE-WEB-7: Gemini rules Copilot loads too.\n",
  "packages/web/App.tsx": "export const App = 1;\n",
  "packages/docs/AGENTS.md": "Token AG-DOCS-8: docs rules.\n",
  "packages/docs/guide.md": "# Guide\n",
  "packages/unused/AGENTS.md": "Token AG-UNUSED-9: a sibling, never delivered.\n",
  "packages/unused/x.ts": "export {};\n",
};

const cleanups = useCopilotSuite();

async function setup(): Promise<{ fx: CopilotFixture }> {
  const fx = await createCopilotFixture({ files: FILES });
  cleanups.push(() => fx.cleanup());
  const env = { PATH: process.env.PATH ?? "", HOME: fx.home };
  const install = await runAgentsmd(["install", "copilot"], { cwd: fx.repo, env });
  expect(install.code, install.stderr.toString()).toBe(0);
  expect(install.stderr.toString()).toBe("");
  expect(JSON.parse(fs.readFileSync(path.join(fx.home, ".copilot/hooks/agentsmd.json"), "utf8")).hooks.postToolUse[0].bash).toMatch(
    /hook copilot --event postToolUse$/,
  );
  return { fx };
}

/** Every token of the final request counted once; agentsmd's hook runs left no error behind. */
function expectOnce(body: ChatRequestBody, tokens: readonly string[]): void {
  for (const token of tokens) expect(occurrences(body, token), token).toBe(1);
}

function expectClean(run: CopilotRun): void {
  expect(run.exitCode, describeRun(run)).toBe(0);
  expect(run.stderr, describeRun(run)).not.toMatch(/agentsmd hook copilot/);
}

describe(`agentsmd hooks in GitHub Copilot CLI ${pinnedCopilotVersion()}`, () => {
  it("from the repo root: a viewed nested file (Copilot's own), a file created in a new directory and a search (agentsmd's), each once, nothing native repeated, no sibling", async () => {
    const { fx } = await setup();
    const server = await startCopilotServer([
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/api/src/db/schema.ts") } }] },
      { toolCalls: [{ tool: "bash", args: { command: `mkdir -p ${fx.path("packages/web/new/deep")}`, description: "mkdir" } }] },
      { toolCalls: [{ tool: "create", args: { path: fx.path("packages/web/new/deep/x.ts"), file_text: "export {};\n" } }] },
      { toolCalls: [{ tool: "grep", args: { pattern: "Guide", paths: [fx.path("packages/docs")] } }] },
      { text: "done" },
    ]);
    cleanups.push(() => server.close());
    const run = await runCopilot({ fixture: fx, server, prompt: "work" });
    expectClean(run);
    const final = run.requests.at(-1)!.body!;
    expectOnce(final, ["AG-ROOT-1", "CL-ROOT-2", "GH-ROOT-3", "AG-API-4", "AG-DB-5", "AG-WEB-6", "GE-WEB-7", "AG-DOCS-8"]);
    expect(occurrences(final, "AG-UNUSED-9")).toBe(0);
    // The viewed ones came from Copilot itself (agentsmd stayed silent), the others from agentsmd.
    expect(nativeReminders(final).map((reminder) => reminder.rel)).toEqual(["packages/api/src/db/AGENTS.md", "packages/api/AGENTS.md"]);
    expect(occurrences(final, "Additional guidance from postToolUse hooks:\nagentsmd:")).toBe(2);
  });

  it("from a subdirectory: the chain is Copilot's, a sibling's viewed file Copilot's, an edited and a listed directory agentsmd's", async () => {
    const { fx } = await setup();
    const server = await startCopilotServer([
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/web/App.tsx") } }] },
      { toolCalls: [{ tool: "edit", args: { path: fx.path("packages/docs/guide.md"), old_str: "# Guide", new_str: "# The guide" } }] },
      { toolCalls: [{ tool: "glob", args: { pattern: "**/*.ts", paths: [fx.path("packages/api/src/db")] } }] },
      { text: "done" },
    ]);
    cleanups.push(() => server.close());
    const run = await runCopilot({ fixture: fx, server, prompt: "work", cwd: "packages/api" });
    expectClean(run);
    const final = run.requests.at(-1)!.body!;
    expectOnce(final, ["AG-ROOT-1", "CL-ROOT-2", "GH-ROOT-3", "AG-API-4", "AG-WEB-6", "GE-WEB-7", "AG-DOCS-8", "AG-DB-5"]);
    expect(occurrences(final, "AG-UNUSED-9")).toBe(0);
    expect(nativeReminders(final).map((reminder) => reminder.rel)).toEqual(["packages/web/AGENTS.md", "packages/web/GEMINI.md"]);
  });

  it("an edited instruction file is given again once, with its new text, on the next touch below it (Copilot never re-sends it)", async () => {
    const { fx } = await setup();
    const web = fx.path("packages/web/AGENTS.md");
    const server = await startCopilotServer([
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/web/App.tsx") } }] },
      { toolCalls: [{ tool: "bash", args: { command: `echo 'Token AG-WEB-EDITED-10: new web rule.' >> ${web}`, description: "edit" } }] },
      { toolCalls: [{ tool: "edit", args: { path: fx.path("packages/web/App.tsx"), old_str: "App = 1", new_str: "App = 2" } }] },
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/web/App.tsx") } }] },
      { text: "done" },
    ]);
    cleanups.push(() => server.close());
    const run = await runCopilot({ fixture: fx, server, prompt: "work" });
    expectClean(run);
    const final = run.requests.at(-1)!.body!;
    // Once from Copilot (old text), once from agentsmd (new text, which holds the old line too).
    expect(occurrences(final, "AG-WEB-EDITED-10")).toBe(1);
    expect(occurrences(final, "AG-WEB-6")).toBe(2);
    expect(nativeReminders(final).filter((reminder) => reminder.rel === "packages/web/AGENTS.md")).toHaveLength(1);
  });

  it("after a compaction the nested files come back with the next tool call there, once, though Copilot does not re-attach them", async () => {
    const { fx } = await setup();
    const server = await startCopilotServer([
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/api/src/handler.ts") } }] },
      { toolCalls: [{ tool: "create", args: { path: fx.path("packages/docs/new.md"), file_text: "x\n" } }] },
      // A nearly full context: Copilot compacts before the next request (preCompact runs first).
      { toolCalls: [{ tool: "bash", args: { command: "true", description: "noop" } }], usage: { prompt_tokens: 19_900, completion_tokens: 10 } },
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/api/src/handler.ts") } }] },
      { toolCalls: [{ tool: "grep", args: { pattern: "x", paths: [fx.path("packages/docs")] } }] },
      { text: "done" },
    ]);
    cleanups.push(() => server.close());
    const run = await runCopilot({ fixture: fx, server, prompt: "work", env: { COPILOT_PROVIDER_MAX_PROMPT_TOKENS: "20000" } });
    expectClean(run);
    expect(run.all.some((request) => request.kind === "compaction")).toBe(true);
    const final = run.requests.at(-1)!.body!;
    expect(occurrences(final, "<summary>") + occurrences(final, "summarized")).toBeGreaterThan(0);
    expectOnce(final, ["AG-ROOT-1", "AG-API-4", "AG-DOCS-8"]);
    // Copilot attached nothing after the compaction: agentsmd gave the api file again.
    expect(nativeReminders(final)).toEqual([]);
  });

  it.each([
    ["the repo root", "", false],
    ["a subdirectory", "packages/api", false],
    // Copilot starts a resumed process's sessionStart and first prompt hooks at once; held back
    // here, the resume's hook ends after the prompt's, so the prompt's hook must apply the resume.
    ["the repo root with the sessionStart hook held back", "", true],
  ])(
    "from %s, after `copilot --continue`: an edited nested file Copilot attached comes once (from Copilot's next view), an edited root file once",
    async (_label, cwd, holdBack) => {
      const { fx } = await setup();
      if (holdBack) {
        const file = path.join(fx.home, ".copilot/hooks/agentsmd.json");
        const hooks = JSON.parse(fs.readFileSync(file, "utf8"));
        for (const entry of hooks.hooks.sessionStart) entry.bash = `sleep 0.6; ${entry.bash}`;
        fs.writeFileSync(file, JSON.stringify(hooks));
      }
      const server = await startCopilotServer([{ toolCalls: [{ tool: "view", args: { path: fx.path("packages/web/App.tsx") } }] }, { text: "one" }]);
      cleanups.push(() => server.close());
      let run = await runCopilot({ fixture: fx, server, prompt: "FIRST-PROMPT", cwd });
      expectClean(run);
      expect(nativeReminders(run.requests.at(-1)!.body!).map((reminder) => reminder.rel)).toEqual(["packages/web/AGENTS.md", "packages/web/GEMINI.md"]);
      fs.appendFileSync(fx.path("packages/web/AGENTS.md"), "Token AG-WEB-EDITED-11: resumed web rule.\n");
      fs.appendFileSync(fx.path("AGENTS.md"), "Token AG-ROOT-EDITED-12: resumed root rule.\n");
      server.setScript([
        { toolCalls: [{ tool: "view", args: { path: fx.path("packages/web/App.tsx") } }] },
        { toolCalls: [{ tool: "edit", args: { path: fx.path("packages/web/App.tsx"), old_str: "App = 1", new_str: "App = 2" } }] },
        { text: "two" },
      ]);
      run = await runCopilot({ fixture: fx, server, prompt: "SECOND-PROMPT", cwd, resume: true });
      expectClean(run);
      const final = run.requests.at(-1)!.body!;
      expectOnce(final, ["FIRST-PROMPT", "SECOND-PROMPT", "AG-WEB-EDITED-11", "AG-ROOT-EDITED-12", "GE-WEB-7", "AG-ROOT-1", "CL-ROOT-2", "GH-ROOT-3"]);
      expect(occurrences(final, "AG-UNUSED-9")).toBe(0);
    },
  );
});
