/**
 * Every host agentsmd delivers to, driven the way the host drives it, for the security rows (docs/security.md) that
 * must hold on each of them: the hook hosts through their `agentsmd hook <host>` runners
 * (HOOK_HOSTS: the runner is what ends in the shared `handleHostEvent`, Codex's shell parsing
 * included), pi through its extension handlers and Kilo through its plugin hooks (OpenCode, the family's other member, too). A host added to
 * HOOK_HOSTS without an entry here fails `hosts.test.ts`.
 */
import { quote as shellQuote } from "shell-quote";
import { HOOK_HOSTS } from "../../src/integrations/hosts.js";
import { PiAgents } from "../../src/integrations/pi/index.js";
import { KiloAgents } from "../../src/integrations/kilo/index.js";
import { OpenCodeAgents } from "../../src/integrations/opencode/index.js";

type Env = Record<string, string | undefined>;

/** One conversation with a host: what it answers, as the model would see it ("" for nothing). */
interface Conversation {
  start(): Promise<string>;
  /** The model read `path` (a file tool where the host has one that delivers; Codex: `cat`). */
  read(path: string): Promise<string>;
  /** A turn starts (the update notice, or edited files given again). */
  prompt(): Promise<string>;
  /** The conversation was compacted ("" where the host has no such event for agentsmd). */
  compact(): Promise<string>;
  /** The model ran a shell command (hosts whose shell tool agentsmd reads: Codex, pi, Kilo). */
  shell?(command: string): Promise<string>;
  /** Where this host keeps its state files. */
  stateDir: string;
}

interface HostSetup {
  cwd: string;
  home: string;
  env: Env;
  /** The conversation id. */
  id: string;
  /** Character budget of one answer (hook hosts; the plugins have none). */
  budget?: number;
  /** Leave the state directory to the host's default (env, home). */
  defaultStateDir?: boolean;
}

export interface HostCase {
  name: string;
  /** The most characters one answer may have (the host's limit; the plugins: agentsmd's byte budget plus framing). */
  limit: number;
  open(setup: HostSetup, stateRoot: string): Conversation;
}

type Events = {
  start(cwd: string, id: string): unknown;
  read(cwd: string, id: string, path: string): unknown;
  prompt(cwd: string, id: string): unknown;
  compact?(cwd: string, id: string): unknown;
  shell?(cwd: string, id: string, command: string): unknown;
  flags?: (event: string) => Record<string, string>;
  text(output: unknown): string;
};

const additional = (output: unknown) => (output as { hookSpecificOutput?: { additionalContext?: string } } | null)?.hookSpecificOutput?.additionalContext ?? "";

