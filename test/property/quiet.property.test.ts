/**
 * Property test (fast-check): the hook's two stages (hook/quiet.ts answering from the engine's
 * certificate, integrations/host/quiet-certificate.ts, else the full path) answer exactly what the
 * full engine alone answers and leave the same state: over random trees of AGENTS.md files, and
 * random sequences of tool events, prompts and compactions mixed with edits of delivered files,
 * new AGENTS.md files (in covered directories too), new scoped rules, deleted files, symlink swaps
 * and new directories. For Claude Code and Gemini CLI, whose PreCompress (before every model call)
 * only marks the transcript: a mark the next event finds was no compression, or a compression. The quiet stage only ever says "nothing" and never writes: so whenever it
 * answers, the full engine run on the same disk must also answer nothing and leave the state
 * file byte for byte as it was.
 *
 * The engine trusts a directory's stat only for changes older than RACY_MS (io/unchanged.ts);
 * Date.now runs that much ahead here so trees made a moment ago can be certified, and each change
 * waits out the clock tick of the last one (what RACY_MS is for).
 *
 * `npm test` runs a few cases; `npm run fuzz` runs FUZZ_RUNS.
 */
import fc from "fast-check";
import { readFile, rm, symlink, writeFile, mkdir } from "node:fs/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runHookArgv } from "../../src/hook/run.js";
import { quietCall } from "../../src/hook/quiet.js";
import { quietGateOpen } from "../../src/hook/quiet-gate.js";
import { quietHost as claudeQuiet } from "../../src/integrations/claude-code/quiet.js";
import { quietHost as geminiQuiet } from "../../src/integrations/gemini/quiet.js";
import { agentsmdVersion, type QuietHost } from "../../src/integrations/host/quiet-format.js";
import { hostDefinitions } from "../../src/integrations/registry.js";
import { conversationPath, hostStateDir } from "../../src/integrations/host/state-file.js";
import { RACY_MS } from "../../src/io/unchanged.js";
import { createTree, type Tree } from "../helpers/tree.js";

const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 12));
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

const DIRS = ["", "a", "a/b", "a/b/c", "d", "d/e"] as const;

/** A host as played here: its quiet stage and how each op is its event. */
interface PlayedHost {
  id: string;
  quiet: QuietHost;
  start: object;
  prompt: object;
  /** A compaction's event; `compressed`: what the host writes to its transcript after it. */
  compact: { event: object; compressed?: string };
  /** A mark that was no compression (Gemini's PreCompress before a model call); null: none. */
  mark: { event: object; written: string } | null;
  tools: Record<"Read" | "Edit" | "Write" | "Grep", string>;
  /** A tool's input: a file, or the directory a search searches. */
  input(tool: "Read" | "Edit" | "Write" | "Grep", file: string, dir: string): object;
  tool: string;
}

const HOSTS: readonly PlayedHost[] = [
  {
    id: "claude-code",
    quiet: claudeQuiet,
    start: { hook_event_name: "SessionStart", source: "startup" },
    prompt: { hook_event_name: "UserPromptSubmit", prompt: "go" },
    compact: { event: { hook_event_name: "SessionStart", source: "compact" } },
    mark: null,
    tools: { Read: "Read", Edit: "Edit", Write: "Write", Grep: "Grep" },
    input: (tool, file, dir) => (tool === "Grep" ? { pattern: "x", path: dir } : { file_path: file }),
    tool: "PostToolUse",
  },
  {
    id: "gemini",
    quiet: geminiQuiet,
    start: { hook_event_name: "BeforeAgent", prompt: "go" },
    prompt: { hook_event_name: "BeforeAgent", prompt: "go on" },
    compact: {
      event: { hook_event_name: "PreCompress", trigger: "auto" },
      compressed: '{"$set":{"messages":[{"type":"user","content":[{"text":"summary"}]}]}}\n',
    },
    mark: { event: { hook_event_name: "PreCompress", trigger: "auto" }, written: '{"type":"gemini","content":"ok"}\n' },
    tools: { Read: "read_file", Edit: "replace", Write: "write_file", Grep: "grep_search" },
    input: (tool, file, dir) => (tool === "Grep" ? { pattern: "x", dir_path: dir } : { file_path: file }),
    tool: "AfterTool",
  },
];

type Op =
  | { kind: "tool"; tool: "Read" | "Edit" | "Write" | "Grep"; dir: number; file: number }
  | { kind: "prompt" }
  | { kind: "compact" }
  | { kind: "mark" }
  | { kind: "edit"; dir: number }
  | { kind: "add"; dir: number }
  | { kind: "delete"; dir: number }
  | { kind: "swap"; dir: number; to: number }
  | { kind: "rule" }
  | { kind: "mkdir"; dir: number };

