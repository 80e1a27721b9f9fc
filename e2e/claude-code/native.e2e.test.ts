/**
 * The agentsmd hooks in a project where Claude Code's own AGENTS.md support is active (no CLAUDE
 * file anywhere, Claude Code >= 2.1.277): every AGENTS.md must reach the model exactly once,
 * whoever delivers it. Claude Code loads the root file and, on a Read, nested ones; the hook adds
 * only what Claude Code skips (an AGENTS.md beside a nested CLAUDE.md) and, after a compaction,
 * the nested files Claude Code does not restore.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/claude-code`.
 */
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { startAnthropicServer, type RecordedRequest } from "../lib/anthropic-server.js";
import { locateText } from "../lib/anthropic-request-text.js";
import { AGENTSMD_BIN, runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { createClaudeFixture, describeRun, pinnedClaudeCodeVersion, runClaude, useAgentsmdClaudeSuite } from "./harness.js";

const FILES: Record<string, string> = {
  "AGENTS.md": "# Root\nToken NA-ROOT-1.\n",
  "pkg/a/AGENTS.md": "# A\nToken NA-A-2.\n",
  "pkg/a/src/x.ts": "export const x = 1;\n",
  "pkg/b/AGENTS.md": "# B\nToken NA-B-3 (beside a CLAUDE.md: Claude Code skips it).\n",
  "pkg/b/CLAUDE.md": "# B (Claude)\nToken NC-B-4.\n",
  "pkg/b/y.ts": "export const y = 1;\n",
};

const cleanups = useAgentsmdClaudeSuite();

function count(req: RecordedRequest, token: string): number {
  return locateText(req.body, token).filter((hit) => hit.blockType !== "tool_use").length;
}

describe(`agentsmd hooks with Claude Code ${pinnedClaudeCodeVersion()}'s own AGENTS.md loading`, () => {
  it("every AGENTS.md once, nested files back after compaction", async () => {
    const fx = await createClaudeFixture({ files: FILES, prefix: "agentsmd-e2e-native-" });
    const server = await startAnthropicServer({ script: [] });
    cleanups.push(
      () => fx.cleanup(),
      () => server.close(),
    );
    const bin = fx.path("node_modules/.bin/agentsmd");
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    fs.writeFileSync(bin, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(AGENTSMD_BIN)} "$@"\n`, { mode: 0o755 });
    const install = await runAgentsmd(["install", "claude-code", "--scope", "project"], { cwd: fx.repo, env: cleanEnv({ HOME: fx.home }) });
    expect(install.code, install.stderr.toString()).toBe(0);

    server.setScript([
      { toolUses: [{ name: "Read", input: { file_path: fx.path("pkg/a/src/x.ts") } }] },
      { toolUses: [{ name: "Read", input: { file_path: fx.path("pkg/b/y.ts") } }] },
      { text: "Both read." },
    ]);
    const first = await runClaude({ fixture: fx, server, prompt: "Read x.ts and y.ts." });
    expect(first.exitCode, describeRun(first)).toBe(0);
    const main = first.requests.filter((request) => request.kind === "main");
    const last = main[main.length - 1]!;
    for (const token of ["NA-ROOT-1", "NA-A-2", "NA-B-3", "NC-B-4"]) expect(count(last, token), `${token} in the last request`).toBe(1);

    // Compaction: Claude Code restores the root file itself; the hook brings back the nested ones.
    server.setScript([{ text: "Compacted and done." }]);
    const compact = await runClaude({ fixture: fx, server, prompt: "/compact", resume: first.sessionId! });
    expect(compact.exitCode, describeRun(compact)).toBe(0);
    server.setScript([{ text: "After compaction." }]);
    const after = await runClaude({ fixture: fx, server, prompt: "Go on.", resume: first.sessionId! });
    expect(after.exitCode, describeRun(after)).toBe(0);
    const next = after.requests.filter((request) => request.kind === "main")[0]!;
    for (const token of ["NA-ROOT-1", "NA-A-2", "NA-B-3"]) expect(count(next, token), `${token} after compaction`).toBe(1);
  });
});
