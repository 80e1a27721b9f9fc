/**
 * Continue CLI's session files as agentsmd's MCP server reads them: the pure parse
 * (session-file.ts) on trimmed real files of cn 1.5.47 (sessions/, captured from the e2e runs:
 * `resumed.json` a finished run, `compacted.json` a run after its auto-compaction), and the reader
 * (session-read.ts) against hostile directories: links, FIFOs, huge, broken and foreign files, two
 * candidate sessions.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTree, makeFifo, makeSymlink, type Tree } from "../../helpers/tree.js";
import { nodeFileSystem } from "../../../src/io/file-system.js";
import {
  cmdlineWords,
  continueSessionsDir,
  holdsText,
  newCompaction,
  parseContinueSession,
  processStartMs,
  runStartOf,
  sessionFileName,
} from "../../../src/integrations/continue/session-file.js";
import { continueHistory, MAX_SESSION_BYTES, type ParentProcess } from "../../../src/integrations/continue/session-read.js";

const RESUMED = readFileSync(join(import.meta.dirname, "sessions/resumed.json"), "utf8");
const COMPACTED = readFileSync(join(import.meta.dirname, "sessions/compacted.json"), "utf8");
const WORKSPACE = "/work/repo";
const API = { path: `${WORKSPACE}/packages/api/AGENTS.md`, content: "# API\nToken AG-API-2: every handler validates its input.\n" };
const DB = { path: `${WORKSPACE}/packages/api/src/db/AGENTS.md`, content: "# DB\nToken AG-DB-3: migrations are append-only.\n" };
const EDITED = { path: API.path, content: "# API\nToken AG-API-EDITED-7: handlers return typed errors.\n" };

/** `compacted.json` with only its summary left (what cn -p writes at the compaction itself). */
function summaryOnly(text: string, summary = "## Goal\nScripted summary of the conversation so far."): string {
  const session = JSON.parse(text) as { history: unknown[] };
  return JSON.stringify({ ...session, history: [{ message: { role: "assistant", content: summary }, contextItems: [], conversationSummary: summary }] });
}

/** A session of another id and workspace, holding `text`. */
function sessionOf(text: string, changes: { sessionId?: string; workspaceDirectory?: string }): string {
  return JSON.stringify({ ...(JSON.parse(text) as object), ...changes });
}

/** BTIME: /proc/stat's boot time (s); cn started TICKS clock ticks later. */
const BTIME = 2_000_000_000;
const STARTED_S = BTIME + 100;

/** cn as the server's parent: its argv, started at STARTED_S; `proc: false` is a system without /proc. */
function parent(argv: string[], proc = true): ParentProcess {
  const files: Record<string, string> = {
    "/proc/4242/cmdline": `${["/usr/bin/node", "/opt/cn/dist/cn.js", ...argv].join("\0")}\0`,
    "/proc/4242/stat": `4242 (node cn.js) S ${Array.from({ length: 18 }, () => "1").join(" ")} ${100 * 100} 0 0`,
    "/proc/stat": `cpu 1 2 3\nbtime ${BTIME}\nprocesses 9\n`,
  };
  return { pid: 4242, read: async (path) => (proc ? (files[path] ?? null) : null) };
}

async function sessionsHome(files: Record<string, string> = {}): Promise<Tree> {
  const spec: Record<string, string | null> = { "home/.continue/sessions/": null, "home/.continue/sessions/sessions.json": "[]" };
  for (const [name, text] of Object.entries(files)) spec[`home/.continue/sessions/${name}`] = text;
  return createTree(spec);
}

function historyOf(tree: Tree, argv: string[], proc = true) {
  return continueHistory({ cwd: WORKSPACE, home: tree.path("home"), env: {}, fs: nodeFileSystem }, parent(argv, proc));
}

