/**
 * A Claude Code conversation whose last read left a quiet certificate (the quiet stage's and its
 * gate's tests), a Gemini CLI one, and the full hook path to compare with.
 */
import { runHookArgv } from "../../src/hook/run.js";
import { agentsmdVersion } from "../../src/integrations/host/quiet-format.js";
import { conversationPath, hostStateDir } from "../../src/integrations/host/state-file.js";
import { RACY_MS } from "../../src/io/unchanged.js";
import { expect } from "vitest";
import { createTree, type Tree } from "./tree.js";

export const HOST = "claude-code";
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function fullCall(event: object, env: Record<string, string>, host = HOST): Promise<string> {
  let stdout = "";
  await runHookArgv(["hook", host], {
    stdout: (text) => (stdout += text),
    stderr: () => undefined,
    readStdin: async () => JSON.stringify(event),
    env,
    cwd: "/",
  });
  return stdout;
}

/** A project whose directories are older than RACY_MS, a conversation whose last read left a certificate. */
export async function certified(
  extraEnv: Record<string, string> = {},
): Promise<{ tree: Tree; env: Record<string, string>; state: string; read: object; version: string }> {
  const tree = await createTree({
    "r/.git/": null,
    "r/AGENTS.md": "root rules\n",
    "r/top.ts": "",
    "r/pkg/AGENTS.md": "pkg rules\n",
    "r/pkg/a.ts": "",
    "r/pkg/b.ts": "",
  });
  await sleep(RACY_MS + 200);
  const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state"), AGENTSMD_CLAUDE_AGENTS_MD: "inject", ...extraEnv };
  const base = { session_id: "s1", cwd: tree.path("r"), transcript_path: tree.path("t.jsonl") };
  expect(await fullCall({ ...base, hook_event_name: "SessionStart", source: "startup" }, env)).toContain("root rules");
  expect(await fullCall({ ...base, hook_event_name: "PostToolUse", tool_name: "Read", tool_input: { file_path: tree.path("r/pkg/a.ts") } }, env)).toContain(
    "pkg rules",
  );
  const read = { ...base, hook_event_name: "PostToolUse", tool_name: "Edit", tool_input: { file_path: tree.path("r/pkg/b.ts") } };
  const state = conversationPath(hostStateDir(HOST, env, tree.home), { id: "s1" });
  return { tree, env, state, read, version: await agentsmdVersion() };
}

/**
 * A Gemini CLI conversation started (its first BeforeAgent delivers the start: SessionStart
 * startup delivers nothing) in a project whose directories are older than RACY_MS, with a
 * transcript for PreCompress to mark. `tool(name, path)`: an AfterTool event.
 */
export async function geminiStarted(): Promise<{
  tree: Tree;
  env: Record<string, string>;
  state: string;
  base: object;
  tool: (tool: string, path: string) => object;
  version: string;
}> {
  const tree = await createTree({
    "r/.git/": null,
    "r/AGENTS.md": "root rules\n",
    "r/top.ts": "",
    "r/pkg/AGENTS.md": "pkg rules\n",
    "r/pkg/a.ts": "",
    "r/pkg/b.ts": "",
    "t.jsonl": '{"sessionId":"g1"}\n',
  });
  await sleep(RACY_MS + 200);
  const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
  const base = { session_id: "g1", cwd: tree.path("r"), transcript_path: tree.path("t.jsonl"), timestamp: "2026-01-01T00:00:00.000Z" };
  expect(await fullCall({ ...base, hook_event_name: "SessionStart", source: "startup" }, env, "gemini")).toBe("");
  expect(await fullCall({ ...base, hook_event_name: "BeforeAgent", prompt: "go" }, env, "gemini")).toContain("root rules");
  const tool = (name: string, path: string) => ({ ...base, hook_event_name: "AfterTool", tool_name: name, tool_input: { file_path: path }, tool_response: {} });
  const state = conversationPath(hostStateDir("gemini", env, tree.home), { id: "g1" });
  return { tree, env, state, base, tool, version: await agentsmdVersion() };
}
