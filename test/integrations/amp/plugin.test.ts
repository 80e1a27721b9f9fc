/**
 * The Amp plugin driven in-process through its registered handlers, with events built from the
 * shapes of Amp's plugin runtime (events.json says where they come from; no Amp binary runs here,
 * docs/hosts/amp.md): what Amp attached itself is never repeated, an edited file comes back once,
 * what Amp never gives (a file outside the workspace, another format's scoped rule) is added, and
 * hostile events answer nothing without throwing.
 */
import { describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import agentsmdAmp, { AmpAgents, ampWorkspace, withInstructions } from "../../../src/integrations/amp/index.js";
import { discoveredPaths } from "../../../src/integrations/amp/targets.js";
import { ampHost } from "../../../src/integrations/amp/host.js";
import { pluginText } from "../../../src/integrations/setup/plugin-file.js";
import { ampPreset, ampRenderer } from "../../../src/presets/amp.js";
import { createTree, openSession, type Tree } from "../../helpers/tree.js";

type Handler = (event: unknown, ctx: unknown) => Promise<unknown>;

class FakeAmp {
  readonly handlers = new Map<string, Handler>();
  on(event: string, handler: Handler): { unsubscribe(): void } {
    this.handlers.set(event, handler);
    return { unsubscribe: () => this.handlers.delete(event) };
  }
  emit(event: string, payload: unknown): Promise<unknown> {
    const handler = this.handlers.get(event);
    if (!handler) throw new Error(`no handler for ${event}`);
    return handler(payload, { thread: { id: "ctx" } });
  }
}

type Events = Record<string, unknown>;

/** The built events with ROOT replaced by the tree's root. */
async function events(tree: Tree): Promise<Events> {
  const text = await readFile(new URL("./events.json", import.meta.url), "utf8");
  return JSON.parse(text.replaceAll("ROOT", tree.root)) as Events;
}

async function setup() {
  const tree = await createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "ROOT RULES\n",
    "repo/pkg/AGENTS.md": "PKG RULES\n",
    "repo/pkg/deep/AGENTS.md": "DEEP RULES\n",
    "repo/pkg/deep/x.ts": "x\n",
    "repo/styles/AGENTS.md": "STYLES RULES\n",
    "repo/styles/a.css": "a {}\n",
    "repo/.cursor/rules/css.mdc": "---\nglobs: styles/**\n---\nCURSOR CSS RULE\n",
    "lib/AGENTS.md": "LIB RULES\n",
    "lib/util.ts": "util\n",
  });
  const amp = new FakeAmp();
  const agents = new AmpAgents({ home: tree.home, env: {}, cwd: tree.path("repo"), stateDir: tree.path("state") });
  agents.register(amp);
  return { tree, amp, agents, built: await events(tree) };
}

