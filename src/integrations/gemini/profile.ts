/**
 * The Gemini CLI host profile on the shared host layer: how Gemini CLI 0.61's hook events map to
 * deliveries, what Gemini loads itself (its context file names: GEMINI.md plus `context.fileName`,
 * at startup from the git root to cwd and just in time after its file tools inside cwd), the
 * answer framing, and how a chat compression is found (PreCompress fires before every model call,
 * so it only marks the transcript; the next AfterTool or BeforeAgent reads whether Gemini replaced
 * the history, and gives back what the model no longer sees).
 */
import * as z from "zod/mini";
import { leaves, once } from "../../core/config-schema.js";
import { absolute, isInside, join, nameOf, parentOf } from "../../core/paths.js";
import { quote } from "../../core/quote.js";
import type { FileSystem } from "../../io/file-system.js";
import { findProjectRoot } from "../../load/root.js";
import { geminiNames } from "../../presets/gemini.js";
import { hookRunner } from "../host/deliver.js";
import { familyConfiguredNames, familyProfile, familyToolEvent } from "../host/gemini-family.js";
import type { HostEvent, HostProfile, NativeAnswer, NativeContext, NativeOrigin } from "../host/profile.js";
import { renderPiece } from "../host/pack.js";
import { GEMINI_FAMILY, GEMINI_JIT_TOOLS, GeminiHookInputSchema, type GeminiHookInput, type GeminiHookOutput } from "./input.js";
import { geminiHistory } from "./transcript.js";

/** What the profile keeps per conversation: Gemini's own loading, decided at the start. */
const geminiStateSchema = once(() =>
  z.strictObject({
    /** Gemini's context file names (GEMINI.md and `context.fileName`). */
    names: leaves().strings,
    /** The nearest `.git` above cwd (Gemini's memory boundary), or null. */
    gitRoot: z.nullable(leaves().string),
    /** The workspace Gemini loads for (its startup cwd). */
    cwd: leaves().string,
  }),
);
export type GeminiState = z.infer<ReturnType<typeof geminiStateSchema>>;

/**
 * Gemini's loading for a conversation: names from the user and workspace settings (the workspace
 * wins), and the nearest `.git`.
 */
async function geminiState(input: Pick<GeminiHookInput, "cwd">, context: Pick<NativeContext<unknown>, "fs" | "home" | "env">): Promise<GeminiState> {
  const cwd = absolute(input.cwd, "/");
  const names = geminiNames(await familyConfiguredNames(GEMINI_FAMILY, cwd, context));
  const root = await findProjectRoot({ cwd, markers: [".git"], stopAtFsRoot: true, home: context.home, fs: context.fs });
  return { names, gitRoot: root.reason === "marker" ? root.root : null, cwd };
}

/** True when a file with one of Gemini's names in the same directory is this very file (a link). */
async function sameAsGeminiFile(path: string, names: readonly string[], fs: FileSystem): Promise<boolean> {
  const info = await fs.stat(path).catch(() => null);
  if (!info) return false;
  for (const name of names) {
    if (name === nameOf(path) || name.includes("/")) continue;
    const other = await fs.stat(join(parentOf(path), name)).catch(() => null);
    if (other && other.kind === "file" && other.dev === info.dev && other.ino === info.ino) return true;
  }
  return false;
}

/**
 * What Gemini CLI gives the model itself: files under its own names (or links to one) from the
 * git root to cwd at startup (also after a compression, with the session context), and inside cwd
 * after read_file, list_directory, write_file, replace and read_many_files (once; never again
 * after a compression or an edit).
 */
async function geminiNative(path: string, origin: NativeOrigin, context: NativeContext<GeminiState>): Promise<NativeAnswer> {
  if (origin === "notice") return "no";
  const { names, gitRoot, cwd } = context.host;
  if (!names.includes(nameOf(path)) && !(await sameAsGeminiFile(path, names, context.fs))) return "no";
  const dir = parentOf(path);
  const atStartup = isInside(cwd, dir) && (gitRoot === null ? dir === cwd : isInside(dir, gitRoot));
  if (atStartup) return "loaded";
  if (origin === "initial" || origin === "restore") return "no";
  const tool = context.event?.tool;
  return tool !== undefined && GEMINI_JIT_TOOLS.has(tool) && isInside(dir, cwd) ? "loaded" : "no";
}

/**
 * Gemini's events as deliveries: the first BeforeAgent of a session starts the conversation (its
 * context is a part of its own beside the prompt, which a resume keeps), later ones are turn starts;
 * SessionStart resume continues it (Gemini replays the history), AfterTool is a tool, PreCompress
 * a possible compression. SessionStart startup/clear delivers nothing (docs/hosts/gemini.md).
 */
function geminiEvent(input: GeminiHookInput): HostEvent {
  const cwd = absolute(input.cwd, "/");
  const base = { conversation: { id: input.session_id }, cwd, targets: [] as string[] };
  switch (input.hook_event_name) {
    case "SessionStart":
      // A new session's chain goes out at its first BeforeAgent instead: Gemini glues SessionStart
      // context onto the first prompt's text, and a resume drops that whole message with it (the
      // user's first prompt included). /clear starts a new session id, so nothing here is reset.
      return input.source === "resume" ? { ...base, kind: "resume" } : { ...base, kind: "ignore" };
    case "BeforeAgent":
      // With no stored conversation this is a new session's first turn: the start.
      return { ...base, kind: "prompt" };
    case "PreCompress":
      return { ...base, kind: "precompact" };
    case "AfterTool":
      return familyToolEvent(GEMINI_FAMILY, base, input);
    default:
      return { ...base, kind: "ignore" };
  }
}

/**
 * True when the model's history still holds this text of the file: as agentsmd framed it, or as
 * Gemini's own just-in-time loader did.
 */
function geminiSees(file: { path: string; content: string }, history: string): boolean {
  return history.includes(renderPiece(file)) || history.includes(`--- Context from: ${quote(file.path)} ---\n${file.content.trim()}\n--- End of Context from:`);
}

/**
 * The Gemini CLI profile.
 */
export function geminiProfile(): HostProfile<GeminiHookInput, GeminiState, GeminiHookOutput> {
  return familyProfile(GEMINI_FAMILY, {
    input: GeminiHookInputSchema,
    normalize: geminiEvent,
    state: { schema: geminiStateSchema, init: (input, context) => geminiState(input, context) },
    native: geminiNative,
    history: geminiHistory,
    sees: geminiSees,
  });
}

/** The runner of `agentsmd hook gemini` (what HOOK_HOSTS loads). */
export const runGeminiHook = hookRunner(() => geminiProfile());
