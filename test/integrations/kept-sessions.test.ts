/**
 * Sessions kept between calls (the hook server): a conversation's open session is taken
 * back instead of reopened from its state file. Whatever happens between calls (edits, new and
 * deleted instruction files, compactions, prompts, answers that never reached the host, calls of
 * the same conversation by a process without the keeper, calls closer together than the trust
 * window), a conversation served with the keeper answers and saves exactly what one without it
 * does, call by call.
 */
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createTree, type Tree } from "../helpers/tree.js";
import { handleHostEvent, HOOK_LAZY_CAPS, type HostHookOptions } from "../../src/integrations/host/deliver.js";
import { claudeCodeProfile } from "../../src/integrations/claude-code/profile.js";
import { KeptSessions } from "../../src/cli/hook-server.js";
import { conversationPath } from "../../src/integrations/host/store.js";
import { readFile } from "node:fs/promises";

const WINDOW_MS = 5;
const FILES = ["r/a/b/f.ts", "r/a/g.ts", "r/c/h.ts", "r/c/d/e/i.ts", "r/j.ts"];
const INSTRUCTIONS = ["r/a/AGENTS.md", "r/a/b/AGENTS.md", "r/c/AGENTS.md", "r/c/d/AGENTS.md", "r/c/d/e/AGENTS.md"];

type Op =
  | { kind: "tool"; file: number; via: "keeper" | "process" | "lost" }
  | { kind: "edit" | "remove"; file: number }
  | { kind: "prompt" | "precompact" | "compact" | "resume" | "pause" };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant("tool" as const), file: fc.nat(FILES.length - 1), via: fc.constantFrom("keeper", "keeper", "process", "lost") }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom("edit" as const, "remove" as const), file: fc.nat(INSTRUCTIONS.length - 1) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constantFrom("prompt" as const, "precompact" as const, "compact" as const, "resume" as const, "pause" as const) }),
  },
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sessions taken back over all runs: the property must exercise the keeper, not only reopen. */
let takenBack = 0;

async function run(tree: Tree, ops: readonly Op[]): Promise<void> {
  const kept = new KeptSessions();
  const keeper = Object.assign(Object.create(kept) as KeptSessions, {
    take: (key: string) => {
      const session = kept.take(key);
      if (session) takenBack++;
      return session;
    },
    keep: (key: string, session: Parameters<KeptSessions["keep"]>[1]) => kept.keep(key, session),
  });
  const options = (sessions?: KeptSessions): HostHookOptions<{ hookSpecificOutput: { additionalContext: string } }> => ({
    env: { HOME: tree.home, XDG_STATE_HOME: tree.path("state"), AGENTSMD_CLAUDE_AGENTS_MD: "inject" },
    home: tree.home,
    session: { config: { lazy: HOOK_LAZY_CAPS, cache: { revalidateMs: WINDOW_MS } } },
    ...(sessions ? { sessions } : {}),
  });
  const profile = claudeCodeProfile({ agentsMd: "inject" });
  const event = (id: string, kind: Op["kind"], file?: string) => {
    const base = { session_id: id, cwd: tree.path("r") };
    switch (kind) {
      case "tool":
        return { ...base, hook_event_name: "PostToolUse", tool_name: "Read", tool_input: { file_path: tree.path(file!) } };
      case "prompt":
        return { ...base, hook_event_name: "UserPromptSubmit", prompt: "go" };
      case "precompact":
        return { ...base, hook_event_name: "PreCompact", trigger: "auto" };
      case "compact":
        return { ...base, hook_event_name: "SessionStart", source: "compact" };
      default:
        return { ...base, hook_event_name: "SessionStart", source: kind === "resume" ? "resume" : "startup" };
    }
  };
  // "kept": the server's conversation (mostly through the keeper); "alone": every call reopened.
  const send = async (id: "kept" | "alone", kind: Op["kind"], file: string | undefined, how: { keeper: boolean; lose: boolean }) => {
    let out: unknown = null;
    try {
      await handleHostEvent(profile, event(id, kind, file), {
        ...options(how.keeper ? keeper : undefined),
        deliver: (output) => {
          if (output && how.lose) throw new Error("the client went away");
          out = output;
        },
      });
    } catch (error) {
      if (!how.lose) throw error;
    }
    return JSON.stringify(out);
  };
  const state = async (id: string) => {
    const text = await readFile(conversationPath(tree.path("state/agentsmd/claude-code"), { id }), "utf8").catch(() => "");
    // the saved session without what names the conversation or its time
    return text ? JSON.stringify((JSON.parse(text) as { session: { loaded: unknown } }).session.loaded) : "";
  };
  for (const id of ["kept", "alone"] as const) await send(id, "start" as Op["kind"], undefined, { keeper: false, lose: false });
  let version = 0;
  for (const [index, step] of ops.entries()) {
    if (step.kind === "pause") await sleep(WINDOW_MS * 3);
    else if (step.kind === "edit") {
      await tree.write(INSTRUCTIONS[step.file]!, `edit ${++version}\n`);
      await tree.setMtime(INSTRUCTIONS[step.file]!, 1_900_000_000 + version);
    } else if (step.kind === "remove") rmSync(tree.path(INSTRUCTIONS[step.file]!), { force: true });
    else {
      const file = step.kind === "tool" ? FILES[step.file] : undefined;
      const via = step.kind === "tool" ? step.via : "keeper";
      const how = { keeper: via !== "process", lose: via === "lost" };
      const kept = await send("kept", step.kind, file, how);
      const alone = await send("alone", step.kind, file, { keeper: false, lose: how.lose });
      expect(kept, `step ${index} ${JSON.stringify(step)}`).toBe(alone);
      expect(await state("kept"), `state after step ${index}`).toBe(await state("alone"));
    }
  }
}

