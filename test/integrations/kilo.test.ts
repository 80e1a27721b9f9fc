/**
 * `agentsmd/kilo`: the OpenCode family's plugin with Kilo's description (integrations/kilo): what
 * Kilo loads itself (preset `kilo`: its switches, config dir, handoff, config variables), its tool
 * names, bash commands read for paths, its own state directory. The shared machinery is tested in
 * opencode.test.ts; the real Kilo 7.7.7 in e2e/kilo.
 */
import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import type { Hooks, PluginInput } from "@opencode-ai/plugin";
import plugin, { KiloAgents, KiloAgentsMdPlugin, kiloToolTargets } from "../../src/integrations/kilo/index.js";
import { createTree, type Tree } from "../helpers/tree.js";

type After = NonNullable<Hooks["tool.execute.after"]>;

function kilo(tree: Tree, env: Record<string, string> = {}, directory = tree.path("repo")): { agents: KiloAgents; hooks: Hooks } {
  const agents = new KiloAgents({ directory, worktree: tree.path("repo"), home: tree.home, env }, { stateDir: tree.path("state") });
  return { agents, hooks: agents.hooks() };
}

let calls = 0;
/** tool.execute.after as Kilo runs it: the output object is the tool result, amended in place. */
async function run(hooks: Hooks, tool: string, args: Record<string, unknown>, output = "ok"): Promise<Parameters<After>[1]> {
  const result = { title: "", output, metadata: {} };
  await hooks["tool.execute.after"]!({ tool, sessionID: "ses_kilo", callID: `call_${++calls}`, args }, result);
  return result;
}

