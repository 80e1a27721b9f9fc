/**
 * Each host's part of the quiet stage (`<host>/quiet.ts`, its definition's `hook.quiet`) reads an
 * event exactly as the host's own schema and normalisation do: the same conversation and targets
 * whenever it reads one, and nothing (the full path) for what the schema refuses or the
 * normalisation does not make a tool event of. A property test over generated events: random
 * event names, tools from the host's table and outside it, path fields of every type, agent ids
 * (empty too), and stray fields of the wrong type.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hostDefinitions } from "../../src/integrations/registry.js";
import { parseHostInput } from "../../src/integrations/host/deliver.js";
import type { HostEvent, HostProfile } from "../../src/integrations/host/profile.js";
import { claudeCodeProfile } from "../../src/integrations/claude-code/profile.js";
import { qwenProfile } from "../../src/integrations/qwen/profile.js";
import { auggieProfile } from "../../src/integrations/auggie/profile.js";
import { geminiProfile } from "../../src/integrations/gemini/profile.js";
import { crushProfile } from "../../src/integrations/crush/profile.js";
import { gateConversation } from "../../src/hook/quiet-gate.js";
import { conversationPath } from "../../src/integrations/host/state-file.js";
import { codexEventTargets, codexProfile } from "../../src/integrations/codex/profile.js";
import { CODEX_EVENTS } from "../../src/integrations/codex/input.js";
import { nodeFileSystem } from "../../src/io/file-system.js";

type Env = Record<string, string>;
type AnyProfile = HostProfile<unknown, unknown, unknown>;

/** The full path's reading: the host's validation, then its normalisation (throws for what it refuses). */
const normalized =
  (profile: () => AnyProfile) =>
  async (raw: unknown, env: Env): Promise<HostEvent | null> => {
    const host = profile();
    const foreign = host.foreign?.(raw, env) ?? null;
    return foreign === null ? host.normalize(parseHostInput(host, raw)) : null;
  };

/** Codex's runner (codex/hook.ts): events it does not answer dropped, validation, targets settled against the file system, then its normalisation. */
async function codexFullPath(raw: unknown, env: Env): Promise<HostEvent | null> {
  const name = (raw as { hook_event_name?: unknown } | null)?.hook_event_name;
  if (typeof name === "string" && !(CODEX_EVENTS as readonly string[]).includes(name)) return null;
  const input = parseHostInput(codexProfile(), raw);
  return codexProfile(await codexEventTargets(input, nodeFileSystem, env.HOME)).normalize(input);
}

/** A quiet host's profile, its full path's reading of an event, and the events to try. */
interface Profile {
  profile: () => AnyProfile;
  full: (raw: unknown, env: Env) => Promise<HostEvent | null>;
  events: () => fc.Arbitrary<unknown>;
}

