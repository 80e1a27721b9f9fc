/**
 * The Factory Droid host profile on the shared host layer. Droid 0.215 loads the chain itself
 * (preset `droid`: AGENTS.md and CLAUDE.md from cwd up to the project root, `~/.factory/AGENTS.md`)
 * and attaches the nested files of a path its Read tool read; agentsmd adds the nested files of
 * paths other tools touched (ApplyPatch, LS, Grep, Glob), edited files at a turn start, and what
 * a compaction took away (SessionStart `compact`, or the `compaction_state` record `droid exec`
 * writes to its session log when it compacts by itself: compaction-read.ts).
 */
import * as z from "zod/mini";
import { leaves, once } from "../../core/config-schema.js";
import { absolute, isInside, parentOf } from "../../core/paths.js";
import { hookRunner } from "../host/deliver.js";
import { startupFiles } from "../host/startup-files.js";
import { transcriptHeaders, type HostProfile, type NativeAnswer, type NativeContext, type NativeOrigin } from "../host/profile.js";
import { DroidHookInputSchema, droidEvent, type DroidHookInput } from "./input.js";
import { readDroidCompaction } from "./compaction-read.js";

const DROID_HOST = "droid";

/** Droid sets no documented limit on hook context; agentsmd keeps an answer under this many characters. */
const DROID_CONTEXT_LIMIT = 32_000;

/** Tools after which Droid attaches the nested files of the touched path itself. */
const DROID_DISCOVERING_TOOLS: ReadonlySet<string> = new Set(["Read", "LS", "Grep"]);

/** `loaded`: the files of Droid's start; `attached`: the nested files Droid attached after a Read, LS or Grep (once a session). */
const droidStateSchema = once(() => z.strictObject({ loaded: leaves().strings, attached: z.optional(leaves().strings) }));
export type DroidState = z.infer<ReturnType<typeof droidStateSchema>>;

interface DroidAnswer {
  hookSpecificOutput: { hookEventName: string; additionalContext: string };
}

/** The files Droid loads at the start of a session in this cwd (preset `droid`). */
async function droidState(input: Pick<DroidHookInput, "cwd">, context: Pick<NativeContext<unknown>, "fs" | "home" | "env">): Promise<DroidState> {
  return { loaded: await startupFiles({ cwd: absolute(input.cwd, "/"), preset: "droid", home: context.home, env: context.env, fs: context.fs }) };
}

/**
 * What Droid gives the model itself: its startup chain (not again after a compaction), and the
 * nested files of a path its Read, LS or Grep tool touched (attached after the tool result).
 */
async function droidNative(path: string, origin: NativeOrigin, context: NativeContext<DroidState>): Promise<NativeAnswer> {
  if (origin === "notice") return "no";
  if (origin === "restore") return droidRestore(path, context);
  // Droid attaches the nested files of a path it read, listed or searched (observed for Read, LS and
  // Grep), each once a session: an attached file proposed again was edited, and Droid does not attach
  // its new text (observed), so agentsmd gives it.
  if (origin === "read" || (origin === "tool" && context.event?.tool !== undefined && DROID_DISCOVERING_TOOLS.has(context.event.tool))) {
    const attached = (context.host.attached ??= []);
    if (attached.includes(path)) return "no";
    attached.push(path);
    return "loaded";
  }
  if (context.host.loaded.includes(path)) return "loaded";
  const real = await context.fs.realpath(path).catch(() => path);
  return context.host.loaded.includes(real) ? "loaded" : "no";
}

/**
 * A nested file the model lost at a compaction (its `attached` record starts over with it, as
 * Droid's own does): one this event's Read, LS or Grep reaches Droid attaches now; one Droid had
 * attached before comes again from the next event there (Droid's at a Read, LS or Grep, agentsmd's
 * at any other tool), not now; the rest (what agentsmd gave) agentsmd gives back now.
 */
function droidRestore(path: string, context: NativeContext<DroidState>): NativeAnswer {
  const event = context.event;
  const dir = parentOf(path);
  if (event?.tool !== undefined && DROID_DISCOVERING_TOOLS.has(event.tool) && event.targets.some((target) => isInside(target, dir))) {
    (context.host.attached ??= []).push(path);
    return "loaded";
  }
  return context.before?.attached?.includes(path) ? "later" : "no";
}

/**
 * The Factory Droid profile.
 */
export function droidProfile(): HostProfile<DroidHookInput, DroidState, DroidAnswer> {
  return {
    host: DROID_HOST,
    displayName: "Factory Droid",
    input: DroidHookInputSchema,
    inputFix: "register `agentsmd hook droid` as a Droid command hook (`agentsmd install droid`)",
    normalize: droidEvent,
    budget: { limit: DROID_CONTEXT_LIMIT, default: 16_000 },
    headers: transcriptHeaders("Factory Droid"),
    frame: (text, input) => ({ hookSpecificOutput: { hookEventName: input.hook_event_name, additionalContext: text } }),
    state: { schema: droidStateSchema, init: (input, context) => droidState(input, context) },
    native: droidNative,
    onPrompt: "redeliver",
    // No hook runs at `droid exec`'s own compaction: its record in the session log, read at the next event, says one happened.
    compaction: (input, context, applied) => readDroidCompaction(input, context, applied),
  };
}

/** The runner of `agentsmd hook droid`. */
export const runDroidHook = hookRunner(() => droidProfile());
