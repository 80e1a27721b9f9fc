/**
 * `agentsmd audit` on real GitHub Copilot CLI session logs (`~/.copilot/session-state/<id>/events.jsonl`):
 * the pinned CLI runs the same two turns twice against the scripted model (a nested lib/AGENTS.md;
 * it is edited on disk between the turns, the second turn `--continue`s the first), without
 * agentsmd and after `agentsmd install copilot`, and the audit of each log tells them apart.
 * AGENTSMD_AUDIT_RECORD=1 also copies both logs to test/audit/logs/copilot/ (trimmed there: the
 * unit fixtures).
 *
 * Needs `npm run build` and `npm ci --prefix e2e/copilot`.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runAgentsmd } from "../lib/agentsmd.js";
import { REPO_ROOT } from "../lib/install.js";
import { createCopilotFixture, describeRun, pinnedCopilotVersion, runCopilot, startCopilotServer, useCopilotSuite } from "./harness.js";

const cleanups = useCopilotSuite();

const FILES: Record<string, string> = {
  "AGENTS.md": "# root\nToken AUD-ROOT-1: root rules.\n",
  "lib/AGENTS.md": "# lib\nToken AUD-LIB-2: lib rules.\n",
  "lib/old.ts": "export const old = 3;\n",
};
const LIB_EDITED = "# lib\nToken AUD-LIB-EDITED-3: the changed lib rules.\n";

async function session(install: boolean) {
  const fx = await createCopilotFixture({ files: FILES, prefix: "agentsmd-e2e-copilot-audit-" });
  cleanups.push(() => fx.cleanup());
  const env = { PATH: process.env.PATH ?? "", HOME: fx.home };
  if (install) {
    const result = await runAgentsmd(["install", "copilot"], { cwd: fx.repo, env });
    expect(result.code, result.stderr.toString()).toBe(0);
  }
  // Turn one: a search of lib/ (Copilot attaches nested files only after a view), then an edit there.
  const server = await startCopilotServer([
    { toolCalls: [{ tool: "grep", args: { pattern: "old", paths: [fx.path("lib")] } }] },
    { toolCalls: [{ tool: "edit", args: { path: fx.path("lib/old.ts"), old_str: "old = 3", new_str: "old = 4" } }] },
    { text: "one" },
  ]);
  cleanups.push(() => server.close());
  let run = await runCopilot({ fixture: fx, server, prompt: "FIRST-PROMPT" });
  expect(run.exitCode, describeRun(run)).toBe(0);
  fs.writeFileSync(fx.path("lib/AGENTS.md"), LIB_EDITED);
  // Turn two (resumed): a view in lib/ (Copilot attaches lib/AGENTS.md itself), then a new file there.
  server.setScript([
    { toolCalls: [{ tool: "view", args: { path: fx.path("lib/old.ts") } }] },
    { toolCalls: [{ tool: "create", args: { path: fx.path("lib/new.ts"), file_text: "export const n = 5;\n" } }] },
    { text: "two" },
  ]);
  run = await runCopilot({ fixture: fx, server, prompt: "SECOND-PROMPT", resume: true });
  expect(run.exitCode, describeRun(run)).toBe(0);
  const state = path.join(fx.home, ".copilot", "session-state");
  const logs = fs
    .readdirSync(state)
    .map((id) => path.join(state, id, "events.jsonl"))
    .filter((file) => fs.existsSync(file));
  expect(logs).toHaveLength(1);
  const log = logs[0]!;
  if (process.env.AGENTSMD_AUDIT_RECORD === "1") {
    const out = path.join(REPO_ROOT, "test", "audit", "logs", "copilot", install ? "with-agentsmd.raw.jsonl" : "without-agentsmd.raw.jsonl");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.copyFileSync(log, out);
    fs.writeFileSync(out.replace(/\.raw\.jsonl$/, ".repo.txt"), `${fx.repo}\n${fx.home}\n`);
  }
  const audit = await runAgentsmd(["audit", "--last", "--agent", "copilot", "--json"], { cwd: fx.repo, env });
  expect(audit.code, audit.stderr.toString()).toBe(0);
  const [report] = JSON.parse(audit.stdout.toString());
  return { fx, report };
}

function verdicts(report: { paths: Array<{ path: string; files: Array<{ path: string; verdict: string }> }> }, repo: string) {
  return Object.fromEntries(
    report.paths.flatMap((entry) => entry.files.map((file) => [`${path.relative(repo, entry.path)} <- ${path.relative(repo, file.path)}`, file.verdict])),
  );
}

describe(`agentsmd audit on GitHub Copilot CLI ${pinnedCopilotVersion()} session logs`, () => {
  it("without agentsmd lib/AGENTS.md reaches the model only after the first edit (Copilot's own view); with it, before each edit, its changed text too", async () => {
    const without = await session(false);
    const withIt = await session(true);
    const a = verdicts(without.report, without.fx.repo);
    const b = verdicts(withIt.report, withIt.fx.repo);
    console.log(JSON.stringify({ without: a, with: b, summaries: [without.report.summary, withIt.report.summary] }, null, 2));
    expect(a["lib/old.ts <- AGENTS.md"]).toBe("before"); // Copilot's system prompt
    // Nothing of lib/AGENTS.md before the first edit; its edited text came later (Copilot's view).
    expect(a["lib/old.ts <- lib/AGENTS.md"]).toBe("changed-since");
    // Copilot attached it itself after the view, logged by name only: counted by its modification time.
    expect(a["lib/new.ts <- lib/AGENTS.md"]).toBe("before");
    expect(without.report.notes.join("\n")).toMatch(/logged by name only/);
    expect(b["lib/old.ts <- AGENTS.md"]).toBe("before");
    expect(b["lib/old.ts <- lib/AGENTS.md"]).toBe("before");
    expect(b["lib/new.ts <- lib/AGENTS.md"]).toBe("before");
    expect(without.report.summary.coverage).toBe(50);
    expect(withIt.report.summary.coverage).toBe(100);
  }, 300_000);
});
