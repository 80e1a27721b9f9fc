/**
 * agentsmd/opencode driven through its V1 hooks with inputs shaped like `@opencode-ai/plugin`
 * 1.18.33's published types and the shapes observed in e2e/opencode/FINDINGS.md.
 */
import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import type { Hooks, PluginInput } from "@opencode-ai/plugin";
import plugin, { AgentsMdPlugin, OpenCodeAgents, toolTargets, type OpenCodePluginOptions } from "../../src/integrations/opencode/index.js";
import { stripNativeBlocks } from "../../src/integrations/host/plugin-family.js";
import { createTree, type Tree } from "../helpers/tree.js";

type After = NonNullable<Hooks["tool.execute.after"]>;
type AfterInput = Parameters<After>[0];
type AfterOutput = Parameters<After>[1];
type Compacting = NonNullable<Hooks["experimental.session.compacting"]>;
type EventHook = NonNullable<Hooks["event"]>;
type MessagesTransform = NonNullable<Hooks["experimental.chat.messages.transform"]>;

const SESSION = "ses_test1";

async function repo(): Promise<Tree> {
  return createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "ROOT RULES\n",
    "repo/pkg/AGENTS.md": "PKG RULES\n",
    "repo/pkg/src/handler.ts": "export const handler = 1;\n",
    "repo/pkg/api/AGENTS.md": "API RULES\n",
    "repo/pkg/api/x.ts": "",
    "repo/other/AGENTS.md": "OTHER RULES\n",
    "repo/other/o.ts": "",
    "repo/ovr/AGENTS.override.md": "OVERRIDE RULES\n",
    "repo/ovr/AGENTS.md": "PLAIN RULES\n",
  });
}

function agents(tree: Tree, options: OpenCodePluginOptions = {}, directory = tree.path("repo")): { agents: OpenCodeAgents; hooks: Hooks } {
  const instance = new OpenCodeAgents({ directory, worktree: tree.path("repo"), home: tree.home, env: {} }, { stateDir: tree.path("state"), ...options });
  return { agents: instance, hooks: instance.hooks() };
}

let callCount = 0;
/** Runs tool.execute.after like OpenCode does: the output object is the tool result, mutated in place. */
async function after(hooks: Hooks, tool: string, args: Record<string, unknown>, result: Partial<AfterOutput> = {}, sessionID = SESSION): Promise<AfterOutput> {
  const input: AfterInput = { tool, sessionID, callID: `call_${++callCount}`, args };
  const output: AfterOutput = { title: result.title ?? "", output: result.output ?? "", metadata: result.metadata ?? {} };
  await hooks["tool.execute.after"]!(input, output);
  return output;
}

/** A read result as OpenCode 1.18.33 builds it, with its native attachment. */
function readResult(path: string, attached: Array<{ path: string; body: string }> = []): Partial<AfterOutput> {
  let output = `<path>${path}</path>\n<type>file</type>\n<content>\n1: x\n\n(End of file - total 1 lines)\n</content>`;
  if (attached.length > 0)
    output += `\n\n<system-reminder>\n${attached.map((file) => `Instructions from: ${file.path}\n${file.body}`).join("\n\n")}\n</system-reminder>`;
  return { title: "rel", output, metadata: { preview: "x", truncated: false, loaded: attached.map((file) => file.path) } };
}

const reminderFor = (files: Array<{ path: string; body: string }>) =>
  `<system-reminder>\n${files.map((file) => `Instructions from: ${file.path}\n${file.body}`).join("\n\n")}\n</system-reminder>`;

