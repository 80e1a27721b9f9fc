/**
 * `agentsmd audit` on real Gemini CLI chat logs: the pinned gemini (0.61.0) runs the same two
 * turns twice against the scripted Gemini API server (nested AGENTS.md and GEMINI.md; lib/AGENTS.md
 * edited on disk between the turns, the second turn a `--resume latest`), without agentsmd and
 * after `agentsmd install gemini`, and `agentsmd audit --last --agent gemini` tells them apart,
 * finding the log where Gemini keeps it. AGENTSMD_AUDIT_RECORD=1 also copies both logs to
 * test/audit/logs/gemini/ (trimmed there by scripts/audit-trim-log.mjs: the unit fixtures).
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cleanupAfterEach } from "../lib/cleanups.js";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { startGeminiServer, type GeminiServer, type GeminiStep } from "../lib/gemini-server.js";
import { REPO_ROOT } from "../lib/install.js";
import { createGeminiFixture, describeGeminiRun, editFile, geminiEntry, runGemini, type GeminiFixture } from "./harness.js";

const FILES = {
  "GEMINI.md": "# gemini\nToken AUDIT-GEMINI-0: Gemini CLI loads this itself.\n",
  "AGENTS.md": "# root\nToken AUDIT-ROOT-1: root rules.\n",
  "lib/GEMINI.md": "# lib (gemini)\nToken AUDIT-GEMINI-LIB-2: Gemini loads this just in time.\n",
  "lib/AGENTS.md": "# lib\nToken AUDIT-LIB-3: lib rules.\n",
  "lib/old.ts": "export const old = 3;\n",
};
const EDITED = "# lib\nToken AUDIT-LIB-EDITED-4: lib rules, changed.\n";

const cleanups = cleanupAfterEach();

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await geminiEntry();
}, 600_000);

async function turn(fx: GeminiFixture, server: GeminiServer, script: GeminiStep[], resume: boolean): Promise<void> {
  server.setScript(script);
  const run = await runGemini(fx, server, { prompt: "Work on the task.", resume });
  expect(run.code, describeGeminiRun(run, server)).toBe(0);
  expect(server.turnsUsed, describeGeminiRun(run, server)).toBe(script.length);
}

type Report = { log: string; paths: Array<{ path: string; files: Array<{ path: string; verdict: string; shown: number }> }>; summary: { coverage: number } };

async function session(install: boolean) {
  const fx = await createGeminiFixture(FILES);
  const server = await startGeminiServer({ script: [] });
  cleanups.push(
    () => fx.tree.cleanup(),
    () => server.close(),
  );
  if (install) await fx.installAgentsmd();
  await turn(
    fx,
    server,
    [
      { calls: [{ name: "read_file", args: { file_path: "lib/old.ts" } }] },
      { calls: [{ name: "replace", args: { file_path: "lib/old.ts", instruction: "bump", old_string: "old = 3", new_string: "old = 4" } }] },
      { text: "done" },
    ],
    false,
  );
  await editFile(fx, "lib/AGENTS.md", EDITED);
  const editedAt = fs.statSync(fx.path("lib/AGENTS.md")).mtime.toISOString();
  await turn(fx, server, [{ calls: [{ name: "write_file", args: { file_path: "lib/new.ts", content: "export const n = 5;\n" } }] }, { text: "done" }], true);
  expect(fs.readFileSync(fx.path("lib/old.ts"), "utf8")).toBe("export const old = 4;\n");
  const audit = await runAgentsmd(["audit", "--last", "--agent", "gemini", "--json"], { cwd: fx.repo, env: fx.env() });
  expect(audit.code, audit.stderr.toString()).toBe(0);
  const report = (JSON.parse(audit.stdout.toString()) as Report[])[0]!;
  if (process.env.AGENTSMD_AUDIT_RECORD === "1") {
    const out = path.join(REPO_ROOT, "test", "audit", "logs", "gemini", install ? "with-agentsmd.raw.jsonl" : "without-agentsmd.raw.jsonl");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.copyFileSync(report.log, out);
    fs.writeFileSync(out.replace(/\.raw\.jsonl$/, ".repo.txt"), `${fx.repo}\n${fx.home}\n${editedAt}\n`);
  }
  return { fx, report };
}

function verdicts(report: Report, repo: string) {
  return Object.fromEntries(
    report.paths.flatMap((entry) => entry.files.map((file) => [`${path.relative(repo, entry.path)} <- ${path.relative(repo, file.path)}`, file.verdict])),
  );
}

describe("agentsmd audit on Gemini CLI 0.61.0 chat logs", () => {
  it("without agentsmd the AGENTS.md files never reach the model (its GEMINI.md files do); with it, before the edit, and the edited one again", async () => {
    const without = await session(false);
    const withIt = await session(true);
    const a = verdicts(without.report, without.fx.repo);
    const b = verdicts(withIt.report, withIt.fx.repo);
    console.log(JSON.stringify({ without: a, with: b, summaries: [without.report.summary, withIt.report.summary] }, null, 2));
    // --last found the log where Gemini keeps it
    expect(path.relative(without.fx.home, without.report.log)).toMatch(/^\.gemini\/tmp\/[^/]+\/chats\/session-[^/]+\.jsonl$/);
    expect(a).toEqual({
      "lib/old.ts <- GEMINI.md": "before",
      "lib/old.ts <- lib/GEMINI.md": "before",
      "lib/old.ts <- AGENTS.md": "never",
      "lib/old.ts <- lib/AGENTS.md": "never",
      "lib/new.ts <- GEMINI.md": "before",
      "lib/new.ts <- lib/GEMINI.md": "before",
      "lib/new.ts <- AGENTS.md": "never",
      "lib/new.ts <- lib/AGENTS.md": "never",
    });
    expect(without.report.summary.coverage).toBe(0);
    expect(Object.values(b).every((verdict) => verdict === "before")).toBe(true);
    expect(Object.keys(b)).toEqual(Object.keys(a));
    expect(withIt.report.summary.coverage).toBe(100);
    // the edited lib/AGENTS.md reached the model (its new text) before lib/new.ts was written
    const libFile = withIt.report.paths.find((entry) => entry.path.endsWith("/lib/new.ts"))!.files.find((file) => file.path.endsWith("/lib/AGENTS.md"))!;
    expect(libFile).toMatchObject({ verdict: "before", shown: 1 });
  }, 300_000);
});
