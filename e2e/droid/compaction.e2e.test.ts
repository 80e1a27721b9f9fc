/**
 * Factory Droid 0.215.0 compacting inside `droid exec` (no interactive `/compact`): a custom model
 * with a small `maxContextLimit`, a `compactionTokenLimit` in settings, and a scripted turn that
 * reports a prompt near that limit after a large read make Droid summarise the history before the
 * next request (a summary request, a `compaction_state` record in its session log). Which hooks
 * run is logged by a second hook beside agentsmd's; what agentsmd gives back at the next tool event
 * (it reads that record: src/integrations/droid/compaction-read.ts) is counted in the requests.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/droid`. One agent run, bounded (RUN_TIMEOUT_MS).
 */
import { chmod, readdir, readFile, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cleanupAfterEach } from "../lib/cleanups.js";
import { assertAgentsmdBuilt, runInstall } from "../lib/agentsmd.js";
import { describeTextRun, homeEnv, runText } from "../lib/exec.js";
import { messageText, startOpenAIChatServer, type ChatRequestBody } from "../lib/openai-chat-server.js";
import { createTree, dir } from "../lib/tree.js";
import { DROID_EXEC_ARGS, DROID_MODEL, droidBin } from "./harness.js";

const RUN_TIMEOUT_MS = 60_000;
/** The custom model's context window, and a reported prompt close to it. */
const CONTEXT_LIMIT = 20_000;
const NEAR_LIMIT = { prompt_tokens: 19_000, completion_tokens: 10 };

const cleanups = cleanupAfterEach();

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await droidBin();
}, 600_000);

function counts(text: string, tokens: readonly string[]): Record<string, number> {
  return Object.fromEntries(tokens.map((token) => [token, text.split(token).length - 1]));
}

