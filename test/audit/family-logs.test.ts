/**
 * The audit of OpenCode and Kilo Code sessions (their SQLite session databases, one reader for the
 * family: src/integrations/host/family-session-log.ts): the recorded sessions of test/audit/logs/
 * (the database rows of real runs as the store's JSON lines, e2e/lib/family-audit.ts), a database
 * built from them (test/audit/logs/opencode/session.db and its write-ahead log), hostile rows.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditAgent } from "../../src/audit/agents.js";
import { findSessionLogs } from "../../src/audit/audit.js";
import { formatAudit } from "../../src/audit/report.js";
import type { LogEvent } from "../../src/integrations/host/log-event.js";
import { ensureBuilt, runBin } from "../helpers/bin.js";
import { audit, LOGS, verdicts } from "./fixtures.js";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

async function eventsOf(agent: string, lines: readonly (string | null)[]): Promise<LogEvent[]> {
  const reader = await auditAgent(agent)!.load();
  async function* each() {
    yield* lines;
  }
  const out: LogEvent[] = [];
  for await (const event of reader.events(each(), { home: "/HOME" })) out.push(event);
  return out;
}

function fixtureLines(agent: string, name: string): string[] {
  return readFileSync(join(LOGS, agent, `${name}.jsonl`), "utf8")
    .trimEnd()
    .split("\n")
    .slice(1);
}

const touches = (events: LogEvent[]) => events.flatMap((e) => (e.kind === "touch" ? [`${e.tool} ${e.use} ${e.path}`] : []));

for (const agent of ["opencode", "kilo"]) {
  describe(`${agent} sessions (recorded)`, () => {
    it("the reader: the session's directory as cwd, the look and the writes as touches, the plugin's blocks with their paths", async () => {
      const events = await eventsOf(agent, fixtureLines(agent, "with-agentsmd"));
      expect(events.find((e) => e.kind === "cwd")).toMatchObject({ cwd: "/REPO" });
      const look = agent === "opencode" ? "glob read /REPO/pkg" : "bash read /REPO/pkg";
      expect(touches(events)).toEqual([look, "write edit /REPO/pkg/new.ts", look, "write edit /REPO/pkg/b.ts"]);
      const framed = events.filter((e): e is Extract<LogEvent, { kind: "shown" }> => e.kind === "shown" && e.about === "/REPO/pkg/AGENTS.md");
      expect(framed.map((e) => e.channel)).toEqual(["tool-result", "tool-result"]);
      expect(framed[0]!.text).toContain("AUDIT-PKG-2");
      expect(framed[1]!.text).toContain("AUDIT-PKG-EDITED-3");
      expect(events.filter((e) => e.kind === "note")).toEqual([]);
    });

    it("without agentsmd: pkg/AGENTS.md never seen before the new file; the root AGENTS.md (its system prompt, not stored) not judged", async () => {
      const { report } = await audit(agent, "without-agentsmd");
      expect(verdicts(report)).toEqual({ "pkg <- pkg/AGENTS.md": "never", "pkg/new.ts <- pkg/AGENTS.md": "never" });
      expect(report.summary).toMatchObject({ editedPaths: 1, coveredEdits: 0, coverage: 0 });
      expect(report.records.systemPrompt).toBe(false);
      expect(report.notes).toContain(
        `1 instruction file ${report.displayName} puts in its system prompt itself not judged (its log does not record the system prompt)`,
      );
      expect(formatAudit(report)).toContain(`not recorded by ${report.displayName}'s log: the system prompt`);
    });

    it("with agentsmd: before each write, the changed text again in the second turn, no repeat", async () => {
      const { report } = await audit(agent, "with-agentsmd");
      expect(verdicts(report)).toEqual({
        "pkg <- pkg/AGENTS.md": "changed-since",
        "pkg/new.ts <- pkg/AGENTS.md": "before",
        "pkg/b.ts <- pkg/AGENTS.md": "before",
      });
      expect(report.summary).toMatchObject({ editedPaths: 2, coveredEdits: 2, coverage: 100, duplicates: 0 });
    });
  });
}

describe("OpenCode family sessions, hostile", () => {
  it("a read outside the project is counted, never named; a name with control characters is quoted", async () => {
    const tool = (path: string, id: string) =>
      JSON.stringify({
        data: { type: "tool", tool: "read", state: { status: "completed", input: { filePath: path }, output: "x", time: { start: 1 } } },
        table: "part",
        id,
        session: "s",
        message: "m",
        time: 1,
      });
    const { report } = await audit(
      "opencode",
      "without-agentsmd",
      (text) => `${text}${tool("/etc/secret-file", "p1")}\n${tool("/REPO/pkg/bad\u001b[31mname.ts", "p2")}\n`,
    );
    expect(report.outside).toBe(1);
    const printed = formatAudit(report);
    expect(printed).not.toContain("secret-file");
    expect(printed).not.toContain("\u001b");
    expect(printed).toContain(`"bad\\u001b[31mname.ts"`);
  });
});

describe("OpenCode family reader on its own", () => {
  it("a read's output: the file's text without line numbers counts as seen (a read of AGENTS.md itself), the appended block too", async () => {
    const output =
      "<path>/REPO/pkg/AGENTS.md</path>\n<type>file</type>\n<content>\n1: # pkg\n2: Token AUDIT-PKG-2: pkg rules.\n\n(End of file - total 2 lines)\n</content>\n\n<system-reminder>\nInstructions from: /REPO/lib/AGENTS.md\nLIB\n</system-reminder>";
    const part = { type: "tool", tool: "read", state: { status: "completed", input: { filePath: "/REPO/pkg/AGENTS.md" }, output, time: { start: 5 } } };
    const events = await eventsOf("opencode", [
      JSON.stringify({ data: null, table: "session", id: "s", parent: null, directory: "/REPO", time: 1 }),
      JSON.stringify({ data: part, table: "part", id: "p", session: "s", message: "m", time: 5 }),
    ]);
    const shown = events.filter((e) => e.kind === "shown");
    expect(shown[0]).toMatchObject({ text: "# pkg\nToken AUDIT-PKG-2: pkg rules.", about: "/REPO/pkg/AGENTS.md", time: 5 });
    expect(shown.find((e) => e.about === "/REPO/lib/AGENTS.md")?.text).toBe("LIB\n");
  });

  it("hostile rows: data that is no JSON, keys smuggled in data, a subagent's fields, garbage: skipped and counted, never fatal", async () => {
    const events = await eventsOf("kilo", [
      JSON.stringify({ data: null, table: "session", id: "s", parent: null, directory: "/REPO", time: 1 }),
      // a data text that closes itself and names other fields: the row's own fields come after it and win
      '{"data":{"type":"text"},"table":"session","parent":null,"directory":"/ETC","table":"part","id":"x","session":"s","message":"m","time":2}',
      '{"data":not json,"table":"part"}',
      "null",
      "[1,2]",
      null,
      JSON.stringify({ data: { type: "tool", tool: "bash", state: { input: { command: "cat $(echo x)" } } }, table: "part", id: "b", time: 3 }),
      JSON.stringify({ data: { role: "assistant", path: { cwd: "relative/dir" } }, table: "message", id: "m", time: 4 }),
      JSON.stringify({ table: "problem", text: "a damaged page: page type 7 is not a table page" }),
      JSON.stringify({ table: "cut", bytes: 10 }),
    ]);
    expect(events.filter((e) => e.kind === "cwd")).toEqual([{ kind: "cwd", cwd: "/REPO", time: 1 }]);
    const notes = events.flatMap((e) => (e.kind === "note" ? [e.text] : []));
    expect(notes).toEqual([
      "1 shell command(s) could not be read with certainty (substitutions, syntax): their paths are not counted",
      "1 row(s) over the line limit or damaged were skipped",
      "3 row(s) whose data is not JSON were skipped (a damaged database)",
      "the session is larger than the read limit: its later rows were left out",
      "the database: a damaged page: page type 7 is not a table page",
    ]);
  });
});

describe("OpenCode family databases", () => {
  beforeAll(ensureBuilt, 300_000);

  function dataHome(agent: "opencode" | "kilo") {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "agentsmd-family-db-")));
    temps.push(base);
    const dir = join(base, "data", agent);
    mkdirSync(dir, { recursive: true });
    const db = join(dir, `${agent}.db`);
    copyFileSync(join(LOGS, "opencode", "session.db"), db);
    copyFileSync(join(LOGS, "opencode", "session.db-wal"), `${db}-wal`);
    return { base, db };
  }

  it("the store's lines of the recorded session, read from the database and its write-ahead log, are the fixture's", async () => {
    const { db } = dataHome("opencode");
    const reader = await auditAgent("opencode")!.load();
    const lines: Array<string | null> = [];
    for await (const line of reader.store!.lines(db, undefined, { maxLineBytes: 8 << 20, maxBytes: 1 << 30 })) lines.push(line);
    const parse = (line: string | null) => JSON.parse(line!) as Record<string, unknown>;
    const fixture = fixtureLines("opencode", "with-agentsmd").map(parse);
    expect(lines.map(parse)).toEqual(fixture);
  });

  it("--last/--since: each session of $XDG_DATA_HOME/<app>/<app>.db is a log FILE#ID, newest first; the session's time decides --since", async () => {
    for (const agent of ["opencode", "kilo"] as const) {
      const { base, db } = dataHome(agent);
      const reader = await auditAgent(agent)!.load();
      const env = { XDG_DATA_HOME: join(base, "data") };
      const found = await findSessionLogs(reader, { env, home: join(base, "nohome") });
      const recorded = JSON.parse(fixtureLines("opencode", "with-agentsmd")[0]!) as { id: string; time: number };
      expect(found.map((each) => each.path)).toEqual([`${db}#${recorded.id}`, `${db}#ses_0old`]);
      expect(await findSessionLogs(reader, { env, home: join(base, "nohome"), since: 2000 })).toHaveLength(1);
      expect(await findSessionLogs(reader, { env: {}, home: join(base, "nohome") })).toEqual([]);
    }
  });

  it("the CLI: DATABASE#ID tells the agent by its place; an id the database lacks is an error naming it and the fix", async () => {
    const { base } = dataHome("opencode");
    const home = join(base, "home");
    mkdirSync(join(home, ".local", "share"), { recursive: true });
    const db = join(home, ".local", "share", "opencode", "opencode.db");
    mkdirSync(join(db, ".."));
    copyFileSync(join(LOGS, "opencode", "session.db"), db);
    copyFileSync(join(LOGS, "opencode", "session.db-wal"), `${db}-wal`);
    const old = await runBin(["audit", `${db}#ses_0old`], { cwd: base, env: { HOME: home } });
    expect(old.code, old.stderr).toBe(0);
    expect(old.stdout).toContain(`OpenCode session ${db}#ses_0old\nproject /OTHER`);
    const missing = await runBin(["audit", `${db}#ses_nope`, "--agent", "opencode"], { cwd: base, env: { HOME: home } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${db} holds no session ses_nope`);
    expect(missing.stderr).toContain("fix: pass the database alone for its newest session, or list them with --since");
  });
});