describe("agentsmd/opencode module", () => {
  it("default-exports { id, server } (the shape OpenCode 1.18.33 loads alone) and validates options", async () => {
    expect(plugin.id).toBe("agentsmd");
    expect(plugin.server).toBe(AgentsMdPlugin);
    const tree = await repo();
    const input = { directory: tree.path("repo"), worktree: tree.path("repo") } as PluginInput;
    const hooks = await plugin.server(input, { mode: "paths" });
    expect(Object.keys(hooks).sort()).toEqual([
      "dispose",
      "event",
      "experimental.chat.messages.transform",
      "experimental.session.compacting",
      "tool.execute.after",
    ]);
    await expect(plugin.server(input, { mode: "everything" })).rejects.toThrow(/invalid agentsmd\/opencode plugin options[\s\S]*mode/);
    await hooks.dispose?.();
  });

  it("finds the touched paths of every tool", () => {
    const dir = "/repo";
    expect(toolTargets("read", { filePath: "/repo/a.ts" }, {}, dir)).toEqual(["/repo/a.ts"]);
    expect(toolTargets("write", { filePath: "b/new.ts", content: "" }, { filepath: "/repo/b/new.ts" }, dir)).toEqual(["/repo/b/new.ts"]);
    expect(toolTargets("edit", { filePath: "/repo/c.ts", oldString: "a", newString: "b" }, {}, dir)).toEqual(["/repo/c.ts"]);
    expect(
      toolTargets(
        "apply_patch",
        { patchText: "" },
        {
          files: [
            { filePath: "/repo/x/new.txt", type: "add" },
            { filePath: "/repo/y/old.txt", type: "delete" },
            { filePath: "/repo/z/a.txt", movePath: "/repo/w/a.txt", type: "move" },
          ],
        },
        dir,
      ),
    ).toEqual(["/repo/x/new.txt", "/repo/w/a.txt", "/repo/z/a.txt"]);
    expect(toolTargets("apply_patch", { patchText: "*** Begin Patch\n*** Add File: pkg/n.txt\n+x\n*** Update File: q/r.ts\n*** End Patch" }, {}, dir)).toEqual([
      "/repo/pkg/n.txt",
      "/repo/q/r.ts",
    ]);
    expect(toolTargets("glob", { pattern: "**/*.ts", path: "/repo/pkg" }, { count: 1 }, dir)).toEqual(["/repo/pkg"]);
    expect(toolTargets("grep", { pattern: "x" }, {}, dir)).toEqual(["/repo"]);
    expect(toolTargets("bash", { command: "ls" }, {}, dir)).toEqual([]);
  });
});

describe("watching", () => {
  it("a plugin session watches the directories it scanned by default; watch: false revalidates by stat", async () => {
    const tree = await repo();
    const watched = await agents(tree).agents.session(SESSION);
    expect(watched.session.cache.revalidateMs).toBe(Infinity);
    await watched.session.close();
    const polled = await agents(tree, { watch: false }).agents.session(SESSION);
    expect(polled.session.cache.revalidateMs).toBe(50);
  });
});