describe("agentsmd/kilo", () => {
  it("default-exports { id, server }; option errors name kilo.json", async () => {
    expect(plugin.id).toBe("agentsmd");
    expect(plugin.server).toBe(KiloAgentsMdPlugin);
    const tree = await createTree({ "repo/.git/": null });
    const input = { directory: tree.path("repo"), worktree: tree.path("repo") } as PluginInput;
    await expect(plugin.server(input, { mode: "everything" })).rejects.toThrow(/invalid agentsmd\/kilo plugin options[\s\S]*mode/);
    const hooks = await plugin.server(input, {});
    await hooks.dispose?.();
  });

  it("reads Kilo's file tools; list is not one of Kilo's", () => {
    expect(kiloToolTargets("read", { filePath: "a.ts" }, {}, "/repo")).toEqual(["/repo/a.ts"]);
    expect(kiloToolTargets("grep", { pattern: "x" }, {}, "/repo")).toEqual(["/repo"]);
    expect(kiloToolTargets("list", { path: "src" }, {}, "/repo")).toEqual([]);
  });

  it("delivers a nested file after a bash command reads below it (in its workdir), once", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "ROOT\n", "repo/lib/AGENTS.md": "LIB RULES\n", "repo/lib/a.ts": "x\n" });
    const { hooks } = kilo(tree);
    const first = await run(hooks, "bash", { command: "cat a.ts", workdir: "lib" }, "x\n");
    expect(first.output).toBe(`x\n\n\n<system-reminder>\nInstructions from: ${tree.path("repo/lib/AGENTS.md")}\nLIB RULES\n\n</system-reminder>`);
    expect((await run(hooks, "bash", { command: "sed -n 1p lib/a.ts" })).output).toBe("ok");
    // A command it cannot read with certainty brings nothing.
    expect((await run(hooks, "bash", { command: "eval $X" })).output).toBe("ok");
  });

  it("never repeats what Kilo loaded itself: its system files under its own switches, its handoff", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/CLAUDE.md": "ROOT CC\n", "repo/pkg/CLAUDE.md": "PKG CC\n", "repo/pkg/a.ts": "" });
    await tree.write(".test-home/.claude/CLAUDE.md", "GLOBAL CC\n");
    const on = kilo(tree, {}, tree.path("repo/pkg"));
    expect(await on.agents.systemPaths()).toEqual([`${tree.home}/.claude/CLAUDE.md`, tree.path("repo/pkg/CLAUDE.md"), tree.path("repo/CLAUDE.md")]);
    expect((await run(on.hooks, "edit", { filePath: tree.path("repo/pkg/a.ts") })).output).toBe("ok");
    // KILO_DISABLE_CLAUDE_CODE: Kilo loads no CLAUDE.md, so the plugin's names leave them out too.
    const off = kilo(tree, { KILO_DISABLE_CLAUDE_CODE: "1" }, tree.path("repo/pkg"));
    expect(await off.agents.systemPaths()).toEqual([]);
    expect((await run(off.hooks, "edit", { filePath: tree.path("repo/pkg/a.ts") })).output).toBe("ok");
    // After Kilo's Claude Code migration ~/.claude/CLAUDE.md is no longer Kilo's global file.
    await tree.write(".test-home/.local/state/kilo/claude-migration.json", "{}");
    expect(await on.agents.systemPaths()).toEqual([tree.path("repo/pkg/CLAUDE.md"), tree.path("repo/CLAUDE.md")]);
  });

  it("never delivers a file Kilo's config instructions list: kilo.json, .kilo/kilo.jsonc, its legacy .kilo/rules", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/AGENTS.md": "ROOT\n",
      "repo/kilo.json": JSON.stringify({ instructions: ["pkg/AGENTS.md"] }),
      "repo/.kilo/kilo.jsonc": '{ "instructions": ["docs/*/AGENTS.md",] } // jsonc\n',
      "repo/.kilo/rules/style.md": "STYLE\n",
      "repo/pkg/AGENTS.md": "PKG\n",
      "repo/pkg/a.ts": "",
      "repo/docs/guide/AGENTS.md": "GUIDE\n",
      "repo/lib/AGENTS.md": "LIB\n",
    });
    const { agents, hooks } = kilo(tree, { KILO_TEST_MANAGED_CONFIG_DIR: tree.path("managed") });
    expect(await agents.systemPaths()).toEqual([
      tree.path("repo/AGENTS.md"),
      tree.path("repo/.kilo/rules/style.md"),
      tree.path("repo/pkg/AGENTS.md"),
      tree.path("repo/docs/guide/AGENTS.md"),
    ]);
    expect((await run(hooks, "edit", { filePath: tree.path("repo/pkg/a.ts") })).output).toBe("ok");
    expect((await run(hooks, "write", { filePath: tree.path("repo/docs/guide/b.md") })).output).toBe("ok");
    expect((await run(hooks, "write", { filePath: tree.path("repo/lib/c.ts") })).output).toContain("LIB");
  });

  it("gives a nested file as Kilo would show it: {file:} inlined; a file with {env:} is nothing to give", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/style.md": "STYLE\n",
      "repo/a/AGENTS.md": "A uses {file:../style.md}\n",
      "repo/a/x.ts": "",
      "repo/b/AGENTS.md": "B {env:HOME}\n",
      "repo/b/y.ts": "",
    });
    const { hooks } = kilo(tree);
    expect((await run(hooks, "write", { filePath: tree.path("repo/a/x.ts") })).output).toContain(
      `Instructions from: ${tree.path("repo/a/AGENTS.md")}\nA uses STYLE\n`,
    );
    expect((await run(hooks, "write", { filePath: tree.path("repo/b/y.ts") })).output).toBe("ok");
  });

  it("keeps its conversations under $XDG_STATE_HOME/agentsmd/kilo", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/d/AGENTS.md": "D\n", "repo/d/f.ts": "" });
    const agents = new KiloAgents({ directory: tree.path("repo"), worktree: tree.path("repo"), home: tree.home, env: { XDG_STATE_HOME: tree.path("xdg") } });
    expect(agents.stateDir).toBe(tree.path("xdg/agentsmd/kilo"));
    await run(agents.hooks(), "read", { filePath: tree.path("repo/d/f.ts") });
    expect(existsSync(agents.statePath("ses_kilo"))).toBe(true);
  });
});
