import { describe, expect, it } from "vitest";
import { AuditTimeline, normalizeText, type ApplyingFile, type InstructionFile } from "../../src/audit/engine.js";
import type { LogEvent } from "../../src/integrations/host/log-event.js";

const ROOT = { path: "/r/AGENTS.md", text: "# root\nRoot rule.\n" };
const PKG = { path: "/r/pkg/AGENTS.md", text: "# pkg\n\nPkg rule.\n" };
const APPLY = new Map<string, ApplyingFile[]>([
  [
    "/r/pkg/a.ts",
    [
      { path: ROOT.path, by: "agent" },
      { path: PKG.path, by: "agentsmd" },
    ],
  ],
]);

function run(events: LogEvent[], files: InstructionFile[] = [ROOT, PKG], applying = APPLY) {
  const timeline = new AuditTimeline(files);
  for (const event of events) timeline.add(event);
  return timeline.result(applying);
}

function verdicts(result: ReturnType<typeof run>): Record<string, string> {
  return Object.fromEntries(result.paths.flatMap((p) => p.files.map((f) => [`${p.path} <- ${f.path}`, f.verdict])));
}

describe("AuditTimeline", () => {
  it("seen before the first edit: by content, whatever the framing and whitespace", () => {
    const result = run([
      { kind: "shown", channel: "system", text: "Contents of somewhere:\n# root\n\n   Root rule." },
      { kind: "shown", channel: "hook", text: "<x># pkg Pkg rule.</x>" },
      { kind: "touch", path: "/r/pkg/a.ts", use: "read", tool: "Read" },
      { kind: "touch", path: "/r/pkg/a.ts", use: "edit", tool: "Edit" },
    ]);
    expect(verdicts(result)).toEqual({ "/r/pkg/a.ts <- /r/AGENTS.md": "before", "/r/pkg/a.ts <- /r/pkg/AGENTS.md": "before" });
    expect(result.summary).toMatchObject({ editedPaths: 1, coveredEdits: 1, coverage: 100, duplicates: 0 });
    expect(result.paths[0]!.tools).toEqual(["Read", "Edit"]);
  });

  it("a file name without the text proves nothing: never seen", () => {
    const result = run([
      { kind: "shown", channel: "system", text: "Root rule." },
      { kind: "shown", channel: "hook", text: "Contents of /r/pkg/AGENTS.md: (see there)" },
      { kind: "touch", path: "/r/pkg/a.ts", use: "edit", tool: "Edit" },
    ]);
    expect(verdicts(result)["/r/pkg/a.ts <- /r/pkg/AGENTS.md"]).toBe("never");
    expect(verdicts(result)["/r/pkg/a.ts <- /r/AGENTS.md"]).toBe("never"); // only part of its text
    expect(result.summary.coverage).toBe(0);
  });

  it("seen only after the edit; a read-only path is judged at its first touch", () => {
    const applying = new Map([...APPLY, ["/r/pkg/b.ts", [{ path: PKG.path, by: "agentsmd" as const }]]]);
    const result = run(
      [
        { kind: "touch", path: "/r/pkg/a.ts", use: "read", tool: "Read" },
        { kind: "shown", channel: "tool-result", text: "# pkg Pkg rule." },
        { kind: "touch", path: "/r/pkg/a.ts", use: "edit", tool: "Edit" },
        { kind: "touch", path: "/r/pkg/b.ts", use: "read", tool: "Read" },
      ],
      [ROOT, PKG],
      applying,
    );
    expect(verdicts(result)).toMatchObject({ "/r/pkg/a.ts <- /r/pkg/AGENTS.md": "before", "/r/pkg/b.ts <- /r/pkg/AGENTS.md": "before" });
    const late = run([
      { kind: "touch", path: "/r/pkg/a.ts", use: "edit", tool: "Edit" },
      { kind: "shown", channel: "tool-result", text: "# pkg Pkg rule." },
    ]);
    expect(verdicts(late)["/r/pkg/a.ts <- /r/pkg/AGENTS.md"]).toBe("after");
  });

  it("duplicates: the same text shown again without a change, counted with its bytes", () => {
    const result = run([
      { kind: "shown", channel: "hook", text: "# pkg Pkg rule." },
      { kind: "shown", channel: "hook", text: "# pkg Pkg rule." },
      { kind: "touch", path: "/r/pkg/a.ts", use: "edit", tool: "Edit" },
    ]);
    const pkg = result.paths[0]!.files.find((f) => f.path === PKG.path)!;
    expect(pkg).toMatchObject({ shown: 2, duplicates: 1 });
    expect(result.summary).toMatchObject({ duplicates: 1, duplicateBytes: Buffer.byteLength(PKG.text), deliveredBytes: 2 * Buffer.byteLength(PKG.text) });
  });

  it("stale: an earlier text was shown (a whole read of the file), the file changed, the new text never shown", () => {
    const pkg = { ...PKG, mtimeMs: 1_000 };
    const result = run(
      [
        { kind: "shown", channel: "tool-result", text: "# pkg\nOld rule.", about: PKG.path, time: 500 },
        { kind: "touch", path: "/r/pkg/a.ts", use: "edit", tool: "Edit", time: 2_000 },
      ],
      [ROOT, pkg],
    );
    expect(verdicts(result)["/r/pkg/a.ts <- /r/pkg/AGENTS.md"]).toBe("stale");
    // The same log when the file changed only after the edit: the earlier text was the one in force.
    const later = run(
      [
        { kind: "shown", channel: "tool-result", text: "# pkg\nOld rule.", about: PKG.path, time: 500 },
        { kind: "touch", path: "/r/pkg/a.ts", use: "edit", tool: "Edit", time: 900 },
      ],
      [ROOT, pkg],
    );
    expect(verdicts(later)["/r/pkg/a.ts <- /r/pkg/AGENTS.md"]).toBe("before");
    // Changed after the edit, its new text shown only later: what the model had at the edit is unknown.
    const unknown = run(
      [
        { kind: "touch", path: "/r/pkg/a.ts", use: "edit", tool: "Edit", time: 900 },
        { kind: "shown", channel: "hook", text: PKG.text, time: 1_100 },
      ],
      [ROOT, pkg],
    );
    expect(verdicts(unknown)["/r/pkg/a.ts <- /r/pkg/AGENTS.md"]).toBe("changed-since");
    // Changed after the edit and no text of it anywhere in the log: never.
    const never = run([{ kind: "touch", path: "/r/pkg/a.ts", use: "edit", tool: "Edit", time: 900 }], [ROOT, pkg]);
    expect(verdicts(never)["/r/pkg/a.ts <- /r/pkg/AGENTS.md"]).toBe("never");
  });

  it("a frame naming the directory (Codex's) marks an earlier text of the file in it", () => {
    const result = run(
      [
        { kind: "shown", channel: "hook", text: "# pkg\nOld rule.", about: "/r/pkg/", time: 500 },
        { kind: "touch", path: "/r/pkg/a.ts", use: "edit", tool: "Edit", time: 2_000 },
      ],
      [ROOT, { ...PKG, mtimeMs: 1_000 }],
    );
    expect(verdicts(result)["/r/pkg/a.ts <- /r/pkg/AGENTS.md"]).toBe("stale");
  });

  it("an empty instruction file is never 'seen' in everything", () => {
    const result = run(
      [
        { kind: "shown", channel: "system", text: "anything" },
        { kind: "touch", path: "/r/pkg/a.ts", use: "edit", tool: "Edit" },
      ],
      [{ path: ROOT.path, text: "  \n" }, PKG],
    );
    expect(verdicts(result)["/r/pkg/a.ts <- /r/AGENTS.md"]).toBe("never");
  });

  it("notes and cwds are kept once each; paths past the cap are counted, not followed", () => {
    const timeline = new AuditTimeline();
    timeline.add({ kind: "note", text: "no system prompt" });
    timeline.add({ kind: "note", text: "no system prompt" });
    timeline.add({ kind: "cwd", cwd: "/r" });
    for (let i = 0; i < 4100; i++) timeline.add({ kind: "touch", path: `/r/f${i}`, use: "read", tool: "Read" });
    expect(timeline.notes).toEqual(["no system prompt"]);
    expect(timeline.cwds).toEqual(["/r"]);
    expect(timeline.touched()).toHaveLength(4096);
    expect(timeline.droppedPaths).toBe(4);
  });

  it("normalizeText collapses whitespace", () => {
    expect(normalizeText(" a\n\n\tb  ")).toBe("a b");
  });
});
