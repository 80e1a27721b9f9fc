/**
 * Codex hook events (codex-cli 0.169.0, recorded from real runs; fixtures in
 * test/integrations/codex/events/): the zod schema, and which paths a tool event touched.
 *
 * Facts the schema encodes:
 * - every event has `session_id`, `cwd`, `hook_event_name`, `model`, `permission_mode` and
 *   `transcript_path` (a rollout file, or null for an ephemeral session); all but SessionStart
 *   carry `turn_id`;
 * - SessionStart `source` is `startup`, `resume`, `clear` or `compact` (after compaction);
 * - the shell tool is `tool_name: "Bash"` with `tool_input.command` the model's command text (not
 *   the `bash -lc` argv), and `cwd` the directory it ran in (its `workdir` when the model gave one,
 *   so not always the session's cwd); `apply_patch` carries the patch text in
 *   `tool_input.command`; `tool_response` is a string;
 * - UserPromptSubmit carries `prompt`.
 * No I/O.
 */
import * as z from "zod/mini";
import "../../core/zod-locale.js";
import { leaves } from "../../core/config-schema.js";
import { AgentsMdError } from "../../core/errors.js";

const { string, optionalString, optionalUnknown } = leaves();
/** A session id or tool name: 1 to 512 characters (one instance for both). */
const boundedName = z.string().check(z.minLength(1), z.maxLength(512));

const common = {
  session_id: boundedName,
  cwd: z.string().check(z.minLength(1), z.maxLength(4096)),
  transcript_path: z.optional(z.nullable(z.string().check(z.maxLength(4096)))),
  model: optionalString,
  permission_mode: optionalString,
  turn_id: optionalString,
};

const CodexSessionStartSchema = z.looseObject({
  ...common,
  hook_event_name: z.literal("SessionStart"),
  source: z.union([z.enum(["startup", "resume", "clear", "compact"]), string]),
});

const CodexUserPromptSubmitSchema = z.looseObject({
  ...common,
  hook_event_name: z.literal("UserPromptSubmit"),
  prompt: optionalString,
});

const CodexPostToolUseSchema = z.looseObject({
  ...common,
  hook_event_name: z.literal("PostToolUse"),
  tool_name: boundedName,
  tool_input: optionalUnknown,
  tool_response: optionalUnknown,
  tool_use_id: optionalString,
});

/** The events agentsmd answers; any other `hook_event_name` is not parsed (no output). */
export const CodexHookEventSchema = z.discriminatedUnion("hook_event_name", [CodexSessionStartSchema, CodexUserPromptSubmitSchema, CodexPostToolUseSchema]);
export type CodexHookEvent = z.infer<typeof CodexHookEventSchema>;

/** The event names agentsmd registers in hooks.json. */
export const CODEX_EVENTS = ["SessionStart", "UserPromptSubmit", "PostToolUse"] as const;

/** Hook input that is not a Codex event agentsmd understands. */
export class CodexHookInputError extends AgentsMdError {}

/**
 * Parses a Codex hook event; `null` for a well-formed event agentsmd does not handle (Stop,
 * PreToolUse, ...). Throws CodexHookInputError naming the first problem otherwise.
 */
export function parseCodexEvent(text: string): CodexHookEvent | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CodexHookInputError(`hook input is not JSON (${(error as Error).message})`, {
      fix: "run `agentsmd hook codex` as a Codex command hook: it reads the event JSON on stdin",
    });
  }
  const name = (data as { hook_event_name?: unknown } | null)?.hook_event_name;
  if (typeof name === "string" && !(CODEX_EVENTS as readonly string[]).includes(name)) return null;
  const result = z.safeParse(CodexHookEventSchema, data);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new CodexHookInputError(`hook input is not a Codex hook event: ${issue ? `${issue.path.join(".") || "(top level)"}: ${issue.message}` : "invalid"}`, {
      fix: "register `agentsmd hook codex` in Codex's hooks.json (`agentsmd install codex`)",
    });
  }
  return result.data;
}