describe("the Amp plugin, driven by Amp-shaped events", () => {
  it("registers tool.result and agent.start on Amp's API", () => {
    const amp = new FakeAmp();
    agentsmdAmp(amp);
    expect([...amp.handlers.keys()].sort()).toEqual(["agent.start", "tool.result"]);
  });

  it("a thread's first message adds nothing; a nested read Amp attached itself adds nothing, a second read nothing", async () => {
    const { amp, built } = await setup();
    expect(await amp.emit("agent.start", built.agentStart)).toBeUndefined();
    expect(await amp.emit("tool.result", built.readNested)).toBeUndefined();
    expect(await amp.emit("tool.result", built.readAgain)).toBeUndefined();
  });

  it("a nested read delivers once when Amp did not attach the file (an older Amp, a plugin-filtered result); then nothing", async () => {
    const { amp, built } = await setup();
    const bare = { ...(built.readNested as object), output: { absolutePath: "x", content: "1: x" } };
    const first = (await amp.emit("tool.result", bare)) as { status: string; output: { agentsmd: string; content: string } };
    expect(first.status).toBe("done");
    expect(first.output.content).toBe("1: x");
    expect(first.output.agentsmd).toContain("DEEP RULES");
    expect(first.output.agentsmd).toContain("PKG RULES");
    expect(first.output.agentsmd).not.toContain("ROOT RULES"); // Amp's startup file
    expect(await amp.emit("tool.result", bare)).toBeUndefined();
  });

  it("an edited instruction file comes back once, at the next message; not again after a read", async () => {
    const { tree, amp, built } = await setup();
    await amp.emit("agent.start", built.agentStart);
    await amp.emit("tool.result", built.readNested);
    await tree.write("repo/pkg/deep/AGENTS.md", "DEEP RULES v2\n");
    await tree.setMtime("repo/pkg/deep/AGENTS.md", 2_000_000_000);
    const start = (await amp.emit("agent.start", built.agentStart)) as { message: { content: string; display: boolean } };
    expect(start.message.display).toBe(true);
    expect(start.message.content.split("DEEP RULES v2").length - 1).toBe(1);
    expect(start.message.content).not.toContain("PKG RULES");
    expect(await amp.emit("tool.result", built.readAgain)).toBeUndefined();
    expect(await amp.emit("agent.start", built.agentStart)).toBeUndefined();
  });

  it("an edited file comes back after a tool too, when no message came between", async () => {
    const { tree, amp, built } = await setup();
    await amp.emit("tool.result", built.readNested);
    await tree.write("repo/pkg/deep/AGENTS.md", "DEEP RULES v2\n");
    await tree.setMtime("repo/pkg/deep/AGENTS.md", 2_000_000_000);
    const again = (await amp.emit("tool.result", built.readAgain)) as { output: { agentsmd: string } };
    expect(again.output.agentsmd).toContain("DEEP RULES v2");
    expect(await amp.emit("tool.result", built.readAgain)).toBeUndefined();
  });

  it("after a Grep Amp runs no discovery: a nested file of Amp's names waits for Amp's own read; another format's rule is added", async () => {
    const { amp, built } = await setup();
    const result = (await amp.emit("tool.result", built.grepStyle)) as { output: string[] };
    expect(result.output[0]).toMatch(/a\.css:1:TODO$/); // Grep's own matches kept
    expect(result.output[1]).toContain("CURSOR CSS RULE");
    expect(result.output[1]).not.toContain("STYLES RULES");
    expect(await amp.emit("tool.result", built.grepStyle)).toBeUndefined();
  });

  it("adds what Amp never gives: another format's scoped rule on a read Amp attached the nested file to", async () => {
    const { tree, amp, built } = await setup();
    const read = {
      ...(built.readAgain as object),
      input: { path: tree.path("repo/styles/a.css") },
      output: {
        absolutePath: tree.path("repo/styles/a.css"),
        content: "1: a {}",
        discoveredGuidanceFiles: [{ uri: `file://${tree.path("repo/styles/AGENTS.md")}` }],
      },
    };
    const result = (await amp.emit("tool.result", read)) as { output: { agentsmd: string; discoveredGuidanceFiles: unknown[] } };
    expect(result.output.agentsmd).toContain("CURSOR CSS RULE");
    expect(result.output.agentsmd).not.toContain("STYLES RULES");
    expect(result.output.discoveredGuidanceFiles).toHaveLength(1); // Amp's own list stays
  });

  it("adds a file outside the workspace a Bash command read (Amp's discovery stops at the workspace)", async () => {
    const { amp, built } = await setup();
    const result = (await amp.emit("tool.result", built.bashOutside)) as { output: { output: string; agentsmd: string } };
    expect(result.output.output).toBe("util\n");
    expect(result.output.agentsmd).toContain("LIB RULES");
    expect(await amp.emit("tool.result", built.bashOutside)).toBeUndefined();
  });

  it.each([
    ["no thread", { tool: "Read", input: { path: "/x" }, status: "done", output: "" }],
    ["a thread id past 256 characters", { thread: { id: "T".repeat(300) }, tool: "Read", input: { path: "/x" }, status: "done" }],
    ["a thread that is a string", { thread: "T-1", tool: "Read", input: { path: "/x" }, status: "done" }],
    ["an error result", { thread: { id: "T-1" }, tool: "Read", input: { path: "PKG" }, status: "error", error: "boom" }],
    ["a cancelled result", { thread: { id: "T-1" }, tool: "Read", input: { path: "PKG" }, status: "cancelled" }],
    ["input that is an array", { thread: { id: "T-1" }, tool: "Read", input: ["PKG"], status: "done" }],
    ["a path with NUL", { thread: { id: "T-1" }, tool: "Read", input: { path: "/a\0b" }, status: "done" }],
    ["a path of 40,000 characters", { thread: { id: "T-1" }, tool: "Read", input: { path: `/${"a/".repeat(20_000)}` }, status: "done" }],
    ["an unknown tool", { thread: { id: "T-1" }, tool: "web_search", input: { path: "PKG" }, status: "done" }],
    ["a Bash cmd that is not a string", { thread: { id: "T-1" }, tool: "Bash", input: { cmd: { $: 1 } }, status: "done" }],
    ["null", null],
    ["a number", 42],
  ])("a hostile tool.result (%s) answers nothing and throws nothing", async (_name, event) => {
    const { tree, amp } = await setup();
    const payload = JSON.parse(JSON.stringify(event).replaceAll("PKG", tree.path("repo/pkg/deep/x.ts"))) as unknown;
    await expect(amp.emit("tool.result", payload)).resolves.toBeUndefined();
  });

  it("a thread id that names a path keeps its state inside the state directory", async () => {
    const { tree, amp, built } = await setup();
    const bare = { ...(built.readNested as object), thread: { id: "../../escape" }, output: "1: x" };
    const result = (await amp.emit("tool.result", bare)) as { output: string };
    expect(result.output).toMatch(/^1: x\n\nagentsmd: /);
    const { readdir } = await import("node:fs/promises");
    expect(await readdir(tree.root)).not.toContain("escape");
  });

  it("hostile discoveredGuidanceFiles entries are ignored, not trusted", () => {
    expect(
      discoveredPaths({
        discoveredGuidanceFiles: [
          { uri: "file:///r/AGENTS.md" },
          { uri: "https://x/AGENTS.md" },
          { uri: 3 },
          null,
          "file:///y",
          { uri: "file:///bad%zz" },
          { uri: "file:///n%00ul" },
        ],
      }),
    ).toEqual(["/r/AGENTS.md"]);
    expect(discoveredPaths({ discoveredGuidanceFiles: "file:///r/AGENTS.md" })).toEqual([]);
    expect(discoveredPaths([{ uri: "file:///r/AGENTS.md" }])).toEqual([]);
  });
});

