/**
 * Droid's own compaction in `droid exec` (src/integrations/droid/compaction*.ts): the pure parse of
 * its `compaction_state` record, the confined bounded read of the session log, and what the engine
 * gives back at the next tool event. The log is a trimmed real one (compaction/README.md), its
 * repository path replaced by the tree's.
 */
import { readFile, truncate, appendFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { nodeFileSystem } from "../../../src/io/file-system.js";
import { handleHostEvent } from "../../../src/integrations/host/deliver.js";
import { parseDroidCompaction } from "../../../src/integrations/droid/compaction.js";
import { TAIL_BYTES, readDroidCompaction } from "../../../src/integrations/droid/compaction-read.js";
import { droidLogPath } from "../../../src/integrations/droid/sessions.js";
import { droidProfile } from "../../../src/integrations/droid/profile.js";
import { createTree, makeFifo, makeSymlink, type Tree } from "../../helpers/tree.js";

const SESSION = "ad8c5d3d-3b7e-44b7-bb2e-901e3056b17d";
const RECORDED = "/tmp/agentsmd-droid-compact-GYwaYL";
const ID = "17fb55f2-2598-4871-8cd9-a7f6541d3738@2026-11-28T08:57:58.114Z#86139221-f90d-4814-a8a5-38a3ba835f71+10";
/** The recorded log: up to the hook run of the first tool after the compaction (17 lines), or up to the tool call before it (16). */
const recorded = async (lines = 17) =>
  (await readFile(new URL("./compaction/session.jsonl", import.meta.url), "utf8")).split("\n").slice(0, lines).join("\n") + "\n";

async function repo(): Promise<Tree> {
  return createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "# Root\nToken AG-ROOT-1.\n",
    "repo/a/AGENTS.md": "# A\nToken AG-NESTED-2.\n",
    "repo/a/x.ts": "export const x = 1;\n",
    "repo/c/AGENTS.md": "# C\nToken AG-NESTED-3.\n",
    "repo/c/y.ts": "export const y = 1;\n",
    "repo/z.ts": "export const z = 1;\n",
  });
}

const folderRel = ".test-home/.factory/sessions/-repo";
const logRel = `${folderRel}/${SESSION}.jsonl`;
/** The recorded log in the tree's Droid sessions, its paths the tree's. */
async function writeLog(t: Tree, lines = 16): Promise<string> {
  return t.write(logRel, (await recorded(lines)).replaceAll(`${RECORDED}/repo`, t.path("repo")));
}

const tool = (t: Tree, name: string, input: Record<string, unknown>, transcript = t.path(logRel)) => ({
  session_id: SESSION,
  transcript_path: transcript,
  cwd: t.path("repo"),
  hook_event_name: "PostToolUse",
  tool_name: name,
  tool_input: input,
  tool_response: {},
});
const optionsOf = (t: Tree) => ({ env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home });
const answer = async (t: Tree, name: string, input: Record<string, unknown>, transcript?: string) =>
  (await handleHostEvent(droidProfile(), tool(t, name, input, transcript), optionsOf(t)))?.hookSpecificOutput.additionalContext ?? null;
const context = (t: Tree) => ({ fs: nodeFileSystem, home: t.home, env: { HOME: t.home } });
const timesIn = (text: string | null, token: string) => (text ?? "").split(token).length - 1;

describe("Droid's compaction_state record, parsed (pure)", () => {
  it("names the newest compaction by its id, timestamp, anchor and removed count; what the log holds after the anchor is kept", async () => {
    const before = parseDroidCompaction(await recorded(16), true);
    expect(before?.id).toBe(ID);
    expect(before?.kept).not.toContain("AG-NESTED-2"); // agentsmd's answer to the Create was before the anchor
    // The hook run after the compaction (agentsmd's restore) is after the anchor: kept.
    expect(parseDroidCompaction(await recorded(17), true)?.kept).toContain("AG-NESTED-2");
    expect(parseDroidCompaction(await recorded(14), true), "the log before the record").toBeNull();
  });

  it("a tail cut inside the log drops its first line; an anchor outside the tail keeps nothing", async () => {
    const text = await recorded(16);
    const record = text.split("\n")[14]!;
    expect(parseDroidCompaction(`${record}\n`, false)).toBeNull();
    expect(parseDroidCompaction(`cut\n${record}\n`, false)).toEqual({ id: ID, kept: "" });
  });

  it("a record not of its shape is no compaction", () => {
    const good = { type: "compaction_state", id: "r1", timestamp: "2026-11-28T08:57:58.114Z", anchorMessage: { id: "m1", index: 1 }, removedCount: 2 };
    expect(parseDroidCompaction(JSON.stringify(good), true)?.id).toBe("r1@2026-11-28T08:57:58.114Z#m1+2");
    for (const bad of [
      { ...good, type: "message" },
      { ...good, id: "x".repeat(65) },
      { ...good, id: "a/b" },
      { ...good, timestamp: 'a"b' },
      { ...good, anchorMessage: "m1" },
      { ...good, removedCount: -1 },
      { ...good, removedCount: 1.5 },
    ])
      expect(parseDroidCompaction(JSON.stringify(bad), true), JSON.stringify(bad)).toBeNull();
    expect(parseDroidCompaction('{"type":"compaction_state", not json', true)).toBeNull();
  });

  it("takes only `<sessions>/<folder>/<session_id>.jsonl`", () => {
    const file = `/h/.factory/sessions/-repo/${SESSION}.jsonl`;
    expect(droidLogPath("/h/.factory/sessions", file, SESSION)).toEqual({ folder: "/h/.factory/sessions/-repo", file });
    for (const [transcript, id] of [
      [undefined, SESSION],
      ["", SESSION],
      [`h/.factory/sessions/-repo/${SESSION}.jsonl`, SESSION],
      [`/h/.factory/sessions/${SESSION}.jsonl`, SESSION],
      [`/h/.factory/sessions/a/b/${SESSION}.jsonl`, SESSION],
      [`/h/.factory/sessions/../sessions/${SESSION}.jsonl`, SESSION],
      [`/h/.factory/sessions/../../etc/${SESSION}.jsonl`, SESSION],
      [`/h/.factory/sessions/./-repo/${SESSION}.jsonl`, SESSION],
      [`/h/.factory/sessions/-repo/other.jsonl`, SESSION],
      [`/h/.factory/sessions/-repo/${SESSION}.jsonl`, "../x"],
      [`/tmp/x/${SESSION}.jsonl`, SESSION],
    ] as const)
      expect(droidLogPath("/h/.factory/sessions", transcript, id), String(transcript)).toBeNull();
  });
});

