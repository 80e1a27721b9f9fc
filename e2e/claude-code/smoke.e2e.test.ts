/**
 * Smoke test of the Claude Code e2e harness: the real, pinned `claude` CLI against the scripted
 * Anthropic server, with command hooks from `<repo>/.claude/settings.json`. It pins down where
 * hook `additionalContext` lands in the requests, what the hooks get on stdin, and how compaction
 * can be triggered non-interactively. See FINDINGS.md next to this file.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import path from "node:path";
import { startAnthropicServer, type AnthropicServer, type RecordedRequest } from "../lib/anthropic-server.js";
import { countText, describeLocation, locateText, toolResultMessageIndex } from "../lib/anthropic-request-text.js";
import {
  claudeCodeVersion,
  createClaudeFixture,
  describeRun,
  ensureClaudeCodeInstalled,
  hookSettings,
  pinnedClaudeCodeVersion,
  readHookLog,
  runClaude,
  writeRecordingHook,
  type ClaudeFixture,
} from "./harness.js";

const ROOT_CLAUDE = "ROOT-CLAUDE-7f3";
const NESTED_CLAUDE = "NESTED-CLAUDE-a91";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

beforeAll(async () => {
  await ensureClaudeCodeInstalled();
  expect(claudeCodeVersion()).toBe(`${pinnedClaudeCodeVersion()} (Claude Code)`);
}, 15 * 60_000);

interface Setup {
  fx: ClaudeFixture;
  server: AnthropicServer;
  hookLog: string;
}

async function setup(): Promise<Setup> {
  const fx = await createClaudeFixture({
    files: {
      "CLAUDE.md": `# Fixture root\n${ROOT_CLAUDE}\n`,
      "pkg/a/CLAUDE.md": `${NESTED_CLAUDE}\n`,
      "pkg/a/src/util.txt": "util = 1\n",
      "pkg/b/notes.txt": "notes\n",
    },
  });
  const hookLog = path.join(fx.base, "hook-log.jsonl");
  const command = writeRecordingHook(path.join(fx.base, "hooks", "record.mjs"), hookLog, {
    "SessionStart:startup": "SS-MARKER-startup",
    "SessionStart:resume": "SS-MARKER-resume",
    "SessionStart:compact": "SS-MARKER-compact",
    "PostToolUse:Read": "MARKER-123",
    "PostToolUse:Edit": "MARKER-EDIT",
    UserPromptSubmit: "UPS-MARKER-9",
  });
  fx.writeSettings(
    hookSettings(command, {
      SessionStart: undefined,
      UserPromptSubmit: undefined,
      PostToolUse: "Read|Edit|Write",
      PreCompact: undefined,
    }),
  );
  const server = await startAnthropicServer({ script: [] });
  cleanups.push(
    () => fx.cleanup(),
    () => server.close(),
  );
  return { fx, server, hookLog };
}

function only<T>(items: T[], what: string): T {
  expect(items, what).toHaveLength(1);
  return items[0]!;
}

function firstToolUseId(req: RecordedRequest): string {
  return req.reply!.content.find((b: any) => b.type === "tool_use").id;
}

describe(`Claude Code ${pinnedClaudeCodeVersion()} hooks reach the model`, () => {
  // The placement of hook context depends on the model (newer models get `system`-role messages).
  it.each([
    { label: "default model (claude-opus-5-5)", model: undefined, systemMessages: true },
    { label: "claude-sonnet-4-5", model: "claude-sonnet-4-5", systemMessages: false },
  ])("PostToolUse and SessionStart additionalContext, $label", async ({ model, systemMessages }) => {
    const { fx, server, hookLog } = await setup();
    const target = fx.path("pkg/a/src/util.txt");
    server.setScript([{ text: "Reading it.", toolUses: [{ name: "Read", input: { file_path: target } }] }, { text: "done" }]);

    const run = await runClaude({ fixture: fx, server, prompt: "Read pkg/a/src/util.txt", model });
    expect(run.exitCode, describeRun(run)).toBe(0);
    expect(run.result?.result, describeRun(run)).toBe("done");
    expect(server.unexpected).toEqual([]);
    const main = run.requests.filter((r) => r.kind === "main");
    expect(main, describeRun(run)).toHaveLength(2);
    const [first, second] = main as [RecordedRequest, RecordedRequest];
    if (model) expect(first.body.model).toBe(model);

    // --- hook stdin ---
    const events = readHookLog(hookLog);
    const start = only(
      events.filter((e) => e.input.hook_event_name === "SessionStart"),
      "one SessionStart",
    );
    expect(Object.keys(start.input).sort()).toEqual(["cwd", "hook_event_name", "session_id", "source", "transcript_path"]);
    expect(start.input).toMatchObject({ cwd: fx.repo, source: "startup", session_id: run.sessionId });
    expect(start.env.CLAUDE_PROJECT_DIR).toBe(fx.repo);
    expect(start.env.CLAUDE_ENV_FILE).toMatch(/session-env/);
    const post = only(
      events.filter((e) => e.input.hook_event_name === "PostToolUse"),
      "one PostToolUse",
    );
    expect(post.input).toMatchObject({
      session_id: run.sessionId,
      cwd: fx.repo,
      tool_name: "Read",
      tool_input: { file_path: target },
      tool_response: { type: "text", file: { filePath: target, content: "util = 1\n", startLine: 1 } },
      tool_use_id: firstToolUseId(first),
    });
    expect(typeof post.input.duration_ms).toBe("number");
    expect(post.input.permission_mode).toBe("default");
    expect(post.env.CLAUDE_PROJECT_DIR).toBe(fx.repo);

    // --- Claude Code's own CLAUDE.md loading: root at start, nested on Read, each once ---
    expect(countText(first.body, ROOT_CLAUDE)).toBe(1);
    expect(countText(first.body, NESTED_CLAUDE)).toBe(0);
    expect(countText(second.body, ROOT_CLAUDE)).toBe(1);
    expect(countText(second.body, NESTED_CLAUDE)).toBe(1);
    expect(locateText(first.body, `Contents of ${fx.path("CLAUDE.md")} (project instructions, checked into the codebase):`)).toHaveLength(1);
    expect(locateText(second.body, `Contents of ${fx.path("pkg/a/CLAUDE.md")}:\n\n${NESTED_CLAUDE}`)).toHaveLength(1);

    // --- PostToolUse additionalContext: only in the request after the Read, exactly once ---
    expect(countText(first.body, "MARKER-123")).toBe(0);
    const hit = only(locateText(second.body, "MARKER-123"), "MARKER-123 once");
    const resultIndex = toolResultMessageIndex(second.body, firstToolUseId(first));
    expect(resultIndex).toBeGreaterThan(0);
    if (systemMessages) {
      // A separate system-role message right after the user message that holds the tool_result.
      expect(describeLocation(hit)).toBe(`messages[${resultIndex + 1}](system).content[0]<text>@42`);
      // (the last message of a request also carries cache_control: {type: "ephemeral"})
      const systemMessage = second.body.messages[resultIndex + 1];
      expect(systemMessage.role).toBe("system");
      expect(systemMessage.content.map(({ type, text }: any) => ({ type, text }))).toEqual([
        { type: "text", text: "PostToolUse:Read hook additional context: MARKER-123" },
      ]);
      // Claude Code's own nested CLAUDE.md is a text block next to the tool_result.
      const nested = only(locateText(second.body, NESTED_CLAUDE), "nested CLAUDE.md once");
      expect([nested.message, nested.blockType]).toEqual([resultIndex, "text"]);
    } else {
      // Appended inside the tool_result's string content, before the nested CLAUDE.md reminder.
      expect(hit.message).toBe(resultIndex);
      expect(hit.blockType).toBe("tool_result");
      expect(hit.inner).toBeNull();
      const content: string = second.body.messages[resultIndex].content[hit.block!].content;
      expect(content).toContain("util = 1\n");
      expect(content).toContain(
        "\n\n<system-reminder>\nPostToolUse:Read hook additional context: MARKER-123\n</system-reminder>\n\n<system-reminder>\nContents of ",
      );
      const nested = only(locateText(second.body, NESTED_CLAUDE), "nested CLAUDE.md once");
      expect([nested.message, nested.blockType]).toEqual([resultIndex, "tool_result"]);
    }

    // --- SessionStart and UserPromptSubmit additionalContext: from the first request on ---
    for (const req of [first, second]) {
      const ss = only(locateText(req.body, "SS-MARKER-startup"), "SessionStart context once");
      const ups = only(locateText(req.body, "UPS-MARKER-9"), "UserPromptSubmit context once");
      if (systemMessages) {
        // Both inside the system-role message that follows the first user message (which holds the
        // CLAUDE.md block and the prompt): SessionStart text opens it, UserPromptSubmit near its end.
        expect([ss.message, ss.role, ss.offset]).toEqual([1, "system", "SessionStart hook additional context: ".length]);
        expect(ss.text.startsWith("SessionStart hook additional context: SS-MARKER-startup\n\n")).toBe(true);
        expect([ups.message, ups.role]).toEqual([1, "system"]);
        expect(ups.text).toContain("\n\nUserPromptSubmit hook additional context: UPS-MARKER-9\n\n");
      } else {
        // A <system-reminder> text block opening the first user message.
        expect([ss.message, ss.role, ss.block]).toEqual([0, "user", 0]);
        expect(ss.text).toBe("<system-reminder>\nSessionStart hook additional context: SS-MARKER-startup\n</system-reminder>");
        expect([ups.message, ups.role, ups.blockType]).toEqual([0, "user", "text"]);
        expect(ups.text).toBe("<system-reminder>\nUserPromptSubmit hook additional context: UPS-MARKER-9\n</system-reminder>");
      }
    }
  });

  it("auto-compaction in one -p run: SessionStart source=compact, its context lands after the summary", async () => {
    const { fx, server, hookLog } = await setup();
    const util = fx.path("pkg/a/src/util.txt");
    const notes = fx.path("pkg/b/notes.txt");
    server.setScript([
      // Report a nearly full context window: Claude Code compacts before its next request.
      { toolUses: [{ name: "Read", input: { file_path: util } }], usage: { input_tokens: 990_000 } },
      { toolUses: [{ name: "Read", input: { file_path: notes } }] },
      { text: "done" },
    ]);
    const run = await runClaude({ fixture: fx, server, prompt: "Read two files" });
    expect(run.exitCode, describeRun(run)).toBe(0);
    expect(run.result?.result).toBe("done");
    expect(server.unexpected).toEqual([]);
    expect(run.requests.map((r) => r.kind)).toEqual(["main", "compact", "main", "main"]);

    const compact = run.requests[1]!;
    // The compaction call is the main-loop request (same tools) plus a summary instruction appended
    // as a text block of the last user message.
    expect(compact.body.tools.some((t: any) => t.name === "Read")).toBe(true);
    expect(locateText(compact.body, "Your task is to create a detailed summary of the conversation so far")).toHaveLength(1);

    const events = readHookLog(hookLog).map((e) => e.input);
    const names = events.map((e) => `${e.hook_event_name}${e.source ? `:${e.source}` : e.trigger ? `:${e.trigger}` : ""}`);
    expect(names).toEqual(["SessionStart:startup", "UserPromptSubmit", "PostToolUse", "PreCompact:auto", "SessionStart:compact", "PostToolUse"]);
    const compactStart = events.find((e) => e.source === "compact");
    expect(Object.keys(compactStart).sort()).toEqual(["cwd", "hook_event_name", "model", "prompt_id", "session_id", "source", "transcript_path"]);
    expect(compactStart).toMatchObject({ session_id: run.sessionId, cwd: fx.repo, model: "claude-opus-5-5" });

    const after = run.requests[2]!;
    // The conversation is rebuilt: summary, re-attached recent reads, CLAUDE.md block, and the
    // SessionStart(compact) context in the system-role message.
    expect(countText(after.body, "SS-MARKER-startup")).toBe(0);
    const ss = only(locateText(after.body, "SS-MARKER-compact"), "compact context once");
    expect([ss.role, ss.blockType]).toEqual(["system", "text"]);
    expect(ss.text).toContain("\n\nSessionStart hook additional context: SS-MARKER-compact\n\n");
    expect(countText(after.body, ROOT_CLAUDE)).toBe(1);
    expect(countText(after.body, "This session is being continued from a previous conversation")).toBe(1);
    // 2.1.330 re-attaches recently read files after an auto-compaction, the nested CLAUDE.md among
    // them (as a "Called the Read tool" reminder, not as a nested-memory block).
    expect(locateText(after.body, `Called the Read tool with the following input: {"file_path":"${fx.path("pkg/a/CLAUDE.md")}"}`)).toHaveLength(1);
    expect(countText(after.body, NESTED_CLAUDE)).toBe(1);
    expect(countText(after.body, "MARKER-123")).toBe(0);
  });

  it("manual compaction: `--resume <id> -p /compact`, then a resumed turn", async () => {
    const { fx, server, hookLog } = await setup();
    server.setScript([{ toolUses: [{ name: "Read", input: { file_path: fx.path("pkg/a/src/util.txt") } }] }, { text: "done" }]);
    const first = await runClaude({ fixture: fx, server, prompt: "Read pkg/a/src/util.txt" });
    expect(first.exitCode, describeRun(first)).toBe(0);
    const sessionId = first.sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);

    server.setScript([]);
    const compact = await runClaude({ fixture: fx, server, prompt: "/compact", resume: sessionId });
    expect(compact.exitCode, describeRun(compact)).toBe(0);
    expect(compact.requests.map((r) => r.kind)).toEqual(["compact"]);
    expect(compact.sessionId).toBe(sessionId);

    server.setScript([{ text: "after compact" }]);
    const resumed = await runClaude({ fixture: fx, server, prompt: "continue", resume: sessionId });
    expect(resumed.exitCode, describeRun(resumed)).toBe(0);
    expect(resumed.result?.result).toBe("after compact");
    expect(server.unexpected).toEqual([]);

    const events = readHookLog(hookLog).map((e) => e.input);
    const starts = events.filter((e) => e.hook_event_name === "SessionStart").map((e) => e.source);
    expect(starts).toEqual(["startup", "resume", "compact", "resume"]);
    expect(events.find((e) => e.hook_event_name === "PreCompact")).toMatchObject({ trigger: "manual", custom_instructions: null });
    const resume = events.find((e) => e.source === "resume");
    expect(resume).toMatchObject({ session_id: sessionId });
    expect(typeof resume.context_tokens).toBe("number");

    const req = only(resumed.requests, "one request after resume");
    // After /compact the nested CLAUDE.md is gone; the root CLAUDE.md is back; both the
    // compact-time and the resume-time SessionStart contexts are delivered.
    expect(countText(req.body, NESTED_CLAUDE)).toBe(0);
    expect(countText(req.body, ROOT_CLAUDE)).toBe(1);
    expect(countText(req.body, "SS-MARKER-compact")).toBe(1);
    expect(countText(req.body, "SS-MARKER-resume")).toBe(1);
    expect(countText(req.body, "SS-MARKER-startup")).toBe(0);
    expect(countText(req.body, "<command-name>/compact</command-name>")).toBe(1);
  });

  it("resume: same session id, earlier hook context replayed, resume context added", async () => {
    const { fx, server, hookLog } = await setup();
    server.setScript([{ toolUses: [{ name: "Read", input: { file_path: fx.path("pkg/a/src/util.txt") } }] }, { text: "done" }]);
    const first = await runClaude({ fixture: fx, server, prompt: "Read pkg/a/src/util.txt" });
    expect(first.exitCode, describeRun(first)).toBe(0);
    server.setScript([{ text: "again" }]);
    const resumed = await runClaude({ fixture: fx, server, prompt: "again", resume: first.sessionId });
    expect(resumed.exitCode, describeRun(resumed)).toBe(0);
    expect(resumed.sessionId).toBe(first.sessionId);
    const req = only(resumed.requests, "one request");
    // The startup context and the PostToolUse context of the first run are still in the history.
    expect(countText(req.body, "SS-MARKER-startup")).toBe(1);
    expect(countText(req.body, "MARKER-123")).toBe(1);
    expect(countText(req.body, NESTED_CLAUDE)).toBe(1);
    const ss = only(locateText(req.body, "SS-MARKER-resume"), "resume context once");
    expect(ss.role).toBe("system");
    expect(ss.message).toBe(req.body.messages.length - 1);
    const starts = readHookLog(hookLog).filter((e) => e.input.hook_event_name === "SessionStart");
    expect(starts.map((e) => e.input.source)).toEqual(["startup", "resume"]);
    expect(new Set(starts.map((e) => e.input.session_id))).toEqual(new Set([first.sessionId]));
  });
});