/** The events of each hook host, shaped as the pinned versions send them (see their input.ts). */
export const HOOK_EVENTS: Readonly<Record<string, Events>> = {
  "claude-code": {
    start: (cwd, id) => ({ session_id: id, transcript_path: `${cwd}/t.jsonl`, cwd, hook_event_name: "SessionStart", source: "startup" }),
    read: (cwd, id, path) => ({
      session_id: id,
      transcript_path: `${cwd}/t.jsonl`,
      cwd,
      hook_event_name: "PostToolUse",
      tool_name: "Read",
      tool_input: { file_path: path },
      tool_response: {},
      tool_use_id: "t",
    }),
    prompt: (cwd, id) => ({ session_id: id, transcript_path: `${cwd}/t.jsonl`, cwd, hook_event_name: "UserPromptSubmit", prompt: "go" }),
    compact: (cwd, id) => ({ session_id: id, transcript_path: `${cwd}/t.jsonl`, cwd, hook_event_name: "SessionStart", source: "compact" }),
    // inject: the hook gives AGENTS.md itself whatever Claude Code would load.
    flags: () => ({ agentsMd: "inject" }),
    text: additional,
  },
  codex: {
    start: (cwd, id) => ({ session_id: id, transcript_path: null, cwd, hook_event_name: "SessionStart", model: "m", source: "startup" }),
    read: (cwd, id, path) => ({
      session_id: id,
      transcript_path: null,
      cwd,
      hook_event_name: "PostToolUse",
      model: "m",
      tool_name: "Bash",
      tool_input: { command: `cat ${shellQuote([path])}` },
      tool_response: "x\n",
      tool_use_id: "t",
    }),
    shell: (cwd, id, command) => ({
      session_id: id,
      transcript_path: null,
      cwd,
      hook_event_name: "PostToolUse",
      model: "m",
      tool_name: "Bash",
      tool_input: { command },
      tool_response: "x\n",
      tool_use_id: "t",
    }),
    prompt: (cwd, id) => ({ session_id: id, transcript_path: null, cwd, hook_event_name: "UserPromptSubmit", model: "m", prompt: "go" }),
    compact: (cwd, id) => ({ session_id: id, transcript_path: null, cwd, hook_event_name: "SessionStart", model: "m", source: "compact" }),
    text: additional,
  },
  copilot: {
    start: (cwd, id) => ({ sessionId: id, timestamp: 1, cwd, source: "new", initialPrompt: "go" }),
    // `edit`: after a `view` Copilot attaches the nested files itself.
    read: (cwd, id, path) => ({ sessionId: id, timestamp: 2, cwd, toolName: "edit", toolArgs: { path }, toolResult: { resultType: "success" } }),
    prompt: (cwd, id) => ({ sessionId: id, timestamp: 3, cwd, prompt: "go" }),
    flags: (event) => ({ event: { start: "sessionStart", read: "postToolUse", prompt: "userPromptSubmitted" }[event] ?? event }),
    text: (output) => (output as { additionalContext?: string } | null)?.additionalContext ?? "",
  },
  gemini: {
    // A new Gemini session starts at its first BeforeAgent (SessionStart startup delivers nothing).
    start: (cwd, id) => ({ session_id: id, transcript_path: `${cwd}/.t.jsonl`, cwd, hook_event_name: "BeforeAgent", prompt: "go" }),
    read: (cwd, id, path) => ({
      session_id: id,
      transcript_path: `${cwd}/.t.jsonl`,
      cwd,
      hook_event_name: "AfterTool",
      tool_name: "read_file",
      tool_input: { file_path: path },
      tool_response: {},
    }),
    prompt: (cwd, id) => ({ session_id: id, transcript_path: `${cwd}/.t.jsonl`, cwd, hook_event_name: "BeforeAgent", prompt: "go" }),
    text: additional,
  },
  qwen: {
    start: (cwd, id) => ({ session_id: id, transcript_path: `${cwd}/.t.jsonl`, cwd, hook_event_name: "SessionStart", source: "startup" }),
    read: (cwd, id, path) => ({
      session_id: id,
      transcript_path: `${cwd}/.t.jsonl`,
      cwd,
      hook_event_name: "PostToolUse",
      tool_name: "read_file",
      tool_input: { file_path: path },
      tool_response: {},
    }),
    prompt: (cwd, id) => ({ session_id: id, transcript_path: `${cwd}/.t.jsonl`, cwd, hook_event_name: "UserPromptSubmit", prompt: "go" }),
    compact: (cwd, id) => ({ session_id: id, transcript_path: `${cwd}/.t.jsonl`, cwd, hook_event_name: "SessionStart", source: "compact" }),
    text: additional,
  },
  // Cline: no start or compaction answer reaches the model; the chain comes with the first tool event.
  cline: {
    start: (cwd, id) => ({ hookName: "agent_start", taskId: id, workspaceRoots: [cwd], agent_id: "a", parent_agent_id: null }),
    read: (cwd, id, path) => ({
      hookName: "tool_result",
      taskId: id,
      workspaceRoots: [cwd],
      agent_id: "a",
      parent_agent_id: null,
      tool_result: { name: "read_files", input: { files: [{ path }] } },
    }),
    prompt: (cwd, id) => ({ hookName: "prompt_submit", taskId: id, workspaceRoots: [cwd], agent_id: "a", parent_agent_id: null }),
    text: (output) => (output as { contextModification?: string } | null)?.contextModification ?? "",
  },
  droid: {
    start: (cwd, id) => ({ session_id: id, transcript_path: `${cwd}/.t.jsonl`, cwd, hook_event_name: "SessionStart", source: "startup" }),
    read: (cwd, id, path) => ({
      session_id: id,
      transcript_path: `${cwd}/.t.jsonl`,
      cwd,
      hook_event_name: "PostToolUse",
      tool_name: "Create",
      tool_input: { file_path: path, content: "x" },
      tool_response: "",
    }),
    prompt: (cwd, id) => ({ session_id: id, transcript_path: `${cwd}/.t.jsonl`, cwd, hook_event_name: "UserPromptSubmit", prompt: "go" }),
    compact: (cwd, id) => ({ session_id: id, transcript_path: `${cwd}/.t.jsonl`, cwd, hook_event_name: "SessionStart", source: "compact" }),
    text: additional,
  },
  // Auggie: only the PostToolUse answer reaches the model; SessionStart and PromptSubmit are ignored.
  auggie: {
    start: (cwd, id) => ({ hook_event_name: "SessionStart", conversation_id: id, workspace_roots: [cwd] }),
    read: (cwd, id, path) => ({
      hook_event_name: "PostToolUse",
      conversation_id: id,
      workspace_roots: [cwd],
      tool_name: "view",
      tool_input: { path },
      tool_output: "x",
      tool_error: null,
      is_mcp_tool: false,
    }),
    prompt: (cwd, id) => ({ hook_event_name: "PromptSubmit", conversation_id: id, workspace_roots: [cwd], user_prompt: "go" }),
    text: additional,
  },
  // Crush (built from its source): tool events carry the answer; PostCompact marks a compaction, its answer dropped.
  crush: {
    start: (cwd, id) => ({ event: "SessionStart", session_id: id, cwd }),
    read: (cwd, id, path) => ({ event: "PreToolUse", session_id: id, cwd, tool_name: "view", tool_input: { file_path: path } }),
    prompt: (cwd, id) => ({ event: "TurnStart", session_id: id, cwd }),
    compact: (cwd, id) => ({ event: "PostCompact", session_id: id, cwd }),
    text: additional,
  },
};

