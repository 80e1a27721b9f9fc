/**
 * Smoke test of the OpenCode e2e harness, and a lock on the OpenCode 1.18.33 behaviour the
 * agentsmd plugin relies on (see FINDINGS.md). No agentsmd code is involved: only the recorder
 * plugin in fixtures/recorder-plugin.js, which appends "\nMARKER-123" in tool.execute.after.
 *
 * Run: npm ci --prefix e2e/opencode && npx vitest run --config vitest.e2e.config.ts e2e/opencode
 */
import { describe, expect, test } from "vitest";
import { systemTexts, toolResults, type RecordedRequest } from "../lib/openai-chat-server.js";
import { familyFixtures } from "../lib/opencode-family.js";
import { OPENCODE_HOST, recorderPluginSource, type PluginCall } from "./harness.js";

const newFixture = familyFixtures(OPENCODE_HOST);

function body(request: RecordedRequest | undefined) {
  if (!request?.body) throw new Error("missing request");
  return request.body;
}

function afterCalls(calls: PluginCall[], tool?: string): PluginCall[] {
  return calls.filter((c) => c.hook === "tool.execute.after" && (tool === undefined || c.input.tool === tool));
}

describe("OpenCode 1.18.33 under the harness", () => {
  test("attaches a nested AGENTS.md on read, and text a plugin appends in tool.execute.after reaches the model", async () => {
    const fixture = await newFixture({
      files: {
        "AGENTS.md": "# Root rules\nROOT-RULES-A\n",
        "packages/api/AGENTS.md": "API-RULES-B\n",
        "packages/api/src/handler.ts": "export const handler = 1;\n",
        "packages/web/AGENTS.md": "WEB-RULES-C\n",
      },
      plugins: { "recorder.js": await recorderPluginSource() },
    });
    const fx = fixture;
    const handler = fx.path("packages/api/src/handler.ts");
    const created = fx.path("packages/web/src/new.ts");
    const run = await fx.run({
      prompt: "read the handler",
      script: [
        { toolCalls: [{ tool: "read", args: { filePath: handler } }] },
        { toolCalls: [{ tool: "write", args: { filePath: created, content: "export const web = 2;\n" } }] },
        async () => {
          // OpenCode re-reads the system-prompt files on every step: an edit shows up next step
          await fx.write("AGENTS.md", "# Root rules\nROOT-RULES-A2\n");
          return { toolCalls: [{ tool: "edit", args: { filePath: handler, oldString: "= 1", newString: "= 3" } }] };
        },
        { text: "done" },
      ],
    });

    expect(run.timedOut).toBe(false);
    expect(run.exitCode, run.stderr.slice(-4000)).toBe(0);
    expect(run.serverErrors).toEqual([]);
    expect(run.turnsLeft).toBe(0);
    expect(run.mainRequests).toHaveLength(4);
    expect(run.requests.some((r) => r.kind === "title")).toBe(true);

    // System prompt: one system message; the cwd -> worktree chain is framed
    // "Instructions from: <abs>\n<content>" after the <env> block; nested files are not in it.
    const [step1, step2, step3, step4] = run.mainRequests.map(body);
    const system1 = systemTexts(step1!);
    expect(system1).toHaveLength(1);
    const rootBlock = `Instructions from: ${fx.path("AGENTS.md")}\n# Root rules\nROOT-RULES-A\n`;
    expect(system1[0]).toContain(rootBlock);
    expect(system1[0]!.indexOf("</env>")).toBeLessThan(system1[0]!.indexOf(rootBlock));
    expect(system1[0]).not.toContain("API-RULES-B");
    expect(system1[0]).not.toContain("WEB-RULES-C");
    expect(systemTexts(step2!)).toEqual(system1);

    // The read result: OpenCode's own <system-reminder>, then the plugin's marker.
    const read = toolResults(step2!).at(-1)!;
    expect(read.tool).toBe("read");
    expect(read.content).toBe(
      `<path>${handler}</path>\n<type>file</type>\n<content>\n1: export const handler = 1;\n\n(End of file - total 1 lines)\n</content>\n\n` +
        `<system-reminder>\nInstructions from: ${fx.path("packages/api/AGENTS.md")}\nAPI-RULES-B\n\n</system-reminder>\nMARKER-123`,
    );

    // write and edit attach nothing natively, even under a directory with an AGENTS.md.
    const write = toolResults(step3!).at(-1)!;
    expect(write).toMatchObject({ tool: "write", content: "Wrote file successfully.\nMARKER-123" });
    const edit = toolResults(step4!).at(-1)!;
    expect(edit).toMatchObject({ tool: "edit", content: "Edit applied successfully.\nMARKER-123" });
    expect(JSON.stringify(step4!.messages)).not.toContain("WEB-RULES-C");

    // The AGENTS.md edit made before step 4 is in step 4's system prompt (re-read every step).
    expect(systemTexts(step3!)[0]).toContain("ROOT-RULES-A\n");
    expect(systemTexts(step4!)[0]).toContain(`Instructions from: ${fx.path("AGENTS.md")}\n# Root rules\nROOT-RULES-A2\n`);

    // Hook shapes seen by the plugin.
    const [readAfter] = afterCalls(run.pluginCalls, "read");
    expect(readAfter!.input).toEqual({ tool: "read", sessionID: expect.stringMatching(/^ses_/), callID: read.callId, args: { filePath: handler } });
    expect(readAfter!.output.title).toBe("packages/api/src/handler.ts");
    expect(readAfter!.output.metadata.loaded).toEqual([fx.path("packages/api/AGENTS.md")]);
    // the hook runs after the native attachment was appended, before the marker
    expect(readAfter!.output.output).toContain("</system-reminder>");
    expect(readAfter!.output.output).not.toContain("MARKER-123");

    const [writeAfter] = afterCalls(run.pluginCalls, "write");
    expect(writeAfter!.input.args).toEqual({ filePath: created, content: "export const web = 2;\n" });
    expect(writeAfter!.output).toMatchObject({ title: "packages/web/src/new.ts", metadata: { filepath: created, exists: false } });
    const [editAfter] = afterCalls(run.pluginCalls, "edit");
    expect(editAfter!.input.args).toEqual({ filePath: handler, oldString: "= 1", newString: "= 3" });
    expect(editAfter!.output.metadata.filediff.file).toBe(handler);

    const transforms = run.pluginCalls.filter((c) => c.hook === "experimental.chat.system.transform");
    expect(transforms.length).toBeGreaterThanOrEqual(5); // title + 4 steps
    for (const t of transforms) expect(t.output.system).toHaveLength(1);

    const init = run.pluginCalls.find((c) => c.hook === "init")!;
    expect(init.input).toMatchObject({ directory: fx.repo, worktree: fx.repo });
  });

  test("compaction: experimental.session.compacting context reaches the summary request, session.compacted fires, the next read re-attaches", async () => {
    const fixture = await newFixture({
      files: {
        "AGENTS.md": "ROOT-RULES-A\n",
        "lib/AGENTS.md": "LIB-RULES-D\n",
        "lib/one.ts": "export const one = 1;\n",
        "lib/two.ts": "export const two = 2;\n",
      },
      plugins: { "recorder.js": await recorderPluginSource() },
      contextLimit: 50_000,
    });
    const fx = fixture;
    const run = await fx.run({
      prompt: "work on lib",
      script: [
        // reported usage close to the context limit makes OpenCode compact after this step
        { toolCalls: [{ tool: "read", args: { filePath: fx.path("lib/one.ts") } }], usage: { prompt_tokens: 49_000, completion_tokens: 10 } },
        { toolCalls: [{ tool: "read", args: { filePath: fx.path("lib/two.ts") } }] },
        { text: "done" },
      ],
    });

    expect(run.exitCode, run.stderr.slice(-4000)).toBe(0);
    expect(run.turnsLeft).toBe(0);
    const kinds = run.requests.filter((r) => r.kind !== "title").map((r) => r.kind);
    expect(kinds).toEqual(["main", "compaction", "main", "main"]);

    const compaction = body(run.requests.find((r) => r.kind === "compaction"));
    expect(compaction.tools ?? []).toEqual([]);
    // the summariser gets the transcript as text, earlier attachments included
    expect(JSON.stringify(compaction.messages)).toContain("LIB-RULES-D");
    const lastUser = compaction.messages.filter((m) => m.role === "user").at(-1);
    expect(typeof lastUser?.content === "string" && lastUser.content.endsWith("\n\nCOMPACTION-CONTEXT-789")).toBe(true);

    const hooks = run.pluginCalls.map((c) => (c.hook === "event" ? `event:${c.input.type}` : c.hook));
    const compacting = hooks.indexOf("experimental.session.compacting");
    const compacted = hooks.indexOf("event:session.compacted");
    expect(compacting).toBeGreaterThan(-1);
    expect(compacted).toBeGreaterThan(compacting);
    const compactingCall = run.pluginCalls[compacting]!;
    expect(compactingCall.input).toEqual({ sessionID: expect.stringMatching(/^ses_/) });
    expect(compactingCall.output).toEqual({ context: [] });
    expect(run.pluginCalls[compacted]!.input.properties).toEqual({ sessionID: compactingCall.input.sessionID });

    // After compaction the history is: summary question, summary, "Continue ..." — and the next
    // read in lib/ gets LIB-RULES-D attached again (the earlier `loaded` is gone with the history).
    const afterCompaction = body(run.mainRequests[1]);
    expect(afterCompaction.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    const reread = toolResults(body(run.mainRequests[2])).at(-1)!;
    expect(reread.content).toContain(`<system-reminder>\nInstructions from: ${fx.path("lib/AGENTS.md")}\nLIB-RULES-D\n\n</system-reminder>\nMARKER-123`);
  });
});
