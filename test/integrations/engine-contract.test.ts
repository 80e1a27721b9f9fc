/**
 * The conversation engine's contract, pinned once for every adapter that carries events to it
 * (host/conversation.ts): a hook profile (a hook process per event, the state file between them),
 * the OpenCode family's plugin, pi's extension, Amp's plugin and the MCP server. The same scripted session (start,
 * a tool in pkg/, the same tool again, an edit of pkg/AGENTS.md, a turn start and a tool, a
 * compaction and a tool) shows the same files at the same moments through each: the root file
 * the host loads itself never, each version of the nested file exactly once per context, and
 * after a compaction once again.
 */
import { afterEach, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createTree, type Tree } from "../helpers/tree.js";
import { handleHostEvent } from "../../src/integrations/host/deliver.js";
import type { HostProfile } from "../../src/integrations/host/profile.js";
import { conversationFormat, conversationPath, hostStateDir } from "../../src/integrations/host/store.js";
import { memoryStore, noStore } from "../../src/integrations/host/stores.js";
import { runConversationEvent } from "../../src/integrations/host/conversation.js";
import { nodeFileSystem } from "../../src/io/file-system.js";
import { OpenCodeAgents } from "../../src/integrations/opencode/index.js";
import { PiAgents } from "../../src/integrations/pi/index.js";
import { AmpAgents } from "../../src/integrations/amp/index.js";
import { createAgentsMcpServer } from "../../src/integrations/mcp/index.js";

const TREE = {
  "r/.git/": null,
  "r/AGENTS.md": "ROOT-RULES\n",
  "r/pkg/AGENTS.md": "PKG-RULES v1\n",
  "r/pkg/a.ts": "a\n",
};

/** One adapter driven through the script; "" where the host has no such moment. */
interface Adapter {
  start(): Promise<string>;
  tool(path: string): Promise<string>;
  prompt(): Promise<string>;
  compact(): Promise<string>;
  /** The files the stored conversation holds as admitted (null: the adapter keeps no store). */
  admitted(): Promise<string[] | null>;
  close(): Promise<void>;
}

const HookEvent = z
  .object({ id: z.string(), event: z.enum(["start", "tool", "prompt", "precompact", "compact"]), cwd: z.string(), path: z.string().optional() })
  .strict();
type HookEvent = z.infer<typeof HookEvent>;

/** A hook host that loads the root -> cwd chain itself and gives edited files again at a turn start. */
const hookProfile: HostProfile<HookEvent, Record<string, never>, { text: string }> = {
  host: "contract-host",
  displayName: "Contract Host",
  input: HookEvent,
  normalize: (input) => ({
    kind: input.event,
    conversation: { id: input.id },
    cwd: input.cwd,
    targets: input.path ? [input.path] : [],
    fresh: input.event === "start",
  }),
  budget: { limit: 100_000, default: 50_000 },
  headers: { startup: "START", compact: "COMPACT", tool: (targets) => `TOOL ${targets}`, updated: "UPDATED" },
  frame: (text) => ({ text }),
  state: { schema: () => z.object({}).strict() as never, init: async () => ({}) },
  native: async (_path, origin) => (origin === "initial" ? "loaded" : "no"),
  onPrompt: "redeliver",
};

async function storedAdmitted(path: string): Promise<string[]> {
  const state = JSON.parse(await readFile(path, "utf8")) as { session: { loaded: Array<{ path: string; mtimeMs: number }> } };
  return state.session.loaded.map((file) => `${file.path}@${file.mtimeMs}`).sort();
}

function hookAdapter(tree: Tree): Adapter {
  const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
  const send = async (event: HookEvent["event"], path?: string) =>
    (await handleHostEvent(hookProfile, { id: "c1", event, cwd: tree.path("r"), ...(path ? { path } : {}) }, { env, home: tree.home }))?.text ?? "";
  return {
    start: () => send("start"),
    tool: (path) => send("tool", path),
    prompt: () => send("prompt"),
    compact: async () => (await send("precompact")) + (await send("compact")),
    admitted: () => storedAdmitted(conversationPath(hostStateDir("contract-host", env, tree.home), { id: "c1" })),
    close: async () => undefined,
  };
}

