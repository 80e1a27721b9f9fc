import { describe, expect, it } from "vitest";
import { familyConfiguredNames, familyProfile, familyToolEvent, familyToolMatcher } from "../../../src/integrations/host/gemini-family.js";
import { GEMINI_FAMILY, GeminiHookInputSchema } from "../../../src/integrations/gemini/input.js";
import { QWEN_FAMILY } from "../../../src/integrations/qwen/input.js";
import { createTree } from "../../helpers/tree.js";

const base = { conversation: { id: "s" }, cwd: "/r", targets: [] };
const event = (tool: string, args: Record<string, unknown>) => ({ hook_event_name: "AfterTool", cwd: "/r", tool_name: tool, tool_input: args });

describe("the Gemini family (Gemini CLI, Qwen Code)", () => {
  it("a tool event: targets from the host's table; read_file partial only with that host's range arguments", () => {
    expect(familyToolEvent(GEMINI_FAMILY, base, event("read_file", { file_path: "a.ts" }))).toEqual({
      ...base,
      kind: "tool",
      targets: ["/r/a.ts"],
      tool: "read_file",
      read: "whole",
    });
    expect(familyToolEvent(GEMINI_FAMILY, base, event("read_file", { file_path: "a.ts", start_line: 3 })).read).toBe("part");
    expect(familyToolEvent(QWEN_FAMILY, base, event("read_file", { file_path: "a.ts", start_line: 3 })).read).toBe("whole");
    expect(familyToolEvent(QWEN_FAMILY, base, event("read_file", { file_path: "a.ts", pages: "1" })).read).toBe("part");
    expect(familyToolEvent(QWEN_FAMILY, base, event("edit", { file_path: "b/c.ts" }))).toEqual({ ...base, kind: "tool", targets: ["/r/b/c.ts"], tool: "edit" });
    expect(familyToolMatcher({ read_file: { fields: ["p"] }, glob: { fields: ["p"] } })).toBe("^(read_file|glob)$");
  });

  it("frames answers with the event's name, else the host's fallback event", () => {
    const profile = familyProfile(GEMINI_FAMILY, {
      input: GeminiHookInputSchema,
      normalize: () => ({ ...base, kind: "ignore" }),
      state: { schema: () => GeminiHookInputSchema, init: async () => ({ session_id: "s", hook_event_name: "x", cwd: "/r" }) },
      history: () => ({ replaced: false, text: "" }),
      sees: () => false,
    });
    const input = (name: string) => ({ session_id: "s", hook_event_name: name, cwd: "/r" });
    expect(profile.frame("t", input("BeforeAgent"))).toEqual({ hookSpecificOutput: { hookEventName: "BeforeAgent", additionalContext: "t" } });
    expect(profile.frame("t", input("PreCompress"))).toEqual({ hookSpecificOutput: { hookEventName: "AfterTool", additionalContext: "t" } });
    expect(profile.inputFix).toBe("register `agentsmd hook gemini` as a Gemini CLI command hook (`agentsmd install gemini`)");
    expect(profile.transcript?.path({ ...input("AfterTool"), transcript_path: "t.jsonl" })).toBe("/r/t.jsonl");
  });

  it("context.fileName: the workspace's settings win over the user's; each host keeps its own filter", async () => {
    const tree = await createTree({
      "w/.gemini/settings.json": JSON.stringify({ context: { fileName: ["A.md", ""] } }),
      "w/.qwen/settings.json": JSON.stringify({ context: { fileName: [" B.md ", "../x.md"] } }),
      "home/.gemini/settings.json": JSON.stringify({ context: { fileName: "U.md" } }),
      "v/.qwen/settings.json": "{broken",
    });
    try {
      const context = { home: tree.path("home"), env: {} };
      expect(await familyConfiguredNames(GEMINI_FAMILY, tree.path("w"), context)).toEqual(["A.md"]);
      expect(await familyConfiguredNames(QWEN_FAMILY, tree.path("w"), context)).toEqual(["B.md"]);
      expect(await familyConfiguredNames(GEMINI_FAMILY, tree.path("v"), context)).toEqual(["U.md"]);
      expect(await familyConfiguredNames(QWEN_FAMILY, tree.path("v"), context)).toBeUndefined();
    } finally {
      await tree.cleanup();
    }
  });
});
