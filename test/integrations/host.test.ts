/**
 * The shared host layer: the conversation store (id encoding, XDG base, clean-up), the tool-target
 * table, and the delivery algorithm driven through a second, minimal profile (top-level
 * `additionalContext`, a 2,000-character budget, a host that loads the root -> cwd chain itself,
 * re-delivery at a turn start), so what Claude Code's profile does not exercise is covered too.
 */
import { describe, expect, it } from "vitest";
import { readdir, stat } from "node:fs/promises";
import { utimesSync } from "node:fs";
import fc from "fast-check";
import { z } from "zod";
import { createTree, type Tree } from "../helpers/tree.js";
import { countingFileSystem, nodeFileSystem, type FileSystem } from "../../src/io/file-system.js";
import { collectGarbage, conversationPath, encodeId, hostStateDir, STATE_TTL_MS } from "../../src/integrations/host/store.js";
import { patchTargets, toolTargets } from "../../src/integrations/host/targets.js";
import { handleHostEvent, HookInputError, type HostHookOptions } from "../../src/integrations/host/deliver.js";
import type { HostProfile } from "../../src/integrations/host/profile.js";
import { HOOK_HOSTS } from "../../src/integrations/hosts.js";

describe("conversation store", () => {
  it("encodes ids reversibly: distinct ids never share a file name, and no name leaves the directory", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: "binary" }), fc.string({ maxLength: 200, unit: "binary" }), (a, b) => {
        const ea = encodeId(a);
        expect(ea).toMatch(/^[A-Za-z0-9_%~-]*$/);
        expect(ea.length).toBeLessThanOrEqual(120);
        if (a !== b) expect(ea).not.toBe(encodeId(b));
        if (!ea.startsWith("~") && !/\p{Cs}/u.test(a)) expect(decodeURIComponent(ea)).toBe(a);
      }),
      { numRuns: 200 },
    );
    // Lone surrogates have no UTF-8 form; they must not collapse into one replacement character.
    expect(encodeId("\uD800")).not.toBe(encodeId("\uD801"));
    expect(encodeId("x\uDC00")).not.toBe(encodeId("x\uFFFD"));
    expect(encodeId("é")).toBe("%C3%A9");
    // The OpenCode sanitiser of before mapped both of these to "a_b".
    expect(encodeId("a/b")).not.toBe(encodeId("a_b"));
    expect(encodeId("a.b")).not.toBe(encodeId("a_b"));
    expect(conversationPath("/s", { id: "parallel" })).toBe("/s/parallel.json");
    expect(conversationPath("/s", { id: "a", agent: "b" })).toBe("/s/a.agent-b.json");
    // "a.agent-b" as a session id cannot pose as session "a" with agent "b".
    expect(conversationPath("/s", { id: "a.agent-b" })).not.toBe(conversationPath("/s", { id: "a", agent: "b" }));
    expect(conversationPath("/s", { id: "../../etc/passwd" })).toMatch(/^\/s\/[^/]+\.json$/);
  });

  it("one XDG base for every host; relative XDG values are ignored", () => {
    expect(hostStateDir("codex", { XDG_STATE_HOME: "/x" }, "/home/me")).toBe("/x/agentsmd/codex");
    expect(hostStateDir("codex", { XDG_STATE_HOME: "rel/x" }, "/home/me")).toBe("/home/me/.local/state/agentsmd/codex");
    expect(hostStateDir("opencode", {}, "/home/me")).toBe("/home/me/.local/state/agentsmd/opencode");
  });

  it("clean-up removes only state files untouched for 30 days, never the current one", async () => {
    const tree = await createTree({ "s/old.json": "{}", "s/keep.json": "{}", "s/new.json": "{}", "s/old.txt": "x" });
    const old = (Date.now() - STATE_TTL_MS - 60_000) / 1000;
    for (const name of ["old.json", "keep.json", "old.txt"]) utimesSync(tree.path(`s/${name}`), old, old);
    await collectGarbage(nodeFileSystem, tree.path("s"), tree.path("s/keep.json"));
    expect((await readdir(tree.path("s"))).sort()).toEqual(["keep.json", "new.json", "old.txt"]);
    await collectGarbage(nodeFileSystem, tree.path("missing"), "");
  });
});

describe("tool targets table", () => {
  const table = {
    read: { fields: ["file_path", "path"] },
    search: { fields: ["dir"], orCwd: true },
    many: { fields: ["paths"] },
    patch: (call: { input: Readonly<Record<string, unknown>>; cwd: string }) => patchTargets(call.input.patch, call.cwd),
  };
  it("the first field present, arrays, cwd for a search without a path, functions; nothing for other tools", () => {
    expect(toolTargets(table, { tool: "read", input: { path: "b", file_path: "a" }, cwd: "/r" })).toEqual(["/r/a"]);
    expect(toolTargets(table, { tool: "read", input: { path: "/x/b" }, cwd: "/r" })).toEqual(["/x/b"]);
    expect(toolTargets(table, { tool: "read", input: { file_path: "a\0b" }, cwd: "/r" })).toEqual([]);
    expect(toolTargets(table, { tool: "read", input: { file_path: 3 }, cwd: "/r" })).toEqual([]);
    expect(toolTargets(table, { tool: "search", input: {}, cwd: "/r" })).toEqual(["/r"]);
    expect(toolTargets(table, { tool: "many", input: { paths: ["a", "a", "", "b"] }, cwd: "/r" })).toEqual(["/r/a", "/r/b"]);
    expect(
      toolTargets(table, { tool: "patch", input: { patch: "*** Begin Patch\n*** Update File: q/r.ts\n*** Delete File: gone.ts\n*** End Patch" }, cwd: "/r" }),
    ).toEqual(["/r/q/r.ts"]);
    expect(toolTargets(table, { tool: "toString", input: {}, cwd: "/r" })).toEqual([]);
    expect(toolTargets(table, { tool: "shell", input: { file_path: "a" }, cwd: "/r" })).toEqual([]);
  });
});