/** The engine itself with the hook profile and an in-memory store: the store is a parameter, the steps the same. */
function memoryAdapter(tree: Tree): Adapter {
  const store = memoryStore(conversationFormat(hookProfile.host, hookProfile.state.schema));
  const send = async (kind: HookEvent["event"], path?: string) => {
    const input: HookEvent = { id: "c1", event: kind, cwd: tree.path("r"), ...(path ? { path } : {}) };
    const output = await runConversationEvent({
      profile: hookProfile,
      input,
      event: hookProfile.normalize(input)!,
      env: {},
      home: tree.home,
      fs: nodeFileSystem,
      budget: hookProfile.budget.default,
      sessionOptions: (cwd) => ({ cwd, home: tree.home, env: {}, host: hookProfile.host }),
      store,
      deliver: async () => undefined,
    });
    return output?.text ?? "";
  };
  return {
    start: () => send("start"),
    tool: (path) => send("tool", path),
    prompt: () => send("prompt"),
    compact: async () => (await send("precompact")) + (await send("compact")),
    admitted: async () => {
      const { state } = await store.read();
      return state!.session.loaded.map((file) => `${file.path}@${file.mtimeMs}`).sort();
    },
    close: async () => undefined,
  };
}

function familyAdapter(tree: Tree): Adapter {
  const agents = new OpenCodeAgents({ directory: tree.path("r"), worktree: tree.path("r"), home: tree.home, env: {} }, { stateDir: tree.path("state") });
  const hooks = agents.hooks();
  let call = 0;
  return {
    start: async () => "",
    tool: async (path) => {
      const output = { title: "", output: "", metadata: {} as Record<string, unknown> };
      await hooks["tool.execute.after"]!({ tool: "read", sessionID: "c1", callID: `call_${++call}`, args: { filePath: path } }, output);
      return output.output;
    },
    prompt: async () => "",
    compact: async () => {
      const output = { context: [] as string[], prompt: undefined };
      await hooks["experimental.session.compacting"]!({ sessionID: "c1" }, output);
      await hooks.event!({ event: { type: "session.compacted", properties: { sessionID: "c1" } } as never });
      return ""; // the summary is the host's; what it lost is offered again at the next tool
    },
    admitted: () => storedAdmitted(agents.statePath("c1")),
    close: () => agents.dispose(),
  };
}

function piAdapter(tree: Tree): Adapter {
  const agents = new PiAgents({ stateDir: tree.path("state") }, { home: tree.home, env: {} });
  const cwd = tree.path("r");
  return {
    start: async () => (await agents.beforeStart("c1", cwd, [tree.path("r/AGENTS.md")])).text,
    tool: async (path) => (await agents.afterTool("c1", cwd, "read", { path, offset: 1 })).text,
    prompt: async () => (await agents.beforeStart("c1", cwd, [tree.path("r/AGENTS.md")])).text,
    compact: async () => (await agents.compacted("c1", cwd, new Map())).text,
    admitted: () => storedAdmitted(conversationPath(tree.path("state"), { id: "c1" })),
    close: () => agents.dispose(),
  };
}

/** Amp's plugin, fed Amp-shaped Read results that list no file of Amp's own. Amp's plugin API has no compaction event. */
function ampAdapter(tree: Tree): Adapter {
  const agents = new AmpAgents({ home: tree.home, env: {}, cwd: tree.path("r"), stateDir: tree.path("state") });
  return {
    start: () => agents.prompt("c1"),
    tool: (path) => agents.afterTool("c1", "Read", { path, read_range: [1, 5] }, { absolutePath: path, content: "1: a" }),
    prompt: () => agents.prompt("c1"),
    compact: async () => "",
    admitted: () => storedAdmitted(conversationPath(tree.path("state"), { id: "c1" })),
    close: async () => undefined,
  };
}

