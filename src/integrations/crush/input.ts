/**
 * Crush's hook protocol, the pure part (no I/O). Facts from its source, not from a run
 * (docs/hosts/crush.md names the commits and files):
 *
 * - hooks are flat entries `{name?, matcher?, command, timeout?}` under `hooks.<Event>` of a
 *   `crush.json`; `matcher` a Go regular expression over the tool name, unanchored;
 * - stdin is one JSON document: `event`, `session_id`, `cwd` (Crush's working directory, the
 *   one relative tool paths are taken against), and for tool events `tool_name` and `tool_input`
 *   (the model's arguments as sent); PostToolUse adds `tool_output` and `is_error`;
 * - v0.90.0 runs `PreToolUse` only; the `hooks-galore` branch adds `PostToolUse` and lifecycle
 *   events (`SessionStart`, `TurnStart`, `PreCompact`, `PostCompact`, ...) whose answers are
 *   dropped, except a PreCompact `halt`;
 * - a tool hook's `context` (or Claude Code's `hookSpecificOutput.additionalContext`) is appended
 *   to the tool's result, on a new line: the model sees it with what the tool returned.
 *
 * Only top-level tool calls run hooks (a sub-agent's never do).
 */
import * as z from "zod/mini";
import "../../core/zod-locale.js";
import { leaves } from "../../core/config-schema.js";
import { absolute } from "../../core/paths.js";
import type { HostEvent } from "../host/profile.js";
import { toolTargets } from "../host/targets.js";
import { CRUSH_TOOL_TARGETS } from "./tools.js";

function crushFields() {
  const { nonEmptyString, optionalRecord, optionalString, optionalUnknown } = leaves();
  return {
    event: nonEmptyString,
    // SessionEnd at shutdown carries an empty id.
    session_id: optionalString,
    cwd: nonEmptyString,
    tool_name: optionalString,
    tool_input: optionalRecord,
    tool_output: optionalUnknown,
  };
}

/** Crush's stdin document; unknown fields are kept and ignored. */
export const CrushHookInputSchema = z.looseObject(crushFields());
export type CrushHookInput = z.infer<typeof CrushHookInputSchema>;

/** The PreToolUse matcher agentsmd registers: a regular expression over the tool name, anchored. */
export const CRUSH_TOOL_MATCHER = `^(${Object.keys(CRUSH_TOOL_TARGETS).join("|")})$`;

/** Crush's canonical event name: it accepts any case and snake_case in its config, and sends the canonical one. */
const canonical = (name: string) => name.replaceAll("_", "").toLowerCase();

/**
 * A Crush event as a delivery: a tool event (PreToolUse, or PostToolUse where Crush runs it) by
 * the tool table; PostCompact marks the conversation compacted, so the next tool event under a
 * directory gives its files again; every other event's answer never reaches the model: ignored.
 */
export function crushEvent(input: CrushHookInput): HostEvent {
  const cwd = absolute(input.cwd, "/");
  const id = input.session_id ?? "";
  const base = { conversation: { id }, cwd, targets: [] };
  if (id === "") return { ...base, kind: "ignore" };
  switch (canonical(input.event)) {
    case "pretooluse":
    case "posttooluse": {
      const tool = input.tool_name ?? "";
      const args = input.tool_input ?? {};
      const targets = toolTargets(CRUSH_TOOL_TARGETS, { tool, input: args, cwd });
      const read = tool === "view" ? (args.offset !== undefined || args.limit !== undefined ? ("part" as const) : ("whole" as const)) : undefined;
      return { ...base, kind: "tool", targets, tool, ...(read ? { read } : {}) };
    }
    case "postcompact":
      return { ...base, kind: "precompact" };
    default:
      return { ...base, kind: "ignore" };
  }
}

/** The answer of a Crush tool hook: Claude Code's envelope, which Crush reads (its `additionalContext` as `context`). */
export interface CrushHookOutput {
  hookSpecificOutput: { hookEventName: string; additionalContext: string };
}
