import { describe, expect, it } from "vitest";
import { claudeStyleEvent } from "../../../src/integrations/host/claude-style-event.js";
import { ClaudeHookInputSchema } from "../../../src/integrations/claude-code/input.js";
import { GeminiHookInputSchema } from "../../../src/integrations/gemini/input.js";
import { QwenHookInputSchema } from "../../../src/integrations/qwen/input.js";

const SHARED = ["session_id", "hook_event_name", "cwd", "transcript_path", "source", "prompt", "tool_name", "tool_input", "tool_response"];

describe("the Claude-style event base", () => {
  it("each host's schema is the shared fields plus its own", () => {
    const own = (schema: { def: { shape: object } }) => Object.keys(schema.def.shape).filter((key) => !SHARED.includes(key));
    for (const schema of [ClaudeHookInputSchema, GeminiHookInputSchema, QwenHookInputSchema])
      expect(Object.keys(schema.def.shape)).toEqual(expect.arrayContaining(SHARED));
    expect(own(ClaudeHookInputSchema)).toEqual(["agent_id"]);
    expect(own(GeminiHookInputSchema)).toEqual(["timestamp", "trigger"]);
    expect(own(QwenHookInputSchema)).toEqual(["permission_mode", "model", "agent_id"]);
  });

  it("validates the shared fields, keeps unknown ones, and names the field that is wrong", () => {
    const schema = claudeStyleEvent({});
    const event = { session_id: "s", hook_event_name: "PostToolUse", cwd: "/r", tool_input: { file_path: "a" }, extra: 1 };
    expect(schema.parse(event)).toEqual(event);
    const bad = schema.safeParse({ session_id: "", hook_event_name: "x", cwd: "/r", tool_input: "a" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((issue) => issue.path.join("."))).toEqual(["session_id", "tool_input"]);
  });
});
