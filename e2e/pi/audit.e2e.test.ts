/**
 * `agentsmd audit` on real pi session files (`<agent dir>/sessions/--<cwd>--/<time>_<id>.jsonl`):
 * pi 0.87.1 runs the same two turns twice against the scripted model (a nested lib/AGENTS.md; it
 * is edited on disk between the turns, the second turn continues the session by its id), without
 * agentsmd and with its extension, and the audit of each session file tells them apart.
 * AGENTSMD_AUDIT_RECORD=1 also copies both files to test/audit/logs/pi/ (trimmed there: the unit
 * fixtures).
 *
 * Needs `npm run build` and the pinned pi (`npm ci --prefix e2e/pi`, done on first use).
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { REPO_ROOT } from "../lib/install.js";
import { createPiFixture, requirePi, type PiFixture, type PiRunResult } from "./harness.js";

const FILES: Record<string, string> = {
  "AGENTS.md": "# root\nToken AUD-ROOT-1: root rules.\n",
  "lib/AGENTS.md": "# lib\nToken AUD-LIB-2: lib rules.\n",
  "lib/old.ts": "export const old = 3;\n",
};
const LIB_EDITED = "# lib\nToken AUD-LIB-EDITED-3: the changed lib rules.\n";
const TOOLS = ["--tools", "read,bash,edit,write,grep,find,ls"];

const fixtures: PiFixture[] = [];
afterEach(async () => {
  while (fixtures.length > 0) await fixtures.pop()!.cleanup();
});
beforeAll(async () => {
  await assertAgentsmdBuilt();
  await requirePi();
}, 15 * 60_000);

function ok(run: PiRunResult): void {
  expect(run.exitCode, `pi failed: ${run.stderr.slice(-2000)}`).toBe(0);
  expect(run.turnsLeft, "the script was not used up").toBe(0);
}

async function session(extension: boolean) {
  const fixture = await createPiFixture({ files: FILES });
  fixtures.push(fixture);
  const ext = extension ? { extensions: [REPO_ROOT], args: ["--no-extensions", ...TOOLS] } : { args: ["--no-extensions", ...TOOLS] };
  const sessionId = `audit-${extension ? "with" : "without"}-${process.pid}`;
  // Turn one: a read in lib/ (pi loads no nested file itself), then an edit there.
  ok(
    await fixture.run({
      ...ext,
      sessionId,
      prompt: "FIRST-PROMPT",
      script: [
        { toolCalls: [{ tool: "read", args: { path: "lib/old.ts" } }] },
        { toolCalls: [{ tool: "edit", args: { path: "lib/old.ts", edits: [{ oldText: "old = 3", newText: "old = 4" }] } }] },
        { text: "one" },
      ],
    }),
  );
  fs.writeFileSync(fixture.path("lib/AGENTS.md"), LIB_EDITED);
  // Turn two (the same session): a new file in lib/.
  ok(
    await fixture.run({
      ...ext,
      sessionId,
      prompt: "SECOND-PROMPT",
      script: [
        { toolCalls: [{ tool: "ls", args: { path: "lib" } }] },
        { toolCalls: [{ tool: "write", args: { path: "lib/new.ts", content: "export const n = 5;\n" } }] },
        { text: "two" },
      ],
    }),
  );
  const sessions = path.join(fixture.agentDir, "sessions");
  const logs = fs.readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl"));
  expect(logs).toHaveLength(1);
  const log = path.join(sessions, logs[0]!);
  if (process.env.AGENTSMD_AUDIT_RECORD === "1") {
    const out = path.join(REPO_ROOT, "test", "audit", "logs", "pi", extension ? "with-agentsmd.raw.jsonl" : "without-agentsmd.raw.jsonl");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.copyFileSync(log, out);
    fs.writeFileSync(out.replace(/\.raw\.jsonl$/, ".repo.txt"), `${fixture.repo}\n${fixture.home}\n`);
  }
  const env = { PATH: process.env.PATH ?? "", HOME: fixture.home, PI_CODING_AGENT_DIR: fixture.agentDir };
  const audit = await runAgentsmd(["audit", "--last", "--agent", "pi", "--json"], { cwd: fixture.repo, env });
  expect(audit.code, audit.stderr.toString()).toBe(0);
  const [report] = JSON.parse(audit.stdout.toString());
  return { fixture, report };
}

function verdicts(report: { paths: Array<{ path: string; files: Array<{ path: string; verdict: string }> }> }, repo: string) {
  return Object.fromEntries(
    report.paths.flatMap((entry) => entry.files.map((file) => [`${path.relative(repo, entry.path)} <- ${path.relative(repo, file.path)}`, file.verdict])),
  );
}

describe("agentsmd audit on pi 0.87.1 session files", () => {
  it("without agentsmd lib/AGENTS.md never reaches the model; with it, before each edit, its changed text too", async () => {
    const without = await session(false);
    const withIt = await session(true);
    const a = verdicts(without.report, without.fixture.repo);
    const b = verdicts(withIt.report, withIt.fixture.repo);
    console.log(JSON.stringify({ without: a, with: b, summaries: [without.report.summary, withIt.report.summary] }, null, 2));
    expect(a["lib/old.ts <- AGENTS.md"]).toBe("before"); // pi loads the root itself
    expect(a["lib/old.ts <- lib/AGENTS.md"]).toBe("never");
    expect(a["lib/new.ts <- lib/AGENTS.md"]).toBe("never");
    expect(b["lib/old.ts <- AGENTS.md"]).toBe("before");
    expect(b["lib/old.ts <- lib/AGENTS.md"]).toBe("before");
    expect(b["lib/new.ts <- lib/AGENTS.md"]).toBe("before");
    expect(without.report.summary.coverage).toBe(0);
    expect(withIt.report.summary.coverage).toBe(100);
  }, 300_000);
});
