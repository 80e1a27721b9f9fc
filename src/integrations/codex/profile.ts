/**
 * The Codex host profile on the shared host layer: Codex's events (input.ts) mapped to delivery
 * events, what Codex loads itself (its root -> cwd chain and ~/.codex files: preset `codex`
 * reproduces exactly that, so the initial load counts as loaded), the answer framing
 * (`hookSpecificOutput.additionalContext`, which Codex adds as a developer message) and the budget.
 *
 * Tool targets need the file system (globs, git's "revision or path" words), so the runner
 * (hook.ts) computes them before the shared algorithm runs and `normalize` takes them as given.
 */
import * as z from "zod/mini";
import { once } from "../../core/config-schema.js";
import type { FileSystem } from "../../io/file-system.js";
import type { HostEvent, HostProfile, NativeAnswer, NativeOrigin } from "../host/profile.js";
import { CodexHookEventSchema, type CodexHookEvent } from "./input.js";
import { settleShellPaths } from "../host/shell-targets.js";
import { codexToolReading, shownFirst, type CodexTargets } from "./tools.js";

const CODEX_HOST = "codex";

/** Codex keeps `additionalContext` whole up to 10,000 characters (longer is cut to head and tail). */
const CODEX_CONTEXT_LIMIT = 10_000;

type AnsweredEvent = CodexHookEvent["hook_event_name"];

export interface CodexHookOutput {
  hookSpecificOutput: { hookEventName: AnsweredEvent; additionalContext: string };
}

/** Codex needs no per-conversation fields of its own. */
const codexStateSchema = once(() => z.strictObject({}));
type CodexState = z.infer<ReturnType<typeof codexStateSchema>>;

/**
 * A Codex event as a delivery event (pure). SessionStart `startup`/`clear` start a conversation,
 * `resume` continues one (Codex replays the earlier developer messages), `compact` follows a compaction.
 */
export function codexEvent(input: CodexHookEvent, found: CodexTargets): HostEvent {
  const base = { conversation: { id: input.session_id }, cwd: input.cwd, targets: [] as string[] };
  switch (input.hook_event_name) {
    case "SessionStart":
      if (input.source === "resume") return { ...base, kind: "resume" };
      if (input.source === "compact") return { ...base, kind: "compact" };
      return { ...base, kind: "start", fresh: input.source === "startup" || input.source === "clear" };
    case "UserPromptSubmit":
      return { ...base, kind: "prompt" };
    case "PostToolUse":
      return { ...base, kind: "tool", targets: found.targets, ...(found.read ? { read: found.read } : {}) };
  }
}

/**
 * The paths a Codex tool event touched (shell: the command's reads, listings and writes, globs
 * expanded; apply_patch: every header), the one the model saw whole first.
 */
export async function codexEventTargets(input: CodexHookEvent, fs: FileSystem, home: string | undefined): Promise<CodexTargets> {
  if (input.hook_event_name !== "PostToolUse") return { targets: [] };
  const reading = codexToolReading(input, home);
  return "found" in reading ? reading.found : shownFirst(reading.settle, await settleShellPaths(reading.settle, fs));
}

/** Codex has its root -> cwd chain and ~/.codex file (the initial load of preset codex); nothing below. */
async function codexNative(_path: string, origin: NativeOrigin): Promise<NativeAnswer> {
  return origin === "initial" ? "loaded" : "no";
}

/**
 * The Codex host profile; `found` are the targets the runner computed for this event.
 */
export function codexProfile(found: CodexTargets = { targets: [] }): HostProfile<CodexHookEvent, CodexState, CodexHookOutput> {
  return {
    host: CODEX_HOST,
    displayName: "Codex",
    input: CodexHookEventSchema,
    inputFix: "register `agentsmd hook codex` in Codex's hooks.json (`agentsmd install codex --trust`)",
    normalize: (input) => codexEvent(input, found),
    preset: "codex",
    budget: { limit: CODEX_CONTEXT_LIMIT, default: 9_500 },
    headers: {
      startup:
        "agentsmd: AGENTS.md files that apply to this project (Codex did not load them itself). A file governs its directory and everything below it; deeper files are more specific.",
      compact:
        "agentsmd: the nested AGENTS.md files that applied before this conversation was compacted (Codex restores only the root-to-cwd files itself), most specific first. A file governs its directory and everything below it.",
      tool: (targets) => `agentsmd: ${targets} is governed by these AGENTS.md files, not shown before in this conversation (most specific first):`,
      updated: "agentsmd: these AGENTS.md files were edited since you last saw them; their current text replaces what you saw before:",
    },
    frame: (text, input) => ({ hookSpecificOutput: { hookEventName: input.hook_event_name, additionalContext: text } }),
    state: { schema: codexStateSchema, init: async () => ({}) },
    native: codexNative,
    onPrompt: "redeliver",
  };
}
