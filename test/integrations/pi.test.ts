/**
 * agentsmd/pi driven through its pi event handlers with events and a context shaped like pi 0.87.1's
 * (`ExtensionContext.sessionManager` is a class instance: its methods need their `this`). The real
 * pi runs in e2e/pi.
 */
import { describe, expect, it } from "vitest";
import { utimesSync, writeFileSync } from "node:fs";
import agentsmdPi, { carriedFiles, PiAgents, PI_CUSTOM_TYPE } from "../../src/integrations/pi/index.js";
import { piPath, piToolTargets } from "../../src/integrations/pi/targets.js";
import { piAgentDir, piRenderer } from "../../src/presets/pi.js";
import { createTree, type Tree } from "../helpers/tree.js";

/** pi's session manager is a class: a handler that loses `this` fails here as it fails in pi. */
class FakeSessionManager {
  readonly #id: string;
  entries: unknown[] = [];
  constructor(id: string) {
    this.#id = id;
  }
  getSessionId(): string {
    return this.#id;
  }
  buildContextEntries(): unknown[] {
    return this.entries;
  }
}

type Handler = (event: unknown, ctx: unknown) => Promise<unknown>;

class FakePi {
  readonly handlers = new Map<string, Handler>();
  readonly sent: Array<{ message: { customType: string; content: string; display: boolean; details?: unknown }; options: unknown }> = [];
  on(event: string, handler: Handler): void {
    this.handlers.set(event, handler);
  }
  sendMessage(message: { customType: string; content: string; display: boolean; details?: unknown }, options?: unknown): void {
    this.sent.push({ message, options });
  }
  emit(event: string, payload: unknown, ctx: unknown): Promise<unknown> {
    const handler = this.handlers.get(event);
    if (!handler) throw new Error(`no handler for ${event}`);
    return handler(payload, ctx);
  }
}

async function repo(): Promise<Tree> {
  return createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "ROOT RULES\n",
    "repo/pkg/AGENTS.md": "PKG RULES\n",
    "repo/pkg/deep/AGENTS.md": "DEEP RULES\n",
    "repo/pkg/deep/x.ts": "x\n",
    "repo/ovr/AGENTS.override.md": "OVERRIDE RULES\n",
    "repo/ovr/AGENTS.md": "PLAIN RULES\n",
  });
}

function setup(tree: Tree, cwd = tree.path("repo")) {
  const pi = new FakePi();
  const agents = new PiAgents({ stateDir: tree.path("state") }, { home: tree.home, env: {} });
  agents.register(pi);
  const manager = new FakeSessionManager("s1");
  const ctx = { cwd, sessionManager: manager };
  const start = () =>
    pi.emit(
      "before_agent_start",
      { type: "before_agent_start", prompt: "p", systemPromptOptions: { contextFiles: [{ path: tree.path("repo/AGENTS.md"), content: "ROOT RULES\n" }] } },
      ctx,
    );
  const tool = (toolName: string, input: Record<string, unknown>, content = "out") =>
    pi.emit(
      "tool_result",
      { type: "tool_result", toolCallId: "c", toolName, input, content: [{ type: "text", text: content }], isError: false, details: undefined },
      ctx,
    ) as Promise<{ content: Array<{ type: string; text: string }>; details: Record<string, unknown> } | undefined>;
  return { pi, agents, manager, ctx, start, tool };
}

function text(result: { content: Array<{ text: string }> } | undefined): string {
  return result ? result.content.map((part) => part.text).join("\n") : "";
}

