import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { createTree, makeSymlink, runCli, type Tree } from "../helpers/tree.js";
import { CLAUDE_CONTEXT_LIMIT, handleClaudeCodeHook, type ClaudeHookOptions } from "../../src/integrations/claude-code/index.js";
import { hookStatePath, parseHookInput } from "../../src/integrations/claude-code/input.js";
import { packContext } from "../../src/integrations/host/pack.js";

const BIN = join(import.meta.dirname, "../../dist/cli/bin.js");

/** A hook runner bound to one tree: every event of one conversation. */
function hooks(tree: Tree, cwdRel = "r", extra: Partial<ClaudeHookOptions> & { env?: Record<string, string> } = {}) {
  const cwd = tree.path(cwdRel);
  const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state"), ...extra.env };
  const options: ClaudeHookOptions = { home: tree.home, ...extra, env };
  const base = { session_id: "sess-1", transcript_path: tree.path("transcript.jsonl"), cwd };
  const context = async (input: Record<string, unknown>) => {
    const output = await handleClaudeCodeHook({ ...base, ...input }, options);
    return output?.hookSpecificOutput.additionalContext ?? "";
  };
  return {
    cwd,
    env,
    start: (source = "startup", more: Record<string, unknown> = {}) => context({ hook_event_name: "SessionStart", source, ...more }),
    tool: (tool_name: string, tool_input: Record<string, unknown>, more: Record<string, unknown> = {}) =>
      context({ hook_event_name: "PostToolUse", tool_name, tool_input, tool_response: {}, tool_use_id: "t1", ...more }),
    read: (rel: string, more: Record<string, unknown> = {}) =>
      context({
        hook_event_name: "PostToolUse",
        tool_name: "Read",
        tool_input: { file_path: tree.path(rel) },
        tool_response: { type: "text", file: { filePath: tree.path(rel), content: "", numLines: 1, startLine: 1, totalLines: 1 } },
        ...more,
      }),
    prompt: (more: Record<string, unknown> = {}) => context({ hook_event_name: "UserPromptSubmit", prompt: "go on", ...more }),
    raw: (input: Record<string, unknown>) => handleClaudeCodeHook({ ...base, ...input }, options),
  };
}

/** A repo with a CLAUDE.md at the root (so Claude Code's own AGENTS.md loading is off). */
const MIXED = {
  "r/.git/": null,
  "r/CLAUDE.md": "ROOT-CLAUDE\n",
  "r/AGENTS.md": "ROOT-AGENTS\n",
  "r/pkg/AGENTS.md": "PKG-AGENTS\n",
  "r/pkg/CLAUDE.md": "PKG-CLAUDE\n",
  "r/pkg/a/AGENTS.md": "A-AGENTS\n",
  "r/pkg/a/src/x.ts": "x\n",
  "r/pkg/b/y.ts": "y\n",
  "r/docs/AGENTS.md": "DOCS-AGENTS\n",
  "r/nb/AGENTS.md": "NB-AGENTS\n",
  "r/nb/n.ipynb": "{}\n",
};