/** A minimal host: events {id, event, cwd, tool?, path?}; answers {additionalContext}; loads the chain itself. */
const EventSchema = z
  .object({
    id: z.string().min(1),
    event: z.enum(["start", "resume", "compact", "tool", "prompt", "precompact", "other"]),
    cwd: z.string(),
    path: z.string().optional(),
  })
  .strict();
type TestEvent = z.infer<typeof EventSchema>;

function testProfile(onPrompt: "notice" | "redeliver" = "notice"): HostProfile<TestEvent, { started: string }, { additionalContext: string }> {
  return {
    host: "test-host",
    displayName: "Test Host",
    input: EventSchema,
    normalize: (input) => ({
      kind: input.event === "other" ? "ignore" : input.event,
      conversation: { id: input.id },
      cwd: input.cwd,
      targets: input.path ? [input.path] : [],
      fresh: input.event === "start",
    }),
    budget: { limit: 2_000, default: 1_900 },
    headers: { startup: "START", compact: "COMPACT", tool: (targets) => `TOOL ${targets}`, updated: "UPDATED" },
    frame: (text) => ({ additionalContext: text }),
    state: { schema: () => z.object({ started: z.string() }).strict(), init: async () => ({ started: "yes" }) },
    // This host loads the root -> cwd chain itself, never nested files.
    native: async (_path, origin) => (origin === "initial" ? "loaded" : "no"),
    onPrompt,
  };
}

function driver(tree: Tree, profile = testProfile(), session?: HostHookOptions<unknown>["session"]) {
  const options: HostHookOptions<{ additionalContext: string }> = {
    env: { HOME: tree.home, XDG_STATE_HOME: tree.path("state") },
    home: tree.home,
    ...(session ? { session } : {}),
  };
  const send = async (event: TestEvent["event"], path?: string) =>
    (await handleHostEvent(profile, { id: "c1", event, cwd: tree.path("r"), ...(path ? { path: tree.path(path) } : {}) }, options))?.additionalContext ?? "";
  return { send, options };
}

const TREE = {
  "r/.git/": null,
  "r/AGENTS.md": "ROOT\n",
  "r/a/AGENTS.md": "A\n",
  "r/a/b/AGENTS.md": "B\n",
  "r/a/b/f.ts": "",
  "r/c/AGENTS.md": "C\n",
  "r/c/g.ts": "",
};

