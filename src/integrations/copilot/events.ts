/**
 * GitHub Copilot CLI's hook events as its own hook files (`~/.copilot/hooks/*.json`,
 * `.github/hooks/*.json`) deliver them: camelCase JSON on stdin that does not name the event
 * (observed with 1.0.102, e2e/copilot/native.e2e.test.ts). The event comes from the command line
 * (`agentsmd hook copilot postToolUse`, as `install copilot` writes it), else from the payload's
 * shape. No I/O.
 */
import * as z from "zod/mini";
import type * as zc from "zod/v4/core";
import "../../core/zod-locale.js";
import { lazyFields, leaves, once } from "../../core/config-schema.js";
import { AgentsMdError } from "../../core/errors.js";

/** The events agentsmd registers with Copilot. */
export const COPILOT_EVENTS = ["sessionStart", "userPromptSubmitted", "postToolUse", "preCompact"] as const;
export type CopilotEventName = (typeof COPILOT_EVENTS)[number];

/** The fields every event has (built with the first event schema). */
const base = once(() => ({
  sessionId: z.string().check(z.minLength(1), z.maxLength(512)),
  cwd: z.string().check(z.minLength(1), z.maxLength(64 * 1024)),
  timestamp: z.optional(z.union([z.number(), leaves().string])),
}));
/** A short word (`source`, `resultType`, `trigger`), or absent. */
const optionalWord = once(() => z.optional(z.string().check(z.maxLength(64))));

/** Each event's schema, built when an event of that kind first comes (a hook call parses one). */
const SCHEMAS = lazyFields({
  sessionStart: () => z.looseObject({ ...base(), source: optionalWord(), initialPrompt: leaves().optionalString }),
  userPromptSubmitted: () => z.looseObject({ ...base(), prompt: leaves().string }),
  postToolUse: () =>
    z.looseObject({
      ...base(),
      toolName: z.string().check(z.minLength(1), z.maxLength(256)),
      toolArgs: leaves().optionalUnknown,
      toolResult: z.optional(z.looseObject({ resultType: optionalWord(), textResultForLlm: leaves().optionalUnknown })),
    }),
  preCompact: () => z.looseObject({ ...base(), trigger: optionalWord(), transcriptPath: leaves().optionalString }),
});
type Schemas = typeof SCHEMAS;

export type CopilotEvent = { [K in keyof Schemas]: { event: K } & z.infer<Schemas[K]> }[keyof Schemas];

/** Input that is not a Copilot hook event agentsmd handles. */
export class CopilotEventError extends AgentsMdError {}

/**
 * The event a payload is, from its fields (Copilot does not name it): a tool result is
 * postToolUse, a `source` sessionStart, a `prompt` userPromptSubmitted, a `trigger` preCompact.
 */
export function inferCopilotEvent(data: Record<string, unknown>): CopilotEventName | undefined {
  if ("toolName" in data) return "toolResult" in data ? "postToolUse" : undefined;
  if ("trigger" in data) return "preCompact";
  if ("prompt" in data) return "userPromptSubmitted";
  if ("source" in data || "initialPrompt" in data) return "sessionStart";
  return undefined;
}

/**
 * True for an event name `agentsmd hook copilot` handles.
 */
function isCopilotEventName(name: string): name is CopilotEventName {
  return (COPILOT_EVENTS as readonly string[]).includes(name);
}

/**
 * Validates a parsed payload as `event` (inferred from the payload when not given). Returns null
 * for an event agentsmd does not handle (preToolUse, agentStop, ...): the hook then says nothing.
 * Throws CopilotEventError naming the first problem for a payload that is not Copilot's.
 */
export function parseCopilotEvent(data: unknown, event?: string): CopilotEvent | null {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new CopilotEventError("hook input is not a JSON object", { fix: "register `agentsmd hook copilot <event>` as a Copilot command hook" });
  }
  const name = event ?? inferCopilotEvent(data as Record<string, unknown>);
  if (name === undefined || !isCopilotEventName(name)) return null;
  const result = z.safeParse(SCHEMAS[name], data);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new CopilotEventError(
      `hook input is not a Copilot ${name} event: ${issue ? `${issue.path.join(".") || "(top level)"}: ${issue.message}` : "invalid"}`,
      { fix: "register `agentsmd hook copilot <event>` in a Copilot hooks file (~/.copilot/hooks or .github/hooks), not in a Claude-style settings file" },
    );
  }
  return { event: name, ...result.data } as CopilotEvent;
}

/** An event `agentsmd hook copilot` has nothing to say to (preToolUse, agentStop, ...). */
interface IgnoredCopilotEvent {
  event: "ignored";
}

export type CopilotInput = CopilotEvent | IgnoredCopilotEvent;

/**
 * The profile's input schema: the payload checked as `event` (from `--event`; inferred from the
 * payload's shape when absent). An event agentsmd does not handle parses to `{ event: "ignored" }`.
 */
export function copilotEventSchema(event?: string): zc.$ZodType<CopilotInput> {
  return z.transform((raw: unknown, context): CopilotInput => {
    try {
      return parseCopilotEvent(raw, event) ?? { event: "ignored" };
    } catch (error) {
      context.issues.push({ code: "custom", message: (error as Error).message.replace(/^hook input is not a Copilot \w+ event: /, ""), input: raw });
      return z.NEVER;
    }
  });
}
