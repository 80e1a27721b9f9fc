/**
 * The state file's check (integrations/host/store.ts): a file this agentsmd wrote is read without
 * zod; every other file (edited, truncated, another host's, written under another schema id, or
 * by hand) is validated by the schema with the same errors as before. What makes skipping the
 * schema sound is tested too: every state the hosts write is valid under the full schema, and the
 * schema id changes with the schema.
 */
import { describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import * as z from "zod/mini";
import type { $ZodType } from "zod/v4/core";
import { createTree, type Tree } from "../helpers/tree.js";
import { checksum } from "../../src/core/checksum.js";
import {
  checkedText,
  conversationFormat,
  conversationPath,
  loadConversation,
  STATE_SCHEMA_ID,
  type ConversationFormat,
  type ConversationState,
} from "../../src/integrations/host/store.js";
import { handleHostEvent } from "../../src/integrations/host/deliver.js";
import { claudeCodeProfile } from "../../src/integrations/claude-code/profile.js";
import { codexProfile } from "../../src/integrations/codex/profile.js";
import { copilotProfile } from "../../src/integrations/copilot/profile.js";
import { geminiProfile } from "../../src/integrations/gemini/profile.js";
import { qwenProfile } from "../../src/integrations/qwen/profile.js";
import { clineProfile } from "../../src/integrations/cline/profile.js";
import { droidProfile } from "../../src/integrations/droid/profile.js";
import { auggieProfile } from "../../src/integrations/auggie/profile.js";
import { crushProfile } from "../../src/integrations/crush/profile.js";
import { HOOK_HOSTS } from "../../src/integrations/hosts.js";

const PROFILES: Record<string, { state: { schema(): $ZodType } }> = {
  "claude-code": claudeCodeProfile(),
  codex: codexProfile(),
  copilot: copilotProfile(),
  gemini: geminiProfile(),
  qwen: qwenProfile(),
  cline: clineProfile(),
  droid: droidProfile(),
  auggie: auggieProfile(),
  crush: crushProfile(),
};

/** The id STATE_SCHEMA_ID must hold: the JSON Schemas of every host's state file, plus the empty host fields of the in-process hosts. */
function schemaId(): string {
  const hosts = Object.entries(PROFILES).map(([host, profile]) => [host, profile.state.schema] as const);
  const documents = [...hosts, ["in-process", () => z.strictObject({}) as $ZodType] as const].map(([host, fields]) =>
    z.toJSONSchema(conversationFormat(host, fields).schema(), { unrepresentable: "any" }),
  );
  return checksum(JSON.stringify(documents)).slice(0, 8);
}

/** A format whose schema must not be built: the checked file is read without it. */
function untouchable<H>(format: ConversationFormat<H>): ConversationFormat<H> {
  return {
    kind: format.kind,
    schema: () => {
      throw new Error("the schema was built for a checked file");
    },
  };
}

async function stored(tree: Tree): Promise<{ path: string; state: ConversationState<unknown>; format: ConversationFormat<unknown> }> {
  const profile = claudeCodeProfile({ agentsMd: "inject" });
  const stateDir = tree.path("state");
  const event = { session_id: "s1", hook_event_name: "SessionStart", cwd: tree.path("r"), source: "startup" };
  await handleHostEvent(profile, event, { env: {}, home: tree.home, stateDir });
  await handleHostEvent(
    profile,
    { ...event, hook_event_name: "PostToolUse", tool_name: "Read", tool_input: { file_path: tree.path("r/a/f.ts") } },
    { env: {}, home: tree.home, stateDir },
  );
  const path = conversationPath(stateDir, { id: "s1" });
  const format = conversationFormat("claude-code", profile.state.schema) as ConversationFormat<unknown>;
  const state = (await loadConversation(path, format, () => undefined))!;
  return { path, state, format };
}

const TREE = { "r/.git/": null, "r/AGENTS.md": "root\n", "r/a/AGENTS.md": "A\n", "r/a/f.ts": "x\n" };

describe("state file check", () => {
  it("STATE_SCHEMA_ID is the schema's: a state schema change needs a new id", () => {
    expect(Object.keys(PROFILES).sort()).toEqual(Object.keys(HOOK_HOSTS).sort());
    expect(STATE_SCHEMA_ID, `the state schema changed: set STATE_SCHEMA_ID in src/integrations/host/state-file.ts to "${schemaId()}"`).toBe(schemaId());
  });

  it("a file this agentsmd wrote is read without building the schema, and equals what the schema gives", async () => {
    const tree = await createTree(TREE);
    const { path, state, format } = await stored(tree);
    const text = await readFile(path, "utf8");
    expect(text.endsWith(`,"check":"${STATE_SCHEMA_ID}.${checksum(text.slice(0, text.lastIndexOf(',"check":"')) + "}")}"}\n`)).toBe(true);
    const fast = await loadConversation(path, untouchable(format), () => undefined);
    const { check, ...data } = JSON.parse(text) as Record<string, unknown>;
    expect(check).toMatch(/^[0-9a-f]{8}\.[0-9a-f]{16}$/);
    expect(fast).toEqual(z.parse(format.schema(), data));
    expect(fast).toEqual(state);
    expect(state.session.loaded.map((entry) => entry.path)).toContain(tree.path("r/a/AGENTS.md"));
  });

  it("an edited file is validated by the schema: a valid edit is read, an invalid one is the same clear diagnostic as before", async () => {
    const tree = await createTree(TREE);
    const { path, format } = await stored(tree);
    const data = JSON.parse(await readFile(path, "utf8")) as { session: { lazyLoadedFiles: number } };
    data.session.lazyLoadedFiles = 7;
    await writeFile(path, JSON.stringify(data));
    await expect(loadConversation(path, untouchable(format), () => undefined)).rejects.toThrow("the schema was built");
    expect((await loadConversation(path, format, () => undefined))?.session.lazyLoadedFiles).toBe(7);

    data.session.lazyLoadedFiles = -1;
    await writeFile(path, JSON.stringify(data));
    const problems: string[] = [];
    expect(await loadConversation(path, format, (message) => problems.push(message))).toBeNull();
    expect(problems).toEqual([`state file ${path} is not valid (session.lazyLoadedFiles: Too small: expected number to be >=0); starting a new session state`]);
  });

  it("a truncated file, a check under another schema id and another host's checked file are not trusted", async () => {
    const tree = await createTree(TREE);
    const { path, state, format } = await stored(tree);
    const text = await readFile(path, "utf8");
    const problems: string[] = [];
    await writeFile(path, text.slice(0, -10));
    expect(await loadConversation(path, format, (message) => problems.push(message))).toBeNull();
    expect(problems.pop()).toMatch(/^state file .* is not valid \(.*JSON.*\); starting a new session state$/);

    // Same content, checked under another id (an agentsmd with another state schema wrote it).
    const body = JSON.stringify(state);
    await writeFile(path, `${body.slice(0, -1)},"check":"00000000.${checksum(body)}"}\n`);
    await expect(loadConversation(path, untouchable(format), () => undefined)).rejects.toThrow("the schema was built");
    expect(await loadConversation(path, format, () => undefined)).toEqual(state);

    // A valid, checked Codex file where a Claude Code file is expected.
    await writeFile(path, checkedText({ ...state, kind: "agentsmd/codex" }));
    expect(await loadConversation(path, format, (message) => problems.push(message))).toBeNull();
    expect(problems.pop()).toContain('kind: Invalid input: expected "agentsmd/claude-code"');
  });

  it("every host writes states that are valid under its full schema (what lets a checked file skip it)", async () => {
    const tree = await createTree(TREE);
    const stateDir = tree.path("state");
    const cwd = tree.path("r");
    const file = tree.path("r/a/f.ts");
    const events: Record<string, object[]> = {
      "claude-code": [
        { session_id: "c", hook_event_name: "SessionStart", cwd, source: "startup" },
        { session_id: "c", hook_event_name: "PostToolUse", cwd, tool_name: "Read", tool_input: { file_path: file } },
      ],
      codex: [
        { session_id: "c", cwd, hook_event_name: "SessionStart", source: "startup" },
        { session_id: "c", cwd, hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: `cat ${file}` }, tool_response: "" },
      ],
      copilot: [
        { sessionId: "c", timestamp: 1, cwd, source: "new", initialPrompt: "go" },
        { sessionId: "c", timestamp: 2, cwd, toolName: "view", toolArgs: { path: file }, toolResult: { resultType: "success", textResultForLlm: "" } },
      ],
      gemini: [
        { session_id: "c", hook_event_name: "SessionStart", cwd, transcript_path: "", source: "startup" },
        { session_id: "c", hook_event_name: "AfterTool", cwd, transcript_path: "", tool_name: "read_file", tool_input: { file_path: file }, tool_response: {} },
      ],
      qwen: [
        { session_id: "c", hook_event_name: "SessionStart", cwd, transcript_path: "", source: "startup", model: "m" },
        {
          session_id: "c",
          hook_event_name: "PostToolUse",
          cwd,
          transcript_path: "",
          tool_name: "read_file",
          tool_input: { file_path: file },
          tool_response: {},
        },
      ],
      cline: [{ hookName: "tool_result", taskId: "c", workspaceRoots: [cwd], tool_result: { name: "read_files", input: { files: [{ path: file }] } } }],
      auggie: [
        {
          hook_event_name: "PostToolUse",
          conversation_id: "c",
          workspace_roots: [cwd],
          tool_name: "view",
          tool_input: { path: file },
          tool_output: "",
          tool_error: null,
          is_mcp_tool: false,
        },
      ],
      crush: [{ event: "PreToolUse", session_id: "c", cwd, tool_name: "view", tool_input: { file_path: file } }],
      droid: [
        { session_id: "c", hook_event_name: "SessionStart", cwd, transcript_path: "", source: "startup" },
        { session_id: "c", hook_event_name: "PostToolUse", cwd, transcript_path: "", tool_name: "Read", tool_input: { file_path: file }, tool_response: {} },
      ],
    };
    for (const [host, profile] of Object.entries(PROFILES)) {
      const dir = `${stateDir}/${host}`;
      for (const event of events[host]!) await handleHostEvent(profile as never, event, { env: {}, home: tree.home, stateDir: dir });
      const text = await readFile(conversationPath(dir, { id: "c" }), "utf8");
      const { check, ...data } = JSON.parse(text) as Record<string, unknown>;
      expect(check, host).toBeDefined();
      const result = z.safeParse(conversationFormat(host, profile.state.schema).schema(), data);
      expect(result.success ? "" : result.error.message, host).toBe("");
      expect((data as { session: { loaded: unknown[] } }).session.loaded.length, host).toBeGreaterThan(0);
    }
  });

  it("the checksum tells one changed character apart", () => {
    const text = JSON.stringify({ path: "/r/a/AGENTS.md", mtimeMs: 1795655726095.182 });
    expect(checksum(text)).toMatch(/^[0-9a-f]{16}$/);
    expect(checksum(text)).toBe(checksum(`${text}`));
    for (let i = 0; i < text.length; i++) {
      const changed = text.slice(0, i) + String.fromCharCode(text.charCodeAt(i) ^ 1) + text.slice(i + 1);
      expect(checksum(changed)).not.toBe(checksum(text));
    }
    expect(checksum(text.slice(0, -1))).not.toBe(checksum(text));
  });
});