async function mcpAdapter(tree: Tree): Promise<Adapter> {
  const { server, close } = await createAgentsMcpServer({ cwd: tree.path("r"), home: tree.home, env: {} });
  const client = new Client({ name: "contract", version: "1.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    start: async () => "",
    tool: async (path) => {
      const result = (await client.callTool({ name: "agents_context", arguments: { path } })) as { content: Array<{ text: string }> };
      const text = result.content[0]?.text ?? "";
      return text.startsWith("No AGENTS.md instructions apply") ? "" : text;
    },
    prompt: async () => "",
    compact: async () => "", // an MCP host's compaction is not seen by the server
    admitted: async () => null,
    close: async () => {
      await client.close();
      await close();
    },
  };
}

/** What each phase of the script showed: how often each text appeared. */
async function script(tree: Tree, adapter: Adapter): Promise<Record<string, Record<string, number>>> {
  const count = (text: string) => ({
    root: text.split("ROOT-RULES").length - 1,
    v1: text.split("PKG-RULES v1").length - 1,
    v2: text.split("PKG-RULES v2").length - 1,
  });
  const target = tree.path("r/pkg/a.ts");
  const phases: Record<string, Record<string, number>> = {};
  phases.start = count(await adapter.start());
  phases.tool = count(await adapter.tool(target));
  phases.again = count(await adapter.tool(target));
  await tree.write("r/pkg/AGENTS.md", "PKG-RULES v2\n");
  await tree.setMtime("r/pkg/AGENTS.md", 2_000_000_000);
  phases.edited = count((await adapter.prompt()) + (await adapter.tool(target)));
  phases.after = count(await adapter.tool(target));
  return phases;
}

const ADAPTERS: Record<string, (tree: Tree) => Adapter | Promise<Adapter>> = {
  "hook profile": hookAdapter,
  "engine, memory store": memoryAdapter,
  "family plugin (OpenCode)": familyAdapter,
  "pi extension": piAdapter,
  "Amp plugin": ampAdapter,
  "MCP server": mcpAdapter,
};

describe("the conversation engine's contract, through every adapter", () => {
  const open: Adapter[] = [];
  afterEach(async () => {
    for (const adapter of open.splice(0)) await adapter.close();
  });

  for (const [name, make] of Object.entries(ADAPTERS)) {
    it(`${name}: the same files at the same moments, none twice; after a compaction, once again`, async () => {
      const tree = await createTree(TREE);
      const adapter = await make(tree);
      open.push(adapter);
      expect(await script(tree, adapter)).toEqual({
        start: { root: 0, v1: 0, v2: 0 },
        tool: { root: 0, v1: 1, v2: 0 },
        again: { root: 0, v1: 0, v2: 0 },
        edited: { root: 0, v1: 0, v2: 1 },
        after: { root: 0, v1: 0, v2: 0 },
      });
      const target = tree.path("r/pkg/a.ts");
      // Neither an MCP server nor Amp's plugin API sees a compaction.
      if (name !== "MCP server" && name !== "Amp plugin") {
        const restored = (await adapter.compact()) + (await adapter.tool(target));
        expect(restored.split("PKG-RULES v2").length - 1).toBe(1);
        expect(restored).not.toContain("ROOT-RULES");
        expect(await adapter.tool(target)).toBe("");
      }
      const admitted = await adapter.admitted();
      if (admitted !== null) {
        // The stored conversation: the root file (the host's own) and the nested file at its new version.
        const pkg = (await import("node:fs")).statSync(tree.path("r/pkg/AGENTS.md")).mtimeMs;
        const root = (await import("node:fs")).statSync(tree.path("r/AGENTS.md")).mtimeMs;
        expect(admitted).toEqual([`${tree.path("r/AGENTS.md")}@${root}`, `${tree.path("r/pkg/AGENTS.md")}@${pkg}`].sort());
      }
    });
  }
});

describe("the engine's stores", () => {
  it("noStore keeps nothing: each event is a conversation of its own; a memory store carries it between events", async () => {
    const tree = await createTree(TREE);
    const run = (store: ReturnType<typeof noStore<Record<string, never>>>) => async () => {
      const input: HookEvent = { id: "c1", event: "tool", cwd: tree.path("r"), path: tree.path("r/pkg/a.ts") };
      const output = await runConversationEvent({
        profile: hookProfile,
        input,
        event: hookProfile.normalize(input)!,
        env: {},
        home: tree.home,
        fs: nodeFileSystem,
        budget: hookProfile.budget.default,
        sessionOptions: (cwd) => ({ cwd, home: tree.home, env: {}, host: hookProfile.host }),
        store,
        deliver: async () => undefined,
      });
      return output?.text ?? "";
    };
    const none = run(noStore());
    expect(await none()).toContain("PKG-RULES v1");
    expect(await none()).toContain("PKG-RULES v1");
    const memory = run(memoryStore(conversationFormat(hookProfile.host, hookProfile.state.schema)));
    expect(await memory()).toContain("PKG-RULES v1");
    expect(await memory()).toBe("");
  });
});
