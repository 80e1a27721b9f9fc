/**
 * The event schema of Claude Code's hook protocol, which Qwen Code speaks as it is and Gemini CLI
 * with its own event names: the fields they share, once, from the shared leaves of
 * core/config-schema.ts. Each host's input.ts extends it with its own fields (Gemini's
 * `timestamp`, Qwen's `permission_mode`, ...). Codex (bounded lengths, a nullable transcript path,
 * one schema per event) and Copilot CLI (camelCase) write their own.
 */
import * as z from "zod/mini";
import "../../core/zod-locale.js";
import { leaves } from "../../core/config-schema.js";
import { absolute } from "../../core/paths.js";
import type { HostEvent } from "./profile.js";

/** The shared fields, built when the first host schema is (`leaves()` builds each on first read). */
function claudeStyleFields() {
  const { nonEmptyString, optionalString, optionalUnknown, optionalRecord } = leaves();
  return {
    session_id: nonEmptyString,
    hook_event_name: nonEmptyString,
    cwd: nonEmptyString,
    transcript_path: optionalString,
    source: optionalString,
    prompt: optionalString,
    tool_name: optionalString,
    tool_input: optionalRecord,
    tool_response: optionalUnknown,
  };
}

/**
 * A host's event schema: the shared fields and the host's own; unknown fields are kept and ignored.
 */
export function claudeStyleEvent<const Own extends z.core.$ZodLooseShape>(own: Own) {
  return z.looseObject({ ...claudeStyleFields(), ...own });
}

/** The fields of a Claude-style event that decide its delivery. */
export interface ClaudeStyleInput {
  session_id: string;
  hook_event_name: string;
  cwd: string;
  source?: string | undefined;
  agent_id?: string | undefined;
}

/**
 * What a Claude-style event means for delivery: SessionStart by its `source` (resume and fork
 * replay, compact restores, startup and clear start fresh), UserPromptSubmit a turn, PostToolUse
 * the host's own tool table (`tool`: its targets, and whether it showed a file).
 */
export function claudeStyleHostEvent(input: ClaudeStyleInput, tool: () => Pick<HostEvent, "targets" | "read" | "tool">): HostEvent {
  const base = { conversation: { id: input.session_id, agent: input.agent_id }, cwd: absolute(input.cwd, "/"), targets: [] };
  switch (input.hook_event_name) {
    case "SessionStart": {
      const source = input.source ?? "startup";
      if (source === "resume" || source === "fork") return { ...base, kind: "resume" };
      if (source === "compact") return { ...base, kind: "compact" };
      return { ...base, kind: "start", fresh: source === "startup" || source === "clear" };
    }
    case "UserPromptSubmit":
      return { ...base, kind: "prompt" };
    case "PostToolUse":
      return { ...base, kind: "tool", ...tool() };
    default:
      return { ...base, kind: "ignore" };
  }
}