const TOOLS = [
  ...["Read", "Edit", "Write", "Grep", "LS", "Create", "ApplyPatch", "read_file", "edit", "grep_search", "list_directory", "editFiles", "Bash", ""],
  // Auggie's and Crush's
  ...["view", "save-file", "str-replace-editor", "apply_patch", "launch-process", "multiedit", "write", "download", "ls", "glob", "grep", "bash"],
  // Gemini CLI's
  ...["replace", "read_many_files", "write_file"],
];
const FIELDS = [
  "file_path",
  "path",
  "directory_path",
  "dir_path",
  "notebook_path",
  "files",
  "input",
  "offset",
  "view_range",
  "type",
  "absolute_path",
  "include",
  "paths",
];
const EVENTS = [
  "PostToolUse",
  "PreToolUse",
  "SessionStart",
  "UserPromptSubmit",
  "AfterTool",
  "PostCompact",
  "pre_tool_use",
  "posttooluse",
  "BeforeAgent",
  "PreCompress",
];
const valueArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("/r/a/x.ts", "a/y.ts", "/r/AGENTS.md", "", "/r/a", "*** Begin Patch\n*** Update File: /r/b.ts\n*** End Patch") },
  fc.array(fc.constantFrom("/r/a.ts", "b.ts"), { maxLength: 3 }),
  fc.integer(),
  fc.constant(null),
);
/** Mostly what a host sends, sometimes a value of the wrong type. */
const mostly = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) => fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: bad });
const eventArb = fc.record(
  {
    session_id: mostly(fc.constantFrom("s1", "a b/c"), fc.constantFrom("", 7)),
    hook_event_name: fc.oneof({ weight: 3, arbitrary: fc.constantFrom("PostToolUse", "AfterTool") }, fc.constantFrom(...EVENTS)),
    // Crush's event name, Auggie's conversation and workspace
    event: mostly(fc.oneof({ weight: 3, arbitrary: fc.constant("PreToolUse") }, fc.constantFrom(...EVENTS)), fc.constantFrom("", 7)),
    conversation_id: mostly(fc.constantFrom("c1", "x.y/z"), fc.constantFrom("", 7)),
    workspace_roots: mostly(fc.array(fc.constantFrom("/r", "/r/a", "rel", ""), { maxLength: 2 }), fc.constantFrom("/r", ["/r", 7], null)),
    cwd: mostly(fc.constantFrom("/r", "/r/a"), fc.constantFrom("", 7)),
    transcript_path: mostly(fc.constant("/t.jsonl"), fc.integer()),
    tool_name: mostly(fc.constantFrom(...TOOLS), fc.integer()),
    tool_input: mostly(fc.dictionary(fc.constantFrom(...FIELDS), valueArb, { minKeys: 1, maxKeys: 3 }), fc.constantFrom("x", [])),
    agent_id: mostly(fc.constantFrom("", "agent-1"), fc.integer()),
    permission_mode: mostly(fc.constant("default"), fc.integer()),
    timestamp: mostly(fc.constant("2026-01-01T00:00:00.000Z"), fc.integer()),
    trigger: mostly(fc.constant("auto"), fc.integer()),
    tool_result: fc.constant({}),
    tool_output: fc.constantFrom("done", 7),
    is_error: fc.boolean(),
  },
  { requiredKeys: ["hook_event_name", "session_id", "cwd", "tool_name", "tool_input"] },
);

/** Codex: shell commands of plain words, quotes, globs, pipes, `&&`, git words, `~` and variables; apply_patch bodies. */
const wordArb = fc.constantFrom(
  "a.ts",
  "pkg/a.ts",
  "/r/x.ts",
  "../up.ts",
  "~/n.md",
  "'two words.ts'",
  '"$HOME/h.md"',
  "$DIR/x.ts",
  "*.ts",
  "pkg/*.md",
  "AGENTS.md",
  "HEAD:pkg/a.ts",
  "-n",
  "5",
  "x",
);
const simpleArb = fc
  .tuple(
    fc.constantFrom("cat", "head -n 5", "sed -n 1,5p", "rg", "grep -r", "ls", "wc -l", "git show", "git diff", "find", "cd", "echo", "tee", "touch"),
    fc.array(wordArb, { maxLength: 3 }),
  )
  .map(([program, words]) => [program, ...words].join(" "));
const commandArb = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(simpleArb, fc.array(fc.tuple(fc.constantFrom(" | ", " && ", " ; ", " || ", " > out.txt; "), simpleArb), { maxLength: 2 }))
      .map(([first, rest]) => first + rest.map(([join, next]) => join + next).join("")),
  },
  { weight: 1, arbitrary: fc.constantFrom("cat $(ls)", "cat 'open", "bash -lc 'cat pkg/a.ts'", "cat <<EOF\nx\nEOF", "") },
);
const patchArb = fc
  .array(fc.tuple(fc.constantFrom("Add File", "Update File", "Delete File", "Move to"), fc.constantFrom("a.ts", "/r/b.ts", "pkg/AGENTS.md", " ")), {
    maxLength: 3,
  })
  .map((headers) => `*** Begin Patch\n${headers.map(([kind, path]) => `*** ${kind}: ${path}\n+x\n`).join("")}*** End Patch\n`);
