/**
 * The audit on the recorded session logs of test/audit/logs/ (real Claude Code 2.1.330 and
 * codex-cli 0.169.0 runs, without and with agentsmd, trimmed by scripts/audit-trim-log.mjs): each
 * log's repository is rebuilt at a temp path as it was after the run (the nested file edited
 * between the turns, at the recorded time), then audited as `agentsmd audit` does.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { auditAgent } from "../../src/integrations/audit/agents.js";
import { auditSessionLog, type AuditReport } from "../../src/integrations/audit/audit.js";
import type { LogEvent } from "../../src/integrations/audit/log-event.js";

const LOGS = join(dirname(new URL(import.meta.url).pathname), "logs");

/** The repositories as each run left them: relative path -> text ("home/..." under HOME). */
export const TREES: Record<string, { files: Record<string, string>; edited: string }> = {
  "claude-code": {
    files: {
      "CLAUDE.md": "Token AUDIT-CLAUDE-0: Claude Code loads this itself.\n",
      "AGENTS.md": "# root\nToken AUDIT-ROOT-1: root rules.\n",
      "pkg/AGENTS.md": "# pkg\nToken AUDIT-PKG-EDITED-3: pkg rules, changed.\n",
      "pkg/a.ts": "export const a = 2;\n",
      "pkg/b.ts": "export const b = 3;\n",
    },
    edited: "pkg/AGENTS.md",
  },
  codex: {
    files: {
      "../home/.codex/AGENTS.md": "# global\nGLOBAL-RULE-7a1\n",
      "AGENTS.md": "# root\nROOT-RULE-3c9\n",
      "pkg/AGENTS.md": "# pkg (shadowed)\nPKG-PLAIN-RULE-55e\n",
      "pkg/AGENTS.override.md": "# pkg override\nPKG-OVERRIDE-RULE-0d4\n",
      "pkg/src/a.ts": "export const a = 1;\n",
      "lib/AGENTS.md": "# lib\nLIB-RULE-EDITED-9f0\n",
      "lib/old.ts": "export const old = 4;\n",
      "lib/new.ts": "export const n = 5;\n",
    },
    edited: "lib/AGENTS.md",
  },
};

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The log `name` of `agent` with its repository rebuilt; `edit` changes the log text first. */
export function materialise(agent: string, name: string, edit: (text: string) => string = (text) => text) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "agentsmd-audit-")));
  temps.push(base);
  const repo = join(base, "repo");
  const home = join(base, "home");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  const tree = TREES[agent]!;
  for (const [rel, text] of Object.entries(tree.files)) {
    mkdirSync(dirname(join(repo, rel)), { recursive: true });
    writeFileSync(join(repo, rel), text);
  }
  const raw = readFileSync(join(LOGS, agent, `${name}.jsonl`), "utf8");
  const editedAt = new Date((JSON.parse(raw.split("\n")[0]!) as { fixture: { editedAt: string } }).fixture.editedAt);
  const old = new Date(editedAt.getTime() - 3_600_000);
  for (const rel of Object.keys(tree.files)) utimesSync(join(repo, rel), old, old);
  utimesSync(join(repo, tree.edited), editedAt, editedAt);
  const log = join(base, "session.jsonl");
  writeFileSync(log, edit(raw.split("/REPO").join(repo).split("/HOME").join(home)));
  return { repo, home, log };
}

export async function audit(agent: string, name: string, edit?: (text: string) => string, limits?: { maxLineBytes?: number; maxBytes?: number }) {
  const fx = materialise(agent, name, edit);
  const report = await auditSessionLog({ log: fx.log, agent: auditAgent(agent)!, home: fx.home, env: {}, ...(limits ? { limits } : {}) });
  return { ...fx, report };
}

export function verdicts(report: AuditReport): Record<string, string> {
  const rel = (path: string) => (path.startsWith(report.root + "/") ? path.slice(report.root.length + 1) : path.replace(report.home, "~"));
  return Object.fromEntries(report.paths.flatMap((entry) => entry.files.map((file) => [`${rel(entry.path)} <- ${rel(file.path)}`, file.verdict])));
}

async function events(agent: string, name: string): Promise<LogEvent[]> {
  const reader = await auditAgent(agent)!.load();
  const lines = readFileSync(join(LOGS, agent, `${name}.jsonl`), "utf8")
    .split("\n")
    .slice(1); // after the fixture header
  const out: LogEvent[] = [];
  async function* each() {
    yield* lines;
  }
  for await (const event of reader.events(each(), { home: "/HOME" })) out.push(event);
  return out;
}

