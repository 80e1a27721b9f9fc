/**
 * The Qwen Code host profile on the shared host layer. Qwen Code 0.24 loads QWEN.md and AGENTS.md
 * only upward from cwd at startup (preset `qwen`) and nothing when a tool touches a path; agentsmd
 * adds the nested files. Its SessionStart answer lives in the system prompt and is replaced by the
 * next SessionStart answer, so a resumed or compacted session gets everything in force again that
 * its transcript shows the model no longer has.
 */
import * as z from "zod/mini";
import { leaves, once } from "../../core/config-schema.js";
import { absolute } from "../../core/paths.js";
import { hookRunner } from "../host/deliver.js";
import { startupFiles } from "../host/startup-files.js";
import { familyConfiguredNames, familyProfile, familyToolEvent } from "../host/gemini-family.js";
import type { HostEvent, HostProfile, NativeAnswer, NativeContext, NativeOrigin } from "../host/profile.js";
import { renderPiece } from "../host/pack.js";
import { QWEN_FAMILY, QwenHookInputSchema, type QwenHookInput, type QwenHookOutput } from "./input.js";
import { qwenHistory } from "./transcript.js";

/** What the profile keeps per conversation: the files Qwen loaded itself at startup (and their real paths). */
const qwenStateSchema = once(() => z.strictObject({ loaded: leaves().strings }));
export type QwenState = z.infer<ReturnType<typeof qwenStateSchema>>;

/**
 * The files Qwen Code loads at startup for this cwd (preset `qwen`, with `context.fileName` from
 * the workspace or user settings).
 */
async function qwenState(input: Pick<QwenHookInput, "cwd">, context: Pick<NativeContext<unknown>, "fs" | "home" | "env">): Promise<QwenState> {
  const cwd = absolute(input.cwd, "/");
  const names = await familyConfiguredNames(QWEN_FAMILY, cwd, context);
  return {
    loaded: await startupFiles({
      cwd,
      preset: "qwen",
      home: context.home,
      env: context.env,
      fs: context.fs,
      ...(names ? { config: { files: { names: [...names, ".qwen/QWEN.local.md"] } } } : {}),
    }),
  };
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
 * PostToolUse is a tool; UserPromptSubmit a turn start. Qwen also fires UserPromptSubmit with an
 * empty prompt before every tool-result continuation: no turn starts there (the tool's own
 * PostToolUse just answered), so it is ignored unread, and an edit notice waits for the user's next
 * prompt, as on Claude Code; otherwise every continuation paid a second hook's state read and session.
 */
function qwenEvent(input: QwenHookInput): HostEvent {
  const cwd = absolute(input.cwd, "/");
  const base = { conversation: { id: input.session_id, agent: input.agent_id || undefined }, cwd, targets: [] as string[] };
  switch (input.hook_event_name) {
    case "SessionStart":
      if (input.source === "resume" || input.source === "compact") return { ...base, kind: "compact" };
      return { ...base, kind: "start", fresh: input.source === "startup" || input.source === "clear" };
    case "UserPromptSubmit":
      return input.prompt === "" ? { ...base, kind: "ignore" } : { ...base, kind: "prompt" };
    case "PostToolUse":
      return familyToolEvent(QWEN_FAMILY, base, input);
    default:
      return { ...base, kind: "ignore" };
  }
}

/**
 * The Qwen Code profile.
 */
export function qwenProfile(): HostProfile<QwenHookInput, QwenState, QwenHookOutput> {
  return familyProfile(QWEN_FAMILY, {
    input: QwenHookInputSchema,
    normalize: qwenEvent,
    state: { schema: qwenStateSchema, init: (input, context) => qwenState(input, context) },
    native: qwenNative,
    history: (text) => {
      const history = qwenHistory(text);
      return { replaced: history.compacted, text: history.text };
    },
    sees: (file, history) => history.includes(renderPiece(file)),
  });
}

/** The runner of `agentsmd hook qwen` (what HOOK_HOSTS loads). */
export const runQwenHook = hookRunner(() => qwenProfile());
