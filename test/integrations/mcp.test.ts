import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createTree, type Tree } from "../helpers/tree.js";
import { createAgentsMcpServer, McpResolveResultSchema, type AgentsMcpOptions } from "../../src/integrations/mcp/index.js";
import { PROMPT_GUIDANCE } from "../../src/core/guidance.js";
import { countingFileSystem } from "../../src/io/file-system.js";
import type { HostHistory } from "../../src/integrations/host/held.js";

const BIN = join(import.meta.dirname, "../../dist/cli/bin.js");

const REPO = {
  "r/.git/": null,
  "r/AGENTS.md": "ROOT-AGENTS\n",
  "r/pkg/AGENTS.md": "PKG-AGENTS\n",
  "r/pkg/api/AGENTS.md": "API-AGENTS\n",
  "r/pkg/api/src/x.ts": "x\n",
  "r/pkg/web/w.ts": "w\n",
  "other/AGENTS.md": "OTHER\n",
};

async function connect(tree: Tree, options: AgentsMcpOptions = {}, roots?: { current: string[] }) {
  const { server, close } = await createAgentsMcpServer({ cwd: tree.path("r"), home: tree.home, env: {}, ...options });
  const client = new Client({ name: "test", version: "1.0.0" }, { capabilities: roots ? { roots: { listChanged: true } } : {} });
  if (roots)
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.current.map((path) => ({ uri: pathToFileURL(path).href, name: path })) }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    async call(name: string, args: Record<string, unknown>) {
      return (await client.callTool({ name, arguments: args })) as {
        isError?: boolean;
        content: Array<{ type: string; text: string }>;
        structuredContent?: unknown;
      };
    },
    async close() {
      await client.close();
      await close();
    },
  };
}