describe("tool.execute.after", () => {
  it("appends the AGENTS.md of a directory a new file is written to, once, and admits it after amending", async () => {
    const tree = await repo();
    const { hooks, agents: instance } = agents(tree);
    const write = await after(
      hooks,
      "write",
      { filePath: tree.path("repo/pkg/api/new.ts"), content: "x" },
      { output: "Wrote file successfully.", metadata: { filepath: tree.path("repo/pkg/api/new.ts"), exists: false } },
    );
    expect(write.output).toBe(
      `Wrote file successfully.\n\n${reminderFor([
        { path: tree.path("repo/pkg/api/AGENTS.md"), body: "API RULES\n" },
        { path: tree.path("repo/pkg/AGENTS.md"), body: "PKG RULES\n" },
      ])}`,
    );
    expect((write.metadata as { agentsmd: unknown }).agentsmd).toEqual({
      files: [
        { path: tree.path("repo/pkg/api/AGENTS.md"), mtimeMs: expect.any(Number) },
        { path: tree.path("repo/pkg/AGENTS.md"), mtimeMs: expect.any(Number) },
      ],
    });
    const entry = await instance.session(SESSION);
    expect(entry.session.loadedVersion(tree.path("repo/pkg/api/AGENTS.md"))).toBeDefined();
    const again = await after(
      hooks,
      "edit",
      { filePath: tree.path("repo/pkg/api/x.ts"), oldString: "a", newString: "b" },
      { output: "Edit applied successfully." },
    );
    expect(again.output).toBe("Edit applied successfully.");
  });

  it("never repeats a system-prompt file, even after it is edited", async () => {
    const tree = await repo();
    const { hooks } = agents(tree, {}, tree.path("repo/pkg"));
    const first = await after(hooks, "write", { filePath: tree.path("repo/pkg/src/new.ts") }, { output: "Wrote file successfully." });
    expect(first.output).toBe("Wrote file successfully.");
    await tree.write("repo/pkg/AGENTS.md", "PKG RULES v2\n");
    await tree.setMtime("repo/pkg/AGENTS.md", 1_900_000_000);
    const second = await after(hooks, "edit", { filePath: tree.path("repo/pkg/src/handler.ts") }, { output: "Edit applied successfully." });
    expect(second.output).toBe("Edit applied successfully.");
  });

  it("never delivers a file OpenCode's config instructions list (OpenCode puts it in its system prompt)", async () => {
    const tree = await repo();
    await tree.write("repo/opencode.json", JSON.stringify({ instructions: ["pkg/api/AGENTS.md"] }));
    await tree.write(".test-home/.config/opencode/opencode.json", JSON.stringify({ instructions: ["other/*.md"] }));
    const env = { XDG_CONFIG_HOME: `${tree.home}/.config`, OPENCODE_TEST_MANAGED_CONFIG_DIR: tree.path("managed") };
    const instance = new OpenCodeAgents(
      { directory: tree.path("repo/pkg"), worktree: tree.path("repo"), home: tree.home, env },
      { stateDir: tree.path("state") },
    );
    const hooks = instance.hooks();
    expect(await instance.systemPaths()).toEqual([
      tree.path("repo/pkg/AGENTS.md"),
      tree.path("repo/AGENTS.md"),
      tree.path("repo/other/AGENTS.md"),
      tree.path("repo/pkg/api/AGENTS.md"),
    ]);
    const write = await after(hooks, "write", { filePath: tree.path("repo/pkg/api/new.ts") }, { output: "Wrote file successfully." });
    expect(write.output).toBe("Wrote file successfully.");
    const other = await after(hooks, "edit", { filePath: tree.path("repo/other/o.ts") }, { output: "Edit applied successfully." });
    expect(other.output).toBe("Edit applied successfully.");
    // Admitted as the host's: an edit of a listed file is not presented again either (OpenCode re-reads it every step).
    await tree.write("repo/pkg/api/AGENTS.md", "API RULES v2\n");
    await tree.setMtime("repo/pkg/api/AGENTS.md", 1_900_000_000);
    const again = await after(hooks, "edit", { filePath: tree.path("repo/pkg/api/x.ts") }, { output: "Edit applied successfully." });
    expect(again.output).toBe("Edit applied successfully.");
    // A directory no entry lists still gets its file.
    const ovr = await after(hooks, "write", { filePath: tree.path("repo/ovr/n.ts") }, { output: "Wrote file successfully." });
    expect(ovr.output).toContain("OVERRIDE RULES");
  });

  it("skips what OpenCode attached to a read itself, and does not attach it on a later write", async () => {
    const tree = await repo();
    const { hooks } = agents(tree, {}, tree.path("repo/pkg"));
    const native = [{ path: tree.path("repo/pkg/api/AGENTS.md"), body: "API RULES\n" }];
    const read = await after(hooks, "read", { filePath: tree.path("repo/pkg/api/x.ts") }, readResult(tree.path("repo/pkg/api/x.ts"), native));
    expect(read.output).toBe(readResult(tree.path("repo/pkg/api/x.ts"), native).output);
    const write = await after(hooks, "write", { filePath: tree.path("repo/pkg/api/y.ts") }, { output: "Wrote file successfully." });
    expect(write.output).toBe("Wrote file successfully.");
  });

  it("adds the AGENTS.md of a file read outside cwd within the root, and lists it in metadata.loaded", async () => {
    const tree = await repo();
    const { hooks } = agents(tree, {}, tree.path("repo/pkg"));
    const read = await after(hooks, "read", { filePath: tree.path("repo/other/o.ts") }, readResult(tree.path("repo/other/o.ts")));
    expect(read.output.endsWith(`\n\n${reminderFor([{ path: tree.path("repo/other/AGENTS.md"), body: "OTHER RULES\n" }])}`)).toBe(true);
    expect((read.metadata as { loaded: string[] }).loaded).toEqual([tree.path("repo/other/AGENTS.md")]);
  });

  it("presents AGENTS.override.md (in place of AGENTS.md in its directory)", async () => {
    const tree = await repo();
    const { hooks } = agents(tree);
    const write = await after(hooks, "write", { filePath: tree.path("repo/ovr/n.ts") }, { output: "ok" });
    expect(write.output).toBe(`ok\n\n${reminderFor([{ path: tree.path("repo/ovr/AGENTS.override.md"), body: "OVERRIDE RULES\n" }])}`);
  });

  it("presents a file edited mid-session again", async () => {
    const tree = await repo();
    // Edits arrive between model steps (seconds apart); the test skips the 50 ms trust window.
    const { hooks } = agents(tree, { config: { cache: { revalidateMs: 0 } } });
    await after(hooks, "write", { filePath: tree.path("repo/other/n.ts") }, { output: "ok" });
    await tree.write("repo/other/AGENTS.md", "OTHER RULES v2\n");
    await tree.setMtime("repo/other/AGENTS.md", 1_900_000_000);
    const edit = await after(hooks, "edit", { filePath: tree.path("repo/other/o.ts") }, { output: "ok" });
    expect(edit.output).toBe(`ok\n\n${reminderFor([{ path: tree.path("repo/other/AGENTS.md"), body: "OTHER RULES v2\n" }])}`);
  });

  it("removes OpenCode's own re-attachment of a file the model already got from the plugin", async () => {
    const tree = await repo();
    const { hooks } = agents(tree, {}, tree.path("repo/pkg"));
    await after(hooks, "write", { filePath: tree.path("repo/pkg/api/new.ts") }, { output: "ok" });
    const target = tree.path("repo/pkg/api/x.ts");
    const native = [{ path: tree.path("repo/pkg/api/AGENTS.md"), body: "API RULES\n" }];
    const read = await after(hooks, "read", { filePath: target }, readResult(target, native));
    expect(read.output).toBe(readResult(target).output);
    expect((read.metadata as { loaded: string[] }).loaded).toEqual([tree.path("repo/pkg/api/AGENTS.md")]);
  });

  it("keeps OpenCode's attachment of a version newer than the one the plugin delivered", async () => {
    const tree = await repo();
    const { hooks } = agents(tree, { config: { cache: { revalidateMs: 0 } } }, tree.path("repo/pkg"));
    await after(hooks, "write", { filePath: tree.path("repo/pkg/api/new.ts") }, { output: "ok" });
    await tree.write("repo/pkg/api/AGENTS.md", "API RULES v2\n");
    await tree.setMtime("repo/pkg/api/AGENTS.md", 1_900_000_000);
    const target = tree.path("repo/pkg/api/x.ts");
    const native = [{ path: tree.path("repo/pkg/api/AGENTS.md"), body: "API RULES v2\n" }];
    const read = await after(hooks, "read", { filePath: target }, readResult(target, native));
    expect(read.output).toBe(readResult(target, native).output);
    expect((await after(hooks, "edit", { filePath: target }, { output: "ok" })).output).toBe("ok");
  });

  it("treats an explicit read of an instruction file as loaded", async () => {
    const tree = await repo();
    const { hooks } = agents(tree);
    const read = await after(hooks, "read", { filePath: tree.path("repo/other/AGENTS.md") }, readResult(tree.path("repo/other/AGENTS.md")));
    expect(read.output).toBe(readResult(tree.path("repo/other/AGENTS.md")).output);
    expect((await after(hooks, "write", { filePath: tree.path("repo/other/n.ts") }, { output: "ok" })).output).toBe("ok");
  });

  it("covers apply_patch and glob", async () => {
    const tree = await repo();
    const { hooks } = agents(tree);
    const patch = await after(
      hooks,
      "apply_patch",
      { patchText: "*** Begin Patch\n*** Add File: other/sub/new.txt\n+x\n*** End Patch" },
      {
        output: "Success. Updated the following files:\nA other/sub/new.txt",
        metadata: { files: [{ filePath: tree.path("repo/other/sub/new.txt"), relativePath: "other/sub/new.txt", type: "add" }] },
      },
    );
    expect(patch.output).toContain(`Instructions from: ${tree.path("repo/other/AGENTS.md")}`);
    const glob = await after(hooks, "glob", { pattern: "*.ts", path: tree.path("repo/ovr") }, { output: "", metadata: { count: 0, truncated: false } });
    expect(glob.output).toContain(`Instructions from: ${tree.path("repo/ovr/AGENTS.override.md")}`);
    expect((await after(hooks, "bash", { command: "ls other" }, { output: "o.ts" })).output).toBe("o.ts");
  });

  it('appends spec §11.2 paths instead of bodies with mode "paths"', async () => {
    const tree = await repo();
    const { hooks } = agents(tree, { mode: "paths" });
    const write = await after(hooks, "write", { filePath: tree.path("repo/other/n.ts") }, { output: "ok" });
    expect(write.output).toMatch(
      new RegExp(
        `^ok\\n\\n<system-reminder type="agents\\.resolve\\.paths">\\nAdditional AGENTS\\.md may apply for this path:\\n- ${tree.path("repo/other/AGENTS.md").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(mtime: \\d+\\)\\nRead and apply these files before editing files in this scope\\.\\n</system-reminder>$`,
      ),
    );
  });

  it("keeps separate state per OpenCode session", async () => {
    const tree = await repo();
    const { hooks } = agents(tree);
    await after(hooks, "write", { filePath: tree.path("repo/other/n.ts") }, { output: "ok" }, "ses_a");
    expect((await after(hooks, "write", { filePath: tree.path("repo/other/n.ts") }, { output: "ok" }, "ses_b")).output).toContain("OTHER RULES");
  });
});