describe("hook claude-code: events", () => {
  it("SessionStart startup: the AGENTS.md chain of cwd, never CLAUDE.md", async () => {
    const tree = await createTree(MIXED);
    const h = hooks(tree, "r/pkg");
    const text = await h.start();
    expect(text).toContain(`Contents of ${tree.path("r/AGENTS.md")} (`);
    expect(text).toContain("ROOT-AGENTS");
    expect(text).toContain("PKG-AGENTS");
    expect(text).not.toContain("CLAUDE");
    // nearest first
    expect(text.indexOf("PKG-AGENTS")).toBeLessThan(text.indexOf("ROOT-AGENTS"));
    expect(text).not.toContain("A-AGENTS");
    const output = await h.raw({ hook_event_name: "SessionStart", source: "clear" });
    expect(output).toEqual({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: expect.stringContaining("ROOT-AGENTS") } });
  });

  it("PostToolUse: each file once, for every file tool; Grep/Glob only with a path; edited files come again", async () => {
    const tree = await createTree(MIXED);
    const h = hooks(tree);
    expect(await h.start()).toContain("ROOT-AGENTS");
    const first = await h.read("r/pkg/a/src/x.ts");
    expect(first).toContain("A-AGENTS");
    expect(first).toContain("PKG-AGENTS");
    expect(first).not.toContain("ROOT-AGENTS");
    expect(first).not.toContain("CLAUDE");
    expect(first.indexOf("A-AGENTS")).toBeLessThan(first.indexOf("PKG-AGENTS"));
    expect(await h.read("r/pkg/a/src/x.ts")).toBe("");
    expect(await h.tool("Edit", { file_path: tree.path("r/pkg/b/y.ts"), old_string: "y", new_string: "z", replace_all: false })).toBe("");
    expect(await h.tool("Grep", { pattern: "x" })).toBe("");
    expect(await h.tool("Bash", { command: "cat docs/x" })).toBe("");
    expect(await h.tool("Glob", { pattern: "*.md", path: "docs" })).toContain("DOCS-AGENTS");
    expect(await h.tool("NotebookEdit", { notebook_path: tree.path("r/nb/n.ipynb"), new_source: "1" })).toContain("NB-AGENTS");

    await tree.write("r/pkg/a/AGENTS.md", "A-AGENTS v2\n");
    await tree.setMtime("r/pkg/a/AGENTS.md", 2_000_000_000);
    const again = await h.tool("Write", { file_path: tree.path("r/pkg/a/src/new.ts"), content: "n" });
    expect(again).toContain("A-AGENTS v2");
    expect(again).not.toContain("PKG-AGENTS");
    expect(await h.tool("MultiEdit", { file_path: tree.path("r/pkg/a/src/x.ts"), edits: [] })).toBe("");
  });

  it("a Read of an AGENTS.md itself admits it", async () => {
    const tree = await createTree(MIXED);
    const h = hooks(tree);
    await h.start();
    expect(await h.read("r/docs/AGENTS.md")).toBe("");
    expect(await h.tool("Write", { file_path: tree.path("r/docs/new.md"), content: "" })).toBe("");
  });

  it("never repeats an AGENTS.md that a CLAUDE file of its directory links or imports", async () => {
    const tree = await createTree({
      "r/.git/": null,
      "r/AGENTS.md": "ROOT-AGENTS\n",
      "r/CLAUDE.md": "See @AGENTS.md\n",
      "r/s/AGENTS.md": "S-AGENTS\n",
      "r/s/f.ts": "",
    });
    await makeSymlink(tree, "r/s/CLAUDE.md", "AGENTS.md");
    const h = hooks(tree);
    expect(await h.start()).toBe("");
    expect(await h.read("r/s/f.ts")).toBe("");
  });

  it("resume prints only what changed; compact brings back the chain and the nested files, most specific first", async () => {
    const tree = await createTree(MIXED);
    const h = hooks(tree);
    await h.start();
    await h.read("r/pkg/a/src/x.ts");
    expect(await h.start("resume")).toBe("");
    await tree.write("r/AGENTS.md", "ROOT-AGENTS v2\n");
    await tree.setMtime("r/AGENTS.md", 2_000_000_000);
    const resumed = await h.start("resume");
    expect(resumed).toContain(tree.path("r/AGENTS.md"));
    expect(resumed).toContain("session.resume.diff");

    const compacted = await h.start("compact");
    for (const marker of ["ROOT-AGENTS v2", "PKG-AGENTS", "A-AGENTS"]) expect(compacted).toContain(marker);
    expect(compacted.indexOf("A-AGENTS")).toBeLessThan(compacted.indexOf("PKG-AGENTS"));
    expect(compacted.indexOf("PKG-AGENTS")).toBeLessThan(compacted.indexOf("ROOT-AGENTS"));
    expect(compacted).not.toContain("DOCS-AGENTS");
    expect(compacted).not.toContain("CLAUDE");
    // admitted again: no second copy on the next read
    expect(await h.read("r/pkg/a/src/x.ts")).toBe("");
  });

  it("UserPromptSubmit: one short notice per change or deletion", async () => {
    const tree = await createTree(MIXED);
    const h = hooks(tree);
    await h.start();
    await h.read("r/pkg/a/src/x.ts");
    expect(await h.prompt()).toBe("");
    await tree.write("r/pkg/AGENTS.md", "PKG v2\n");
    await tree.setMtime("r/pkg/AGENTS.md", 2_000_000_000);
    await tree.remove("r/pkg/a/AGENTS.md");
    const notice = await h.prompt();
    expect(notice).toContain(`${tree.path("r/pkg/AGENTS.md")} was edited`);
    expect(notice).toContain(`${tree.path("r/pkg/a/AGENTS.md")} was deleted`);
    expect(notice).not.toContain("PKG v2");
    expect(notice.length).toBeLessThan(1000);
    expect(await h.prompt()).toBe("");
    // the new text comes with the next file operation there
    expect(await h.read("r/pkg/b/y.ts")).toContain("PKG v2");
  });

  it("Claude Code's own AGENTS.md loading (no CLAUDE file): nothing duplicated, nested files restored after compaction", async () => {
    const tree = await createTree({
      "r/.git/": null,
      "r/AGENTS.md": "ROOT-AGENTS\n",
      "r/n/AGENTS.md": "N-AGENTS\n",
      "r/n/f.ts": "",
      "r/w/AGENTS.md": "W-AGENTS\n",
    });
    const h = hooks(tree);
    expect(await h.start()).toBe("");
    expect(await h.read("r/n/f.ts")).toBe(""); // Claude Code attached it itself
    expect(await h.tool("Write", { file_path: tree.path("r/w/new.ts"), content: "" })).toBe(""); // it will on the first Read
    const compacted = await h.start("compact");
    expect(compacted).toContain("N-AGENTS");
    expect(compacted).not.toContain("ROOT-AGENTS");
    expect(compacted).not.toContain("W-AGENTS");

    // An older Claude Code has no such support: the hook delivers.
    const old = hooks(tree, "r", { env: { AGENTSMD_CLAUDE_CODE_VERSION: "2.1.197" } });
    const text = await old.start("startup", { session_id: "old-1" });
    expect(text).toContain("ROOT-AGENTS");
    // The version is also read from the transcript.
    await tree.write("transcript.jsonl", `${JSON.stringify({ type: "user", version: "2.1.200", message: {} })}\n`);
    expect(await hooks(tree).start("startup", { session_id: "old-2" })).toContain("ROOT-AGENTS");
    // Forced modes.
    expect(await hooks(tree, "r", { agentsMd: "inject" }).start("startup", { session_id: "f-1", transcript_path: undefined })).toContain("ROOT-AGENTS");
    expect(
      await hooks(tree, "r", { env: { AGENTSMD_CLAUDE_AGENTS_MD: "native", AGENTSMD_CLAUDE_CODE_VERSION: "2.1.197" } }).start("startup", { session_id: "f-2" }),
    ).toBe("");
  });

  it("with Claude Code's own AGENTS.md loading on, an AGENTS.md next to a nested CLAUDE.md is still delivered (Claude Code skips it)", async () => {
    const tree = await createTree({
      "r/.git/": null,
      "r/AGENTS.md": "ROOT-AGENTS\n",
      "r/n/AGENTS.md": "N-AGENTS\n",
      "r/n/CLAUDE.md": "N-CLAUDE\n",
      "r/n/f.ts": "",
      "r/m/AGENTS.md": "M-AGENTS\n",
      "r/m/f.ts": "",
    });
    const h = hooks(tree);
    expect(await h.start()).toBe("");
    const text = await h.read("r/n/f.ts");
    expect(text).toContain("N-AGENTS");
    expect(text).not.toContain("N-CLAUDE");
    expect(await h.read("r/m/f.ts")).toBe("");
    // "claude-md-and-agents-md": Claude Code loads both itself.
    await tree.write(
      ".test-home/.claude/settings.json",
      JSON.stringify({ pluginConfigs: { "cc-plugin-agents-md@builtin": { options: { instructionFiles: "claude-md-and-agents-md" } } } }),
    );
    const both = hooks(tree);
    expect(await both.start("startup", { session_id: "both-1" })).toBe("");
    expect(await both.read("r/n/f.ts", { session_id: "both-1" })).toBe("");
  });

  it("a CLAUDE.md that claudeMdExcludes hides does not switch Claude Code's own AGENTS.md loading off: nothing to inject at start", async () => {
    const tree = await createTree({ "r/.git/": null, "r/CLAUDE.md": "ROOT-CLAUDE\n", "r/AGENTS.md": "ROOT-AGENTS\n" });
    expect(await hooks(tree, "r").start("startup", { session_id: "excl-1" })).toContain("ROOT-AGENTS");
    await tree.write(".test-home/.claude/settings.json", JSON.stringify({ claudeMdExcludes: ["**/r/CLAUDE.md"] }));
    expect(await hooks(tree, "r").start("startup", { session_id: "excl-2" })).toBe("");
  });

  it("a subagent has its own state; its first tool call brings the chain", async () => {
    const tree = await createTree(MIXED);
    const h = hooks(tree);
    await h.start();
    await h.read("r/pkg/a/src/x.ts");
    const sub = await h.read("r/pkg/a/src/x.ts", { agent_id: "agent-7", agent_type: "Explore" });
    for (const marker of ["ROOT-AGENTS", "PKG-AGENTS", "A-AGENTS"]) expect(sub).toContain(marker);
    expect(await h.read("r/pkg/a/src/x.ts", { agent_id: "agent-7" })).toBe("");
    expect(hookStatePath({ session_id: "../x", agent_id: "a/b" }, "/s")).toMatch(/^\/s\/[^/]+\.json$/);
  });

  it("keeps every answer under 10,000 characters: whole files nearest first, then the paths of the rest, each named once", async () => {
    const big = (label: string, size: number) => `${label}\n${"x".repeat(size)}\n`;
    const tree = await createTree({
      "r/.git/": null,
      "r/CLAUDE.md": "c\n",
      "r/AGENTS.md": big("ROOT", 2500),
      "r/a/AGENTS.md": big("A", 2500),
      "r/a/b/AGENTS.md": big("B", 2500),
      "r/a/b/c/AGENTS.md": big("C", 12_000),
      "r/a/b/c/d/AGENTS.md": big("D", 2500),
      "r/a/b/c/d/f.ts": "",
    });
    const h = hooks(tree, "r");
    expect(await h.start()).toContain("ROOT");
    const text = await h.read("r/a/b/c/d/f.ts");
    expect(text.length).toBeLessThan(CLAUDE_CONTEXT_LIMIT);
    expect(text).toContain("\nD\n");
    expect(text).toContain("\nB\n");
    expect(text).toContain("\nA\n");
    expect(text).not.toContain("\nC\n");
    expect(text).toContain(`\n- ${tree.path("r/a/b/c/AGENTS.md")}`);
    expect(text.indexOf("\nD\n")).toBeLessThan(text.indexOf("\nB\n"));
    // named once; still not admitted, so reading it admits it
    expect(await h.tool("Write", { file_path: tree.path("r/a/b/c/d/g.ts"), content: "" })).toBe("");
    expect(await h.read("r/a/b/c/AGENTS.md")).toBe("");
  });
});

