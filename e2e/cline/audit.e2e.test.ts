/**
 * `agentsmd audit` on real Cline session logs: the pinned `cline` runs the same task twice from a
 * subdirectory with no AGENTS.md of its own, so Cline loads none itself and every instruction file
 * is provable from its log (Cline's log leaves out the rules it loads itself): without agentsmd,
 * then after `agentsmd install cline`; app/lib/AGENTS.md is edited on disk between two tool calls
 * (the scripted model does it before its third answer). AGENTSMD_AUDIT_RECORD=1 also copies both logs to test/audit/logs/cline/ (trimmed there:
 * the unit fixtures).
 *
 * Needs `npm run build` and `npm ci --prefix e2e/cline`.
 */
import fs from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cleanupAfterEach } from "../lib/cleanups.js";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { REPO_ROOT } from "../lib/install.js";
import { startOpenAIChatServer, type OpenAIChatServer, type ScriptStep } from "../lib/openai-chat-server.js";
import { authCline, clineBin, createClineFixture, describeClineRun, runCline, type ClineFixture } from "./harness.js";

const FILES = {
  "AGENTS.md": "# Root\nToken AUDIT-ROOT-1: root rules.\n",
  "app/lib/AGENTS.md": "# Lib\nToken AUDIT-LIB-2: lib rules.\n",
  "app/lib/old.ts": "export const old = 3;\n",
};

const cleanups = cleanupAfterEach();

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await clineBin();
}, 600_000);

const read = (file: string) => ({ toolCalls: [{ tool: "read_files", args: { files: [{ path: file }] } }] });
const patch = (input: string) => ({ toolCalls: [{ tool: "apply_patch", args: { input } }] });

async function turn(fx: ClineFixture, server: OpenAIChatServer, script: ScriptStep[]) {
  server.setScript(script);
  const run = await runCline(fx, { prompt: "Work on the task.", cwd: fx.path("app") });
  expect(run.code, describeClineRun(run, server)).toBe(0);
  expect(server.turnsUsed, describeClineRun(run, server)).toBe(script.length);
}

/** The one session log Cline keeps for the fixture: `~/.cline/data/sessions/<id>/<id>.messages.json`. */
function sessionLog(fx: ClineFixture): { id: string; log: string } {
  const sessions = path.join(fx.home, ".cline", "data", "sessions");
  const ids = fs.readdirSync(sessions);
  expect(ids).toHaveLength(1);
  return { id: ids[0]!, log: path.join(sessions, ids[0]!, `${ids[0]!}.messages.json`) };
}

async function session(install: boolean) {
  const fx = await createClineFixture(FILES);
  const server = await startOpenAIChatServer({ script: [] });
  cleanups.push(
    () => fx.tree.cleanup(),
    () => server.close(),
  );
  await authCline(fx, server);
  if (install) await fx.installAgentsmd();
  await turn(fx, server, [
    read("lib/old.ts"),
    patch("*** Begin Patch\n*** Update File: lib/old.ts\n@@\n-export const old = 3;\n+export const old = 4;\n*** End Patch"),
    async () => {
      // Someone changes the nested instructions on disk between two tool calls.
      await writeFile(fx.path("app/lib/AGENTS.md"), "# Lib\nToken AUDIT-LIB-EDITED-3: lib rules, changed.\n");
      return read("lib/old.ts");
    },
    patch("*** Begin Patch\n*** Add File: lib/new.ts\n+export const n = 5;\n*** End Patch"),
    { text: "done" },
  ]);
  const { log } = sessionLog(fx);
  if (process.env.AGENTSMD_AUDIT_RECORD === "1") {
    const out = path.join(REPO_ROOT, "test", "audit", "logs", "cline", install ? "with-agentsmd.raw.json" : "without-agentsmd.raw.json");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.copyFileSync(log, out);
    fs.writeFileSync(out.replace(/\.raw\.json$/, ".repo.txt"), `${fx.repo}\n${fx.home}\n`);
  }
  const audit = await runAgentsmd(["audit", "--last", "--agent", "cline", "--json"], { cwd: fx.repo, env: fx.env() });
  expect(audit.code, audit.stderr.toString()).toBe(0);
  const [report] = JSON.parse(audit.stdout.toString());
  expect(report.log).toBe(log);
  return { fx, report };
}

function verdicts(report: { paths: Array<{ path: string; files: Array<{ path: string; verdict: string }> }> }, repo: string) {
  return Object.fromEntries(
    report.paths.flatMap((entry) => entry.files.map((file) => [`${path.relative(repo, entry.path)} <- ${path.relative(repo, file.path)}`, file.verdict])),
  );
}

describe("agentsmd audit on Cline 3.0.65 session logs", () => {
  it("from a subdirectory: without agentsmd no AGENTS.md reaches the model; with it, each before the edit, and the edited one again", async () => {
    const without = await session(false);
    const withIt = await session(true);
    const a = verdicts(without.report, without.fx.repo);
    const b = verdicts(withIt.report, withIt.fx.repo);
    console.log(JSON.stringify({ without: a, with: b, summaries: [without.report.summary, withIt.report.summary] }, null, 2));
    expect(a).toEqual({
      "app/lib/old.ts <- AGENTS.md": "never",
      "app/lib/old.ts <- app/lib/AGENTS.md": "never",
      "app/lib/new.ts <- AGENTS.md": "never",
      "app/lib/new.ts <- app/lib/AGENTS.md": "never",
    });
    expect(without.report.summary.coverage).toBe(0);
    expect(b).toEqual({
      "app/lib/old.ts <- AGENTS.md": "before",
      "app/lib/old.ts <- app/lib/AGENTS.md": "before",
      "app/lib/new.ts <- AGENTS.md": "before",
      "app/lib/new.ts <- app/lib/AGENTS.md": "before",
    });
    expect(withIt.report.summary.coverage).toBe(100);
    expect(withIt.report.summary.duplicates).toBe(0);
  });
});