describe("compaction, events and persistence", () => {
  it("pushes the compaction context and re-injects after session.compacted", async () => {
    const tree = await repo();
    const { hooks } = agents(tree);
    await after(hooks, "write", { filePath: tree.path("repo/other/n.ts") }, { output: "ok" });
    const output: Parameters<Compacting>[1] = { context: [] };
    await hooks["experimental.session.compacting"]!({ sessionID: SESSION }, output);
    expect(output.context).toHaveLength(1);
    expect(output.context[0]).toContain(`Instructions from: ${tree.path("repo/other/AGENTS.md")}\nOTHER RULES`);
    expect(output.context[0]).not.toContain("ROOT RULES");
    expect(output.context[0]).not.toContain("PKG RULES");
    const event: Parameters<EventHook>[0] = { event: { type: "session.compacted", properties: { sessionID: SESSION } } };
    await hooks.event!(event);
    expect((await after(hooks, "edit", { filePath: tree.path("repo/other/o.ts") }, { output: "ok" })).output).toContain("OTHER RULES");
  });

  it("offers again what a pruned tool result carried", async () => {
    const tree = await repo();
    const { hooks } = agents(tree);
    const write = await after(hooks, "write", { filePath: tree.path("repo/other/n.ts") }, { output: "ok" });
    const part = {
      id: "prt_1",
      sessionID: SESSION,
      messageID: "msg_1",
      type: "tool" as const,
      callID: "call_x",
      tool: "write",
      state: {
        status: "completed" as const,
        input: {},
        output: "[Old tool result content cleared]",
        title: "",
        metadata: write.metadata as Record<string, unknown>,
        time: { start: 1, end: 2, compacted: 3 },
      },
    };
    const messages = [
      { info: { id: "msg_1", sessionID: SESSION, role: "assistant" }, parts: [part] },
    ] as unknown as Parameters<MessagesTransform>[1]["messages"];
    await hooks["experimental.chat.messages.transform"]!({}, { messages });
    expect((await after(hooks, "edit", { filePath: tree.path("repo/other/o.ts") }, { output: "ok" })).output).toContain("OTHER RULES");
  });

  it("persists state atomically, so a restarted OpenCode does not repeat files; session.deleted drops it", async () => {
    const tree = await repo();
    const first = agents(tree);
    await after(first.hooks, "write", { filePath: tree.path("repo/other/n.ts") }, { output: "ok" });
    await first.hooks.dispose!();
    const statePath = first.agents.statePath(SESSION);
    expect(existsSync(statePath)).toBe(true);
    const second = agents(tree);
    expect((await after(second.hooks, "edit", { filePath: tree.path("repo/other/o.ts") }, { output: "ok" })).output).toBe("ok");
    const deleted: Parameters<EventHook>[0] = {
      event: {
        type: "session.deleted",
        properties: { info: { id: SESSION, projectID: "p", directory: tree.path("repo"), title: "t", version: "1", time: { created: 1, updated: 1 } } },
      },
    };
    await second.hooks.event!(deleted);
    expect(existsSync(statePath)).toBe(false);
    expect((await after(second.hooks, "edit", { filePath: tree.path("repo/other/o.ts") }, { output: "ok" })).output).toContain("OTHER RULES");
  });

  it("never fails a tool call", async () => {
    const tree = await repo();
    // A state directory below a regular file cannot be created (ENOTDIR).
    const { hooks } = agents(tree, { stateDir: tree.path("repo/AGENTS.md/state") });
    const output = await after(hooks, "write", { filePath: tree.path("repo/other/n.ts") }, { output: "ok" });
    expect(output.output).toContain("OTHER RULES");
    await expect(after(hooks, "read", { filePath: 42 }, { output: "x", metadata: null as never })).resolves.toBeDefined();
  });
});