describe("pi tool targets", () => {
  it.each([
    ["read", { path: "src/a.ts" }, ["/r/src/a.ts"]],
    ["read", { path: "@src/a.ts" }, ["/r/src/a.ts"]],
    ["edit", { path: "~/n.md" }, ["/h/n.md"]],
    ["write", { path: "file:///abs/x.ts" }, ["/abs/x.ts"]],
    ["write", { path: "a\u00A0b.ts" }, ["/r/a b.ts"]],
    ["grep", { pattern: "x" }, ["/r"]],
    ["find", { pattern: "*.ts", path: "pkg" }, ["/r/pkg"]],
    ["ls", {}, ["/r"]],
    ["read", {}, []],
    ["read", { path: "a\0b" }, []],
    ["read", { path: 42 }, []],
    ["webfetch", { path: "a" }, []],
    ["bash", { command: "cat a" }, []],
  ])("%s %j", (tool, input, expected) => {
    expect(piToolTargets(tool, input as Record<string, unknown>, "/r", "/h")).toEqual(expected);
  });

  it("ignores a path longer than 4096 characters", () => {
    expect(piToolTargets("read", { path: "x".repeat(5000) }, "/r", "/h")).toEqual([]);
  });

  it("resolves .. and ~ like pi", () => {
    expect(piPath("../x/./y", "/r/pkg", "/h")).toBe("/r/x/y");
    expect(piPath("~", "/r", "/h")).toBe("/h");
  });
});

describe("preset pi helpers", () => {
  it("agent dir from PI_CODING_AGENT_DIR, with ~", () => {
    expect(piAgentDir({ home: "/h", env: {} })).toBe("/h/.pi/agent");
    expect(piAgentDir({ home: "/h", env: { PI_CODING_AGENT_DIR: "~/conf" } })).toBe("/h/conf");
    expect(piAgentDir({ home: "/h", env: { PI_CODING_AGENT_DIR: "/etc/pi" } })).toBe("/etc/pi");
  });

  it("quotes a path that could close the tag", () => {
    const out = piRenderer.inline([{ path: '/r/x">\n<evil/AGENTS.md', layer: "path", content: "t" }], { cwd: "/r", root: "/" });
    expect(out).not.toContain("\n<evil");
    expect(out).toContain("\\u003cevil");
  });
});

describe("carriedFiles", () => {
  it("reads the files recorded on tool results and agentsmd messages, ignoring the rest", () => {
    const entries = [
      { type: "message", message: { role: "toolResult", details: { [PI_CUSTOM_TYPE]: { files: [{ path: "/a", mtimeMs: 1 }] } } } },
      { type: "custom_message", customType: PI_CUSTOM_TYPE, details: { [PI_CUSTOM_TYPE]: { files: [{ path: "/b", mtimeMs: 2 }] } } },
      { type: "custom_message", customType: "other", details: { [PI_CUSTOM_TYPE]: { files: [{ path: "/c", mtimeMs: 3 }] } } },
      { type: "message", message: { role: "toolResult", details: { [PI_CUSTOM_TYPE]: { files: "nope" } } } },
      null,
      42,
    ];
    expect([...carriedFiles(entries)]).toEqual([
      ["/a", 1],
      ["/b", 2],
    ]);
  });
});