const codexEventArb = fc
  .oneof(
    fc.tuple(fc.constant("Bash"), commandArb),
    fc.tuple(fc.constant("apply_patch"), patchArb),
    fc.tuple(fc.constantFrom("shell", "mcp__x__y", ""), commandArb),
  )
  .chain(([tool, command]) =>
    fc.record(
      {
        session_id: mostly(fc.constantFrom("s1", "0199-a b"), fc.constantFrom("", 7, "x".repeat(513))),
        hook_event_name: fc.constantFrom("PostToolUse", "PostToolUse", "PostToolUse", "PreToolUse", "SessionStart", "Stop"),
        cwd: mostly(fc.constantFrom("/r", "/r/pkg"), fc.constantFrom("", "r", 7)),
        transcript_path: mostly(fc.constantFrom("/t.jsonl", null), fc.constantFrom(7, "x".repeat(4097))),
        model: mostly(fc.constant("gpt-5"), fc.integer()),
        permission_mode: mostly(fc.constant("default"), fc.integer()),
        turn_id: mostly(fc.constant("t1"), fc.integer()),
        tool_name: mostly(fc.constant(tool), fc.integer()),
        tool_input: mostly(fc.constant({ command }), fc.constantFrom("x", [], { command: 7 }, null)),
        tool_response: fc.constantFrom("ok", ""),
        tool_use_id: mostly(fc.constant("call_1"), fc.integer()),
      },
      { requiredKeys: ["hook_event_name", "session_id", "cwd", "tool_name", "tool_input"] },
    ),
  );

const claude = () => claudeCodeProfile({ agentsMd: "inject" }) as AnyProfile;
const qwen = () => qwenProfile() as AnyProfile;
const auggie = () => auggieProfile() as AnyProfile;
const crush = () => crushProfile() as AnyProfile;
const gemini = () => geminiProfile() as AnyProfile;
const PROFILES: Record<string, Profile> = {
  "claude-code": { profile: claude, full: normalized(claude), events: () => eventArb },
  qwen: { profile: qwen, full: normalized(qwen), events: () => eventArb },
  codex: { profile: () => codexProfile() as AnyProfile, full: codexFullPath, events: () => codexEventArb },
  auggie: { profile: auggie, full: normalized(auggie), events: () => eventArb },
  crush: { profile: crush, full: normalized(crush), events: () => eventArb },
  gemini: { profile: gemini, full: normalized(gemini), events: () => eventArb },
};

describe("each quiet host reads an event as its full path does", () => {
  const quietHosts = hostDefinitions().filter((definition) => definition.hook?.quiet !== undefined);

  it("every host with a quiet stage is checked here", () => {
    expect(quietHosts.map((definition) => definition.id).sort()).toEqual(Object.keys(PROFILES).sort());
  });

  it("a quiet host is one the engine certifies: it observes no call and finds no compaction in a record of its own", () => {
    for (const id of Object.keys(PROFILES)) {
      const profile = PROFILES[id]!.profile();
      expect(profile.observe, id).toBeUndefined();
      expect(profile.compaction, id).toBeUndefined();
    }
  });

  for (const definition of quietHosts) {
    it(`${definition.id}: the same conversation and targets, or none`, async () => {
      const quiet = await definition.hook!.quiet!.load();
      const { gate } = definition.hook!.quiet!;
      const { full: fullPath, events } = PROFILES[definition.id]!;
      const env = { HOME: "/h" };
      let read = 0;
      await fc.assert(
        fc.asyncProperty(events(), async (raw) => {
          const mine = quiet.event(raw, env);
          let full: HostEvent | null;
          try {
            full = await fullPath(raw, env);
          } catch {
            full = null;
          }
          if (mine === null) return;
          read++;
          expect(full, JSON.stringify(raw)).not.toBeNull();
          expect(full!.kind).toBe("tool");
          expect(mine.conversation).toEqual(full!.conversation);
          expect(mine.targets, JSON.stringify(raw)).toEqual(full!.targets);
          const gated = gateConversation(JSON.stringify(raw), gate);
          expect(gated && conversationPath("/s", gated), JSON.stringify(raw)).toBe(conversationPath("/s", mine.conversation));
        }),
        { numRuns: 400 },
      );
      expect(read).toBeGreaterThan(0);
    });
  }
});
