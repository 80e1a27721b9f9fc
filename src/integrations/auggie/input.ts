/**
 * Auggie's hook protocol, the pure part (no I/O). Facts from Auggie 0.36.0, observed with the
 * real client against a fake of Augment's backend (recorded payloads in
 * test/integrations/auggie/events/):
 *
 * - hooks run only when the backend's feature flags carry `enable_hooks`; a hook is a `command`
 *   in `hooks.<Event>` of `~/.augment/settings.json` or `<workspace>/.augment/settings.json`
 *   (Claude-style matcher groups), its `timeout` in milliseconds (60,000 when absent), run with
 *   the workspace root as cwd;
 * - its stdin is one JSON document: `hook_event_name` (`SessionStart`, `PromptSubmit`,
 *   `PreToolUse`, `PostToolUse`, `Stop`, ...), `conversation_id`, `workspace_roots` (no `cwd`, no
 *   `session_id`), and for tool events `tool_name`, `tool_input` (the model's arguments, paths
 *   relative to the workspace root), `tool_output`, `tool_error`, `is_mcp_tool`;
 * - a PostToolUse answer `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":…}}`
 *   is appended to the tool result the model sees (`\n\n[Hook Context]\n…`); the same answer from
 *   SessionStart or PromptSubmit never reaches the backend.
 *
 * Auggie's `tool_input` paths are matched with a regular expression (`new RegExp(matcher)`),
 * unanchored; agentsmd's matcher anchors its own.
 *
 * The event maps onto the shared Claude-style delivery (host/claude-style-event.ts) with the
 * conversation as the session and the first workspace root as cwd.
 */
import * as z from "zod/mini";
import "../../core/zod-locale.js";
import { leaves } from "../../core/config-schema.js";
import { absolute } from "../../core/paths.js";
import { claudeStyleHostEvent } from "../host/claude-style-event.js";
import type { HostEvent } from "../host/profile.js";
import { toolTargets } from "../host/targets.js";
import { AUGGIE_TOOL_TARGETS, firstRoot } from "./tools.js";

function auggieFields() {
  const { nonEmptyString, optionalUnknown, optionalRecord, optionalString, strings } = leaves();
  return {
    hook_event_name: nonEmptyString,
    conversation_id: nonEmptyString,
    workspace_roots: strings,
    tool_name: optionalString,
    tool_input: optionalRecord,
    tool_output: optionalUnknown,
  };
}

/** Auggie's stdin document; unknown fields are kept and ignored. */
export const AuggieHookInputSchema = z.looseObject(auggieFields());
export type AuggieHookInput = z.infer<typeof AuggieHookInputSchema>;

/** The PostToolUse matcher agentsmd registers (a regular expression over the tool name, anchored). */
export const AUGGIE_POST_TOOL_MATCHER = `^(${Object.keys(AUGGIE_TOOL_TARGETS).join("|")})$`;

/**
 * The workspace Auggie ran the hook for: its first root (hooks run there; tool paths are relative to it).
 */
export function auggieCwd(input: Pick<AuggieHookInput, "workspace_roots">): string {
  return absolute(firstRoot(input.workspace_roots), "/");
}

/** True when a `view` call showed a file whole: not a directory, no line range, no regex search. */
function viewedWhole(args: Readonly<Record<string, unknown>>): boolean {
  return args.view_range === undefined && args.search_query_regex === undefined;
}

/**
 * An Auggie event as a delivery: PostToolUse by its tool table; every other event carries nothing
 * the model would see (its answer never reaches the backend), so it is ignored.
 */
export function auggieEvent(input: AuggieHookInput): HostEvent {
  const cwd = auggieCwd(input);
  const event = { session_id: input.conversation_id, hook_event_name: input.hook_event_name === "PostToolUse" ? "PostToolUse" : "ignored", cwd };
  return claudeStyleHostEvent(event, () => {
    const tool = input.tool_name ?? "";
    const args = input.tool_input ?? {};
    const targets = toolTargets(AUGGIE_TOOL_TARGETS, { tool, input: args, cwd });
    const file = tool === "view" && args.type !== "directory";
    return { targets, tool, ...(file ? { read: viewedWhole(args) ? ("whole" as const) : ("part" as const) } : {}) };
  });
}

/** The answer of an Auggie PostToolUse hook. */
export interface AuggieHookOutput {
  hookSpecificOutput: { hookEventName: string; additionalContext: string };
}
