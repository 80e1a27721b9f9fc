/**
 * `agentsmd audit` on real Codex rollouts: codex-cli runs the same two turns twice against the
 * scripted Responses server (the hooks fixture: nested AGENTS.md; lib/AGENTS.md edited on disk
 * between the turns), without agentsmd and after `agentsmd install codex --trust`, and the audit of
 * each rollout tells them apart. AGENTSMD_AUDIT_RECORD=1 also copies both rollouts to
 * test/audit/logs/codex/ (trimmed there: the unit fixtures).
 */
import fs from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { REPO_ROOT } from "../lib/install.js";
import { codexEntry, CODEX_VERSION } from "../codex/oracle.js";
import { addFilePatch, buildFixture, MARK, scriptedRun, type HooksFixture } from "./harness.js";

const cat = (cmd: string) => ({ calls: [{ name: "exec_command", args: { cmd } }] });
const patch = (text: string) => ({ calls: [{ custom: true as const, name: "apply_patch", input: text }] });

const fixtures: HooksFixture[] = [];

async function session(install: boolean) {
  const f = await buildFixture({ install });
  fixtures.push(f);
  if (install) expect(f.install?.code, f.install?.stderr.toString()).toBe(0);
  const one = await scriptedRun(
    f,
    [cat("cat lib/old.ts"), patch("*** Begin Patch\n*** Update File: lib/old.ts\n@@\n-export const old = 3;\n+export const old = 4;\n*** End Patch\n")],
    { cwd: f.repo },
  );
  expect(one.result.code, one.result.stderr.toString()).toBe(0);
  await writeFile(path.join(f.repo, "lib/AGENTS.md"), `# lib\n${MARK.libEdited}\n`);
  const two = await scriptedRun(f, [patch(addFilePatch("lib/new.ts", "export const n = 5;"))], { cwd: f.repo, resume: true });
  expect(two.result.code, two.result.stderr.toString()).toBe(0);
  const sessions = path.join(f.codexHome, "sessions");
  const logs = fs.readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl"));
  expect(logs).toHaveLength(1);
  const log = path.join(sessions, logs[0]!);
  if (process.env.AGENTSMD_AUDIT_RECORD === "1") {
    const out = path.join(REPO_ROOT, "test", "audit", "logs", "codex", install ? "with-agentsmd.raw.jsonl" : "without-agentsmd.raw.jsonl");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.copyFileSync(log, out);
    fs.writeFileSync(out.replace(/\.raw\.jsonl$/, ".repo.txt"), `${f.repo}\n${f.home}\n`);
  }
  const env = cleanEnv({ CODEX_HOME: f.codexHome, HOME: f.home });
  const audit = await runAgentsmd(["audit", "--last", "--agent", "codex", "--json"], { cwd: f.repo, env });
  expect(audit.code, audit.stderr.toString()).toBe(0);
  const [report] = JSON.parse(audit.stdout.toString());
  return { f, report, log, env };
}

function verdicts(report: { paths: Array<{ path: string; files: Array<{ path: string; verdict: string }> }> }, repo: string) {
  return Object.fromEntries(
    report.paths.flatMap((entry) => entry.files.map((file) => [`${path.relative(repo, entry.path)} <- ${path.relative(repo, file.path)}`, file.verdict])),
  );
}

describe(`agentsmd audit on codex-cli ${CODEX_VERSION} rollouts`, () => {
  beforeAll(async () => {
    await codexEntry();
    await assertAgentsmdBuilt();
  }, 15 * 60_000);
  afterEach(async () => {
    while (fixtures.length > 0) await fixtures.pop()!.cleanup();
  });

  it("without agentsmd lib/AGENTS.md never reaches the model; with it, before the edit, and its changed text again", async () => {
    const without = await session(false);
    const withIt = await session(true);
    const a = verdicts(without.report, without.f.repo);
    const b = verdicts(withIt.report, withIt.f.repo);
    console.log(JSON.stringify({ without: a, with: b, summaries: [without.report.summary, withIt.report.summary] }, null, 2));
    expect(a["lib/old.ts <- AGENTS.md"]).toBe("before"); // Codex loads the root itself
    expect(a["lib/old.ts <- lib/AGENTS.md"]).toBe("never");
    expect(b["lib/old.ts <- lib/AGENTS.md"]).toBe("before");
    expect(withIt.report.summary.coverage).toBeGreaterThan(without.report.summary.coverage);
  });
});