describe("hook claude-code: VS Code agent hooks", () => {
  it("accepts the camelCase payload and editFiles with several files", async () => {
    const tree = await createTree(MIXED);
    const options = { home: tree.home, env: { HOME: tree.home, XDG_STATE_HOME: tree.path("state") } };
    const base = { sessionId: "vs-1", cwd: tree.path("r"), timestamp: "2026-11-22T00:00:00Z", transcript_path: tree.path("t.json") };
    const start = await handleClaudeCodeHook({ ...base, hookEventName: "SessionStart", source: "new" }, options);
    expect(start?.hookSpecificOutput.additionalContext).toContain("ROOT-AGENTS");
    const edit = await handleClaudeCodeHook(
      { ...base, hookEventName: "PostToolUse", tool_name: "editFiles", tool_input: { files: [tree.path("r/docs/a.md"), tree.path("r/nb/n.ipynb")] } },
      options,
    );
    expect(edit?.hookSpecificOutput.additionalContext).toContain("DOCS-AGENTS");
    expect(edit?.hookSpecificOutput.additionalContext).toContain("NB-AGENTS");
  });
});

describe("hook claude-code: large trees", () => {
  it("a file too large to show is named, and later files still arrive", async () => {
    const tree = await createTree({
      "r/.git/": null,
      "r/CLAUDE.md": "c\n",
      "r/huge/AGENTS.md": `HUGE\n${"h".repeat(300 * 1024)}\n`,
      "r/huge/f.ts": "",
      "r/small/AGENTS.md": "SMALL-AGENTS\n",
      "r/small/g.ts": "",
    });
    const h = hooks(tree);
    await h.start();
    const huge = await h.read("r/huge/f.ts");
    expect(huge.length).toBeLessThan(CLAUDE_CONTEXT_LIMIT);
    expect(huge).toContain(`- ${tree.path("r/huge/AGENTS.md")}`);
    expect(await h.read("r/small/g.ts")).toContain("SMALL-AGENTS");
  });

  it("a resume notice about many files stays under the limit", async () => {
    const spec: Record<string, string | null> = { "r/.git/": null, "r/CLAUDE.md": "c\n" };
    let rel = "r";
    for (let depth = 0; depth < 120; depth++) {
      rel += `/directory-with-a-long-name-${depth}`;
      spec[`${rel}/AGENTS.md`] = `level ${depth}\n`;
    }
    const tree = await createTree(spec);
    const h = hooks(tree, rel, { budget: 4_000 });
    await h.start();
    for (let depth = 0, dir = "r"; depth < 120; depth++) {
      dir += `/directory-with-a-long-name-${depth}`;
      await tree.setMtime(`${dir}/AGENTS.md`, 2_000_000_000);
    }
    const resumed = await h.start("resume");
    expect(resumed.length).toBeLessThanOrEqual(4_000);
    expect(resumed).toContain("cut here");
  });
});