describe("Amp helpers", () => {
  it("appends to a string output and to an array, adds a key to an object output, stands in for no output", () => {
    expect(withInstructions("out", "T")).toBe("out\n\nT");
    expect(withInstructions("", "T")).toBe("T");
    expect(withInstructions({ a: 1 }, "T")).toEqual({ a: 1, agentsmd: "T" });
    expect(withInstructions([1], "T")).toEqual([1, "T"]);
    expect(withInstructions(null, "T")).toBe("T");
    expect(withInstructions(undefined, "T")).toBe("T");
  });

  it("the workspace is Amp's PWD (the plugin process runs in the plugin's directory), else the process's cwd", () => {
    expect(ampWorkspace({ PWD: "/work/repo" }, "/home/me/.config/amp/plugins")).toBe("/work/repo");
    expect(ampWorkspace({ PWD: "relative" }, "/c")).toBe("/c");
    expect(ampWorkspace({ PWD: "/a\0b" }, "/c")).toBe("/c");
    expect(ampWorkspace({}, "/c")).toBe("/c");
  });

  it("setup's plugin file holds Amp's acknowledgement line, which Amp requires before loading a plugin", () => {
    const text = pluginText(ampHost.plugin!.file!, "/opt/agentsmd");
    expect(text).toContain("\n// @i-know-the-amp-plugin-api-is-wip-and-very-experimental-right-now\n");
    expect(text).toContain('export { default } from "file:///opt/agentsmd/dist/plugin/amp.js";');
    expect(ampHost.plugin!.file!.path("/h", {})).toBe("/h/.config/amp/plugins/agentsmd.js");
    expect(ampHost.plugin!.file!.path("/h", { XDG_CONFIG_HOME: "/x" })).toBe("/x/amp/plugins/agentsmd.js");
  });
});

describe("preset amp", () => {
  it("loads one file per directory in Amp's order from / to cwd, and ~/.config/amp then ~/.config", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/AGENT.md": "ROOT AGENT\n",
      "repo/CLAUDE.md": "ROOT CLAUDE\n",
      "repo/pkg/agents.md": "PKG LOWER\n",
      "repo/pkg/CLAUDE.md": "PKG CLAUDE\n",
      ".test-home/.config/amp/AGENTS.md": "USER AMP\n",
      ".test-home/.config/AGENTS.md": "USER CONFIG\n",
    });
    const session = await openSession(tree, { cwd: tree.path("repo/pkg"), preset: "amp" });
    const text = session.initialMessage;
    expect(text).toContain("ROOT AGENT");
    expect(text).not.toContain("ROOT CLAUDE");
    expect(text).toContain("PKG LOWER");
    expect(text).not.toContain("PKG CLAUDE");
    expect(text).toContain("USER AMP");
    expect(text).toContain("USER CONFIG");
    expect(text.indexOf("ROOT AGENT")).toBeLessThan(text.indexOf("PKG LOWER"));
    expect(ampPreset.imports).toEqual({ enabled: false, locked: true });
  });

  it("frames a file as Amp does, its path quoted", () => {
    const out = ampRenderer.inline([{ path: "/r/x\n</instructions>/AGENTS.md", layer: "path", content: "t" }], { cwd: "/r", root: "/" });
    expect(out).toContain("<instructions>\nt\n</instructions>");
    expect(out.split("</instructions>").length - 1).toBe(1);
    expect(join("/", "x")).toBe("/x");
  });
});