describe("cn's session file (pure)", () => {
  it("a finished run's history holds what agents_context gave (MCP answers are JSON text), not an edited version nor an empty file", () => {
    const session = parseContinueSession(RESUMED)!;
    expect(session).toMatchObject({ sessionId: "62e684b3-0200-45ca-9e79-74f9f25f7412", workspaceDirectory: WORKSPACE, summary: null });
    expect(holdsText(session.held, DB.content)).toBe(true);
    expect(holdsText(session.held, API.content)).toBe(true);
    expect(holdsText(session.held, EDITED.content)).toBe(false);
    expect(holdsText(session.held, "\n")).toBe(false);
  });

  it("after a compaction only the history from the summary on counts", () => {
    const compacted = parseContinueSession(COMPACTED)!;
    expect(compacted.summary).toEqual({ text: "## Goal\nScripted summary of the conversation so far.", after: 4 });
    expect(holdsText(compacted.held, DB.content)).toBe(true);
    // The same files given before the summary only: gone.
    const before = JSON.parse(RESUMED) as { history: unknown[] };
    const summary = JSON.parse(summaryOnly(COMPACTED)) as { history: unknown[] };
    const gone = parseContinueSession(JSON.stringify({ ...before, history: [...before.history, ...summary.history] }))!;
    expect(gone.summary?.after).toBe(0);
    expect(holdsText(gone.held, DB.content)).toBe(false);
  });

  it("a broken or unknown-shape file is no session (it holds nothing)", () => {
    expect(parseContinueSession(RESUMED.slice(0, 200))).toBeNull();
    expect(parseContinueSession("[]")).toBeNull();
    expect(parseContinueSession('{"history":"x"}')).toBeNull();
    expect(parseContinueSession('{"history":[1]}')).toBeNull();
    expect(parseContinueSession('{"history":[]}')).toMatchObject({ summary: null, held: "" });
  });

  it("a new compaction: a first summary, another one, or the same words with fewer items after them", () => {
    const summary = { text: "s", after: 3 };
    expect(newCompaction(undefined, summary)).toBe(true);
    expect(newCompaction(null, summary)).toBe(true);
    expect(newCompaction(summary, { text: "s", after: 5 })).toBe(false);
    expect(newCompaction(summary, { text: "s", after: 0 })).toBe(true);
    expect(newCompaction(summary, { text: "t", after: 3 })).toBe(true);
    expect(newCompaction(summary, null)).toBe(false);
  });

  it("how the run started, from cn's argv; session ids are plain names; where the sessions are", () => {
    expect(runStartOf(["-p", "--auto", "--resume", "Work on the task."])).toEqual({ kind: "resume" });
    expect(runStartOf(["-p", "--fork", "abc-1", "x"])).toEqual({ kind: "fork", id: "abc-1" });
    expect(runStartOf(["--fork=abc-2"])).toEqual({ kind: "fork", id: "abc-2" });
    expect(runStartOf(["-p", "--", "--resume"])).toEqual({ kind: "new" });
    expect(runStartOf(["-p", "resume the work"])).toEqual({ kind: "new" });
    expect(cmdlineWords("node\0cn.js\0--resume\0")).toEqual(["node", "cn.js", "--resume"]);
    expect(sessionFileName("62e684b3-0200-45ca-9e79-74f9f25f7412")).toBe("62e684b3-0200-45ca-9e79-74f9f25f7412.json");
    for (const bad of ["", "../x", "a/b", ".hidden", "x\0y"]) expect(sessionFileName(bad)).toBeNull();
    expect(continueSessionsDir("/home/u", {}, "/w")).toBe("/home/u/.continue/sessions");
    expect(continueSessionsDir("/home/u", { CONTINUE_GLOBAL_DIR: "/g" }, "/w")).toBe("/g/sessions");
    expect(continueSessionsDir("/home/u", { CONTINUE_GLOBAL_DIR: "rel" }, "/w")).toBe("/w/rel/sessions");
  });

  it("a process's start from /proc (never later than the truth); null for what Linux does not write", () => {
    expect(processStartMs("7 (a) b) S 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 250 0", "btime 1000\n")).toBe(1_002_500);
    expect(processStartMs("garbage", "btime 1000\n")).toBeNull();
    expect(processStartMs("7 (a) S 1", "no btime")).toBeNull();
  });
});

