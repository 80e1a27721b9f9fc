/**
 * End to end: scoped rules reach the real Claude Code CLI (pinned) through agentsmd's
 * hooks. A Copilot `applyTo` rule and a Cursor `globs` rule (formats Claude Code does not read)
 * arrive once, right after the tool call that touched a matching file, framed with their source
 * and glob; an always-apply Qwen rule arrives at SessionStart; a `.claude/rules` rule (Claude Code
 * reads it itself) never comes from agentsmd.
 *
 * Needs the build: `npm run build` and `npm ci --prefix e2e/claude-code`.
 */
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { startAnthropicServer, type RecordedRequest } from "../lib/anthropic-server.js";
import { locateText, type TextLocation } from "../lib/anthropic-request-text.js";
import { AGENTSMD_BIN, runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { createClaudeFixture, describeRun, hookRuns, pinnedClaudeCodeVersion, readTranscript, runClaude, useAgentsmdClaudeSuite } from "./harness.js";

const FILES: Record<string, string> = {
  "CLAUDE.md": "# Fixture\nToken CC-ROOT-1.\n",
  "AGENTS.md": "# Root agents\nToken AG-ROOT-1.\n",
  "packages/api/src/index.ts": "export const api = 1;\n",
  "packages/web/src/Button.tsx": "export function Button() { return null; }\n",
  "docs/guide.md": "# Guide\n",
  ".github/instructions/api.instructions.md": '---\napplyTo: "packages/api/**/*.ts"\n---\nToken RULE-COPILOT-1: API handlers return Result values.\n',
  ".cursor/rules/web.mdc": "---\ndescription: web\nglobs: packages/web/**\nalwaysApply: false\n---\nToken RULE-CURSOR-3: components are function components.\n",
  ".qwen/rules/always.md": "Token RULE-QWEN-4: write commit messages in the imperative.\n",
  ".claude/rules/api.md": "---\npaths:\n  - packages/api/**\n---\nToken RULE-CLAUDE-2: Claude Code loads this rule itself.\n",
};
const TOKENS = ["RULE-COPILOT-1", "RULE-CLAUDE-2", "RULE-CURSOR-3", "RULE-QWEN-4", "AG-ROOT-1"];

const cleanups = useAgentsmdClaudeSuite();

/** Occurrences of `token` outside tool_use inputs (what the model was told). */
function delivered(req: RecordedRequest, token: string): TextLocation[] {
  return locateText(req.body, token).filter((hit) => hit.blockType !== "tool_use");
}

describe(`scoped rules through agentsmd hooks in Claude Code ${pinnedClaudeCodeVersion()}`, () => {
  it("delivers Copilot and Cursor rules once when a matching file is edited or read, never a .claude/rules rule", async () => {
    const fx = await createClaudeFixture({ files: FILES });
    const server = await startAnthropicServer({ script: [] });
    cleanups.push(
      () => fx.cleanup(),
      () => server.close(),
    );
    const bin = fx.path("node_modules/.bin/agentsmd");
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    fs.writeFileSync(bin, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(AGENTSMD_BIN)} "$@"\n`, { mode: 0o755 });
    const installEnv = cleanEnv({ HOME: fx.home, XDG_STATE_HOME: path.join(fx.home, ".local", "state"), XDG_CONFIG_HOME: path.join(fx.home, ".config") });
    const install = await runAgentsmd(["install", "claude-code", "--scope", "project"], { cwd: fx.repo, env: installEnv });
    expect(install.code, `${install.stdout}\n${install.stderr}`).toBe(0);

    server.setScript([
      /* 0 */ { toolUses: [{ name: "Read", input: { file_path: fx.path("docs/guide.md") } }] },
      /* 1 */ { toolUses: [{ name: "Edit", input: { file_path: fx.path("packages/api/src/index.ts"), old_string: "api = 1", new_string: "api = 2" } }] },
      /* 2 */ { toolUses: [{ name: "Read", input: { file_path: fx.path("packages/api/src/index.ts") } }] },
      /* 3 */ { toolUses: [{ name: "Read", input: { file_path: fx.path("packages/web/src/Button.tsx") } }] },
      /* 4 */ { text: "done" },
    ]);
    const run = await runClaude({ fixture: fx, server, prompt: "Bump the api constant and look at the button." });
    expect(run.exitCode, describeRun(run)).toBe(0);
    expect(run.result?.result, describeRun(run)).toBe("done");
    expect(server.unexpected).toEqual([]);
    const runs = hookRuns(readTranscript(fx, run.sessionId!)).filter((r) => r.command?.includes("agentsmd"));
    expect(runs.length).toBeGreaterThan(0);
    for (const r of runs) expect(r, `${r.hookName}: ${r.stderr}`).toMatchObject({ type: "hook_success", exitCode: 0, stderr: "" });

    const main = run.requests.filter((r) => r.kind === "main");
    expect(main).toHaveLength(5);
    // Never two copies of anything in any request.
    for (const [i, req] of main.entries()) for (const token of TOKENS) expect(delivered(req, token).length, `${token} in request ${i}`).toBeLessThanOrEqual(1);
    const first = (token: string) => main.findIndex((req) => delivered(req, token).length > 0);
    // The always-apply Qwen rule is in the SessionStart context; the Copilot rule right after the Edit; the Cursor rule after the Read.
    expect(first("RULE-QWEN-4")).toBe(0);
    expect(delivered(main[0]!, "RULE-QWEN-4")[0]!.text).toContain("SessionStart hook additional context:");
    expect(first("RULE-COPILOT-1")).toBe(2);
    const copilot = delivered(main[2]!, "RULE-COPILOT-1")[0]!;
    expect(copilot.text).toContain("PostToolUse:Edit hook additional context:");
    expect(copilot.text).toContain(
      'Scoped rule from .github/instructions/api.instructions.md (GitHub Copilot applyTo "packages/api/**/*.ts", matched by packages/api/src/index.ts):',
    );
    expect(first("RULE-CURSOR-3")).toBe(4);
    expect(delivered(main[4]!, "RULE-CURSOR-3")[0]!.text).toContain('(Cursor globs "packages/web/**", matched by packages/web/src/Button.tsx)');
    // At the end each agentsmd-delivered rule is in the conversation exactly once.
    const last = main[4]!;
    for (const token of ["RULE-COPILOT-1", "RULE-CURSOR-3", "RULE-QWEN-4", "AG-ROOT-1"]) expect(delivered(last, token), token).toHaveLength(1);
    // The .claude/rules rule: whatever Claude Code does with it, agentsmd never sends it.
    for (const req of main) for (const hit of delivered(req, "RULE-CLAUDE-2")) expect(hit.text).not.toMatch(/hook additional context/);
    // Claude Code 2.1.330 attached it itself after the Edit of a matching file: exactly one copy, its own.
    expect(delivered(last, "RULE-CLAUDE-2")).toHaveLength(1);
  });
});
