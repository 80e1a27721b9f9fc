/**
 * Each host's part of the quiet stage (`<host>/quiet.ts`, its definition's `hook.quiet`) reads an
 * event exactly as the host's own schema and normalisation do: the same conversation and targets
 * whenever it reads one, and nothing (the full path) for what the schema refuses or the
 * normalisation does not make a tool event of. A property test over generated events: random
 * event names, tools from the host's table and outside it, path fields of every type, agent ids
 * (empty too), each host's own keys (Auggie's `conversation_id` and `workspace_roots`, Crush's
 * `event`), and stray fields of the wrong type. And the launcher's gate (the host's
 * `hook.quiet.gate`) finds, in the text of every event the host reads, the conversation it read.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hostDefinitions } from "../../src/integrations/registry.js";
import { parseHostInput } from "../../src/integrations/host/deliver.js";
import type { HostProfile } from "../../src/integrations/host/profile.js";
import { claudeCodeProfile } from "../../src/integrations/claude-code/profile.js";
import { qwenProfile } from "../../src/integrations/qwen/profile.js";
import { auggieProfile } from "../../src/integrations/auggie/profile.js";
import { crushProfile } from "../../src/integrations/crush/profile.js";
import { gateConversation } from "../../src/hook/quiet-gate.js";
import { conversationPath } from "../../src/integrations/host/state-file.js";

const PROFILES: Record<string, () => HostProfile<unknown, unknown, unknown>> = {
  "claude-code": () => claudeCodeProfile({ agentsMd: "inject" }) as HostProfile<unknown, unknown, unknown>,
  qwen: () => qwenProfile() as HostProfile<unknown, unknown, unknown>,
  auggie: () => auggieProfile() as HostProfile<unknown, unknown, unknown>,
  crush: () => crushProfile() as HostProfile<unknown, unknown, unknown>,
};

const TOOLS = [
  ...["Read", "Edit", "Write", "Grep", "LS", "Create", "ApplyPatch", "read_file", "edit", "grep_search", "list_directory", "editFiles", "Bash", ""],
  // Auggie's and Crush's
  ...["view", "save-file", "str-replace-editor", "apply_patch", "launch-process", "multiedit", "write", "download", "ls", "glob", "grep", "bash"],
];
const FIELDS = ["file_path", "path", "directory_path", "dir_path", "notebook_path", "files", "input", "offset", "view_range", "type"];
const EVENTS = ["PostToolUse", "PreToolUse", "SessionStart", "UserPromptSubmit", "AfterTool", "PostCompact", "pre_tool_use", "posttooluse"];
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
    hook_event_name: fc.oneof({ weight: 3, arbitrary: fc.constant("PostToolUse") }, fc.constantFrom(...EVENTS)),
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
    tool_result: fc.constant({}),
    tool_output: fc.constantFrom("done", 7),
    is_error: fc.boolean(),
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
      const { gate } = definition.hook!.quiet!;
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
          const gated = gateConversation(JSON.stringify(raw), gate);
          expect(gated && conversationPath("/s", gated), JSON.stringify(raw)).toBe(conversationPath("/s", mine.conversation));
        }),
        { numRuns: 400 },
      );
      expect(read).toBeGreaterThan(0);
    });
  }
});
