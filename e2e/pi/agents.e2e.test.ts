/**
 * The built `agentsmd/pi` extension inside the real pi CLI (0.87.1, `pi --mode json`), loaded the
 * way `pi -e npm:agentsmd` loads it: `-e <this package>` (pi reads the package's `pi` manifest).
 * The model is scripted; the test inspects what the model server received.
 *
 * Rule checked in every run: each instruction file reaches the model exactly once per version,
 * counting pi's own system prompt, and an edited file once more.
 *
 * Needs `npm run build` and the pinned pi (`npm ci --prefix e2e/pi`, done on first use).
 */
import { access } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, afterEach, describe, expect, test } from "vitest";
import { REPO_ROOT } from "../lib/install.js";
import { messageText, toolResults, type ChatRequestBody } from "../lib/openai-chat-server.js";
import { createPiFixture, readPiSessionFile, requirePi, type PiFixture, type PiRunResult } from "./harness.js";

const EXTENSION_DIST = join(REPO_ROOT, "dist", "plugin", "pi.js");
/** The package directory: pi finds the extension through package.json's `pi.extensions`. */
const PACKAGE = REPO_ROOT;

let fixture: PiFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

beforeAll(async () => {
  await access(EXTENSION_DIST).catch(() => {
    throw new Error(`${EXTENSION_DIST} does not exist: run \`npm run build\` in ${REPO_ROOT} first.`);
  });
  await requirePi();
}, 15 * 60_000);

const FILES = {
  "AGENTS.md": "ROOT-RULE\n",
  "pkg/AGENTS.md": "PKG-RULE\n",
  "pkg/src/a.ts": "export const a = 1;\n",
  "pkg/deep/AGENTS.md": "DEEP-RULE\n",
  "pkg/deep/x.ts": "export const x = 1;\n",
  "svc/CLAUDE.md": "SVC-RULE\n",
  "svc/main.ts": "export {};\n",
  "lib/AGENTS.override.md": "LIB-OVERRIDE\n",
  "lib/AGENTS.md": "LIB-HIDDEN\n",
  "node_modules/dep/AGENTS.md": "DEP-RULE\n",
  "node_modules/dep/index.js": "module.exports = 1;\n",
};
const HOME_FILES = { ".pi/agent/AGENTS.md": "GLOBAL-RULE\n" };

function lastMain(run: PiRunResult): ChatRequestBody {
  expect(run.exitCode, `pi failed: ${run.stderr.slice(-2000)}`).toBe(0);
  expect(run.timedOut).toBe(false);
  expect(run.serverErrors).toEqual([]);
  expect(run.turnsLeft, "the script was not used up").toBe(0);
  const body = run.mainRequests.at(-1)?.body;
  if (!body) throw new Error("no main request recorded");
  return body;
}

/** How often `marker` occurs in the text the model received (messages only, not tool-call arguments). */
function count(body: ChatRequestBody, marker: string): number {
  return body.messages.map(messageText).join("\n").split(marker).length - 1;
}

function systemText(body: ChatRequestBody): string {
  return body.messages
    .filter((m) => m.role === "system" || m.role === "developer")
    .map(messageText)
    .join("\n");
}

const ext = { extensions: [PACKAGE], args: ["--no-extensions", "--tools", "read,bash,edit,write,grep,find,ls"] };