describe("stripNativeBlocks", () => {
  it("removes only the named blocks and leaves an unrecognised output alone", () => {
    const body = "<path>/r/a/x.ts</path>";
    const both = `${body}\n\n<system-reminder>\nInstructions from: /r/a/b/AGENTS.md\nB\n\n\nInstructions from: /r/a/AGENTS.md\nA\n\n</system-reminder>`;
    expect(stripNativeBlocks(both, ["/r/a/b/AGENTS.md"], ["/r/a/b/AGENTS.md", "/r/a/AGENTS.md"])).toBe(
      `${body}\n\n<system-reminder>\nInstructions from: /r/a/AGENTS.md\nA\n\n</system-reminder>`,
    );
    expect(stripNativeBlocks(both, ["/r/a/AGENTS.md"], ["/r/a/b/AGENTS.md", "/r/a/AGENTS.md"])).toBe(
      `${body}\n\n<system-reminder>\nInstructions from: /r/a/b/AGENTS.md\nB\n\n</system-reminder>`,
    );
    expect(stripNativeBlocks(both, ["/r/a/b/AGENTS.md", "/r/a/AGENTS.md"], ["/r/a/b/AGENTS.md", "/r/a/AGENTS.md"])).toBe(body);
    expect(stripNativeBlocks("no reminder", ["/r/a/AGENTS.md"], ["/r/a/AGENTS.md"])).toBe("no reminder");
  });
});