describe("delivery algorithm (a second profile)", () => {
  it("skips what the host loads, delivers each nested file once, restores them after compaction, names edits", async () => {
    const tree = await createTree(TREE);
    const { send } = driver(tree);
    expect(await send("start")).toBe("");
    const first = await send("tool", "r/a/b/f.ts");
    expect(first.startsWith(`TOOL ${tree.path("r/a/b/f.ts")}`)).toBe(true);
    expect(first).toContain("\nB");
    expect(first).toContain("\nA");
    expect(first).not.toContain("ROOT");
    expect(first.indexOf("\nB")).toBeLessThan(first.indexOf("\nA"));
    expect(await send("tool", "r/a/b/f.ts")).toBe("");
    expect(await send("other", "r/c/g.ts")).toBe("");

    const compacted = await send("compact");
    expect(compacted.startsWith("COMPACT")).toBe(true);
    expect(compacted).toContain("\nA");
    expect(compacted).toContain("\nB");
    expect(compacted).not.toContain("ROOT");
    expect(await send("tool", "r/a/b/f.ts")).toBe("");

    await tree.write("r/a/AGENTS.md", "A v2\n");
    await tree.setMtime("r/a/AGENTS.md", 2_000_000_000);
    const notice = await send("prompt");
    expect(notice).toContain(`${tree.path("r/a/AGENTS.md")} was edited`);
    expect(notice).not.toContain("A v2");
    expect(await send("prompt")).toBe("");
    expect(await send("tool", "r/a/b/f.ts")).toContain("A v2");
    expect(await send("resume")).toBe("");
  });

  it("precompact: path-layer files are offered again by the next tool event; the answer frame is the profile's", async () => {
    const tree = await createTree(TREE);
    const { send, options } = driver(tree);
    await send("start");
    expect(await send("tool", "r/c/g.ts")).toContain("\nC");
    expect(await send("precompact")).toBe("");
    expect(await send("tool", "r/c/g.ts")).toContain("\nC");
    const raw = await handleHostEvent(testProfile(), { id: "c2", event: "tool", cwd: tree.path("r"), path: tree.path("r/c/g.ts") }, options);
    expect(Object.keys(raw ?? {})).toEqual(["additionalContext"]);
    // a conversation first seen on a tool event: the host has the chain, so only nested files
    expect(raw?.additionalContext).not.toContain("ROOT");
  });

  it("a call that changes nothing takes no lock and writes nothing; one that does saves once", async () => {
    const tree = await createTree({ ...TREE, "r/a/plain/deeper/h.ts": "", "r/d/i.ts": "" });
    const { fs, counters, reset } = countingFileSystem();
    const writes: string[] = [];
    const watched: FileSystem = {
      ...fs,
      createExclusive: (path, data) => (writes.push(`lock ${path.slice(path.lastIndexOf("/") + 1)}`), fs.createExclusive(path, data)),
      writeAtomic: (path, data) => (writes.push(`save ${path.slice(path.lastIndexOf("/") + 1)}`), fs.writeAtomic(path, data)),
    };
    const { send } = driver(tree, testProfile(), { fs: watched });
    await send("start");
    expect(await send("tool", "r/a/b/f.ts")).toContain("\nB");
    const state = conversationPath(tree.path("state/agentsmd/test-host"), { id: "c1" });
    const before = await stat(state);
    writes.length = 0;
    reset();
    expect(await send("tool", "r/a/b/f.ts")).toBe("");
    expect(await send("tool", "r/a/b/AGENTS.md")).toBe("");
    expect(await send("prompt")).toBe("");
    // Directories never reached before, with nothing new to give: nothing to record either.
    expect(await send("tool", "r/a/plain/deeper/h.ts")).toBe("");
    expect(await send("tool", "r/d/i.ts")).toBe("");
    expect(writes).toEqual([]);
    expect(counters.write).toBe(0);
    const after = await stat(state);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    // Something new: the lock, then one save.
    expect(await send("tool", "r/c/g.ts")).toContain("\nC");
    expect(writes).toEqual(["lock c1.json.lock", "save c1.json"]);
  });

  it("a save by another process between the unlocked step and the lock: the step runs again under the lock, nothing is given twice", async () => {
    const tree = await createTree(TREE);
    const plain = driver(tree);
    await plain.send("start");
    let raced = false;
    const racing: FileSystem = {
      ...nodeFileSystem,
      // Just before this call takes its lock, another process handles the same tool call and saves.
      createExclusive: async (path, data) => {
        if (!raced && path.endsWith(".lock")) {
          raced = true;
          expect(await plain.send("tool", "r/c/g.ts")).toContain("\nC");
        }
        return nodeFileSystem.createExclusive(path, data);
      },
    };
    const { send } = driver(tree, testProfile(), { fs: racing });
    expect(await send("tool", "r/c/g.ts")).toBe("");
    expect(raced).toBe(true);
    // Both saw "C not given" before the lock; only the one whose state was current gave it.
    expect(await plain.send("tool", "r/c/g.ts")).toBe("");
  });

  it("redeliver at a turn start: the edited file's new text once, a deleted file named", async () => {
    const tree = await createTree(TREE);
    const { send } = driver(tree, testProfile("redeliver"));
    await send("start");
    await send("tool", "r/a/b/f.ts");
    await tree.write("r/a/b/AGENTS.md", "B v2\n");
    await tree.setMtime("r/a/b/AGENTS.md", 2_000_000_000);
    await tree.remove("r/a/AGENTS.md");
    const text = await send("prompt");
    expect(text.startsWith("UPDATED")).toBe(true);
    expect(text).toContain("B v2");
    expect(text).toContain(`${tree.path("r/a/AGENTS.md")} was deleted`);
    expect(await send("prompt")).toBe("");
    expect(await send("tool", "r/a/b/f.ts")).toBe("");
  });

  it("answers stay under the profile's limit; bad input is a HookInputError naming the host; state lives under the host's XDG dir", async () => {
    const tree = await createTree({ ...TREE, "r/a/AGENTS.md": `A\n${"x".repeat(5_000)}\n`, "r/a/b/AGENTS.md": `B\n${"y".repeat(1_000)}\n` });
    const { send, options } = driver(tree);
    await send("start");
    const text = await send("tool", "r/a/b/f.ts");
    expect(text.length).toBeLessThan(2_000);
    expect(text).toContain("\nB");
    expect(text).toContain(`- ${tree.path("r/a/AGENTS.md")}`);
    await expect(handleHostEvent(testProfile(), { event: "start" }, options)).rejects.toThrow(HookInputError);
    await expect(handleHostEvent(testProfile(), { event: "start" }, options)).rejects.toThrow(/Test Host hook event: id/);
    expect(await readdir(tree.path("state/agentsmd/test-host"))).toEqual(["c1.json"]);
  });

  it("every registered hook host loads its runner", async () => {
    for (const entry of Object.values(HOOK_HOSTS)) expect(typeof (await entry.load())).toBe("function");
  });
});