const dirArb = fc.nat(DIRS.length - 1);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({ kind: fc.constant("tool" as const), tool: fc.constantFrom("Read", "Edit", "Write", "Grep" as const), dir: dirArb, file: fc.nat(2) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "prompt" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "compact" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "mark" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("edit" as const), dir: dirArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("add" as const), dir: dirArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), dir: dirArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("swap" as const), dir: dirArb, to: dirArb }) },
  { weight: 1, arbitrary: fc.constant({ kind: "rule" as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("mkdir" as const), dir: dirArb }) },
);
const layoutArb = fc.record({
  agents: fc.uniqueArray(dirArb, { maxLength: DIRS.length }),
  ops: fc.array(opArb, { minLength: 4, maxLength: 18 }),
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rel = (dir: number, name: string) => (DIRS[dir] === "" ? `r/${name}` : `r/${DIRS[dir]}/${name}`);

/** One hook call through the full path (hook/run.ts, as dist/hook runs it): stdout and stderr. */
async function fullCall(host: PlayedHost, event: object, env: Record<string, string>, cwd: string): Promise<{ stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  await runHookArgv(["hook", host.id], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: async () => JSON.stringify(event),
    env,
    cwd,
  });
  return { stdout, stderr };
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** A session's situation: its tree, its environment, its state file. */
async function situation(host: PlayedHost, agents: readonly number[]): Promise<{ tree: Tree; env: Record<string, string>; state: string; session: string }> {
  const tree = await createTree({ "r/.git/": null, "t.jsonl": '{"sessionId":"s1"}\n' });
  for (const dir of DIRS) await tree.add({ [rel(DIRS.indexOf(dir), "x0.ts")]: "" });
  for (const dir of agents) await tree.write(rel(dir, "AGENTS.md"), `rules of ${DIRS[dir] || "the root"}\n`);
  const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state"), AGENTSMD_CLAUDE_AGENTS_MD: "inject", PATH: process.env.PATH ?? "/usr/bin" };
  const session = "s1";
  return { tree, env, session, state: conversationPath(hostStateDir(host.id, env, tree.home), { id: session }) };
}

/** Applies a change to the disk (none for events). */
async function change(tree: Tree, op: Op, counter: { n: number }): Promise<void> {
  switch (op.kind) {
    case "edit":
      await writeFile(tree.path(rel(op.dir, "AGENTS.md")), `edited ${counter.n++}\n`, { flag: "a" }).catch(() => undefined);
      return;
    case "add":
      await tree.write(rel(op.dir, "AGENTS.md"), `new rules ${counter.n++}\n`);
      return;
    case "delete":
      await rm(tree.path(rel(op.dir, "AGENTS.md")), { force: true });
      return;
    case "swap": {
      const path = tree.path(rel(op.dir, "AGENTS.md"));
      await tree.write(rel(op.to, `other-${counter.n}.md`), `swapped in ${counter.n++}\n`);
      await rm(path, { force: true });
      await symlink(tree.path(rel(op.to, `other-${counter.n - 1}.md`)), path);
      return;
    }
    case "rule":
      await tree.write("r/.cursor/rules/ts.mdc", `---\nglobs: "**/*.ts"\n---\nTypeScript rule ${counter.n++}\n`);
      return;
    case "mkdir":
      await mkdir(tree.path(rel(op.dir, `new${counter.n++}`)), { recursive: true });
      return;
    default:
      return;
  }
}

function eventOf(host: PlayedHost, op: Op, session: string, cwd: string, tree: Tree): object | null {
  const base = { session_id: session, cwd, transcript_path: tree.path("t.jsonl") };
  if (op.kind === "prompt") return { ...base, ...host.prompt };
  if (op.kind === "compact") return { ...base, ...host.compact.event };
  if (op.kind === "mark") return host.mark && { ...base, ...host.mark.event };
  if (op.kind !== "tool") return null;
  const dir = tree.path(DIRS[op.dir] === "" ? "r" : `r/${DIRS[op.dir]}`);
  return { ...base, hook_event_name: host.tool, tool_name: host.tools[op.tool], tool_input: host.input(op.tool, `${dir}/x${op.file}.ts`, dir) };
}

/** What the host writes to its transcript after the event (Gemini: a compression, or the model's answer after a mark). */
function writtenAfter(host: PlayedHost, op: Op): string | undefined {
  return op.kind === "compact" ? host.compact.compressed : op.kind === "mark" ? host.mark?.written : undefined;
}

/**
 * Plays a sequence on a fresh tree: a start, then each op (an event through the quiet stage, then
 * through the full path; or a change to the disk). Whenever the stage answers, the full engine
 * must answer nothing and leave the state as it was. Returns, per event, whether the stage (and
 * the launcher's gate before it: hook/quiet-gate.ts) answered.
 */
async function play(host: PlayedHost, agents: readonly number[], ops: readonly Op[], version: string): Promise<Array<{ quiet: boolean; gate: boolean }>> {
  const { tree, env, state, session } = await situation(host, agents);
  const gate = hostDefinitions().find((definition) => definition.id === host.id)!.hook!.quiet!.gate;
  const cwd = tree.path("r");
  const counter = { n: 0 };
  const seen: Array<{ quiet: boolean; gate: boolean }> = [];
  try {
    const start = await fullCall(host, { session_id: session, cwd, transcript_path: tree.path("t.jsonl"), ...host.start }, env, cwd);
    expect(start.stderr).toBe("");
    for (const op of ops) {
      const event = eventOf(host, op, session, cwd, tree);
      if (event === null) {
        // A change lands in a later clock tick than what the last call saw.
        await sleep(15);
        await change(tree, op, counter);
        continue;
      }
      const text = JSON.stringify(event);
      const quiet = quietCall(host.quiet, ["hook", host.id], text, env, version);
      const open = quietGateOpen(host.id, gate, text, env);
      // The gate turns away only what the stage would not answer.
      if (quiet) expect(open, `the gate turned away what the quiet stage answers: ${text}`).toBe(true);
      seen.push({ quiet, gate: open });
      const before = await readFile(state, "utf8").catch(() => null);
      const full = await fullCall(host, event, env, cwd);
      if (quiet) {
        expect(full.stdout, `the quiet stage answered nothing to ${text}`).toBe("");
        expect(full.stderr).toBe("");
        expect(await readFile(state, "utf8").catch(() => null), `the state changed after a quiet answer to ${text}`).toBe(before);
      }
      const written = writtenAfter(host, op);
      if (written !== undefined) await writeFile(tree.path("t.jsonl"), written, { flag: "a" });
    }
  } finally {
    await tree.cleanup();
  }
  return seen;
}

/** The engine trusts only changes older than RACY_MS: the clock runs that much ahead, so a tree made a moment ago can be certified. */
function clockAhead(): void {
  const realNow = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => realNow() + RACY_MS + 1000);
}

describe("the hook's quiet stage", () => {
  for (const host of HOSTS) {
    it(`${host.id}: answers only what the full engine would, and the state stays as the full engine leaves it`, async () => {
      const version = await agentsmdVersion();
      clockAhead();
      await fc.assert(
        fc.asyncProperty(layoutArb, async ({ agents, ops }) => {
          await play(host, agents, ops, version);
        }),
        { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
      );
    }, 240_000);
  }

  it("answers a certified call: the start certifies the root, a read that delivered its directory; the next calls there or below (no instruction file on the way) are the stage's until a premise changes", async () => {
    clockAhead();
    const [root, ab] = [DIRS.indexOf(""), DIRS.indexOf("a/b")];
    const read = (dir: number, file: number): Op => ({ kind: "tool", tool: "Read", dir, file });
    const seen = await play(
      HOSTS[0]!,
      [root, ab],
      [
        read(ab, 0), // delivers a/b's rules (a save): a/b is certified
        read(ab, 1), // the stage's
        { kind: "tool", tool: "Grep", dir: ab, file: 0 }, // the stage's (the directory itself)
        read(DIRS.indexOf("d"), 0), // below the root (certified at the start), no instruction file on the way: the stage's
        { kind: "add", dir: DIRS.indexOf("d/e") },
        read(DIRS.indexOf("d/e"), 0), // an instruction file below the root not yet given: the full path, which delivers it
        { kind: "edit", dir: ab },
        read(ab, 0), // a premise changed: the full path, which delivers the edit (a save, certified again)
        read(ab, 2), // the stage's
      ],
      await agentsmdVersion(),
    );
    expect(seen.map(({ quiet }) => quiet)).toEqual([false, true, true, true, false, false, true]);
    // The gate lets every tool call below the root through (the start certified it); the stage decides.
    expect(seen.map(({ gate }) => gate)).toEqual([true, true, true, true, true, true, true]);
  }, 60_000);
});
