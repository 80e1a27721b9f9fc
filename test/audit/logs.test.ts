/**
 * The audit on the recorded session logs of test/audit/logs/, as `agentsmd audit` runs it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { auditAgent } from "../../src/audit/agents.js";
import type { LogEvent } from "../../src/integrations/host/log-event.js";
import { audit, LOGS, verdicts } from "./fixtures.js";

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