describe("hook claude-code: packing", () => {
  it("never exceeds the budget, shows whole files in the order given, names the rest", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ dir: fc.stringMatching(/^[a-z]{1,30}$/), size: fc.integer({ min: 0, max: 12_000 }) }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 500, max: 9_999 }),
        (files, budget) => {
          const pieces = files.map((file, index) => ({ path: `/r/${file.dir}${index}/AGENTS.md`, content: "y".repeat(file.size) }));
          const packed = packContext("header", pieces, budget);
          expect(packed.text.length).toBeLessThanOrEqual(budget);
          expect(packed.shown.length + packed.named.length).toBe(pieces.length);
          const order = pieces.map((piece) => piece.path);
          expect(packed.shown).toEqual(order.filter((path) => packed.shown.includes(path)));
          for (const path of packed.shown) expect(packed.text).toContain(`Contents of ${path} (`);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("hook claude-code: CLI", () => {
  it("malformed input: exit 0, no stdout, one stderr line; other events: nothing at all", async () => {
    for (const stdin of ["", "not json", "[]", '{"hook_event_name":"SessionStart"}']) {
      const run = await runCli(["hook", "claude-code"], { stdin, env: {} });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(/^agentsmd hook claude-code: /);
    }
    const tree = await createTree(MIXED);
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    for (const event of ["PreCompact", "Stop", "InstructionsLoaded"]) {
      const run = await runCli(["hook", "claude-code"], { stdin: JSON.stringify({ session_id: "s", hook_event_name: event, cwd: tree.path("r") }), env });
      expect(run).toEqual({ code: 0, stdout: "", stderr: "" });
    }
    const run = await runCli(["hook", "claude-code"], {
      stdin: JSON.stringify({ session_id: "s", hook_event_name: "SessionStart", source: "startup", cwd: tree.path("r") }),
      env,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout).hookSpecificOutput).toMatchObject({
      hookEventName: "SessionStart",
      additionalContext: expect.stringContaining("ROOT-AGENTS"),
    });
    expect(() => parseHookInput("{}")).toThrow(/session_id/);
  });

  it("a corrupt state file is replaced, with one stderr line", async () => {
    const tree = await createTree(MIXED);
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const input = JSON.stringify({ session_id: "s", hook_event_name: "SessionStart", source: "startup", cwd: tree.path("r") });
    await runCli(["hook", "claude-code"], { stdin: input, env });
    const dir = tree.path("state/agentsmd/claude-code");
    const [file] = await readdir(dir);
    await tree.write(`state/agentsmd/claude-code/${file}`, "{broken");
    const run = await runCli(["hook", "claude-code"], {
      stdin: JSON.stringify({
        session_id: "s",
        hook_event_name: "PostToolUse",
        cwd: tree.path("r"),
        tool_name: "Read",
        tool_input: { file_path: tree.path("r/pkg/b/y.ts") },
      }),
      env,
    });
    expect(run.code).toBe(0);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toContain("PKG-AGENTS");
  });

  it.skipIf(!existsSync(BIN))("8 concurrent PostToolUse processes of one session deliver each file exactly once", async () => {
    const spec: Record<string, string | null> = {
      "r/.git/": null,
      "r/CLAUDE.md": "c\n",
      "r/AGENTS.md": "ROOT-AGENTS\n",
      "r/shared/AGENTS.md": "SHARED-AGENTS\n",
    };
    for (let index = 0; index < 8; index++) {
      spec[`r/shared/p${index}/AGENTS.md`] = `P${index}-AGENTS\n`;
      spec[`r/shared/p${index}/f.ts`] = "";
    }
    const tree = await createTree(spec);
    const env = { PATH: process.env.PATH ?? "", HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const run = (input: object) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, "hook", "claude-code"], { env, cwd: tree.root, stdio: ["pipe", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk) => (stdout += chunk));
        child.stderr.on("data", (chunk) => (stderr += chunk));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stdout, stderr }));
        child.stdin.end(JSON.stringify(input));
      });
    const base = { session_id: "parallel", cwd: tree.path("r") };
    const start = await run({ ...base, hook_event_name: "SessionStart", source: "startup" });
    expect(start.stdout).toContain("ROOT-AGENTS");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        run({
          ...base,
          hook_event_name: "PostToolUse",
          tool_name: "Read",
          tool_use_id: `t${index}`,
          tool_input: { file_path: tree.path(`r/shared/p${index}/f.ts`) },
        }),
      ),
    );
    const all = results.map((result) => {
      expect(result.code).toBe(0);
      expect(result.stderr).toBe("");
      return result.stdout === "" ? "" : (JSON.parse(result.stdout).hookSpecificOutput.additionalContext as string);
    });
    const joined = all.join("\n");
    const count = (marker: string) => joined.split(marker).length - 1;
    expect(count("SHARED-AGENTS")).toBe(1);
    expect(count("ROOT-AGENTS")).toBe(0);
    for (let index = 0; index < 8; index++) expect(count(`P${index}-AGENTS`)).toBe(1);
    expect(await readdir(tree.path("state/agentsmd/claude-code"))).toEqual(["parallel.json"]);
  });
});