describe("Claude Code transcripts (2.1.330)", () => {
  it("the reader: cwd, touches through the hook's tool table in order, instruction files with their paths", async () => {
    const list = await events("claude-code", "with-agentsmd");
    expect(list.find((e) => e.kind === "cwd")).toMatchObject({ cwd: "/REPO" });
    expect(list.filter((e) => e.kind === "touch").map((e) => e.kind === "touch" && `${e.tool} ${e.use} ${e.path}`)).toEqual([
      "Read read /REPO/pkg/a.ts",
      "Edit edit /REPO/pkg/a.ts",
      "Write edit /REPO/pkg/b.ts",
    ]);
    const shown = list.filter((e): e is Extract<LogEvent, { kind: "shown" }> => e.kind === "shown");
    expect(shown.find((e) => e.about === "/REPO/CLAUDE.md")).toMatchObject({ channel: "system" });
    expect(shown.some((e) => e.channel === "hook" && e.text.includes("AUDIT-PKG-2"))).toBe(true);
    expect(shown.some((e) => e.channel === "system" && e.text.includes("[trimmed]"))).toBe(true); // the system prompt
    expect(list.filter((e) => e.kind === "note")).toEqual([]);
  });

  it("without agentsmd: CLAUDE.md before, the AGENTS.md files never (Claude Code reads none beside a CLAUDE.md); coverage 0", async () => {
    const { report } = await audit("claude-code", "without-agentsmd");
    expect(verdicts(report)).toEqual({
      "pkg/a.ts <- CLAUDE.md": "before",
      "pkg/a.ts <- AGENTS.md": "never",
      "pkg/a.ts <- pkg/AGENTS.md": "never",
      "pkg/b.ts <- CLAUDE.md": "before",
      "pkg/b.ts <- AGENTS.md": "never",
      "pkg/b.ts <- pkg/AGENTS.md": "never",
    });
    expect(report.summary).toMatchObject({ touchedPaths: 2, editedPaths: 2, coveredEdits: 0, coverage: 0 });
    expect(report.paths[0]!.files.map((f) => f.by)).toEqual(["agent", "agentsmd", "agentsmd"]);
  });

  it("with agentsmd: all before the first edit; the changed pkg/AGENTS.md stale (agentsmd's notice asked for a re-read the model never did)", async () => {
    const { report } = await audit("claude-code", "with-agentsmd");
    expect(verdicts(report)).toEqual({
      "pkg/a.ts <- CLAUDE.md": "before",
      "pkg/a.ts <- AGENTS.md": "before",
      "pkg/a.ts <- pkg/AGENTS.md": "before",
      "pkg/b.ts <- CLAUDE.md": "before",
      "pkg/b.ts <- AGENTS.md": "before",
      "pkg/b.ts <- pkg/AGENTS.md": "stale",
    });
    expect(report.summary).toMatchObject({ coverage: 50, duplicates: 0 });
    expect(report.summary.deliveredBytes).toBeGreaterThan(100);
  });
});

describe("Codex rollouts (0.169.0)", () => {
  it("the reader: cat read as the hook reads it, patches as edits, Codex's own block framed by directory, base instructions", async () => {
    const list = await events("codex", "with-agentsmd");
    expect(list.filter((e) => e.kind === "touch").map((e) => e.kind === "touch" && `${e.tool} ${e.use} ${e.path}`)).toEqual([
      "exec_command read /REPO/lib/old.ts",
      "apply_patch edit /REPO/lib/old.ts",
      "apply_patch edit /REPO/lib/new.ts",
    ]);
    const shown = list.filter((e): e is Extract<LogEvent, { kind: "shown" }> => e.kind === "shown");
    expect(shown.find((e) => e.about === "/REPO/")?.text).toContain("ROOT-RULE-3c9");
    expect(shown.some((e) => e.channel === "hook" && e.text.includes("LIB-RULE-EDITED-9f0"))).toBe(true);
    expect(list.filter((e) => e.kind === "note")).toEqual([]);
  });

  it("without agentsmd: lib/AGENTS.md never; with it, before the edit and again after the change; coverage 0 -> 100", async () => {
    const without = await audit("codex", "without-agentsmd");
    expect(verdicts(without.report)).toMatchObject({
      "lib/old.ts <- AGENTS.md": "before",
      "lib/old.ts <- ~/.codex/AGENTS.md": "before",
      "lib/old.ts <- lib/AGENTS.md": "never",
      "lib/new.ts <- lib/AGENTS.md": "never",
    });
    expect(without.report.summary.coverage).toBe(0);
    const withIt = await audit("codex", "with-agentsmd");
    expect(verdicts(withIt.report)).toMatchObject({ "lib/old.ts <- lib/AGENTS.md": "before", "lib/new.ts <- lib/AGENTS.md": "before" });
    expect(withIt.report.summary.coverage).toBe(100);
  });
});
