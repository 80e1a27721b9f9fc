/**
 * The Cline CLI host profile on the shared host layer. Cline 3.0.65 loads `<cwd>/AGENTS.md` and
 * `~/.agents/AGENTS.md` itself (preset `cline`) and nothing when a tool touches a path; agentsmd
 * adds the rest of the chain from the project root and the nested files, on PostToolUse (the one
 * hook whose answer reaches the model: the chain comes with the first tool event of a task). Cline
 * runs no hook when it compacts: the first event after a compaction finds Cline's record of it
 * (compaction-read.ts) and gives back what the model no longer has.
 */
import * as z from "zod/mini";
import { leaves, once } from "../../core/config-schema.js";
import { absolute } from "../../core/paths.js";
import { hookRunner } from "../host/deliver.js";
import { startupFiles } from "../host/startup-files.js";
import { transcriptHeaders, type HostEvent, type HostProfile, type NativeAnswer, type NativeContext, type NativeOrigin } from "../host/profile.js";
import { toolTargets } from "../host/targets.js";
import { CLINE_TOOL_TARGETS, ClineHookInputSchema, readWhole, type ClineHookInput, type ClineHookOutput } from "./input.js";
import { readClineCompaction } from "./compaction-read.js";

const CLINE_HOST = "cline";

/** Cline sets no documented limit on hook context; agentsmd keeps an answer under this many characters. */
const CLINE_CONTEXT_LIMIT = 32_000;

/** What the profile keeps per conversation: the files Cline loaded itself (and their real paths). */
const clineStateSchema = once(() => z.strictObject({ loaded: leaves().strings }));
export type ClineState = z.infer<ReturnType<typeof clineStateSchema>>;

/** The workspace Cline ran the hook for (its cwd). */
function clineCwd(input: ClineHookInput): string {
  return absolute(input.workspaceRoots[0] ?? "/", "/");
}

/**
 * The files Cline loads at the start of a task in this workspace (preset `cline`).
 */
async function clineState(input: ClineHookInput, context: Pick<NativeContext<unknown>, "fs" | "home" | "env">): Promise<ClineState> {
  return { loaded: await startupFiles({ cwd: clineCwd(input), preset: "cline", home: context.home, env: context.env, fs: context.fs }) };
}

/** What Cline gives the model itself: the files of its start, rebuilt into every request's system prompt (an edited one too). */
async function clineNative(path: string, _origin: NativeOrigin, context: NativeContext<ClineState>): Promise<NativeAnswer> {
  if (context.host.loaded.includes(path)) return "loaded";
  const real = await context.fs.realpath(path).catch(() => path);
  return context.host.loaded.includes(real) ? "loaded" : "no";
}

/** The session, not the run: a resumed session replays the answers its earlier runs got (and keeps its compaction record). */
function clineSessionId(input: ClineHookInput): string {
  return input.sessionContext?.rootSessionId || input.taskId;
}

/**
 * Cline's hook documents as deliveries: `tool_result` is a tool, `prompt_submit` a turn start;
 * the rest carries nothing the model would see.
 */
export function clineEvent(input: ClineHookInput): HostEvent {
  const cwd = clineCwd(input);
  const agent = input.parent_agent_id ? input.agent_id || undefined : undefined;
  const id = clineSessionId(input);
  const base = { conversation: { id, agent }, cwd, targets: [] as string[] };
  if (input.hookName === "prompt_submit") return { ...base, kind: "prompt" };
  if (input.hookName !== "tool_result" || !input.tool_result) return { ...base, kind: "ignore" };
  const tool = input.tool_result.name ?? "";
  const args = input.tool_result.input ?? {};
  const targets = toolTargets(CLINE_TOOL_TARGETS, { tool, input: args, cwd });
  return { ...base, kind: "tool", targets, tool, ...(tool === "read_files" ? { read: readWhole(args) ? "whole" : "part" } : {}) };
}

/**
 * The Cline profile.
 */
export function clineProfile(): HostProfile<ClineHookInput, ClineState, ClineHookOutput> {
  return {
    host: CLINE_HOST,
    displayName: "Cline",
    input: ClineHookInputSchema,
    inputFix: "register `agentsmd hook cline` as a Cline PostToolUse hook (`agentsmd install cline`)",
    normalize: clineEvent,
    budget: { limit: CLINE_CONTEXT_LIMIT, default: 16_000 },
    headers: transcriptHeaders("Cline"),
    frame: (text) => ({ contextModification: text }),
    state: { schema: clineStateSchema, init: (input, context) => clineState(input, context) },
    native: clineNative,
    onPrompt: "redeliver",
    // No hook runs at a compaction: its record, read at the next event, says one happened.
    compaction: (input, context, applied) => readClineCompaction(clineSessionId(input), context, applied),
  };
}

/** The runner of `agentsmd hook cline`. */
export const runClineHook = hookRunner(() => clineProfile());
