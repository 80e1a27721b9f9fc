/**
 * The GitHub Copilot CLI host profile on the shared host layer (host/conversation.ts, through host/deliver.ts), from what
 * Copilot CLI 1.0.102 was observed to do (e2e/copilot/FINDINGS.md):
 *
 * - events: `sessionStart` (source `new` / `resume`), `userPromptSubmitted`, `postToolUse`,
 *   `preCompact`; the payload does not name the event, so `install copilot` passes `--event`;
 * - it loads itself (preset `copilot`): `.github/copilot-instructions.md`, `AGENTS.md`,
 *   `CLAUDE.md`, `GEMINI.md` from the git root to cwd, and the nested ones after a `view` of a
 *   file below them, once per session (never again after an edit or a compaction);
 * - answers: a top-level `additionalContext` (appended to the tool result after "Additional
 *   guidance from postToolUse hooks:", or to the prompt as a `<system_reminder>`); Copilot cuts
 *   it at 10,240 characters;
 * - compaction: `preCompact` runs before it, and nothing afterwards; the nested files the model
 *   had are gone, so they count as not delivered and come again with the next tool call there;
 * - resume (`--continue`, `--resume`): the history comes back without the nested files Copilot
 *   attached, and Copilot attaches them afresh at the next `view` below them. Copilot runs the
 *   resume's `sessionStart` hook and the first prompt's hook at once; whichever comes first
 *   applies the resume (its record: copilot/session-events.ts).
 */
import * as z from "zod/mini";
import { leaves, once } from "../../core/config-schema.js";
import { ancestors, isInside, join, nameOf, parentOf } from "../../core/paths.js";
import type { HostEvent, HostProfile, NativeAnswer, NativeContext, NativeOrigin } from "../host/profile.js";
import { COPILOT_MODEL_FILES, COPILOT_REPO_FILE } from "../../presets/copilot.js";
import { copilotEventSchema, type CopilotInput } from "./events.js";
import { copilotResumeId } from "./session-events.js";
import { copilotLoadsNested, copilotToolTargets } from "./targets.js";

/** Copilot cuts a postToolUse `additionalContext` at this many characters (observed). */
export const COPILOT_CONTEXT_LIMIT = 10_240;

export interface CopilotHookOutput {
  additionalContext: string;
}

/** What the profile keeps per conversation: the nested files Copilot attached itself, at their version. */
const copilotStateSchema = once(() => z.strictObject({ attached: z.record(leaves().string, z.number()) }));
type CopilotState = z.infer<ReturnType<typeof copilotStateSchema>>;

const MODEL_NAMES: ReadonlySet<string> = new Set(COPILOT_MODEL_FILES.map((name) => name.toLowerCase()));

/**
 * True for a file Copilot loads by its name (it matches names in any letter case).
 */
export function copilotReadsName(path: string): boolean {
  if (MODEL_NAMES.has(nameOf(path).toLowerCase())) return true;
  return path.toLowerCase().endsWith(`/${COPILOT_REPO_FILE.toLowerCase()}`);
}

/**
 * What a Copilot event means for delivery (pure).
 */
export function copilotEvent(input: CopilotInput): HostEvent {
  if (input.event === "ignored") return { kind: "ignore", conversation: { id: "-" }, cwd: "/", targets: [] };
  const base = { conversation: { id: input.sessionId }, cwd: input.cwd, targets: [] as string[] };
  switch (input.event) {
    case "sessionStart":
      return input.source === "resume" ? { ...base, kind: "resume" } : { ...base, kind: "start", fresh: input.source === "new" };
    case "userPromptSubmitted":
      return { ...base, kind: "prompt" };
    case "preCompact":
      return { ...base, kind: "precompact" };
    case "postToolUse": {
      const targets = copilotToolTargets(input.toolName, input.toolArgs, input.cwd);
      // Only `view` shows the model a file's text (and makes Copilot attach nested files).
      if (input.toolName !== "view") return { ...base, kind: "tool", targets };
      const range = (input.toolArgs as { view_range?: unknown } | undefined)?.view_range;
      return { ...base, kind: "tool", targets, read: range === undefined ? "whole" : "part" };
    }
  }
}

/** The directory an instruction file governs (`.github/copilot-instructions.md`: the one holding `.github`). */
function scopeOf(path: string): string {
  return path.toLowerCase().endsWith(`/${COPILOT_REPO_FILE.toLowerCase()}`) ? parentOf(parentOf(path)) : parentOf(path);
}

/** What Copilot attached on its own at this process's event (a hook process handles one event). */
interface Observed {
  now: ReadonlySet<string>;
}