/** The most characters each hook host takes in one answer (its profile's `budget.limit`). */
const HOOK_LIMITS: Readonly<Record<string, number>> = {
  "claude-code": 10_000,
  codex: 10_000,
  copilot: 10_240,
  gemini: 32_000,
  qwen: 32_000,
  cline: 32_000,
  droid: 32_000,
  auggie: 32_000,
  crush: 32_000,
};

function hookCase(name: string): HostCase {
  const events = HOOK_EVENTS[name]!;
  return {
    name,
    limit: HOOK_LIMITS[name]!,
    open(setup, stateRoot) {
      const stateDir = `${stateRoot}/${name}`;
      const send = async (kind: string, event: unknown): Promise<string> => {
        const runner = await HOOK_HOSTS[name]!.load();
        let answer: unknown = null;
        await runner(JSON.stringify(event), {
          flags: events.flags?.(kind) ?? {},
          env: setup.env,
          home: setup.home,
          ...(setup.defaultStateDir ? {} : { stateDir }),
          ...(setup.budget !== undefined ? { budget: setup.budget } : {}),
          deliver: (output) => void (answer = output),
        });
        return events.text(answer);
      };
      const { cwd, id } = setup;
      return {
        stateDir,
        start: () => send("start", events.start(cwd, id)),
        read: (path) => send("read", events.read(cwd, id, path)),
        prompt: () => send("prompt", events.prompt(cwd, id)),
        compact: async () => (events.compact ? send("compact", events.compact(cwd, id)) : ""),
        ...(events.shell ? { shell: (command: string) => send("shell", events.shell!(cwd, id, command)) } : {}),
      };
    },
  };
}

/** pi's session manager is a class instance: the handlers call its methods. */
class Manager {
  entries: unknown[] = [];
  constructor(readonly id: string) {}
  getSessionId(): string {
    return this.id;
  }
  buildContextEntries(): unknown[] {
    return this.entries;
  }
}