describe("agentsmd/pi in pi 0.87.1", () => {
  test("from the repo root: nested files after a read, a new directory after a write, each once; native files never repeated; an edited file once more", async () => {
    fixture = await createPiFixture({ files: FILES, homeFiles: HOME_FILES });
    const run = await fixture.run({
      ...ext,
      prompt: "work on the repo",
      script: [
        { toolCalls: [{ tool: "read", args: { path: "pkg/deep/x.ts" } }] },
        { toolCalls: [{ tool: "write", args: { path: "svc/new/dir/file.ts", content: "export {};\n" } }] },
        { toolCalls: [{ tool: "read", args: { path: "pkg/src/a.ts" } }] },
        { toolCalls: [{ tool: "ls", args: { path: "lib" } }] },
        { toolCalls: [{ tool: "read", args: { path: "node_modules/dep/index.js" } }] },
        { toolCalls: [{ tool: "edit", args: { path: "pkg/AGENTS.md", edits: [{ oldText: "PKG-RULE", newText: "PKG-EDITED" }] } }] },
        { toolCalls: [{ tool: "read", args: { path: "pkg/src/a.ts" } }] },
        { text: "done" },
      ],
    });
    const body = lastMain(run);
    const results = toolResults(body);
    expect(results).toHaveLength(7);
    // pi's own system prompt: global + root (cwd is the repo root).
    const system = systemText(body);
    expect(system).toContain("GLOBAL-RULE");
    expect(system).toContain("ROOT-RULE");
    expect(system).not.toContain("PKG-RULE");
    // read pkg/deep/x.ts: pkg and deep, nothing native.
    expect(results[0]!.content).toContain("PKG-RULE");
    expect(results[0]!.content).toContain("DEEP-RULE");
    expect(results[0]!.content).toContain(`Contents of ${fixture.path("pkg/deep/AGENTS.md")} (`);
    // write to a new directory under svc: svc's CLAUDE.md.
    expect(results[1]!.content).toContain("SVC-RULE");
    // a second read under pkg: nothing.
    expect(results[2]!.content).toBe("export const a = 1;\n");
    // ls lib: the override wins over lib/AGENTS.md.
    expect(results[3]!.content).toContain("LIB-OVERRIDE");
    expect(count(body, "LIB-HIDDEN")).toBe(0);
    // node_modules is never entered.
    expect(count(body, "DEP-RULE")).toBe(0);
    // the edit of pkg/AGENTS.md brings its new text once.
    expect(results[5]!.content).toContain("PKG-EDITED");
    expect(results[6]!.content).toBe("export const a = 1;\n");
    for (const [marker, times] of Object.entries({
      "GLOBAL-RULE": 1,
      "ROOT-RULE": 1,
      "PKG-RULE": 1,
      "PKG-EDITED": 1,
      "DEEP-RULE": 1,
      "SVC-RULE": 1,
      "LIB-OVERRIDE": 1,
    })) {
      expect(count(body, marker), marker).toBe(times);
    }
  });

  test("from a subdirectory: pi's chain is native; reads outside cwd and below it, and a shell command, deliver the rest once; a file the model read itself is not repeated", async () => {
    fixture = await createPiFixture({ files: FILES, homeFiles: HOME_FILES });
    const run = await fixture.run({
      ...ext,
      cwd: "pkg",
      prompt: "work in pkg",
      script: [
        { toolCalls: [{ tool: "read", args: { path: "deep/AGENTS.md" } }] },
        { toolCalls: [{ tool: "read", args: { path: "deep/x.ts" } }] },
        { toolCalls: [{ tool: "read", args: { path: "../svc/main.ts" } }] },
        { toolCalls: [{ tool: "write", args: { path: "gen/out/new.ts", content: "export {};\n" } }] },
        { toolCalls: [{ tool: "grep", args: { pattern: "nothing-matches-this" } }] },
        { toolCalls: [{ tool: "bash", args: { command: "ls ../lib && cat ../node_modules/dep/index.js" } }] },
        { text: "done" },
      ],
    });
    const body = lastMain(run);
    const results = toolResults(body);
    const system = systemText(body);
    for (const marker of ["GLOBAL-RULE", "ROOT-RULE", "PKG-RULE"]) expect(system).toContain(marker);
    expect(results[0]!.content).toBe("DEEP-RULE\n");
    expect(results[1]!.content).toBe("export const x = 1;\n");
    expect(results[2]!.content).toContain("SVC-RULE");
    expect(results[2]!.content).not.toContain("ROOT-RULE");
    expect(results[3]!.content).not.toContain("agentsmd:");
    expect(results[4]!.content).not.toContain("agentsmd:");
    // a shell command listing ../lib: lib's override, and nothing for node_modules.
    expect(results[5]!.content).toContain("LIB-OVERRIDE");
    expect(count(body, "DEP-RULE")).toBe(0);
    for (const marker of ["GLOBAL-RULE", "ROOT-RULE", "PKG-RULE", "DEEP-RULE", "SVC-RULE", "LIB-OVERRIDE"]) expect(count(body, marker), marker).toBe(1);
  });

  test("a continued session repeats nothing; a file edited between prompts comes back once as a hidden message", async () => {
    fixture = await createPiFixture({ files: FILES, homeFiles: HOME_FILES });
    const sessionId = "agentsmd-continue-1";
    const first = await fixture.run({
      ...ext,
      sessionId,
      prompt: "first",
      script: [{ toolCalls: [{ tool: "read", args: { path: "pkg/deep/x.ts" } }] }, { text: "done" }],
    });
    expect(count(lastMain(first), "DEEP-RULE")).toBe(1);
    await fixture.write("pkg/deep/AGENTS.md", "DEEP-EDITED\n");
    const second = await fixture.run({
      ...ext,
      sessionId,
      prompt: "second",
      script: [{ toolCalls: [{ tool: "read", args: { path: "pkg/deep/x.ts" } }] }, { text: "done" }],
    });
    const body = lastMain(second);
    for (const [marker, times] of Object.entries({ "GLOBAL-RULE": 1, "ROOT-RULE": 1, "PKG-RULE": 1, "DEEP-RULE": 1, "DEEP-EDITED": 1 })) {
      expect(count(body, marker), marker).toBe(times);
    }
    // The edited text came with the prompt (a user-role custom message), not after the read.
    expect(toolResults(body).at(-1)!.content).toBe("export const x = 1;\n");
    const session = await readPiSessionFile(fixture, sessionId);
    expect(session).toContain('"customType":"agentsmd"');
  });

  test("after a compaction, files whose messages were summarised come back once; files in kept messages are not repeated", async () => {
    fixture = await createPiFixture({
      files: FILES,
      homeFiles: HOME_FILES,
      contextWindow: 40_000,
      settings: { compaction: { enabled: true, reserveTokens: 8_000, keepRecentTokens: 1 } },
    });
    const run = await fixture.run({
      ...ext,
      prompt: "work then compact",
      script: [
        { toolCalls: [{ tool: "read", args: { path: "pkg/deep/x.ts" } }] },
        { toolCalls: [{ tool: "read", args: { path: "svc/main.ts" } }], usage: { prompt_tokens: 35_000, completion_tokens: 10 } },
        { text: "done" },
      ],
    });
    const body = lastMain(run);
    expect(run.requests.some((request) => request.kind === "compaction")).toBe(true);
    const texts = body.messages.map((m) => ({ role: m.role, text: messageText(m) }));
    const summary = texts.findIndex((m) => m.text.includes("Scripted summary"));
    expect(summary).toBeGreaterThan(0);
    // The read of svc/main.ts was kept: its result still carries svc's file, which is not repeated.
    expect(texts.find((m) => m.role === "tool")?.text).toContain("SVC-RULE");
    // The read of pkg/deep/x.ts was summarised: its files come back in a message after the summary.
    const restored = texts.findIndex((m) => m.role === "user" && m.text.includes("DEEP-RULE"));
    expect(restored).toBeGreaterThan(summary);
    expect(texts[restored]!.text).toContain("PKG-RULE");
    expect(texts[restored]!.text).not.toContain("SVC-RULE");
    for (const [marker, times] of Object.entries({ "GLOBAL-RULE": 1, "ROOT-RULE": 1, "PKG-RULE": 1, "DEEP-RULE": 1, "SVC-RULE": 1 })) {
      expect(count(body, marker), marker).toBe(times);
    }
  });
});
