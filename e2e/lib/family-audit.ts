/**
 * `agentsmd audit` on the real session database of an agent of the OpenCode family (OpenCode,
 * Kilo Code): the pinned CLI runs in a repository with nested AGENTS.md, once without agentsmd (one
 * turn: a look into `pkg/`, then a new file there) and once with the agentsmd plugin (that turn,
 * then `pkg/AGENTS.md` changed on disk, then a second turn with `--continue`: another look, another
 * file). `agentsmd audit --last --agent <host> --json` reads each session where the agent keeps
 * it (`$XDG_DATA_HOME/<app>/<app>.db`). AGENTSMD_AUDIT_RECORD=1 also writes each session's rows (as
 * the reader's JSON lines, paths as /REPO and /HOME) to test/audit/logs/<host>/: the unit fixtures.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "vitest";
import { runAgentsmd } from "./agentsmd.js";
import { cleanEnv } from "./exec.js";
import { REPO_ROOT } from "./install.js";
import { expectCleanRun, type FamilyFixture, type FamilyFixtureOptions, type FamilyRunResult } from "./opencode-family.js";
import type { ScriptStep } from "./openai-chat-server.js";

const AUDIT_FILES: Record<string, string> = {
  "AGENTS.md": "# root\nToken AUDIT-ROOT-1: root rules.\n",
  "pkg/AGENTS.md": "# pkg\nToken AUDIT-PKG-2: pkg rules.\n",
  "pkg/a.ts": "export const a = 1;\n",
};
const AUDIT_PKG_EDITED = "# pkg\nToken AUDIT-PKG-EDITED-3: pkg rules, changed.\n";

export interface FamilyAuditHost {
  /** `--agent` name and folder under test/audit/logs/. */
  host: string;
  /** The agent's data folder under XDG_DATA_HOME and its database there. */
  app: string;
  database: string;
  /** A tool call that looks into a directory (the plugin delivers there; the agent itself does not). */
  look(fx: FamilyFixture, dir: string): ScriptStep;
  /** Fixture options that load the built agentsmd plugin. */
  plugin: FamilyFixtureOptions;
  timeoutMs: number;
}

interface AuditedSession {
  fx: FamilyFixture;
  runs: FamilyRunResult[];
  report: AuditReportJson;
}

export interface AuditReportJson {
  root: string;
  paths: Array<{ path: string; edited: boolean; files: Array<{ path: string; verdict: string; shown: number }> }>;
  summary: { coverage: number; editedPaths: number; coveredEdits: number; duplicates: number };
  notes: string[];
  log: string;
}

const write = (fx: FamilyFixture, rel: string, text: string): ScriptStep => ({
  toolCalls: [{ tool: "write", args: { filePath: fx.path(rel), content: text } }],
});

/**
 * One session of the scenario above and its audit. `newFixture` is the suite's (familyFixtures):
 * the fixture is removed after the test.
 */
export async function auditedSession(
  host: FamilyAuditHost,
  newFixture: (options?: FamilyFixtureOptions) => Promise<FamilyFixture>,
  withAgentsmd: boolean,
): Promise<AuditedSession> {
  const fx = await newFixture({ files: AUDIT_FILES, ...(withAgentsmd ? host.plugin : {}) });
  const runs: FamilyRunResult[] = [];
  const one = await fx.run({
    prompt: "Add pkg/new.ts.",
    timeoutMs: host.timeoutMs,
    script: [host.look(fx, "pkg"), write(fx, "pkg/new.ts", "export const n = 1;\n"), { text: "done" }],
  });
  expectCleanRun(one, host.host);
  runs.push(one);
  let editedAt: number | undefined;
  if (withAgentsmd) {
    // Between the turns someone changes the nested instructions on disk.
    await fx.write("pkg/AGENTS.md", AUDIT_PKG_EDITED);
    editedAt = Date.now();
    const two = await fx.run({
      prompt: "Add pkg/b.ts.",
      args: ["--continue"],
      timeoutMs: host.timeoutMs,
      script: [host.look(fx, "pkg"), write(fx, "pkg/b.ts", "export const b = 3;\n"), { text: "done" }],
    });
    expectCleanRun(two, host.host);
    runs.push(two);
  }
  const env = cleanEnv({ HOME: fx.home, XDG_DATA_HOME: fx.xdg.data, XDG_STATE_HOME: fx.xdg.state, XDG_CONFIG_HOME: fx.xdg.config });
  const audit = await runAgentsmd(["audit", "--last", "--agent", host.host, "--json"], { cwd: fx.repo, env });
  expect(audit.code, audit.stderr.toString()).toBe(0);
  const [report] = JSON.parse(audit.stdout.toString()) as AuditReportJson[];
  expect(report!.log).toBe(`${path.join(fx.xdg.data, host.app, host.database)}#${report!.log.split("#")[1]}`);
  if (process.env.AGENTSMD_AUDIT_RECORD === "1") await record(host, fx, report!.log, withAgentsmd, editedAt ?? Date.now());
  return { fx, runs, report: report! };
}

/** The session's rows as the reader's lines, paths made /REPO and /HOME, under a fixture header. */
async function record(host: FamilyAuditHost, fx: FamilyFixture, log: string, withAgentsmd: boolean, editedAt: number): Promise<void> {
  const module = (await import(pathToFileURL(path.join(REPO_ROOT, "dist", "integrations", host.host, "session-log.js")).href)) as Record<
    string,
    { store: { lines(file: string, id: string, limits: { maxLineBytes: number; maxBytes: number }): AsyncIterable<string | null> } }
  >;
  const reader = Object.values(module)[0]!;
  const [file, id] = log.split("#") as [string, string];
  const lines = [JSON.stringify({ fixture: { editedAt: new Date(editedAt).toISOString() } })];
  for await (const line of reader.store.lines(file, id, { maxLineBytes: 8 << 20, maxBytes: 1 << 30 })) if (line !== null) lines.push(line);
  const text = `${lines.join("\n")}\n`.split(fx.repo).join("/REPO").split(fx.home).join("/HOME");
  const out = path.join(REPO_ROOT, "test", "audit", "logs", host.host, withAgentsmd ? "with-agentsmd.jsonl" : "without-agentsmd.jsonl");
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, text);
}

/** `pkg/x.ts <- pkg/AGENTS.md` -> verdict, paths relative to the repo. */
export function verdictsOf(report: AuditReportJson): Record<string, string> {
  const rel = (p: string) => path.relative(report.root, p);
  return Object.fromEntries(report.paths.flatMap((entry) => entry.files.map((file) => [`${rel(entry.path)} <- ${rel(file.path)}`, file.verdict])));
}
