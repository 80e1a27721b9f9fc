/**
 * The Qwen Code host profile on the shared host layer. Qwen Code 0.24 loads QWEN.md and AGENTS.md
 * only upward from cwd at startup (preset `qwen`) and nothing when a tool touches a path; agentsmd
 * adds the nested files. Its SessionStart answer lives in the system prompt and is replaced by the
 * next SessionStart answer, so a resumed or compacted session gets everything in force again that
 * its transcript shows the model no longer has.
 */
import * as z from "zod/mini";
import { leaves, once } from "../../core/config-schema.js";
import { absolute, join } from "../../core/paths.js";
import { safeParseConfig } from "../../core/config-schema.js";
import { readTextFile, type FileSystem } from "../../io/file-system.js";
import { createSession } from "../../session/session.js";
import { hookRunner } from "../host/deliver.js";
import { transcriptHeaders, type HostEvent, type HostProfile, type NativeAnswer, type NativeContext, type NativeOrigin } from "../host/profile.js";
import { toolTargets } from "../host/targets.js";
import { renderPiece } from "../host/pack.js";
import { qwenDir } from "../../presets/qwen.js";
import { QwenHookInputSchema, QWEN_TOOL_TARGETS, type QwenHookInput, type QwenHookOutput } from "./input.js";
import { qwenHistory } from "./transcript.js";

const QWEN_HOST = "qwen";

/** Qwen Code sets no documented limit on hook context; agentsmd keeps an answer under this many characters. */
const QWEN_CONTEXT_LIMIT = 32_000;

/** What the profile keeps per conversation: the files Qwen loaded itself at startup (and their real paths). */
const qwenStateSchema = once(() => z.strictObject({ loaded: leaves().strings }));
export type QwenState = z.infer<ReturnType<typeof qwenStateSchema>>;

/** A configured name agentsmd can look up in a directory (what `files.names` accepts: relative, no `..`); a repository's settings may name anything. */
function lookupName(name: string): boolean {
  // only the `files` key is built (core/config-schema.ts): this runs in every Qwen hook process
  return safeParseConfig({ files: { names: [name] } }).success;
}

/**
 * `context.fileName` of a Qwen settings file, if set. Names that leave the directory (`../x`,
 * `/etc/passwd`) are left out: they are no instruction file agentsmd delivers, and as
 * `files.names` they would fail every event of a project whose settings hold them (docs/security.md).
 */
async function configuredNames(file: string): Promise<string[] | undefined> {
  try {
    const text = await readTextFile(file, 1024 * 1024);
    if (text === null) return undefined;
    const value = (JSON.parse(text) as { context?: { fileName?: unknown } } | null)?.context?.fileName;
    const names = (Array.isArray(value) ? value : [value])
      .filter((name): name is string => typeof name === "string")
      .map((name) => name.trim())
      .filter(lookupName);
    return names.length > 0 ? names : undefined;
  } catch {
    // broken settings: Qwen keeps its default names too
  }
  return undefined;
}

async function withRealPaths(paths: readonly string[], fs: FileSystem): Promise<string[]> {
  const out = new Set(paths);
  for (const path of paths) out.add(await fs.realpath(path).catch(() => path));
  return [...out];
}

/**
 * The files Qwen Code loads at startup for this cwd (preset `qwen`, with `context.fileName` from
 * the workspace or user settings).
 */
async function qwenState(input: Pick<QwenHookInput, "cwd">, context: Pick<NativeContext<unknown>, "fs" | "home" | "env">): Promise<QwenState> {
  const cwd = absolute(input.cwd, "/");
  const names =
    (await configuredNames(join(join(cwd, ".qwen"), "settings.json"))) ?? (await configuredNames(join(qwenDir(context.home, context.env), "settings.json")));
  const session = await createSession({
    cwd,
    preset: "qwen",
    home: context.home,
    env: context.env,
    fs: context.fs,
    ...(names ? { config: { files: { names: [...names, ".qwen/QWEN.local.md"] } } } : {}),
  });
  try {
    return {
      loaded: await withRealPaths(
        session.initialFiles.map((file) => file.path),
        context.fs,
      ),
    };
  } finally {
    await session.close();
  }
}

/**
 * What Qwen Code gives the model itself: the files of its startup load, every time it builds its
 * system prompt (also after a compaction or a resume); an edited one is not sent again.
 */
async function qwenNative(path: string, origin: NativeOrigin, context: NativeContext<QwenState>): Promise<NativeAnswer> {
  if (origin === "notice") return "no";
  if (context.host.loaded.includes(path)) return "loaded";
  const real = await context.fs.realpath(path).catch(() => path);
  return context.host.loaded.includes(real) ? "loaded" : "no";
}

/**
 * Qwen's events as deliveries: SessionStart startup/clear starts a conversation; resume and
 * compact give back what the model does not see (its system prompt lost the earlier answer);
 * PostToolUse is a tool; UserPromptSubmit a turn start (also before tool-result continuations).
 */
function qwenEvent(input: QwenHookInput): HostEvent {
  const cwd = absolute(input.cwd, "/");
  const base = { conversation: { id: input.session_id, agent: input.agent_id || undefined }, cwd, targets: [] as string[] };
  switch (input.hook_event_name) {
    case "SessionStart":
      if (input.source === "resume" || input.source === "compact") return { ...base, kind: "compact" };
      return { ...base, kind: "start", fresh: input.source === "startup" || input.source === "clear" };
    case "UserPromptSubmit":
      return { ...base, kind: "prompt" };
    case "PostToolUse": {
      const tool = input.tool_name ?? "";
      const args = input.tool_input ?? {};
      const targets = toolTargets(QWEN_TOOL_TARGETS, { tool, input: args, cwd });
      const partial = args.offset !== undefined || args.limit !== undefined || args.pages !== undefined;
      return { ...base, kind: "tool", targets, tool, ...(tool === "read_file" ? { read: partial ? "part" : "whole" } : {}) };
    }
    default:
      return { ...base, kind: "ignore" };
  }
}

function answered(name: string): name is QwenHookOutput["hookSpecificOutput"]["hookEventName"] {
  return name === "SessionStart" || name === "PostToolUse" || name === "UserPromptSubmit";
}

/**
 * The Qwen Code profile.
 */
export function qwenProfile(): HostProfile<QwenHookInput, QwenState, QwenHookOutput> {
  return {
    host: QWEN_HOST,
    displayName: "Qwen Code",
    input: QwenHookInputSchema,
    inputFix: "register `agentsmd hook qwen` as a Qwen Code command hook (`agentsmd install qwen`)",
    normalize: qwenEvent,
    budget: { limit: QWEN_CONTEXT_LIMIT, default: 16_000 },
    headers: transcriptHeaders("Qwen Code"),
    frame: (text, input) => ({
      hookSpecificOutput: { hookEventName: answered(input.hook_event_name) ? input.hook_event_name : "PostToolUse", additionalContext: text },
    }),
    state: { schema: qwenStateSchema, init: (input, context) => qwenState(input, context) },
    native: qwenNative,
    onPrompt: "redeliver",
    transcript: {
      path: (input) => (input.transcript_path ? absolute(input.transcript_path, absolute(input.cwd, "/")) : undefined),
      history: (text) => {
        const history = qwenHistory(text);
        return { replaced: history.compacted, text: history.text };
      },
      sees: (file, history) => history.includes(renderPiece(file)),
    },
  };
}

/** The runner of `agentsmd hook qwen` (what HOOK_HOSTS loads). */
export const runQwenHook = hookRunner(() => qwenProfile());