describe("Factory Droid 0.215.0 auto-compaction in `droid exec`", () => {
  it("runs no PreCompact and no SessionStart hook; agentsmd finds the compaction in the session log at the next event and gives back the nested file it gave, once; the one Droid attached comes again at the next tool there, once", async () => {
    const tree = await createTree(
      {
        "home/.local/state": dir(),
        "home/.factory/AGENTS.md": "# Global\nToken AG-GLOBAL-0.\n",
        "repo/.git": dir(),
        "repo/AGENTS.md": "# Root\nToken AG-ROOT-1.\n",
        "repo/big.txt": "lorem ipsum dolor sit amet\n".repeat(6000),
        "repo/a/AGENTS.md": "# A\nToken AG-NESTED-2.\n",
        "repo/a/x.ts": "export const x = 1;\n",
        "repo/c/AGENTS.md": "# C\nToken AG-NESTED-3.\n",
        "repo/c/y.ts": "export const y = 1;\n",
        "repo/z.ts": "export const z = 1;\n",
      },
      { prefix: "agentsmd-droid-compact-" },
    );
    cleanups.push(() => tree.cleanup());
    const repo = await realpath(tree.path("repo"));
    const home = await realpath(tree.path("home"));
    const server = await startOpenAIChatServer({
      script: [
        { toolCalls: [{ tool: "Create", args: { file_path: path.join(repo, "a/b/new.ts"), content: "export {};\n" } }] },
        { toolCalls: [{ tool: "Read", args: { file_path: path.join(repo, "c/y.ts") } }] },
        { toolCalls: [{ tool: "Read", args: { file_path: path.join(repo, "big.txt") } }], usage: NEAR_LIMIT },
        { toolCalls: [{ tool: "Read", args: { file_path: path.join(repo, "z.ts") } }] },
        { toolCalls: [{ tool: "Create", args: { file_path: path.join(repo, "c/w.ts"), content: "export {};\n" } }] },
        { text: "done" },
      ],
    });
    cleanups.push(() => server.close());
    const settingsFile = path.join(home, ".factory", "settings.json");
    const model = { model: DROID_MODEL, displayName: "e2e", baseUrl: server.baseURL, apiKey: "e2e-key", provider: "generic-chat-completion-api" };
    await writeFile(
      settingsFile,
      JSON.stringify({ customModels: [{ ...model, maxOutputTokens: 4096, maxContextLimit: CONTEXT_LIMIT }], compactionTokenLimit: 5_000 }),
    );
    await runInstall(["install", "droid"], { env: homeEnv(home), cwd: repo });
    // A second hook on every event Droid has, appending what it receives.
    const log = path.join(home, "hooks.jsonl");
    const logger = path.join(home, "log-hook.sh");
    await writeFile(logger, `#!/bin/sh\ncat >> '${log}'\necho >> '${log}'\n`);
    await chmod(logger, 0o755);
    const settings = JSON.parse(await readFile(settingsFile, "utf8")) as { hooks: Record<string, unknown[]> };
    for (const event of ["SessionStart", "PreCompact", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"])
      settings.hooks[event] = [...(settings.hooks[event] ?? []), { hooks: [{ type: "command", command: logger }] }];
    await writeFile(settingsFile, JSON.stringify(settings));

    const run = await runText(await droidBin(), DROID_EXEC_ARGS, { cwd: repo, env: homeEnv(home), timeoutMs: RUN_TIMEOUT_MS, stderrTail: 20_000 });
    const why = describeTextRun(run, server.requests);
    expect(run.code, why).toBe(0);
    expect(server.turnsUsed, why).toBe(6);

    // Compacted: one summary request (no tools), and the session log records it.
    const summaries = server.requests.filter((request) => request.kind !== "main");
    expect(
      summaries.map((request) => messageText(request.body!.messages.at(-1)!)).filter((text) => text.includes("Please summarize the following conversation")),
    ).toHaveLength(1);
    const sessions = path.join(home, ".factory", "sessions");
    const [folder] = await readdir(sessions);
    const logName = (await readdir(path.join(sessions, folder!))).find((name) => name.endsWith(".jsonl"))!;
    // The record agentsmd reads (compaction-read.ts), one.
    const records = (await readFile(path.join(sessions, folder!, logName), "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string });
    expect(records.filter((record) => record.type === "compaction_state")).toHaveLength(1);

    // The hooks Droid ran: none for the compaction.
    const events = (await readFile(log, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { hook_event_name: string; source?: string });
    expect(events.map((event) => (event.source ? `${event.hook_event_name}:${event.source}` : event.hook_event_name))).toEqual([
      "SessionStart:startup",
      "PostToolUse",
      "PostToolUse",
      "PostToolUse",
      "PostToolUse",
      "PostToolUse",
      "Stop",
      "SessionEnd",
    ]);

    const texts = server.mainRequests().map((request) => ((request.body as ChatRequestBody).messages ?? []).map(messageText).join("\n"));
    const tokens = ["AG-GLOBAL-0", "AG-ROOT-1", "AG-NESTED-2", "AG-NESTED-3"];
    const seen = texts.map((text) => counts(text, tokens));
    // Before the compaction: agentsmd's answer to the Create holds a/AGENTS.md; Droid attached c/AGENTS.md after the Read there.
    expect(seen[2]).toEqual({ "AG-GLOBAL-0": 1, "AG-ROOT-1": 1, "AG-NESTED-2": 1, "AG-NESTED-3": 1 });
    // Right after it: the summary replaced both (Droid's own startup files are in its system context again); no hook ran.
    expect(seen[3]).toEqual({ "AG-GLOBAL-0": 1, "AG-ROOT-1": 1, "AG-NESTED-2": 0, "AG-NESTED-3": 0 });
    // The next event (a Read at the root) finds the compaction_state record: agentsmd gives a/AGENTS.md back, once; not c/AGENTS.md (Droid's own).
    expect(seen[4]).toEqual({ "AG-GLOBAL-0": 1, "AG-ROOT-1": 1, "AG-NESTED-2": 1, "AG-NESTED-3": 0 });
    // A Create in c/: agentsmd gives c/AGENTS.md (Droid's record of attached files started over, and it attaches nothing after a Create).
    expect(seen[5]).toEqual({ "AG-GLOBAL-0": 1, "AG-ROOT-1": 1, "AG-NESTED-2": 1, "AG-NESTED-3": 1 });
  });
});
