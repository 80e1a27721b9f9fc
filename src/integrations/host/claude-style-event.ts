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
 * @example claudeStyleEvent({ agent_id: leaves().optionalString }).parse({ session_id: "s", hook_event_name: "SessionStart", cwd: "/r" })
 */
export function claudeStyleEvent<const Own extends z.core.$ZodLooseShape>(own: Own) {
  return z.looseObject({ ...claudeStyleFields(), ...own });
}