describe("agentsmd mcp", () => {
  it("offers two read-only tools whose descriptions carry the spec section 8 guidance", async () => {
    const tree = await createTree(REPO);
    const mcp = await connect(tree);
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["agents_context", "agents_resolve"]);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.description).toContain(PROMPT_GUIDANCE);
      expect(tool.inputSchema.required).toEqual(["path"]);
    }
    const instructions = mcp.client.getInstructions() ?? "";
    expect(instructions).toContain("agents_context");
    // the tools answer calls; they never produce reminders, so the instructions must not promise any
    expect(instructions).not.toMatch(/system-reminder|agents\.resolve\.paths|session\.resume\.diff/);
    await mcp.close();
  });

  it("agents_resolve: new files once, metadata only; an edited file comes back as updated", async () => {
    const tree = await createTree(REPO);
    const mcp = await connect(tree);
    const first = await mcp.call("agents_resolve", { path: tree.path("r/pkg/api/src/x.ts") });
    expect(first.isError).toBeFalsy();
    const result = McpResolveResultSchema.parse(first.structuredContent);
    expect(result).toMatchObject({ target_path: tree.path("r/pkg/api/src/x.ts"), resolved_path: tree.path("r/pkg/api/src/x.ts"), count: 2 });
    expect(result.files.map((file) => [file.path, file.reason])).toEqual([
      [tree.path("r/pkg/AGENTS.md"), "new"],
      [tree.path("r/pkg/api/AGENTS.md"), "new"],
    ]);
    expect(result.files[0]!.size_bytes).toBe("PKG-AGENTS\n".length);
    expect(JSON.parse(first.content[0]!.text)).toEqual(result);
    expect(first.content[0]!.text).not.toContain("PKG-AGENTS\\n");

    const again = McpResolveResultSchema.parse((await mcp.call("agents_resolve", { path: "pkg/api/src" })).structuredContent);
    expect(again).toMatchObject({ target_path: "pkg/api/src", resolved_path: tree.path("r/pkg/api/src"), count: 0, files: [] });

    await tree.write("r/pkg/api/AGENTS.md", "API v2\n");
    await tree.setMtime("r/pkg/api/AGENTS.md", 2_000_000_000);
    await new Promise((resolve) => setTimeout(resolve, 80)); // past the stat cache's revalidation window
    const updated = McpResolveResultSchema.parse((await mcp.call("agents_resolve", { path: tree.path("r/pkg/api/src/x.ts") })).structuredContent);
    expect(updated.files).toEqual([{ path: tree.path("r/pkg/api/AGENTS.md"), mtime_ms: 2_000_000_000_000, size_bytes: 7, reason: "updated" }]);
    await mcp.close();
  });

  it("agents_context: the bodies of files it has not returned yet", async () => {
    const tree = await createTree(REPO);
    const mcp = await connect(tree);
    // agents_resolve does not use up agents_context's files.
    await mcp.call("agents_resolve", { path: tree.path("r/pkg/api/src/x.ts") });
    const first = await mcp.call("agents_context", { path: tree.path("r/pkg/api/src/x.ts") });
    expect(first.isError).toBeFalsy();
    const text = first.content[0]!.text;
    expect(text).toContain("API-AGENTS");
    expect(text).toContain("PKG-AGENTS");
    expect(text).not.toContain("ROOT-AGENTS"); // in the initial bundle
    const second = await mcp.call("agents_context", { path: tree.path("r/pkg/api/src/x.ts") });
    expect(second.content[0]!.text).toMatch(/^No AGENTS\.md instructions apply/);
    expect((await mcp.call("agents_context", { path: tree.path("r/pkg/web/w.ts") })).content[0]!.text).toMatch(/^No AGENTS\.md/);
    await mcp.close();
  });

  it("refuses paths outside the workspace with a tool error, and bad arguments without crashing", async () => {
    const tree = await createTree(REPO);
    const mcp = await connect(tree);
    for (const tool of ["agents_resolve", "agents_context"]) {
      const outside = await mcp.call(tool, { path: tree.path("other/x.ts") });
      expect(outside.isError).toBe(true);
      expect(outside.content[0]!.text).toContain(`${tree.path("other/x.ts")} is outside the workspace roots (${tree.path("r")})`);
      const bad = await mcp.call(tool, { path: 42 });
      expect(bad.isError).toBe(true);
    }
    // still serving
    expect((await mcp.call("agents_resolve", { path: tree.path("r/pkg/x.ts") })).isError).toBeFalsy();
    await mcp.close();
  });

  it("--deliver-initial: the tools also return the initial chain, for hosts that do not load AGENTS.md", async () => {
    const tree = await createTree(REPO);
    const mcp = await connect(tree, { deliverInitial: true });
    const text = (await mcp.call("agents_context", { path: tree.path("r/pkg/api/src/x.ts") })).content[0]!.text;
    for (const marker of ["ROOT-AGENTS", "PKG-AGENTS", "API-AGENTS"]) expect(text).toContain(marker);
    const resolved = McpResolveResultSchema.parse((await mcp.call("agents_resolve", { path: tree.path("r/x.ts") })).structuredContent);
    expect(resolved.files.map((file) => file.path)).toEqual([tree.path("r/AGENTS.md")]);
    await mcp.close();
  });

  it("serves the initial bundle as a resource", async () => {
    const tree = await createTree(REPO);
    const mcp = await connect(tree, { preset: "codex" });
    const { resources } = await mcp.client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(["agentsmd://initial"]);
    const read = await mcp.client.readResource({ uri: "agentsmd://initial" });
    expect(read.contents).toEqual([
      {
        uri: "agentsmd://initial",
        mimeType: "text/plain",
        text: `# AGENTS.md instructions for ${tree.path("r")}\n\n<INSTRUCTIONS>\nROOT-AGENTS\n\n</INSTRUCTIONS>`,
      },
    ]);
    await mcp.close();
  });

  it("uses the client's roots when it offers them, and follows roots/list_changed", async () => {
    const tree = await createTree(REPO);
    const roots = { current: [tree.path("r/pkg/api")] };
    const mcp = await connect(tree, {}, roots);
    const inside = McpResolveResultSchema.parse((await mcp.call("agents_resolve", { path: "src/x.ts" })).structuredContent);
    expect(inside.resolved_path).toBe(tree.path("r/pkg/api/src/x.ts"));
    // The session for the root r/pkg/api starts there: the chain up to it is the initial bundle.
    expect(inside.count).toBe(0);
    const outside = await mcp.call("agents_resolve", { path: tree.path("r/pkg/web/w.ts") });
    expect(outside.isError).toBe(true);

    roots.current = [tree.path("r/pkg/api"), tree.path("other")];
    await mcp.client.sendRootsListChanged();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const other = McpResolveResultSchema.parse((await mcp.call("agents_resolve", { path: tree.path("other/sub/y.ts") })).structuredContent);
    expect(other.count).toBe(0); // other/AGENTS.md is that root's initial bundle
    const bundles = await mcp.client.readResource({ uri: "agentsmd://initial" });
    expect(bundles.contents).toHaveLength(2);
    await mcp.close();
  });

  it.skipIf(!existsSync(BIN))("runs over stdio from the built CLI", async () => {
    const tree = await createTree(REPO);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--cwd", tree.path("r"), "--home", tree.home],
      env: { PATH: process.env.PATH ?? "" },
      stderr: "pipe",
    });
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    await client.connect(transport);
    const result = (await client.callTool({ name: "agents_context", arguments: { path: tree.path("r/pkg/api/src/x.ts") } })) as {
      content: Array<{ text: string }>;
    };
    expect(result.content[0]!.text).toContain("API-AGENTS");
    await client.close();
  });
});

