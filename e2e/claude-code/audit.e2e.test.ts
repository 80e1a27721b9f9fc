/**
 * `agentsmd audit` on real Claude Code session logs: the pinned CLI runs the same two turns twice
 * (a repository with nested AGENTS.md; pkg/AGENTS.md edited on disk between the turns), once
 * without agentsmd and once after `agentsmd install claude-code`, and the audit of each transcript
 * tells them apart. AGENTSMD_AUDIT_RECORD=1 also copies both transcripts to test/audit/logs/
 * (trimmed there by hand: the unit fixtures).
 *
 * Needs `npm run build` and `npm ci --prefix e2e/claude-code`.
 */
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { startAnthropicServer } from "../lib/anthropic-server.js";
import { runAgentsmd } from "../lib/agentsmd.js";
import { REPO_ROOT } from "../lib/install.js";
import { cleanEnv } from "../lib/exec.js";
import { createClaudeFixture, describeRun, pinnedClaudeCodeVersion, runClaude, useAgentsmdClaudeSuite } from "./harness.js";

// With a CLAUDE.md at the root Claude Code reads no AGENTS.md itself: what agentsmd adds.
const FILES: Record<string, string> = {
  "CLAUDE.md": "Token AUDIT-CLAUDE-0: Claude Code loads this itself.\n",
  "AGENTS.md": "# root\nToken AUDIT-ROOT-1: root rules.\n",
  "pkg/AGENTS.md": "# pkg\nToken AUDIT-PKG-2: pkg rules.\n",
  "pkg/a.ts": "export const a = 1;\n",
};

const cleanups = useAgentsmdClaudeSuite();

async function session(withAgentsmd: boolean) {
  const fx = await createClaudeFixture({ files: FILES, prefix: "agentsmd-e2e-claude-audit-" });
  const server = await startAnthropicServer({ script: [] });
  cleanups.push(
    () => fx.cleanup(),
    () => server.close(),
  );
  const env = cleanEnv({ HOME: fx.home, XDG_STATE_HOME: path.join(fx.home, ".local", "state"), XDG_CONFIG_HOME: path.join(fx.home, ".config") });
  if (withAgentsmd) {
    const install = await runAgentsmd(["install", "claude-code"], { cwd: fx.repo, env });
    expect(install.code, install.stderr.toString()).toBe(0);
  }
  server.setScript([
    { toolUses: [{ name: "Read", input: { file_path: fx.path("pkg/a.ts") } }] },
    { toolUses: [{ name: "Edit", input: { file_path: fx.path("pkg/a.ts"), old_string: "a = 1", new_string: "a = 2" } }] },
    { text: "done" },
  ]);
  const first = await runClaude({ fixture: fx, server, prompt: "Change a to 2 in pkg/a.ts." });
  expect(first.exitCode, describeRun(first)).toBe(0);
  // Between the turns someone changes the nested instructions on disk.
  fx.write("pkg/AGENTS.md", "# pkg\nToken AUDIT-PKG-EDITED-3: pkg rules, changed.\n");
  server.setScript([{ toolUses: [{ name: "Write", input: { file_path: fx.path("pkg/b.ts"), content: "export const b = 3;\n" } }] }, { text: "done" }]);
  const second = await runClaude({ fixture: fx, server, prompt: "Add pkg/b.ts.", resume: first.sessionId! });
  expect(second.exitCode, describeRun(second)).toBe(0);
  const dir = path.join(fx.home, ".claude", "projects");
  const logs = fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl"));
  const log = path.join(dir, logs.find((name) => name.includes(first.sessionId!)) ?? logs[0]!);
  if (process.env.AGENTSMD_AUDIT_RECORD === "1") {
    const out = path.join(REPO_ROOT, "test", "audit", "logs", "claude-code", withAgentsmd ? "with-agentsmd.raw.jsonl" : "without-agentsmd.raw.jsonl");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.copyFileSync(log, out);
    fs.writeFileSync(out.replace(/\.raw\.jsonl$/, ".repo.txt"), fx.repo + "\n");
  }
  const audit = await runAgentsmd(["audit", log, "--agent", "claude-code", "--json"], { cwd: fx.repo, env });
  expect(audit.code, audit.stderr.toString()).toBe(0);
  return { fx, report: JSON.parse(audit.stdout.toString()), log, env };
}

function verdicts(report: { paths: Array<{ path: string; files: Array<{ path: string; verdict: string }> }> }, repo: string) {
  return Object.fromEntries(
    report.paths.flatMap((entry) => entry.files.map((file) => [`${path.relative(repo, entry.path)} <- ${path.relative(repo, file.path)}`, file.verdict])),
  );
}

describe(`agentsmd audit on Claude Code ${pinnedClaudeCodeVersion()} transcripts`, () => {
  it("audits the run without and with agentsmd: the nested file changed between the turns", async () => {
    const without = await session(false);
    const withIt = await session(true);
    const a = verdicts(without.report, without.fx.repo);
    const b = verdicts(withIt.report, withIt.fx.repo);
    console.log(JSON.stringify({ without: a, with: b, summaries: [without.report.summary, withIt.report.summary] }, null, 2));
    expect(a["pkg/a.ts <- CLAUDE.md"]).toBe("before");
    expect(a["pkg/a.ts <- pkg/AGENTS.md"]).toBe("never");
    expect(without.report.summary.coverage).toBe(0);
    expect(b["pkg/a.ts <- CLAUDE.md"]).toBe("before");
    expect(b["pkg/a.ts <- AGENTS.md"]).toBe("before");
    expect(b["pkg/a.ts <- pkg/AGENTS.md"]).toBe("before");
    expect(withIt.report.summary.coverage).toBeGreaterThan(without.report.summary.coverage);
    // --min-coverage: the run without agentsmd fails the threshold, with the install command.
    const gate = await runAgentsmd(["audit", without.log, "--agent", "claude-code", "--min-coverage", "100"], { cwd: without.fx.repo, env: without.env });
    expect(gate.code).toBe(1);
    expect(gate.stderr.toString()).toContain("agentsmd install claude-code");
  });
});