describe("cn's session file (reader)", () => {
  it("cn --resume: the newest session's history is held (an unedited file not given again), an edited file is not", async () => {
    const tree = await sessionsHome({ "62e684b3-0200-45ca-9e79-74f9f25f7412.json": RESUMED });
    const view = await historyOf(tree, ["-p", "--resume", "go"]).look();
    expect(view.compacted).toBe(false);
    expect(view.holds(DB)).toBe(true);
    expect(view.holds(EDITED)).toBe(false);
  });

  it("a new run holds nothing, whatever sessions of its workspace exist; without /proc every run is new", async () => {
    const tree = await sessionsHome({ "62e684b3-0200-45ca-9e79-74f9f25f7412.json": RESUMED });
    expect((await historyOf(tree, ["-p", "go"]).look()).holds(DB)).toBe(false);
    expect((await historyOf(tree, ["-p", "--resume", "go"], false).look()).holds(DB)).toBe(false);
  });

  it("a compaction cn writes in this workspace: seen once; what the history from the summary on holds stays held", async () => {
    const tree = await sessionsHome({ "62e684b3-0200-45ca-9e79-74f9f25f7412.json": RESUMED });
    const history = historyOf(tree, ["-p", "go"]);
    expect((await history.look()).compacted).toBe(false);
    await tree.write("home/.continue/sessions/4ab835b3-980a-4ac3-9357-57956e4335f7.json", summaryOnly(COMPACTED));
    const compacted = await history.look();
    expect(compacted).toMatchObject({ compacted: true });
    expect(compacted.holds(DB)).toBe(false);
    expect((await history.look()).compacted).toBe(false);
    // cn writes the rest at the run's end: no new compaction, what follows the summary is held.
    await tree.write("home/.continue/sessions/4ab835b3-980a-4ac3-9357-57956e4335f7.json", COMPACTED);
    expect((await history.look()).compacted).toBe(false);
    // A second compaction with the same words (fewer items after them) is one too.
    await tree.write("home/.continue/sessions/4ab835b3-980a-4ac3-9357-57956e4335f7.json", summaryOnly(COMPACTED));
    expect((await history.look()).compacted).toBe(true);
  });

  it("the resumed session compacting is seen whatever its workspace; another workspace's session compacting is not", async () => {
    const foreign = sessionOf(RESUMED, { workspaceDirectory: "/elsewhere" });
    const tree = await sessionsHome({ "62e684b3-0200-45ca-9e79-74f9f25f7412.json": foreign });
    const history = historyOf(tree, ["-p", "--resume", "go"]);
    expect((await history.look()).holds(DB)).toBe(true);
    await tree.write("home/.continue/sessions/other.json", sessionOf(summaryOnly(COMPACTED), { sessionId: "other", workspaceDirectory: "/elsewhere" }));
    expect((await history.look()).compacted).toBe(false);
    await tree.write(
      "home/.continue/sessions/62e684b3-0200-45ca-9e79-74f9f25f7412.json",
      sessionOf(summaryOnly(COMPACTED), { workspaceDirectory: "/elsewhere" }),
    );
    const view = await history.look();
    expect(view.compacted).toBe(true);
    expect(view.holds(DB)).toBe(false);
  });

  it("two candidate sessions (one written after cn started): held only when both hold it", async () => {
    const tree = await sessionsHome({ "old.json": RESUMED, "new.json": sessionOf(RESUMED, { sessionId: "new" }) });
    await tree.setMtime("home/.continue/sessions/old.json", STARTED_S - 60);
    await tree.setMtime("home/.continue/sessions/new.json", STARTED_S + 1);
    expect((await historyOf(tree, ["--resume"]).look()).holds(DB)).toBe(true);
    const other = JSON.stringify({ sessionId: "new", workspaceDirectory: "/elsewhere", history: [{ message: { role: "user", content: "hi" } }] });
    await tree.write("home/.continue/sessions/new.json", other);
    await tree.setMtime("home/.continue/sessions/new.json", STARTED_S + 1);
    expect((await historyOf(tree, ["--resume"]).look()).holds(DB)).toBe(false);
    // Both written before cn started: only the newest is cn's pick.
    await tree.setMtime("home/.continue/sessions/new.json", STARTED_S - 120);
    expect((await historyOf(tree, ["--resume"]).look()).holds(DB)).toBe(true);
  });

  it("cn --fork <id>: that session's history; an id that is no plain name, or absent, holds nothing", async () => {
    const tree = await sessionsHome({ "62e684b3-0200-45ca-9e79-74f9f25f7412.json": RESUMED, "newer.json": '{"history":[]}' });
    expect((await historyOf(tree, ["--fork", "62e684b3-0200-45ca-9e79-74f9f25f7412"]).look()).holds(DB)).toBe(true);
    expect((await historyOf(tree, ["--fork", "../sessions/62e684b3-0200-45ca-9e79-74f9f25f7412"]).look()).holds(DB)).toBe(false);
    expect((await historyOf(tree, ["--fork", "absent"]).look()).holds(DB)).toBe(false);
  });

  it("hostile files hold nothing and never hang: a link, a FIFO, a file over the bound, broken JSON, a linked sessions directory", async () => {
    const tree = await sessionsHome();
    const real = await tree.write("elsewhere/real.json", RESUMED);
    await makeSymlink(tree, "home/.continue/sessions/link.json", real);
    expect((await historyOf(tree, ["--resume"]).look()).holds(DB)).toBe(false);

    await makeFifo(tree, "home/.continue/sessions/fifo.json");
    expect((await historyOf(tree, ["--resume"]).look()).holds(DB)).toBe(false);

    // Valid JSON past the bound (trailing blanks): never read.
    await tree.write("home/.continue/sessions/huge.json", RESUMED + " ".repeat(MAX_SESSION_BYTES));
    expect((await historyOf(tree, ["--resume"]).look()).holds(DB)).toBe(false);

    await tree.write("home/.continue/sessions/broken.json", RESUMED.slice(0, 300));
    expect((await historyOf(tree, ["--resume"]).look()).holds(DB)).toBe(false);

    const linked = await createTree({ "sessions/s.json": RESUMED });
    await makeSymlink(linked, "home/.continue/sessions", linked.path("sessions"));
    expect((await historyOf(linked, ["--resume"]).look()).holds(DB)).toBe(false);
  });

  it("the resumed session grown past the bound: a compaction may have happened; it holds nothing", async () => {
    const tree = await sessionsHome({ "s.json": RESUMED });
    const history = historyOf(tree, ["--resume"]);
    expect((await history.look()).holds(DB)).toBe(true);
    await tree.write("home/.continue/sessions/s.json", RESUMED + " ".repeat(MAX_SESSION_BYTES));
    const view = await history.look();
    expect(view.compacted).toBe(true);
    expect(view.holds(DB)).toBe(false);
    // Rewritten, still past the bound: no second compaction (what was given since stays given).
    await tree.write("home/.continue/sessions/s.json", RESUMED + " ".repeat(MAX_SESSION_BYTES + 1));
    expect((await history.look()).compacted).toBe(false);
  });

  it("the resumed session swapped for a link: it holds nothing, once", async () => {
    const tree = await sessionsHome({ "s.json": RESUMED });
    const history = historyOf(tree, ["--resume"]);
    expect((await history.look()).holds(DB)).toBe(true);
    const real = await tree.write("elsewhere/real.json", RESUMED);
    await tree.remove("home/.continue/sessions/s.json");
    await makeSymlink(tree, "home/.continue/sessions/s.json", real);
    const view = await history.look();
    expect(view).toMatchObject({ compacted: true });
    expect(view.holds(DB)).toBe(false);
    expect((await history.look()).compacted).toBe(false);
  });

  it("a session of this workspace that was there before a new run is another run's: its compaction is not this one's", async () => {
    const tree = await sessionsHome({ "old.json": RESUMED });
    const history = historyOf(tree, ["-p", "go"]);
    await history.look();
    await tree.write("home/.continue/sessions/old.json", summaryOnly(COMPACTED));
    expect((await history.look()).compacted).toBe(false);
  });
});