describe("Droid: what its own compaction took comes back at the next tool event", () => {
  it("agentsmd gives back the nested file it gave, once; the one Droid attached comes again at the next tool there, once", async () => {
    const t = await repo();
    expect(await answer(t, "Create", { file_path: t.path("repo/a/b/new.ts") })).toContain("AG-NESTED-2");
    expect(await answer(t, "Read", { file_path: t.path("repo/c/y.ts") }), "Droid attaches c/AGENTS.md itself").toBeNull();
    expect(await answer(t, "Read", { file_path: t.path("repo/z.ts") }), "no compaction yet").toBeNull();
    await writeLog(t);
    const restored = await answer(t, "Read", { file_path: t.path("repo/z.ts") });
    expect(timesIn(restored, "AG-NESTED-2")).toBe(1);
    expect(restored).not.toContain("AG-NESTED-3"); // Droid's own: it comes with the next event there
    expect(restored).not.toContain("AG-ROOT-1"); // Droid's startup context stays
    expect(await answer(t, "Read", { file_path: t.path("repo/z.ts") }), "applied once").toBeNull();
    expect(await answer(t, "Create", { file_path: t.path("repo/c/w.ts") })).toContain("AG-NESTED-3");
    expect(await answer(t, "Edit", { file_path: t.path("repo/c/w.ts") })).toBeNull();
  });

  it("at a Read under the lost file's folder Droid attaches it itself: agentsmd does not give it too", async () => {
    const t = await repo();
    await answer(t, "Create", { file_path: t.path("repo/a/b/new.ts") });
    await writeLog(t);
    expect(await answer(t, "Read", { file_path: t.path("repo/a/x.ts") })).toBeNull();
    expect(await answer(t, "Create", { file_path: t.path("repo/a/q.ts") })).toBeNull();
  });

  it("a compaction already in the log at the first event (hooks installed mid-session) is no new one", async () => {
    const t = await repo();
    await writeLog(t);
    expect(await answer(t, "Create", { file_path: t.path("repo/a/b/new.ts") })).toContain("AG-NESTED-2");
    expect(await answer(t, "Read", { file_path: t.path("repo/z.ts") })).toBeNull();
  });
});

describe("Droid's session log is untrusted", () => {
  it("a log that is a link, in a folder that is a link, or a FIFO is never followed or opened; a path outside the sessions is never read", async () => {
    const t = await repo();
    await answer(t, "Create", { file_path: t.path("repo/a/b/new.ts") });
    const real = await writeLog(t);
    const copy = await t.write(`elsewhere/-repo/${SESSION}.jsonl`, await readFile(real, "utf8"));
    const input = { session_id: SESSION, transcript_path: t.path(logRel) };
    expect((await readDroidCompaction(input, context(t), undefined))?.id).toBe(ID);
    expect(await readDroidCompaction({ ...input, transcript_path: copy }, context(t), undefined), "outside the sessions").toBeNull();
    await t.remove(logRel);
    await makeSymlink(t, logRel, copy);
    expect(await readDroidCompaction(input, context(t), undefined), "a link").toBeNull();
    await t.remove(folderRel);
    await makeSymlink(t, folderRel, t.path("elsewhere/-repo"));
    expect(await readDroidCompaction(input, context(t), undefined), "a linked folder").toBeNull();
    await t.remove(folderRel);
    await makeFifo(t, logRel);
    expect(await readDroidCompaction(input, context(t), undefined), "a FIFO").toBeNull();
    expect(await answer(t, "Read", { file_path: t.path("repo/z.ts") }), "no restore, no failure").toBeNull();
    expect(await answer(t, "Read", { file_path: t.path("repo/z.ts") }, copy), "outside: no restore").toBeNull();
  });

  it("only the log's last TAIL_BYTES are read: a record further back is not found, one at the end of a huge log is", async () => {
    const t = await repo();
    const file = await writeLog(t);
    const input = { session_id: SESSION, transcript_path: file };
    await truncate(file, 64 * 1024 * 1024); // the record now lies 64 MB from the end (sparse)
    const started = performance.now();
    expect(await readDroidCompaction(input, context(t), undefined)).toBeNull();
    await appendFile(file, `\n${(await recorded(16)).split("\n")[14]}\n`);
    expect((await readDroidCompaction(input, context(t), undefined))?.id).toBe(ID);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(TAIL_BYTES).toBeLessThanOrEqual(1024 * 1024);
  });
});
