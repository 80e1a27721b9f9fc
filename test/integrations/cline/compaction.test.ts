/**
 * Cline's compaction record (src/integrations/cline/compaction*.ts): the pure parse, the confined
 * bounded read, and what the engine gives back at the next tool event after Cline compacted.
 * The record is a trimmed real one (compaction/README.md), its repository path replaced by the tree's.
 */
import { readFile, truncate } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { countingFileSystem, nodeFileSystem } from "../../../src/io/file-system.js";
import { handleHostEvent } from "../../../src/integrations/host/deliver.js";
import { clineCompactionHead, parseClineCompaction } from "../../../src/integrations/cline/compaction.js";
import { MAX_COMPACTION_BYTES, readClineCompaction } from "../../../src/integrations/cline/compaction-read.js";
import { clineProfile } from "../../../src/integrations/cline/profile.js";
import { clineCompactionPath } from "../../../src/integrations/cline/sessions.js";
import { createTree, makeFifo, makeSymlink, type Tree } from "../../helpers/tree.js";

const SESSION = "1795852837610_s6vff";
const RECORDED_REPO = "/tmp/agentsmd-cline-KdcxFR/repo";
const recorded = () => readFile(new URL(`./compaction/${SESSION}.compaction.json`, import.meta.url), "utf8");
const ID = "2026-11-28T08:00:44.084Z#6";

/** The files of the recorded run: its DB file's `<hook_context>` is among the kept messages. */
async function repo(): Promise<Tree> {
  return createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "# Root\nToken AG-ROOT-1: two-space indentation.\n",
    "repo/packages/api/src/db/AGENTS.md": "# DB\nToken AG-DB-3: migrations are append-only.\n",
    "repo/packages/api/src/db/schema.ts": "export const schema = {};\n",
    "repo/packages/web/AGENTS.md": "# Web\nToken AG-WEB-5: function components only.\n",
    "repo/packages/web/App.tsx": "export function App() { return null; }\n",
  });
}

const recordRel = (id = SESSION) => `.test-home/.cline/data/sessions/${id}/${id}.compaction.json`;

/** Writes the recorded compaction into the tree's Cline data, its paths the tree's; `edit` changes the document. */
async function writeRecord(t: Tree, edit: (doc: Record<string, unknown>) => void = () => undefined): Promise<string> {
  const doc = JSON.parse((await recorded()).replaceAll(RECORDED_REPO, t.path("repo"))) as Record<string, unknown>;
  edit(doc);
  return t.write(recordRel(), JSON.stringify(doc, null, 2));
}

const read = (t: Tree, rel: string, session = SESSION) => ({
  hookName: "tool_result",
  taskId: "conv_1",
  sessionContext: { rootSessionId: session },
  workspaceRoots: [t.path("repo")],
  agent_id: "a1",
  parent_agent_id: null,
  tool_result: { name: "read_files", input: { files: [{ path: rel }] } },
});

const optionsOf = (t: Tree) => ({ env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home });
const answer = async (t: Tree, rel: string, session?: string) =>
  (await handleHostEvent(clineProfile(), read(t, rel, session), optionsOf(t)))?.contextModification ?? null;
const context = (t: Tree, fs = nodeFileSystem) => ({ fs, home: t.home, env: { HOME: t.home } });

describe("Cline's compaction record, parsed (pure)", () => {
  it("names a compaction by updated_at and source_message_count, from the whole record or its head alone, and keeps the kept messages' texts", async () => {
    const text = await recorded();
    const parsed = parseClineCompaction(text);
    expect(parsed?.id).toBe(ID);
    expect(parsed?.kept).toContain("Context summary:");
    expect(parsed?.kept).toContain("Token AG-DB-3: migrations are append-only.");
    expect(clineCompactionHead(text.slice(0, 4096))).toBe(ID);
    expect(clineCompactionHead(text.slice(0, 100))).toBeNull(); // cut before `messages`: no head
  });

  it("anything not of its shape is no compaction", () => {
    const doc = { version: 1, updated_at: "2026-11-28T08:00:44.084Z", source_message_count: 6, messages: [] };
    expect(parseClineCompaction(JSON.stringify(doc))?.id).toBe(ID);
    for (const bad of [
      "",
      "not json",
      "[]",
      JSON.stringify({ ...doc, version: 2 }),
      JSON.stringify({ ...doc, messages: "x" }),
      JSON.stringify({ ...doc, updated_at: "x".repeat(41) }),
      JSON.stringify({ ...doc, updated_at: 'a"b' }),
      JSON.stringify({ ...doc, source_message_count: -1 }),
      JSON.stringify({ ...doc, source_message_count: 1.5 }),
    ])
      expect(parseClineCompaction(bad), bad).toBeNull();
  });

  it("joins only a plain session id to the sessions directory", () => {
    expect(clineCompactionPath("/s", SESSION)).toEqual({ dir: `/s/${SESSION}`, file: `/s/${SESSION}/${SESSION}.compaction.json` });
    for (const bad of ["", "../x", "..", ".", "a/b", "/abs", "x\n", "-x", "x".repeat(129)]) expect(clineCompactionPath("/s", bad), bad).toBeNull();
  });
});

