/**
 * The Crush host profile on the shared host layer. Crush puts its working directory's context
 * files and two user files into the system prompt itself (preset `crush`), which a compaction
 * keeps; it loads nothing when a tool touches a path. agentsmd adds, with each file tool's
 * result, the AGENTS.md files from the project root down to the touched path that Crush did not
 * load (the root's from a subdirectory, nested ones), an edited one again, and after a
 * compaction (PostCompact, where Crush runs it) the nested ones again at the next touch.
 */
import * as z from "zod/mini";
import { leaves, once } from "../../core/config-schema.js";
import { absolute } from "../../core/paths.js";
import { startupFiles } from "../host/startup-files.js";
import { transcriptHeaders, type HostProfile, type NativeAnswer, type NativeContext } from "../host/profile.js";
import { CrushHookInputSchema, crushEvent, type CrushHookInput, type CrushHookOutput } from "./input.js";

const CRUSH_HOST = "crush";

/** Crush sets no limit on hook context (it appends it to the tool result); agentsmd keeps an answer under this many characters. */
const CRUSH_CONTEXT_LIMIT = 32_000;

/** What the profile keeps per conversation: the files Crush put in its system prompt (and their real paths). */
const crushStateSchema = once(() => z.strictObject({ loaded: leaves().strings }));
export type CrushState = z.infer<ReturnType<typeof crushStateSchema>>;

/** The files Crush loads at the start of a session in this working directory (preset `crush`). */
async function crushState(input: Pick<CrushHookInput, "cwd">, context: Pick<NativeContext<unknown>, "fs" | "home" | "env">): Promise<CrushState> {
  return { loaded: await startupFiles({ cwd: absolute(input.cwd, "/"), preset: "crush", home: context.home, env: context.env, fs: context.fs }) };
}

/** What Crush gives the model itself: its system prompt's files, rebuilt from the disk for every request (an edited one too). */
async function crushNative(path: string, _origin: unknown, context: NativeContext<CrushState>): Promise<NativeAnswer> {
  if (context.host.loaded.includes(path)) return "loaded";
  const real = await context.fs.realpath(path).catch(() => path);
  return context.host.loaded.includes(real) ? "loaded" : "no";
}

/**
 * The Crush profile.
 */
export function crushProfile(): HostProfile<CrushHookInput, CrushState, CrushHookOutput> {
  return {
    host: CRUSH_HOST,
    displayName: "Crush",
    input: CrushHookInputSchema,
    inputFix: "register `agentsmd hook crush` as a Crush PreToolUse hook in crush.json (`agentsmd install crush`)",
    normalize: crushEvent,
    budget: { limit: CRUSH_CONTEXT_LIMIT, default: 16_000 },
    headers: transcriptHeaders("Crush"),
    frame: (text, input) => ({ hookSpecificOutput: { hookEventName: input.event, additionalContext: text } }),
    state: { schema: crushStateSchema, init: (input, context) => crushState(input, context) },
    native: crushNative,
  };
}