type Handler = (event: unknown, ctx: unknown) => Promise<unknown>;

const piCase: HostCase = {
  name: "pi",
  // pi has no limit of its own: one answer stays under the profile's default (1 MiB) plus headers.
  limit: 1024 * 1024 + 4096,
  open(setup, stateRoot) {
    const stateDir = `${stateRoot}/pi`;
    const handlers = new Map<string, Handler>();
    const sent: string[] = [];
    const pi = {
      on: (event: string, handler: Handler) => void handlers.set(event, handler),
      sendMessage: (message: { content: string }) => void sent.push(message.content),
    };
    new PiAgents(setup.defaultStateDir ? {} : { stateDir }, { home: setup.home, env: setup.env }).register(pi);
    const ctx = { cwd: setup.cwd, sessionManager: new Manager(setup.id) };
    const emit = (event: string, payload: unknown) => handlers.get(event)!(payload, ctx);
    const parts = (result: unknown) =>
      ((result as { content?: Array<{ text?: string }>; message?: { content?: string } } | undefined)?.content ?? [])
        .slice(1)
        .map((part) => part.text ?? "")
        .join("\n") ||
      ((result as { message?: { content?: string } } | undefined)?.message?.content ?? "");
    return {
      stateDir,
      // pi loads the root -> cwd chain itself and tells the extension so at the first prompt.
      start: async () => parts(await emit("before_agent_start", { type: "before_agent_start", prompt: "go", systemPromptOptions: { contextFiles: [] } })),
      read: async (path) =>
        parts(
          await emit("tool_result", {
            type: "tool_result",
            toolCallId: "c",
            toolName: "read",
            input: { path },
            content: [{ type: "text", text: "x" }],
            isError: false,
          }),
        ),
      shell: async (command) =>
        parts(
          await emit("tool_result", {
            type: "tool_result",
            toolCallId: "c",
            toolName: "bash",
            input: { command },
            content: [{ type: "text", text: "x" }],
            isError: false,
          }),
        ),
      prompt: async () => parts(await emit("before_agent_start", { type: "before_agent_start", prompt: "go", systemPromptOptions: { contextFiles: [] } })),
      compact: async () => {
        sent.length = 0;
        await emit("session_compact", { type: "session_compact" });
        return sent.join("\n");
      },
    };
  },
};

/** A plugin of the OpenCode family (Kilo, OpenCode) driven through its V1 hooks. */
const familyCase = (name: string, Agents: typeof KiloAgents | typeof OpenCodeAgents): HostCase => ({
  name,
  // Neither host has a limit of its own: the plugin's bodies stay under agentsmd's byte budget (1 MiB).
  limit: 1024 * 1024 + 4096,
  open(setup, stateRoot) {
    const stateDir = `${stateRoot}/${name}`;
    const agents = new Agents({ directory: setup.cwd, worktree: setup.cwd, home: setup.home, env: setup.env }, setup.defaultStateDir ? {} : { stateDir });
    const hooks = agents.hooks();
    let calls = 0;
    const tool = async (name: string, args: Record<string, unknown>) => {
      const output = { title: "", output: "x", metadata: {} };
      await hooks["tool.execute.after"]!({ tool: name, sessionID: setup.id, callID: `c${++calls}`, args }, output);
      return output.output === "x" ? "" : output.output.slice(1);
    };
    return {
      stateDir,
      start: async () => "",
      read: (path) => tool("read", { filePath: path }),
      ...(name === "kilo" ? { shell: (command: string) => tool("bash", { command }) } : {}),
      prompt: async () => "",
      compact: async () => {
        const output = { context: [] as string[], prompt: undefined };
        await hooks["experimental.session.compacting"]!({ sessionID: setup.id }, output);
        return output.context.join("\n");
      },
    };
  },
});

/** Every host: one case per HOOK_HOSTS entry, then pi, Kilo and OpenCode. */
export function hostCases(): HostCase[] {
  return [...Object.keys(HOOK_HOSTS).map(hookCase), piCase, familyCase("kilo", KiloAgents), familyCase("opencode", OpenCodeAgents)];
}
