/**
 * What GitHub Copilot CLI (pinned in package.json here) does by itself, without agentsmd: the facts
 * the `copilot` preset and profile are built on. If an update changes one, a test here fails
 * before the agentsmd suites start telling half-truths. Scripted model on 127.0.0.1, BYOK offline.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/copilot`.
 */
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { messageText, toolResults } from "../lib/openai-chat-server.js";
import {
  createCopilotFixture,
  customInstructions,
  describeRun,
  nativeReminders,
  occurrences,
  runCopilot,
  startCopilotServer,
  useCopilotSuite,
} from "./harness.js";

const cleanups = useCopilotSuite();

/** A hook script that logs its argv and stdin as one JSON line and answers with `mode`. */
function probeHook(file: string, log: string): string {
  fs.writeFileSync(
    file,
    `const fs = require("node:fs");
const [event, mode] = process.argv.slice(2);
const input = fs.readFileSync(0, "utf8");
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ event, env: { COPILOT_CLI: process.env.COPILOT_CLI }, input: JSON.parse(input) }) + "\\n");
const text = "PROBE-" + event;
if (mode === "top") process.stdout.write(JSON.stringify({ additionalContext: text }));
if (mode === "specific") process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } }));
`,
  );
  return file;
}

function readLog(log: string): Array<{ event: string; env: Record<string, string>; input: Record<string, unknown> }> {
  if (!fs.existsSync(log)) return [];
  return fs
    .readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

const TREE = {
  "AGENTS.md": "ROOT-AGENTS\n",
  "CLAUDE.md": "ROOT-CLAUDE\n",
  "GEMINI.md": "ROOT-GEMINI\n",
  ".github/copilot-instructions.md": "ROOT-COPILOT\n",
  "AGENTS.override.md": "NOT-READ-OVERRIDE\n",
  "packages/api/AGENTS.md": "API-RULE\n",
  "packages/api/src/handler.ts": "export const h = 1;\n",
  "packages/web/AGENTS.md": "WEB-RULE\n",
  "packages/web/App.tsx": "export const App = 1;\n",
};

describe("Copilot CLI's own instruction loading", () => {
  it("loads AGENTS.md, CLAUDE.md, GEMINI.md and .github/copilot-instructions.md root -> cwd, and a nested AGENTS.md after `view` only", async () => {
    const fx = await createCopilotFixture({ files: TREE });
    const server = await startCopilotServer([
      { toolCalls: [{ tool: "bash", args: { command: `mkdir -p ${fx.path("packages/web/new")}`, description: "mkdir" } }] },
      { toolCalls: [{ tool: "create", args: { path: fx.path("packages/web/new/x.ts"), file_text: "x\n" } }] },
      { toolCalls: [{ tool: "edit", args: { path: fx.path("packages/web/App.tsx"), old_str: "App = 1", new_str: "App = 2" } }] },
      { toolCalls: [{ tool: "grep", args: { pattern: "App", paths: [fx.path("packages/web")] } }] },
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/web") } }] },
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/api/src/handler.ts") } }] },
      { text: "done" },
    ]);
    cleanups.push(
      () => server.close(),
      () => fx.cleanup(),
    );
    const run = await runCopilot({ fixture: fx, server, prompt: "work" });
    expect(run.exitCode, describeRun(run)).toBe(0);
    const final = run.requests.at(-1)!.body!;
    expect(customInstructions(final).map((text) => text.trim())).toEqual(["ROOT-COPILOT", "ROOT-AGENTS", "ROOT-CLAUDE", "ROOT-GEMINI"]);
    expect(nativeReminders(final)).toEqual([{ rel: "packages/api/AGENTS.md", content: "API-RULE\n" }]);
    expect(occurrences(final, "WEB-RULE")).toBe(0);
    expect(occurrences(final, "NOT-READ-OVERRIDE")).toBe(0);
  });

  it("started in a subdirectory: the chain up to the git root; a sibling's file after `view`, nearest first, CLAUDE.md and GEMINI.md too; never twice, not after an edit", async () => {
    const fx = await createCopilotFixture({
      files: { ...TREE, "packages/web/ui/CLAUDE.md": "UI-CLAUDE\n", "packages/web/ui/b.ts": "b\n", "packages/web/GEMINI.md": "WEB-GEMINI\n" },
    });
    const server = await startCopilotServer([
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/web/ui/b.ts") } }] },
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/web/App.tsx") } }] },
      { toolCalls: [{ tool: "bash", args: { command: `echo WEB-RULE-V2 >> ${fx.path("packages/web/AGENTS.md")}`, description: "edit" } }] },
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/web/App.tsx") } }] },
      { text: "done" },
    ]);
    cleanups.push(
      () => server.close(),
      () => fx.cleanup(),
    );
    const run = await runCopilot({ fixture: fx, server, prompt: "work", cwd: "packages/api" });
    expect(run.exitCode, describeRun(run)).toBe(0);
    const final = run.requests.at(-1)!.body!;
    expect(customInstructions(final).map((text) => text.trim())).toEqual(["ROOT-COPILOT", "ROOT-AGENTS", "ROOT-CLAUDE", "ROOT-GEMINI", "API-RULE"]);
    expect(nativeReminders(final)).toEqual([
      { rel: "packages/web/ui/CLAUDE.md", content: "UI-CLAUDE\n" },
      { rel: "packages/web/AGENTS.md", content: "WEB-RULE\n" },
      { rel: "packages/web/GEMINI.md", content: "WEB-GEMINI\n" },
    ]);
    expect(occurrences(final, "WEB-RULE-V2")).toBe(0);
  });
});

describe("Copilot CLI's hooks", () => {
  it("user hooks: camelCase payloads without an event name; postToolUse context from a top-level additionalContext only", async () => {
    const fx = await createCopilotFixture({ files: TREE });
    const log = path.join(fx.base, "hooks.log");
    const script = probeHook(path.join(fx.base, "probe.cjs"), log);
    const hook = (event: string, mode: string) => [{ type: "command", bash: `${process.execPath} ${script} ${event} ${mode}`, timeoutSec: 30 }];
    fs.mkdirSync(path.join(fx.home, ".copilot/hooks"), { recursive: true });
    fs.writeFileSync(
      path.join(fx.home, ".copilot/hooks/probe.json"),
      JSON.stringify({
        version: 1,
        hooks: {
          sessionStart: hook("sessionStart", "top"),
          userPromptSubmitted: hook("userPromptSubmitted", "top"),
          postToolUse: [...hook("postToolUse", "top"), ...hook("postToolUseSpecific", "specific")],
        },
      }),
    );
    const server = await startCopilotServer([
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/api/src/handler.ts") } }] },
      { toolCalls: [{ tool: "glob", args: { pattern: "**/*.tsx", paths: ["web"] } }] },
      { text: "done" },
    ]);
    cleanups.push(
      () => server.close(),
      () => fx.cleanup(),
    );
    const run = await runCopilot({ fixture: fx, server, prompt: "work", cwd: "packages" });
    expect(run.exitCode, describeRun(run)).toBe(0);
    const entries = readLog(log);
    const start = entries.find((entry) => entry.event === "sessionStart")!;
    expect(start.input).toMatchObject({ cwd: fx.path("packages"), source: "new", initialPrompt: "work" });
    expect(start.input).not.toHaveProperty("hookEventName");
    expect(start.env.COPILOT_CLI).toBe("1");
    const posts = entries.filter((entry) => entry.event === "postToolUse").map((entry) => entry.input);
    expect(posts[0]).toMatchObject({
      cwd: fx.path("packages"),
      toolName: "view",
      toolArgs: { path: fx.path("packages/api/src/handler.ts") },
      toolResult: { resultType: "success" },
    });
    expect(posts[1]).toMatchObject({ toolName: "glob", toolArgs: { pattern: "**/*.tsx", paths: ["web"] } });
    const final = run.requests.at(-1)!.body!;
    const results = toolResults(final);
    expect(results[0]!.content).toContain('Tool "view" succeeded. Additional guidance from postToolUse hooks:\nPROBE-postToolUse');
    expect(occurrences(final, "PROBE-postToolUseSpecific")).toBe(0);
    expect(messageText(final.messages[1]!)).toBe("PROBE-sessionStart");
    expect(occurrences(final, "<system_reminder>\nPROBE-userPromptSubmitted\n</system_reminder>")).toBe(1);
  });

  it("repository hooks (.github/hooks, .claude/settings.json) run only from the folder --trust-folder trusted: not from a subdirectory", async () => {
    const fx = await createCopilotFixture({ files: TREE });
    const log = path.join(fx.base, "hooks.log");
    const script = probeHook(path.join(fx.base, "probe.cjs"), log);
    fx.write(
      ".github/hooks/probe.json",
      JSON.stringify({ version: 1, hooks: { postToolUse: [{ type: "command", bash: `${process.execPath} ${script} gh none` }] } }),
    );
    fx.write(
      ".claude/settings.json",
      JSON.stringify({ hooks: { PostToolUse: [{ hooks: [{ type: "command", command: `${process.execPath} ${script} claude none` }] }] } }),
    );
    const script2 = [{ toolCalls: [{ tool: "view", args: { path: fx.path("packages/api/src/handler.ts") } }] }, { text: "done" }];
    const server = await startCopilotServer([...script2, ...script2]);
    cleanups.push(
      () => server.close(),
      () => fx.cleanup(),
    );
    const sub = await runCopilot({ fixture: fx, server, prompt: "work", cwd: "packages/api" });
    expect(sub.exitCode, describeRun(sub)).toBe(0);
    expect(readLog(log)).toEqual([]);
    const root = await runCopilot({ fixture: fx, server, prompt: "work" });
    expect(root.exitCode, describeRun(root)).toBe(0);
    const entries = readLog(log);
    expect(entries.map((entry) => entry.event).sort()).toEqual(["claude", "gh"]);
    // The Claude-style file gets Claude's field names, with Copilot's `path` argument.
    expect(entries.find((entry) => entry.event === "claude")!.input).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "Read",
      tool_input: { path: fx.path("packages/api/src/handler.ts") },
      tool_result: { result_type: "success" },
    });
  });

  it("compaction: preCompact runs, the nested files Copilot attached are gone afterwards and a later `view` does not bring them back", async () => {
    const fx = await createCopilotFixture({ files: TREE });
    const log = path.join(fx.base, "hooks.log");
    const script = probeHook(path.join(fx.base, "probe.cjs"), log);
    fs.mkdirSync(path.join(fx.home, ".copilot/hooks"), { recursive: true });
    fs.writeFileSync(
      path.join(fx.home, ".copilot/hooks/probe.json"),
      JSON.stringify({
        version: 1,
        hooks: Object.fromEntries(
          ["sessionStart", "preCompact"].map((event) => [event, [{ type: "command", bash: `${process.execPath} ${script} ${event} none` }]]),
        ),
      }),
    );
    const server = await startCopilotServer([
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/api/src/handler.ts") } }] },
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/web/App.tsx") } }], usage: { prompt_tokens: 19_900, completion_tokens: 10 } },
      { toolCalls: [{ tool: "view", args: { path: fx.path("packages/api/src/handler.ts") } }] },
      { text: "done" },
    ]);
    cleanups.push(
      () => server.close(),
      () => fx.cleanup(),
    );
    const run = await runCopilot({ fixture: fx, server, prompt: "work", env: { COPILOT_PROVIDER_MAX_PROMPT_TOKENS: "20000" } });
    expect(run.exitCode, describeRun(run)).toBe(0);
    expect(run.all.some((request) => request.kind === "compaction")).toBe(true);
    const entries = readLog(log);
    expect(entries.map((entry) => entry.event)).toEqual(["sessionStart", "preCompact"]);
    expect(entries[1]!.input).toMatchObject({ trigger: "auto" });
    const final = run.requests.at(-1)!.body!;
    expect(occurrences(final, "ROOT-AGENTS")).toBe(1);
    expect(occurrences(final, "API-RULE")).toBe(0);
    expect(occurrences(final, "WEB-RULE")).toBe(0);
  });
});
