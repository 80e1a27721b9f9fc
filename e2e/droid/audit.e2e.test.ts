/**
 * `agentsmd audit` on real Factory Droid session logs: the pinned `droid exec` runs the same task
 * twice, without agentsmd and after `agentsmd install droid`. Droid loads the root file itself and
 * attaches lib/AGENTS.md after its Grep; files it creates in web/ get web/AGENTS.md only from
 * agentsmd (after the first Create, so before the second). One turn only: `droid exec -s` fetches
 * the session from Factory's servers, so a second turn cannot be run offline. AGENTSMD_AUDIT_RECORD=1 also copies both logs to test/audit/logs/droid/ (trimmed
 * there: the unit fixtures).
 *
 * Needs `npm run build` and `npm ci --prefix e2e/droid`. Each agent run is bounded (RUN_TIMEOUT_MS).
 */
import fs from "node:fs";
import { realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cleanupAfterEach } from "../lib/cleanups.js";
import { assertAgentsmdBuilt, runAgentsmd, runInstall } from "../lib/agentsmd.js";
import { describeTextRun, homeEnv, runText } from "../lib/exec.js";
import { REPO_ROOT } from "../lib/install.js";
import { startOpenAIChatServer, type OpenAIChatServer, type ScriptStep } from "../lib/openai-chat-server.js";
import { createTree, dir } from "../lib/tree.js";
import { DROID_EXEC_ARGS, DROID_VERSION as VERSION, droidBin, droidSettingsText } from "./harness.js";

const RUN_TIMEOUT_MS = 150_000;

const cleanups = cleanupAfterEach();

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await droidBin();
}, 600_000);

interface Fixture {
  repo: string;
  home: string;
  server: OpenAIChatServer;
}

async function turn(fx: Fixture, script: ScriptStep[]) {
  fx.server.setScript(script);
  const run = await runText(await droidBin(), DROID_EXEC_ARGS, { cwd: fx.repo, env: homeEnv(fx.home), timeoutMs: RUN_TIMEOUT_MS, stderrTail: 20_000 });
  expect(run.code, describeTextRun(run, fx.server.requests)).toBe(0);
  expect(fx.server.turnsUsed, describeTextRun(run, fx.server.requests)).toBe(script.length);
}

/** The one session log Droid keeps for the fixture: `~/.factory/sessions/<cwd slug>/<id>.jsonl`. */
function sessionLog(fx: Fixture): { id: string; log: string } {
  const sessions = path.join(fx.home, ".factory", "sessions");
  const logs = fs.readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl"));
  expect(logs).toHaveLength(1);
  return { id: path.basename(logs[0]!, ".jsonl"), log: path.join(sessions, logs[0]!) };
}

async function session(install: boolean) {
  const tree = await createTree(
    {
      "home/.local/state": dir(),
      "home/.factory": dir(),
      "repo/.git": dir(),
      "repo/AGENTS.md": "# Root\nToken AUDIT-ROOT-1: root rules.\n",
      "repo/lib/AGENTS.md": "# Lib\nToken AUDIT-LIB-2: lib rules.\n",
      "repo/lib/old.ts": "export const old = 3;\n",
      "repo/web/AGENTS.md": "# Web\nToken AUDIT-WEB-4: web rules.\n",
    },
    { prefix: "agentsmd-droid-audit-" },
  );
  const server = await startOpenAIChatServer({ script: [] });
  cleanups.push(
    () => tree.cleanup(),
    () => server.close(),
  );
  const fx: Fixture = { repo: await realpath(tree.path("repo")), home: await realpath(tree.path("home")), server };
  await writeFile(path.join(fx.home, ".factory", "settings.json"), droidSettingsText(server.baseURL));
  if (install) {
    await runInstall(["install", "droid"], { env: homeEnv(fx.home), cwd: fx.repo });
  }
  const lib = path.join(fx.repo, "lib");
  const create = (rel: string) => ({ toolCalls: [{ tool: "Create", args: { file_path: path.join(fx.repo, rel), content: "export {};\n" } }] });
  await turn(fx, [
    { toolCalls: [{ tool: "Grep", args: { pattern: "old", path: lib } }] },
    { toolCalls: [{ tool: "Edit", args: { file_path: path.join(lib, "old.ts"), old_str: "3", new_str: "4" } }] },
    create("web/a.ts"),
    create("web/b.ts"),
    { text: "done" },
  ]);
  const { log } = sessionLog(fx);
  if (process.env.AGENTSMD_AUDIT_RECORD === "1") {
    const out = path.join(REPO_ROOT, "test", "audit", "logs", "droid", install ? "with-agentsmd.raw.jsonl" : "without-agentsmd.raw.jsonl");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.copyFileSync(log, out);
    fs.writeFileSync(out.replace(/\.raw\.jsonl$/, ".repo.txt"), `${fx.repo}\n${fx.home}\n`);
  }
  const audit = await runAgentsmd(["audit", "--last", "--agent", "droid", "--json"], { cwd: fx.repo, env: homeEnv(fx.home) });
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

describe(`agentsmd audit on Factory Droid ${VERSION} session logs`, () => {
  it("without agentsmd web/AGENTS.md never reaches the model; with it, after the first Create there and before the second", async () => {
    const without = await session(false);
    const withIt = await session(true);
    const a = verdicts(without.report, without.fx.repo);
    const b = verdicts(withIt.report, withIt.fx.repo);
    console.log(JSON.stringify({ without: a, with: b, summaries: [without.report.summary, withIt.report.summary] }, null, 2));
    expect(a["lib/old.ts <- AGENTS.md"]).toBe("before"); // Droid loads the root itself
    expect(a["lib/old.ts <- lib/AGENTS.md"]).toBe("before"); // and attaches the nested file after its Grep
    expect(a["web/a.ts <- web/AGENTS.md"]).toBe("never");
    expect(a["web/b.ts <- web/AGENTS.md"]).toBe("never");
    expect(b["web/a.ts <- web/AGENTS.md"]).toBe("after"); // the hook answers after the tool ran
    expect(b["web/b.ts <- web/AGENTS.md"]).toBe("before");
    // Droid attaches lib/AGENTS.md after its Grep itself: agentsmd adds no second copy.
    const paths = withIt.report.paths as Array<{ files: Array<{ path: string; duplicates: number }> }>;
    const lib = paths.flatMap((entry) => entry.files).filter((file) => file.path.endsWith("lib/AGENTS.md"));
    expect(lib.length).toBeGreaterThan(0);
    expect(lib.map((file) => file.duplicates)).toEqual(lib.map(() => 0));
    expect(without.report.summary.coverage).toBe(33.3);
    expect(withIt.report.summary.coverage).toBe(66.6);
  });
});
