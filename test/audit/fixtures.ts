/**
 * The recorded session logs of test/audit/logs/ (real Claude Code 2.1.330, codex-cli 0.169.0,
 * GitHub Copilot CLI 1.0.102, pi 0.87.1, Gemini CLI 0.61.0, Qwen Code 0.24.4, Cline 3.0.65, Factory Droid 0.215.0, OpenCode 1.18.33 and Kilo 7.7.7 runs, without and with agentsmd, trimmed by scripts/audit-trim-log.mjs) with their repositories
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

/** e2e/copilot/audit.e2e.test.ts and e2e/pi/audit.e2e.test.ts as they left the repository. */
const NESTED_LIB: Record<string, string> = {
  "AGENTS.md": "# root\nToken AUD-ROOT-1: root rules.\n",
  "lib/AGENTS.md": "# lib\nToken AUD-LIB-EDITED-3: the changed lib rules.\n",
  "lib/old.ts": "export const old = 4;\n",
  "lib/new.ts": "export const n = 5;\n",
};

/** The repositories as each run left them: relative path -> text ("home/..." under HOME). */
const TREES: Record<string, { files: Record<string, string>; edited?: string; document?: boolean }> = {
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
  copilot: { files: NESTED_LIB, edited: "lib/AGENTS.md" },
  pi: { files: NESTED_LIB, edited: "lib/AGENTS.md" },
  gemini: {
    files: {
      "GEMINI.md": "# gemini\nToken AUDIT-GEMINI-0: Gemini CLI loads this itself.\n",
      "AGENTS.md": "# root\nToken AUDIT-ROOT-1: root rules.\n",
      "lib/GEMINI.md": "# lib (gemini)\nToken AUDIT-GEMINI-LIB-2: Gemini loads this just in time.\n",
      "lib/AGENTS.md": "# lib\nToken AUDIT-LIB-EDITED-4: lib rules, changed.\n",
      "lib/old.ts": "export const old = 4;\n",
      "lib/new.ts": "export const n = 5;\n",
    },
    edited: "lib/AGENTS.md",
  },
  qwen: {
    files: {
      "QWEN.md": "# qwen\nToken AUDIT-QWEN-0: Qwen Code loads this itself.\n",
      "AGENTS.md": "# root\nToken AUDIT-ROOT-1: root rules.\n",
      "lib/AGENTS.md": "# lib\nToken AUDIT-LIB-EDITED-4: lib rules, changed.\n",
      "lib/old.ts": "export const old = 4;\n",
      "lib/new.ts": "export const n = 5;\n",
    },
    edited: "lib/AGENTS.md",
  },
  // Cline's log is one JSON document (`<id>.messages.json`); the run started in app/.
  cline: {
    files: {
      "AGENTS.md": "# Root\nToken AUDIT-ROOT-1: root rules.\n",
      "app/lib/AGENTS.md": "# Lib\nToken AUDIT-LIB-EDITED-3: lib rules, changed.\n",
      "app/lib/old.ts": "export const old = 4;\n",
      "app/lib/new.ts": "export const n = 5;\n",
    },
    edited: "app/lib/AGENTS.md",
    document: true,
  },
  droid: {
    files: {
      "AGENTS.md": "# Root\nToken AUDIT-ROOT-1: root rules.\n",
      "lib/AGENTS.md": "# Lib\nToken AUDIT-LIB-2: lib rules.\n",
      "lib/old.ts": "export const old = 4;\n",
      "web/AGENTS.md": "# Web\nToken AUDIT-WEB-4: web rules.\n",
      "web/a.ts": "export {};\n",
      "web/b.ts": "export {};\n",
    },
  },
};

/** The file name of a recorded log. */
export function logFile(agent: string, name: string): string {
  return join(LOGS, agent, `${name}${TREES[agent]!.document ? ".json" : ".jsonl"}`);
}
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
  const raw = readFileSync(logFile(agent, name), "utf8");
  const header = tree.document
    ? (JSON.parse(raw) as { fixture: { editedAt: string } })
    : (JSON.parse(raw.split("\n")[0]!) as { fixture: { editedAt: string } });
  const editedAt = new Date(header.fixture.editedAt);
  const old = new Date(editedAt.getTime() - 3_600_000);
  for (const rel of Object.keys(tree.files)) utimesSync(join(repo, rel), old, old);
  if (tree.edited !== undefined) utimesSync(join(repo, tree.edited), editedAt, editedAt);
  const log = join(base, tree.document ? "session.messages.json" : "session.jsonl");
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