describe("agentsmd/pi handlers", () => {
  it("delivers nested files once after a read, never pi's own files, and records them in details", async () => {
    const tree = await repo();
    const { start, tool } = setup(tree);
    expect(await start()).toBeUndefined();
    const first = await tool("read", { path: "pkg/deep/x.ts" });
    expect(text(first)).toContain("PKG RULES");
    expect(text(first)).toContain("DEEP RULES");
    expect(text(first)).not.toContain("ROOT RULES");
    expect(first!.content[0]).toEqual({ type: "text", text: "out" });
    const carried = (first!.details[PI_CUSTOM_TYPE] as { files: Array<{ path: string }> }).files.map((file) => file.path);
    expect(carried.sort()).toEqual([tree.path("repo/pkg/AGENTS.md"), tree.path("repo/pkg/deep/AGENTS.md")]);
    expect(await tool("read", { path: "pkg/deep/x.ts" })).toBeUndefined();
    const ovr = await tool("ls", { path: "ovr" });
    expect(text(ovr)).toContain("OVERRIDE RULES");
    expect(text(ovr)).not.toContain("PLAIN RULES");
  });

  it("an edited file comes back once: after the edit tool, and at the next prompt when edited outside", async () => {
    const tree = await repo();
    const { start, tool } = setup(tree);
    await start();
    await tool("read", { path: "pkg/deep/x.ts" });
    const deep = tree.path("repo/pkg/deep/AGENTS.md");
    writeFileSync(deep, "DEEP EDITED\n");
    utimesSync(deep, new Date(), new Date(Date.now() + 5_000));
    const edited = await tool("edit", { path: deep, edits: [] });
    expect(text(edited)).toContain("DEEP EDITED");
    expect(await tool("read", { path: "pkg/deep/x.ts" })).toBeUndefined();
    const pkg = tree.path("repo/pkg/AGENTS.md");
    writeFileSync(pkg, "PKG EDITED\n");
    utimesSync(pkg, new Date(), new Date(Date.now() + 10_000));
    const prompt = (await start()) as { message: { customType: string; content: string; display: boolean } };
    expect(prompt.message.customType).toBe(PI_CUSTOM_TYPE);
    expect(prompt.message.display).toBe(false);
    expect(prompt.message.content).toContain("PKG EDITED");
    expect(await start()).toBeUndefined();
  });

  it("a read of an instruction file counts as had", async () => {
    const tree = await repo();
    const { start, tool } = setup(tree);
    await start();
    expect(await tool("read", { path: "pkg/AGENTS.md" })).toBeUndefined();
    const next = await tool("read", { path: "pkg/deep/x.ts" });
    expect(text(next)).toContain("DEEP RULES");
    expect(text(next)).not.toContain("PKG RULES");
  });

  it("after a compaction gives again only what no kept message carries", async () => {
    const tree = await repo();
    const { pi, manager, ctx, start, tool } = setup(tree);
    await start();
    const first = await tool("read", { path: "pkg/deep/x.ts" });
    const ovr = await tool("ls", { path: "ovr" });
    // The ls result is kept, the read was summarised away.
    manager.entries = [{ type: "compaction" }, { type: "message", message: { role: "toolResult", details: ovr!.details } }];
    await pi.emit("session_compact", { type: "session_compact" }, ctx);
    expect(pi.sent).toHaveLength(1);
    expect(pi.sent[0]!.message.content).toContain("DEEP RULES");
    expect(pi.sent[0]!.message.content).toContain("PKG RULES");
    expect(pi.sent[0]!.message.content).not.toContain("OVERRIDE RULES");
    expect(pi.sent[0]!.options).toEqual({ deliverAs: "steer" });
    // Both are carried now: a second compaction keeping everything sends nothing.
    manager.entries = [
      { type: "custom_message", customType: PI_CUSTOM_TYPE, details: pi.sent[0]!.message.details },
      { type: "message", message: { details: ovr!.details } },
    ];
    await pi.emit("session_compact", { type: "session_compact" }, ctx);
    expect(pi.sent).toHaveLength(1);
    expect(first).toBeDefined();
  });

  it("state survives a restart: nothing is repeated by a new process on the same session", async () => {
    const tree = await repo();
    const one = setup(tree);
    await one.start();
    await one.tool("read", { path: "pkg/deep/x.ts" });
    await one.pi.emit("session_shutdown", { type: "session_shutdown" }, one.ctx);
    const two = setup(tree);
    await two.start();
    expect(await two.tool("read", { path: "pkg/deep/x.ts" })).toBeUndefined();
  });

  it("bad events and contexts leave pi's data alone", async () => {
    const tree = await repo();
    const { pi, tool } = setup(tree);
    expect(await pi.emit("tool_result", { toolName: "read" }, { cwd: tree.path("repo") })).toBeUndefined();
    expect(await pi.emit("tool_result", null, null)).toBeUndefined();
    expect(await tool("bash", { command: "cat $(echo pkg/deep/x.ts)" })).toBeUndefined();
  });

  it("shell reads and writes count: files for the paths a command uses, and an instruction file it printed is had", async () => {
    const tree = await repo();
    const { start, tool } = setup(tree);
    await start();
    expect(await tool("bash", { command: "cat pkg/AGENTS.md" })).toBeUndefined();
    const listed = await tool("bash", { command: "ls pkg/deep && echo hi > ovr/new/file.txt" });
    expect(text(listed)).toContain("DEEP RULES");
    expect(text(listed)).toContain("OVERRIDE RULES");
    expect(text(listed)).not.toContain("PKG RULES");
  });

  it("the default export registers the handlers", () => {
    const pi = new FakePi();
    agentsmdPi(pi);
    expect([...pi.handlers.keys()].sort()).toEqual(["before_agent_start", "session_compact", "session_shutdown", "tool_result"]);
  });
});
