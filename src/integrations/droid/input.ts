/**
 * Factory Droid's hook protocol: Claude Code's (`session_id`, `transcript_path`, `cwd`,
 * `hook_event_name`, SessionStart `source`, PostToolUse `tool_name`/`tool_input`, answer
 * `hookSpecificOutput.additionalContext`), observed with droid 0.215.0 against a scripted model
 * (recorded payloads in test/integrations/droid/events/): the SessionStart answer and the
 * PostToolUse answer both reach the model as user messages. The schema and the event mapping
 * are the shared Claude-style ones (host/claude-style-event.ts); only the tool table is Droid's.
 */
import type * as z from "zod/mini";
import { leaves } from "../../core/config-schema.js";
import { claudeStyleEvent, claudeStyleHostEvent } from "../host/claude-style-event.js";
import type { HostEvent } from "../host/profile.js";
import { toolTargets } from "../host/targets.js";
import { DROID_TOOL_TARGETS } from "./tools.js";
import { absolute } from "../../core/paths.js";

/** Droid's stdin document: the Claude-style fields; unknown fields are kept and ignored. */
export const DroidHookInputSchema = claudeStyleEvent({ agent_id: leaves().optionalString });
export type DroidHookInput = z.infer<typeof DroidHookInputSchema>;

/** The PostToolUse matcher agentsmd registers. */
export const DROID_POST_TOOL_MATCHER = Object.keys(DROID_TOOL_TARGETS).join("|");

/**
 * A Droid event as a delivery: the Claude-style mapping (host/claude-style-event.ts), with Droid's tools.
 */
export function droidEvent(input: DroidHookInput): HostEvent {
  return claudeStyleHostEvent(input, () => {
    const tool = input.tool_name ?? "";
    const args = input.tool_input ?? {};
    const targets = toolTargets(DROID_TOOL_TARGETS, { tool, input: args, cwd: absolute(input.cwd, "/") });
    const read = tool === "Read" ? (args.offset !== undefined || args.limit !== undefined ? "part" : "whole") : undefined;
    return { targets, tool, read };
  });
}