/**
 * The instruction files in the directories from `target`'s up to the git root (at most 128 levels)
 * that Copilot reads by name, non-empty (it skips empty ones after a view).
 */
async function chainFiles(target: string, context: NativeContext<CopilotState>): Promise<Array<{ path: string; mtimeMs: number }>> {
  const out: Array<{ path: string; mtimeMs: number }> = [];
  for (const dir of ancestors(parentOf(target)).slice(0, 128)) {
    for (const name of [COPILOT_REPO_FILE, ...COPILOT_MODEL_FILES]) {
      const path = join(dir, name);
      const info = await context.fs.stat(path).catch(() => null);
      if (info && info.kind === "file" && info.size > 0) out.push({ path, mtimeMs: info.mtimeMs });
    }
    if (await context.fs.stat(join(dir, ".git")).catch(() => null)) break;
  }
  return out;
}

/**
 * After a `view` of a file Copilot attaches every instruction file of the target's chain it has
 * not attached in this session (also one agentsmd already gave: it cannot know). Records them.
 */
async function observeView(event: HostEvent, context: NativeContext<CopilotState>, observed: { now: Set<string> }): Promise<void> {
  const target = event.targets[0];
  if (event.read === undefined || target === undefined) return;
  const info = await context.fs.stat(target).catch(() => null);
  if (!copilotLoadsNested("view", info !== null && info.kind === "file")) return;
  for (const file of await chainFiles(target, context)) {
    // The chain from the root to cwd is in Copilot's system message: it attaches only the others.
    if (isInside(event.cwd, scopeOf(file.path))) continue;
    if (context.host.attached[file.path] !== undefined) continue;
    context.host.attached[file.path] = file.mtimeMs;
    observed.now.add(file.path);
  }
}

/**
 * What Copilot has without agentsmd: the chain at startup (preset `copilot`); the nested files it
 * attached at this very `view` (once per session: an edited or compacted one is agentsmd's to give
 * again); nothing after other tools, and no new text after an edit.
 */
function copilotNative(path: string, origin: NativeOrigin, observed: Observed): NativeAnswer {
  if (!copilotReadsName(path)) return "no";
  if (origin === "initial") return "loaded";
  return origin === "read" && observed.now.has(path) ? "loaded" : "no";
}

/**
 * The Copilot CLI profile. `event` is the hook's `--event` (inferred from the payload when absent).
 */
export function copilotProfile(options: { event?: string | undefined } = {}): HostProfile<CopilotInput, CopilotState, CopilotHookOutput> {
  const observed = { now: new Set<string>() };
  return {
    host: "copilot",
    displayName: "GitHub Copilot CLI",
    input: copilotEventSchema(options.event),
    inputFix: "register `agentsmd hook copilot --event <event>` in a Copilot hooks file (`agentsmd install copilot`)",
    // The Claude-style payload Copilot sends to .claude/settings.json hooks, or Claude Code's own.
    foreign: (raw) => (typeof raw === "object" && raw !== null && "hook_event_name" in raw ? "claude-code" : null),
    normalize: copilotEvent,
    preset: "copilot",
    budget: { limit: COPILOT_CONTEXT_LIMIT, default: 9_500 },
    headers: {
      startup:
        "agentsmd: the instruction files below apply to this project (Copilot CLI does not load them itself). A file governs its directory and everything below it.",
      compact: "agentsmd: the instruction files that applied before this conversation was compacted, most specific first.",
      tool: (targets) => `agentsmd: ${targets} is governed by these instruction files, not shown before in this conversation (most specific first):`,
      updated: "agentsmd: these instruction files were edited since they were shown; their current text (most specific first):",
    },
    frame: (text) => ({ additionalContext: text }),
    state: { schema: copilotStateSchema, init: async () => ({ attached: {} }) },
    native: async (path, origin) => copilotNative(path, origin, observed),
    observe: (event, context) => observeView(event, context, observed),
    resumed: (context) => {
      // A resumed session drops the nested-file reminders Copilot attached and attaches them
      // again at the next `view` below them (agentsmd's own answers stay in the tool results).
      const lost = Object.keys(context.host.attached);
      context.host.attached = {};
      return lost;
    },
    // Copilot runs a resumed process's sessionStart and first userPromptSubmitted hooks at once.
    resumeId: (input, context) => (input.event === "ignored" ? Promise.resolve(null) : copilotResumeId(context.fs, input.sessionId, context.home, context.env)),
    onPrompt: "redeliver",
  };
}
