/**
 * The recorded session logs of test/audit/logs/ (real Claude Code 2.1.330, codex-cli 0.169.0, OpenCode 1.18.33 and Kilo 7.7.7
 * runs, without and with agentsmd, trimmed by scripts/audit-trim-log.mjs) with their repositories
 * rebuilt at a temp path as each run left them (the nested file edited between the turns, at the
 * recorded time).
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";
import { auditAgent, type AuditAgent } from "../../src/audit/agents.js";
import { auditSessionLog, type AuditReport } from "../../src/audit/audit.js";

export const LOGS = join(dirname(new URL(import.meta.url).pathname), "logs");

/** The repositories as each run left them: relative path -> text ("home/..." under HOME). */
const TREES: Record<string, { files: Record<string, string>; edited: string }> = {
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

/** The OpenCode family's runs (e2e/lib/family-audit.ts): the same tree for OpenCode and Kilo Code. */
const FAMILY_TREE = {
  files: {
    "AGENTS.md": "# root\nToken AUDIT-ROOT-1: root rules.\n",
    "pkg/AGENTS.md": "# pkg\nToken AUDIT-PKG-EDITED-3: pkg rules, changed.\n",
    "pkg/a.ts": "export const a = 1;\n",
    "pkg/new.ts": "export const n = 1;\n",
    "pkg/b.ts": "export const b = 3;\n",
  },
  edited: "pkg/AGENTS.md",
};
TREES.opencode = FAMILY_TREE;
TREES.kilo = FAMILY_TREE;

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The log `name` of `agent` with its repository rebuilt; `edit` changes the log text first (its /REPO and /HOME are replaced after). */
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
  writeFileSync(log, edit(raw).split("/REPO").join(repo).split("/HOME").join(home));
  return { repo, home, log };
}

export async function audit(agent: string, name: string, edit?: (text: string) => string, limits?: { maxLineBytes?: number; maxBytes?: number }) {
  const fx = materialise(agent, name, edit);
  const report = await auditSessionLog({ log: fx.log, agent: linesAgent(agent), home: fx.home, env: {}, ...(limits ? { limits } : {}) });
  return { ...fx, report };
}

/**
 * The agent `name` reading a log as its lines: an agent that keeps its sessions in a database
 * (OpenCode, Kilo Code) reads the fixture's JSON lines, which are its store's lines for one session.
 */
function linesAgent(name: string): AuditAgent {
  const agent = auditAgent(name)!;
  return {
    ...agent,
    load: async () => {
      const { store: _store, ...reader } = await agent.load();
      return reader;
    },
  };
}

export function verdicts(report: AuditReport): Record<string, string> {
  const rel = (path: string) => (path.startsWith(report.root + "/") ? path.slice(report.root.length + 1) : path.replace(report.home, "~"));
  return Object.fromEntries(report.paths.flatMap((entry) => entry.files.map((file) => [`${rel(entry.path)} <- ${rel(file.path)}`, file.verdict])));
}