describe("agentsmd mcp: the host's record (history)", () => {
  /** A record whose next looks are `views` (then the last one again). */
  function record(views: Array<{ compacted: boolean; held: string[] }>): HostHistory & { looks: number } {
    const history = {
      looks: 0,
      look: async () => {
        const view = views[Math.min(history.looks++, views.length - 1)]!;
        return { compacted: view.compacted, holds: (file: { content: string }) => view.held.some((text) => text.includes(file.content.trim())) };
      },
    };
    return history;
  }

  it("a file the host's history holds is not given (a resumed history); one it does not hold is, once", async () => {
    const tree = await createTree(REPO);
    const history = record([{ compacted: false, held: ["...PKG-AGENTS..."] }]);
    const mcp = await connect(tree, { history });
    const first = (await mcp.call("agents_context", { path: tree.path("r/pkg/api/src/x.ts") })).content[0]!.text;
    expect(first).toContain("API-AGENTS");
    expect(first).not.toContain("PKG-AGENTS");
    expect((await mcp.call("agents_context", { path: tree.path("r/pkg/api/src/x.ts") })).content[0]!.text).toMatch(/^No AGENTS\.md/);
    expect(history.looks).toBe(2);
    await mcp.close();
  });

  it("after a compaction the host recorded, what the tools gave comes again, once; what the summary kept does not", async () => {
    const tree = await createTree(REPO);
    const history = record([
      { compacted: false, held: [] },
      { compacted: true, held: ["summary quoting API-AGENTS"] },
      { compacted: false, held: ["summary quoting API-AGENTS"] },
    ]);
    const mcp = await connect(tree, { history });
    const target = { path: tree.path("r/pkg/api/src/x.ts") };
    const first = (await mcp.call("agents_context", target)).content[0]!.text;
    expect(first).toContain("PKG-AGENTS");
    expect(first).toContain("API-AGENTS");
    const again = (await mcp.call("agents_context", target)).content[0]!.text;
    expect(again).toContain("PKG-AGENTS");
    expect(again).not.toContain("API-AGENTS");
    expect((await mcp.call("agents_context", target)).content[0]!.text).toMatch(/^No AGENTS\.md/);
    await mcp.close();
  });

  it("a record that fails to answer counts as none", async () => {
    const tree = await createTree(REPO);
    const mcp = await connect(tree, { history: { look: () => Promise.reject(new Error("unreadable")) } });
    expect((await mcp.call("agents_context", { path: tree.path("r/pkg/api/src/x.ts") })).content[0]!.text).toContain("API-AGENTS");
    await mcp.close();
  });
});

describe("agentsmd mcp: hand over, then admit", () => {
  it("a file is admitted only once its answer was sent: a failed send offers it again", async () => {
    const tree = await createTree(REPO);
    const { server, close } = await createAgentsMcpServer({ cwd: tree.path("r"), home: tree.home, env: {} });
    const client = new Client({ name: "test", version: "1.0.0" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // The first tool answer never leaves the server (a broken pipe); the client gets no answer.
    const send = serverSide.send.bind(serverSide);
    let failNext = false;
    serverSide.send = async (message, options) => {
      if (failNext && "id" in message && "result" in message) {
        failNext = false;
        throw new Error("EPIPE");
      }
      return send(message, options);
    };
    await server.connect(serverSide);
    await client.connect(clientSide);
    const target = { path: tree.path("r/pkg/api/src/x.ts") };
    failNext = true;
    const lost = client.callTool({ name: "agents_context", arguments: target }, undefined, { timeout: 300 });
    await expect(lost).rejects.toThrow();
    const again = (await client.callTool({ name: "agents_context", arguments: target })) as { content: Array<{ text: string }> };
    expect(again.content[0]!.text).toContain("API-AGENTS");
    const third = (await client.callTool({ name: "agents_context", arguments: target })) as { content: Array<{ text: string }> };
    expect(third.content[0]!.text).not.toContain("API-AGENTS");
    await client.close();
    await close();
  });
});

describe("agentsmd mcp: watching", () => {
  /** Stats of a seen resolve made after the stat cache's revalidation window has passed. */
  async function seenResolveStats(options: AgentsMcpOptions): Promise<number> {
    const tree = await createTree(REPO);
    const counting = countingFileSystem();
    const mcp = await connect(tree, { fs: counting.fs, ...options });
    await mcp.call("agents_resolve", { path: tree.path("r/pkg/api/src/x.ts") });
    await new Promise((resolve) => setTimeout(resolve, 80)); // past the 50 ms window
    counting.reset();
    const again = McpResolveResultSchema.parse((await mcp.call("agents_resolve", { path: tree.path("r/pkg/api/src/x.ts") })).structuredContent);
    expect(again.count).toBe(0);
    const stats = counting.counters.stat + counting.counters.lstat;
    await mcp.close();
    return stats;
  }

  it("watches by default, so a seen path at agent pace asks the disk nothing; watch: false stats the chain", async () => {
    expect(await seenResolveStats({})).toBe(0);
    expect(await seenResolveStats({ watch: false })).toBeGreaterThanOrEqual(4);
  });

  it("an edit is still seen while watching", async () => {
    const tree = await createTree(REPO);
    const mcp = await connect(tree);
    await mcp.call("agents_resolve", { path: tree.path("r/pkg/api/src/x.ts") });
    await tree.write("r/pkg/api/AGENTS.md", "API v3\n");
    await new Promise((resolve) => setTimeout(resolve, 100)); // the edit's inotify event arrives
    const updated = McpResolveResultSchema.parse((await mcp.call("agents_resolve", { path: tree.path("r/pkg/api/src/x.ts") })).structuredContent);
    expect(updated.files.map((file) => [file.path, file.reason])).toEqual([[tree.path("r/pkg/api/AGENTS.md"), "updated"]]);
    await mcp.close();
  });
});
