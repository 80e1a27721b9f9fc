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
import type { HostProfile } from "../../src/integrations/host/profile.js";
import { claudeCodeProfile } from "../../src/integrations/claude-code/profile.js";
import { qwenProfile } from "../../src/integrations/qwen/profile.js";
import { geminiProfile } from "../../src/integrations/gemini/profile.js";

const PROFILES: Record<string, () => HostProfile<unknown, unknown, unknown>> = {
  "claude-code": () => claudeCodeProfile({ agentsMd: "inject" }) as HostProfile<unknown, unknown, unknown>,
  qwen: () => qwenProfile() as HostProfile<unknown, unknown, unknown>,
  gemini: () => geminiProfile() as HostProfile<unknown, unknown, unknown>,
};

const TOOLS = [
  ...["Read", "Edit", "Write", "Grep", "LS", "Create", "ApplyPatch", "read_file", "edit", "grep_search", "list_directory", "editFiles", "Bash", ""],
  ...["replace", "read_many_files", "glob", "write_file"],
];
const FIELDS = ["file_path", "path", "directory_path", "dir_path", "notebook_path", "files", "input", "offset", "absolute_path", "include", "paths"];
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
    hook_event_name: fc.constantFrom(
      "PostToolUse",
      "PostToolUse",
      "PostToolUse",
      "SessionStart",
      "UserPromptSubmit",
      "AfterTool",
      "AfterTool",
      "BeforeAgent",
      "PreCompress",
    ),
    cwd: mostly(fc.constantFrom("/r", "/r/a"), fc.constantFrom("", 7)),
    transcript_path: mostly(fc.constant("/t.jsonl"), fc.integer()),
    tool_name: mostly(fc.constantFrom(...TOOLS), fc.integer()),
    tool_input: mostly(fc.dictionary(fc.constantFrom(...FIELDS), valueArb, { minKeys: 1, maxKeys: 3 }), fc.constantFrom("x", [])),
    agent_id: mostly(fc.constantFrom("", "agent-1"), fc.integer()),
    permission_mode: mostly(fc.constant("default"), fc.integer()),
    timestamp: mostly(fc.constant("2026-01-01T00:00:00.000Z"), fc.integer()),
    trigger: mostly(fc.constant("auto"), fc.integer()),
    tool_result: fc.constant({}),
  },
  { requiredKeys: ["hook_event_name", "session_id", "cwd", "tool_name", "tool_input"] },
);

describe("each quiet host reads an event as its full path does", () => {
  const quietHosts = hostDefinitions().filter((definition) => definition.hook?.quiet !== undefined);

  it("every host with a quiet stage is checked here", () => {
    expect(quietHosts.map((definition) => definition.id).sort()).toEqual(Object.keys(PROFILES).sort());
  });

  it("a quiet host is one the engine certifies: it observes no call and finds no compaction in a record of its own", () => {
    for (const id of Object.keys(PROFILES)) {
      const profile = PROFILES[id]!();
      expect(profile.observe, id).toBeUndefined();
      expect(profile.compaction, id).toBeUndefined();
    }
  });

  for (const definition of quietHosts) {
    it(`${definition.id}: the same conversation and targets, or none`, async () => {
      const quiet = await definition.hook!.quiet!.load();
      const profile = PROFILES[definition.id]!();
      const env = {};
      let read = 0;
      fc.assert(
        fc.property(eventArb, (raw) => {
          const mine = quiet.event(raw, env);
          let full: ReturnType<typeof profile.normalize> | null;
          try {
            const foreign = profile.foreign?.(raw, env) ?? null;
            full = foreign === null ? profile.normalize(parseHostInput(profile, raw)) : null;
          } catch {
            full = null;
          }
          if (mine === null) return;
          read++;
          expect(full, JSON.stringify(raw)).not.toBeNull();
          expect(full!.kind).toBe("tool");
          expect(mine.conversation).toEqual(full!.conversation);
          expect(mine.targets).toEqual(full!.targets);
        }),
        { numRuns: 400 },
      );
      expect(read).toBeGreaterThan(0);
    });
  }
});
