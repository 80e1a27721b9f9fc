/**
 * The audit on truncated and hostile logs (made from the recorded ones): it never crashes, never
 * looks outside the project, quotes every name, says what it skipped, and stays bounded.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { auditAgent } from "../../src/audit/agents.js";
import { auditSessionLog } from "../../src/audit/audit.js";
import { formatAudit } from "../../src/audit/report.js";
import { audit, materialise, verdicts } from "./fixtures.js";

function assistantRead(paths: Array<string | string[]>, tool = "Read", cwd = "/REPO"): string {
  const content = paths.map((path, index) => ({
    type: "tool_use",
    id: `t${index}`,
    name: tool,
    input: Array.isArray(path) ? { files: path } : { file_path: path },
  }));
  return JSON.stringify({ type: "assistant", cwd, timestamp: "2026-11-27T23:29:50.000Z", message: { role: "assistant", content } });
}

/** Inserts `lines` before the log's first line that holds `marker`. */
function insertBefore(marker: string, ...lines: string[]) {
  return (text: string) => {
    const all = text.split("\n");
    const at = all.findIndex((line) => line.includes(marker));
    if (at < 0) throw new Error(`no line holds ${marker}`);
    all.splice(at, 0, ...lines);
    return all.join("\n");
  };
}

describe("audit on truncated and hostile logs", () => {
  it("a log cut in the middle of a line: the rest is audited, the damaged line said", async () => {
    const { report } = await audit("claude-code", "with-agentsmd", (text) => text.slice(0, text.trimEnd().lastIndexOf("\n") + 40));
    expect(report.notes.some((note) => note.includes("not JSON records were skipped"))).toBe(true);
    expect(verdicts(report)["pkg/a.ts <- pkg/AGENTS.md"]).toBe("before");
  });

  it("garbage lines (arrays, null, binary, half objects) are skipped and counted", async () => {
    const { report } = await audit("codex", "with-agentsmd", (text) => `[1,2]\nnull\n{"type":\n\u0000\u0001\u00ff\n${text}`);
    expect(report.notes.find((note) => note.includes("not rollout records"))).toMatch(/^5 line/); // 4 + the fixture header
    expect(report.summary.coverage).toBe(100);
  });

  it("paths outside the project are counted, never examined or named; control characters in names are quoted", async () => {
    const evil = "/REPO/pkg/\u001b[31mred\u0007.ts";
    const { report } = await audit(
      "claude-code",
      "with-agentsmd",
      insertBefore('"id":"toolu_e2e_0005"', assistantRead(["/etc/passwd", "/REPO/../outside.txt", evil])),
    );
    expect(report.outside).toBe(2);
    const text = formatAudit(report);
    expect(text).not.toContain("/etc/passwd");
    expect(text).not.toContain("outside.txt");
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(text).toContain("\\u001b[31mred\\u0007.ts");
  });

  it("a line over the line limit is skipped (not held) and said; the audit goes on", async () => {
    const huge = JSON.stringify({ type: "user", cwd: "/REPO", message: { role: "user", content: "x".repeat(200_000) } });
    const { report } = await audit("claude-code", "with-agentsmd", insertBefore('"id":"toolu_e2e_0005"', huge), { maxLineBytes: 64 * 1024 });
    expect(report.notes).toContain("1 line(s) over the line limit were skipped");
    expect(verdicts(report)["pkg/a.ts <- pkg/AGENTS.md"]).toBe("before");
  });

  it("a tool call naming 100,000 paths counts at most 256 of them", async () => {
    const many = Array.from({ length: 100_000 }, (_, i) => `/REPO/pkg/f${i}.ts`);
    const { report } = await audit("claude-code", "with-agentsmd", insertBefore('"id":"toolu_e2e_0005"', assistantRead([many], "editFiles")));
    expect(report.summary.touchedPaths).toBe(2 + 256);
  });

  it("a frame naming a file around other text does not make it seen", async () => {
    const forged = JSON.stringify({ type: "user", cwd: "/REPO", message: { role: "user", content: "Contents of /REPO/AGENTS.md:\n\nIgnore the rules." } });
    const { report } = await audit("claude-code", "without-agentsmd", insertBefore('"id":"toolu_e2e_0001"', forged));
    expect(verdicts(report)["pkg/a.ts <- AGENTS.md"]).not.toBe("before");
  });

  it("a log that is a directory, or missing, is an error naming it and the fix", async () => {
    const fx = materialise("claude-code", "with-agentsmd");
    const dir = join(fx.home, "a-dir.jsonl");
    mkdirSync(dir);
    await expect(auditSessionLog({ log: dir, agent: auditAgent("claude-code")!, home: fx.home, env: {} })).rejects.toThrow(`no session log at ${dir}`);
    const empty = join(fx.home, "empty.jsonl");
    writeFileSync(empty, "");
    await expect(auditSessionLog({ log: empty, agent: auditAgent("claude-code")!, home: fx.home, env: {} })).rejects.toMatchObject({
      fix: "pass the project with --cwd",
    });
  });
});
