/**
 * The Auggie host profile on the shared host layer. Auggie 0.36.0 sends the workspace root's
 * AGENTS.md and CLAUDE.md itself (preset `auggie`) and nothing when a tool touches a path;
 * agentsmd adds the nested files on PostToolUse, the one hook whose answer reaches the model
 * (appended to the tool result), and an edited file again at the next tool event that applies it.
 */
import * as z from "zod/mini";
import { leaves, once } from "../../core/config-schema.js";
import { hookRunner } from "../host/deliver.js";
import { startupFiles } from "../host/startup-files.js";
import { transcriptHeaders, type HostProfile, type NativeAnswer, type NativeContext, type NativeOrigin } from "../host/profile.js";
import { AuggieHookInputSchema, auggieCwd, auggieEvent, type AuggieHookInput, type AuggieHookOutput } from "./input.js";

const AUGGIE_HOST = "auggie";

/** Auggie sets no documented limit on hook context; agentsmd keeps an answer under this many characters. */
const AUGGIE_CONTEXT_LIMIT = 32_000;

/** What the profile keeps per conversation: the files Auggie sends itself (and their real paths). */
const auggieStateSchema = once(() => z.strictObject({ loaded: leaves().strings }));
export type AuggieState = z.infer<ReturnType<typeof auggieStateSchema>>;

/** The files Auggie sends with every request in this workspace (preset `auggie`). */
async function auggieState(input: AuggieHookInput, context: Pick<NativeContext<unknown>, "fs" | "home" | "env">): Promise<AuggieState> {
  return { loaded: await startupFiles({ cwd: auggieCwd(input), preset: "auggie", home: context.home, env: context.env, fs: context.fs }) };
}

/** What Auggie gives the model itself: the root's files, read again for every request (an edited one too). */
async function auggieNative(path: string, _origin: NativeOrigin, context: NativeContext<AuggieState>): Promise<NativeAnswer> {
  if (context.host.loaded.includes(path)) return "loaded";
  const real = await context.fs.realpath(path).catch(() => path);
  return context.host.loaded.includes(real) ? "loaded" : "no";
}

/**
 * The Auggie profile.
 */
export function auggieProfile(): HostProfile<AuggieHookInput, AuggieState, AuggieHookOutput> {
  return {
    host: AUGGIE_HOST,
    displayName: "Auggie",
    input: AuggieHookInputSchema,
    inputFix: "register `agentsmd hook auggie` as an Auggie PostToolUse hook (`agentsmd install auggie`)",
    normalize: auggieEvent,
    budget: { limit: AUGGIE_CONTEXT_LIMIT, default: 16_000 },
    headers: transcriptHeaders("Auggie"),
    frame: (text) => ({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: text } }),
    state: { schema: auggieStateSchema, init: (input, context) => auggieState(input, context) },
    native: auggieNative,
    onPrompt: "redeliver",
  };
}

/** The runner of `agentsmd hook auggie`. */
export const runAuggieHook = hookRunner(() => auggieProfile());