describe("hook claude-code: events from other hosts", () => {
  // Payloads as GitHub Copilot CLI 1.0.102 sends them to the hooks of .claude/settings.json and of
  // its own hook files, and as Gemini CLI 0.61 names its events (e2e/copilot/native.e2e.test.ts).
  const copilotClaudeStyle = (tree: Tree) => [
    { hook_event_name: "SessionStart", session_id: "c-1", timestamp: "2026-11-23T21:40:48.961Z", cwd: tree.path("r"), source: "new", initial_prompt: "work" },
    { hook_event_name: "UserPromptSubmit", session_id: "c-1", timestamp: "2026-11-23T21:40:49.015Z", cwd: tree.path("r"), prompt: "work" },
    {
      hook_event_name: "PostToolUse",
      session_id: "c-1",
      timestamp: "2026-11-23T21:40:49.145Z",
      cwd: tree.path("r"),
      tool_name: "Read",
      tool_input: { path: tree.path("r/pkg/a/src/x.ts") },
      tool_result: { result_type: "success", text_result_for_llm: "x" },
    },
  ];

  it("stays silent for Copilot CLI's Claude-style events, its own camelCase events and Gemini CLI's, and writes no state", async () => {
    const tree = await createTree(MIXED);
    const state = tree.path("state");
    const options = { home: tree.home, env: { HOME: tree.home, XDG_STATE_HOME: state } };
    const events: unknown[] = [
      ...copilotClaudeStyle(tree),
      {
        sessionId: "c-2",
        timestamp: 1795470014254,
        cwd: tree.path("r"),
        toolName: "view",
        toolArgs: { path: tree.path("r/pkg/a/src/x.ts") },
        toolResult: { resultType: "success" },
      },
      { sessionId: "c-2", timestamp: 1795470014254, cwd: tree.path("r"), source: "new", initialPrompt: "work" },
      {
        hook_event_name: "AfterTool",
        session_id: "g-1",
        cwd: tree.path("r"),
        tool_name: "read_file",
        tool_input: { file_path: tree.path("r/pkg/a/src/x.ts") },
      },
    ];
    for (const event of events) {
      const delivered: unknown[] = [];
      expect(await handleClaudeCodeHook(event, { ...options, deliver: (output) => void delivered.push(output) })).toBeNull();
      expect(delivered).toEqual([null]);
    }
    // Gemini's SessionStart: Claude's event name, but Gemini's environment and a timestamp.
    const geminiEnv = { ...options.env, GEMINI_SESSION_ID: "g-1", GEMINI_PROJECT_DIR: tree.path("r") };
    const start = {
      hook_event_name: "SessionStart",
      session_id: "g-1",
      cwd: tree.path("r"),
      source: "startup",
      timestamp: "2026-11-23T00:00:00Z",
      transcript_path: "/t",
    };
    expect(await handleClaudeCodeHook(start, { ...options, env: geminiEnv })).toBeNull();
    expect(existsSync(state)).toBe(false);
  });

  it("still answers Claude Code (transcript_path, file_path) and VS Code, also with COPILOT_CLI inherited from a Copilot shell", async () => {
    const tree = await createTree(MIXED);
    const h = hooks(tree, "r", { env: { COPILOT_CLI: "1" } });
    expect(await h.start()).toContain("ROOT-AGENTS");
    expect(await h.read("r/pkg/a/src/x.ts")).toContain("A-AGENTS");
  });

  it("the CLI prints nothing, on stdout or stderr, for a Copilot event", async () => {
    const tree = await createTree(MIXED);
    const [, , post] = copilotClaudeStyle(tree);
    const result = await runCli(["hook", "claude-code", "--home", tree.home], {
      stdin: JSON.stringify(post),
      env: { HOME: tree.home, XDG_STATE_HOME: tree.path("state"), COPILOT_CLI: "1" },
    });
    expect(result).toMatchObject({ code: 0, stdout: "", stderr: "" });
  });
});