describe("Cline: what a compaction took comes back at the next tool event", () => {
  it("restores the nested file the compaction summarised away, once; the one still in the kept messages is not repeated", async () => {
    const t = await repo();
    expect(await answer(t, "packages/api/src/db/schema.ts")).toContain("AG-DB-3");
    expect(await answer(t, "packages/web/App.tsx")).toContain("AG-WEB-5");
    expect(await answer(t, "packages/web/App.tsx")).toBeNull();
    await writeRecord(t); // kept: the DB file's <hook_context>; the web file's was summarised
    const restored = await answer(t, "packages/api/src/db/schema.ts");
    expect(restored).toContain("AG-WEB-5");
    expect(restored).not.toContain("AG-DB-3");
    expect(restored?.split("AG-WEB-5")).toHaveLength(2);
    expect(await answer(t, "packages/web/App.tsx"), "applied once").toBeNull();
    expect(await answer(t, "packages/api/src/db/schema.ts")).toBeNull();
  });

  it("a later compaction (another source_message_count) that kept none of agentsmd's text brings both back", async () => {
    const t = await repo();
    await answer(t, "packages/api/src/db/schema.ts");
    await answer(t, "packages/web/App.tsx");
    await writeRecord(t);
    await answer(t, "packages/web/App.tsx");
    await writeRecord(t, (doc) => {
      doc.source_message_count = 12;
      doc.messages = [(doc.messages as unknown[])[0]];
    });
    const again = await answer(t, "packages/web/App.tsx");
    expect(again).toContain("AG-DB-3");
    expect(again).toContain("AG-WEB-5");
    expect(again).not.toContain("AG-ROOT-1"); // Cline loads the workspace's own file itself
    expect(await answer(t, "packages/web/App.tsx")).toBeNull();
  });

  it("a record that was already there at the first event (hooks installed mid-session) is no new compaction", async () => {
    const t = await repo();
    await writeRecord(t, (doc) => (doc.messages = [(doc.messages as unknown[])[0]])); // it kept nothing agentsmd gave
    expect(await answer(t, "packages/api/src/db/schema.ts")).toContain("AG-DB-3");
    expect(await answer(t, "packages/api/src/db/schema.ts")).toBeNull();
  });
});

describe("Cline's compaction record is untrusted", () => {
  it("a record that is a link, in a session directory that is a link, or a FIFO is never followed or opened: no compaction", async () => {
    const t = await repo();
    await answer(t, "packages/web/App.tsx");
    const real = await writeRecord(t);
    const elsewhere = await t.write("elsewhere/record.json", await readFile(real, "utf8"));
    await t.remove(recordRel());
    await makeSymlink(t, recordRel(), elsewhere);
    expect(await readClineCompaction(SESSION, context(t), undefined)).toBeNull();
    await t.remove(`.test-home/.cline/data/sessions/${SESSION}`);
    await t.write(`elsewhere/${SESSION}/${SESSION}.compaction.json`, await readFile(elsewhere, "utf8"));
    await makeSymlink(t, `.test-home/.cline/data/sessions/${SESSION}`, t.path(`elsewhere/${SESSION}`));
    expect(await readClineCompaction(SESSION, context(t), undefined)).toBeNull();
    await t.remove(`.test-home/.cline/data/sessions/${SESSION}`);
    await makeFifo(t, recordRel());
    const counting = countingFileSystem();
    expect(await readClineCompaction(SESSION, context(t, counting.fs), undefined)).toBeNull();
    expect(counting.counters.bytesRead).toBe(0);
    expect(await answer(t, "packages/web/App.tsx"), "no restore, no failure").toBeNull();
  });

  it("a bad session id from the event (`../x`) touches nothing", async () => {
    const t = await repo();
    const counting = countingFileSystem();
    for (const bad of ["../x", "..", "a/../../b"]) expect(await readClineCompaction(bad, context(t, counting.fs), undefined)).toBeNull();
    expect(counting.counters).toMatchObject({ lstat: 0, stat: 0, bytesRead: 0 });
    expect(await answer(t, "packages/web/App.tsx", "../x")).toContain("AG-WEB-5");
  });

  it("a record larger than the bound is not read past its head: its compaction counts, and everything comes back", async () => {
    const t = await repo();
    await answer(t, "packages/api/src/db/schema.ts");
    const file = await writeRecord(t);
    await truncate(file, MAX_COMPACTION_BYTES + 1);
    const counting = countingFileSystem();
    const found = await readClineCompaction(SESSION, context(t, counting.fs), undefined);
    expect(found?.id).toBe(ID);
    expect(found?.sees({ path: t.path("repo/packages/api/src/db/AGENTS.md"), content: "# DB\nToken AG-DB-3: migrations are append-only.\n" })).toBe(false);
    expect(counting.counters.bytesRead).toBeLessThanOrEqual(4096);
    expect(await answer(t, "packages/web/App.tsx")).toContain("AG-DB-3");
  });

  it("an applied compaction is read no further than its head", async () => {
    const t = await repo();
    await writeRecord(t);
    const counting = countingFileSystem();
    expect((await readClineCompaction(SESSION, context(t, counting.fs), ID))?.id).toBe(ID);
    expect(counting.counters.bytesRead).toBeLessThanOrEqual(4096);
  });
});
