/**
 * Scoped rules through the shared host layer (Claude Code profile): a rule of a format Claude Code
 * does not read is shown even when Claude Code loads AGENTS.md itself (native mode); its own
 * `.claude/rules` never come from agentsmd.
 */
import { describe, expect, it } from "vitest";
import { handleClaudeCodeHook, type ClaudeHookOptions } from "../../src/integrations/claude-code/index.js";
import { createTree } from "../helpers/tree.js";

const FILES = {
  "r/.git/": null,
  "r/AGENTS.md": "ROOT-AGENTS\n",
  "r/src/a.ts": "x\n",
  "r/.github/instructions/ts.instructions.md": "---\napplyTo: '**/*.ts'\n---\nCOPILOT-TS\n",
  "r/.qwen/rules/always.md": "QWEN-ALWAYS\n",
  "r/.claude/rules/ts.md": "---\npaths: '**/*.ts'\n---\nCLAUDE-TS\n",
};

describe("scoped rules in the Claude Code hook", () => {
  for (const mode of ["native", "inject"] as const) {
    it(`${mode} mode: always-apply rules at SessionStart, glob rules after the tool call, each once, never .claude/rules`, async () => {
      const tree = await createTree(FILES);
      const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state"), AGENTSMD_CLAUDE_AGENTS_MD: mode };
      const options: ClaudeHookOptions = { home: tree.home, env };
      const base = { session_id: `s-${mode}`, transcript_path: tree.path("t.jsonl"), cwd: tree.path("r") };
      const context = async (input: Record<string, unknown>) =>
        (await handleClaudeCodeHook({ ...base, ...input }, options))?.hookSpecificOutput.additionalContext ?? "";
      const start = await context({ hook_event_name: "SessionStart", source: "startup" });
      expect(start).toContain("QWEN-ALWAYS");
      expect(start.includes("ROOT-AGENTS")).toBe(mode === "inject");
      const read = () =>
        context({
          hook_event_name: "PostToolUse",
          tool_name: "Read",
          tool_input: { file_path: tree.path("r/src/a.ts") },
          tool_response: { type: "text", file: { filePath: tree.path("r/src/a.ts"), content: "", numLines: 1, startLine: 1, totalLines: 1 } },
          tool_use_id: "t1",
        });
      const first = await read();
      expect(first).toContain('Scoped rule from .github/instructions/ts.instructions.md (GitHub Copilot applyTo "**/*.ts", matched by src/a.ts):\nCOPILOT-TS');
      expect(first).not.toContain("CLAUDE-TS");
      expect(first).not.toContain("QWEN-ALWAYS");
      expect(await read()).toBe("");
    });
  }
});

describe("rulesync and Ruler sources in the Claude Code hook", () => {
  it("delivers the rules meant for Claude Code once each: always-on at SessionStart, globbed after the Read; never another agent's", async () => {
    const tree = await createTree({
      "r/.git/": null,
      "r/src/a.ts": "x\n",
      "r/.rulesync/rules/overview.md": '---\nroot: true\ntargets: ["*"]\n---\nRS-OVERVIEW\n',
      "r/.rulesync/rules/ts.md": '---\ntargets: ["claudecode"]\nglobs: ["src/**/*.ts"]\n---\nRS-TS\n',
      "r/.rulesync/rules/codex.md": '---\ntargets: ["codexcli"]\n---\nRS-CODEX\n',
      "r/.ruler/AGENTS.md": "RULER-MAIN\n",
      "r/.ruler/ruler.toml": 'default_agents = ["claude"]\nnested = true\n',
      "r/src/.ruler/src.md": "RULER-SRC\n",
      "r/src/.ruler/ruler.toml": 'default_agents = ["codex"]\n',
    });
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state"), AGENTSMD_CLAUDE_AGENTS_MD: "native" };
    const options: ClaudeHookOptions = { home: tree.home, env };
    const base = { session_id: "s-sources", transcript_path: tree.path("t.jsonl"), cwd: tree.path("r") };
    const context = async (input: Record<string, unknown>) =>
      (await handleClaudeCodeHook({ ...base, ...input }, options))?.hookSpecificOutput.additionalContext ?? "";
    const start = await context({ hook_event_name: "SessionStart", source: "startup" });
    expect(start).toContain("Scoped rule from .rulesync/rules/overview.md (rulesync, always applies):\nRS-OVERVIEW");
    expect(start).toContain("Scoped rule from .ruler/AGENTS.md (Ruler, always applies):\nRULER-MAIN");
    for (const token of ["RS-TS", "RS-CODEX", "RULER-SRC"]) expect(start).not.toContain(token);
    const read = () =>
      context({
        hook_event_name: "PostToolUse",
        tool_name: "Read",
        tool_input: { file_path: tree.path("r/src/a.ts") },
        tool_response: { type: "text", file: { filePath: tree.path("r/src/a.ts"), content: "", numLines: 1, startLine: 1, totalLines: 1 } },
        tool_use_id: "t1",
      });
    const first = await read();
    expect(first.split("RS-TS").length - 1).toBe(1);
    expect(first).toContain('Scoped rule from .rulesync/rules/ts.md (rulesync globs "src/**/*.ts", matched by src/a.ts):\nRS-TS');
    for (const token of ["RS-OVERVIEW", "RULER-MAIN", "RS-CODEX", "RULER-SRC"]) expect(first).not.toContain(token);
    expect(await read()).toBe("");
  });
});