describe("sessions kept between calls", () => {
  it("answer and save exactly what reopened sessions do, whatever happens between calls", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 24 }), async (ops) => {
        const spec: Record<string, string | null> = { "r/.git/": null, "r/AGENTS.md": "ROOT\n" };
        for (const file of FILES) spec[file] = "";
        for (const file of INSTRUCTIONS) spec[file] = `${file}\n`;
        const tree = await createTree(spec);
        try {
          await run(tree, ops);
        } finally {
          await tree.cleanup?.();
        }
      }),
      { numRuns: 40 },
    );
    expect(takenBack).toBeGreaterThan(20);
  }, 120_000);

  it("a kept session is taken back after its trust window, never within it", async () => {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "ROOT\n", "r/a/AGENTS.md": "A\n", "r/a/f.ts": "" });
    const keeper = new KeptSessions();
    const taken: boolean[] = [];
    const spy = {
      take: (key: string) => {
        const session = keeper.take(key);
        taken.push(session !== undefined);
        return session;
      },
      keep: (key: string, session: Parameters<KeptSessions["keep"]>[1]) => keeper.keep(key, session),
    };
    const options: HostHookOptions<unknown> = {
      env: { HOME: tree.home, XDG_STATE_HOME: tree.path("state"), AGENTSMD_CLAUDE_AGENTS_MD: "inject" },
      home: tree.home,
      session: { config: { lazy: HOOK_LAZY_CAPS, cache: { revalidateMs: 200 } } },
      sessions: spy,
    };
    const profile = claudeCodeProfile({ agentsMd: "inject" });
    const read = { session_id: "k", cwd: tree.path("r"), hook_event_name: "PostToolUse", tool_name: "Read", tool_input: { file_path: tree.path("r/a/f.ts") } };
    await handleHostEvent(profile, { session_id: "k", cwd: tree.path("r"), hook_event_name: "SessionStart", source: "startup" }, options);
    expect(JSON.stringify(await handleHostEvent(profile, read, options))).toContain(tree.path("r/a/AGENTS.md"));
    expect(keeper.size).toBe(1);
    await handleHostEvent(profile, read, options);
    await sleep(250);
    await handleHostEvent(profile, read, options);
    // the first seen call came within the window (reopened), the next after it (taken back)
    expect(taken).toEqual([false, false, true]);
    // An edit right after a call, and the next call at once (inside the window): seen, as a
    // reopened session sees it (Claude Code runs parallel tools' hooks milliseconds apart).
    await tree.write("r/a/AGENTS.md", "A v2\n");
    await tree.setMtime("r/a/AGENTS.md", 1_900_000_000);
    expect(JSON.stringify(await handleHostEvent(profile, read, options))).toContain("A v2");
  });
});
