/**
 * The one delivery algorithm every hook host runs: event -> targets -> conversation (created, or
 * restored from the store) -> skip what the host loaded itself -> propose (`{admit:false}`) ->
 * pack under the host's budget -> hand over (`deliver`) -> admit -> save. A file counts as
 * admitted only after the answer carrying it was handed over, and the whole step runs under the
 * conversation's lock, so parallel hook processes never deliver a file twice or lose an update.
 */
import { homedir } from "../../io/require.js";
import * as z from "zod/mini";
import { absolute, nameOf, parentOf, homeFromEnv } from "../../core/paths.js";
import { quote } from "../../core/quote.js";
import { AgentsMdError } from "../../core/errors.js";
import { nodeFileSystem, readTextRange, type FileSystem } from "../../io/file-system.js";
import { canonicalTargets } from "../../io/real-path.js";
import { privateStateDir } from "../../io/state-store.js";
import { guardOf } from "../../io/deadline-fs.js";
import type { Deadline } from "../../core/deadline.js";
import { createSession, reopenSession, resumeDiff, type AgentsSession, type SessionOptions } from "../../session/session.js";
import { builtInConfig } from "../../load/config.js";
import type { HostEvent, HostProfile, NativeContext, NativeOrigin } from "./profile.js";
import { fit, nameTargets, nearestFirst, packContext, packNotice, renderPiece } from "./pack.js";
import { piecesOf, proposePieces, type Piece } from "./propose.js";
import { eventTargets } from "./targets.js";
import {
  collectGarbage,
  conversationPath,
  conversationFormat,
  hostStateDir,
  parseConversation,
  readConversationText,
  checkedText,
  type ReadConversation,
  lockConversation,
  saveConversation,
  type ConversationState,
} from "./store.js";

/** Input that is not an event of the host it was given to. */
export class HookInputError extends AgentsMdError {}

export interface HostHookOptions<O> {
  /** @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** @default env.HOME or os.homedir() */
  home?: string;
  /** Session options (preset, config, configFile, fs). cwd comes from the event. */
  session?: Omit<SessionOptions, "cwd" | "home" | "env">;
  /** Where state files go. @default the profile's, else $XDG_STATE_HOME/agentsmd/<host> */
  stateDir?: string;
  /** Character budget of one answer. @default the profile's */
  budget?: number;
  /**
   * Called with the answer while the conversation lock is held, before the state is saved: a file
   * is marked admitted only after it was handed over. null (print nothing) may come without the
   * lock: a call that changes nothing takes none.
   */
  deliver?(output: O | null): void | Promise<void>;
  /** Non-fatal problems (an unreadable or corrupt state file that was replaced). */
  onDiagnostic?(message: string): void;
  /**
   * The event's deadline (core/deadline.ts): checked at every file read and rule match until the
   * answer is handed over; past it the event throws DeadlineExceeded and nothing is admitted.
   * @default none
   */
  deadline?: Deadline;
  /**
   * Sessions a long-lived caller (the hook server) keeps between calls: a tool call of a
   * conversation whose state file still holds the text a kept session was saved as takes that
   * session back (its stat cache and memos warm) instead of reopening one from the file.
   */
  sessions?: SessionKeeper;
}

/**
 * Open sessions by key: the conversation's state file, the exact text it held and the session
 * options. `take` hands a session out (it is then the caller's alone); `keep` gives one back.
 */
export interface SessionKeeper {
  take(key: string): AgentsSession | undefined;
  keep(key: string, session: AgentsSession): void;
}

/**
 * Session caps for hooks: each answer is bounded by the character budget (what does not fit is
 * named), so the per-session inline caps only guard memory. A config given by the user wins.
 */
export const HOOK_LAZY_CAPS = Object.freeze({ maxFiles: 10_000, maxBytes: 16 * 1024 * 1024 });

/** The session config of a hook when the user gives none (test/integrations/host.test.ts validates it). */
export const HOOK_CONFIG = builtInConfig({ lazy: HOOK_LAZY_CAPS });

/** What parsing an event needs of a profile. */
export type HostInputSide<I> = Pick<HostProfile<I, unknown, unknown>, "host" | "displayName" | "input" | "inputFix">;

/**
 * Validates a parsed event against the profile's schema; throws HookInputError naming the first problem.
 */
export function parseHostInput<I>(profile: HostInputSide<I>, data: unknown): I {
  const result = z.safeParse(profile.input, data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new HookInputError(
    `hook input is not a ${profile.displayName} hook event: ${issue ? `${issue.path.join(".") || "(top level)"}: ${issue.message}` : "invalid"}`,
    {
      fix: profile.inputFix ?? `register \`agentsmd hook ${profile.host}\` as a command hook`,
    },
  );
}

/**
 * Parses a hook's stdin text; throws HookInputError when it is not JSON or not the host's event.
 */
export function parseHostText<I>(profile: HostInputSide<I>, text: string): I {
  return parseHostInput(profile, readHostJson(profile, text));
}

/**
 * A hook's stdin as JSON, not yet validated. Throws HookInputError when it is not JSON.
 */
function readHostJson(profile: Pick<HostInputSide<unknown>, "displayName">, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HookInputError(`hook input is not JSON (${(error as Error).message})`, {
      fix: `run this command as a ${profile.displayName} hook: it reads the event JSON on stdin`,
    });
  }
}

/** One event being handled: the profile, the event and what every step needs. */
interface Run<I, H, O> {
  profile: HostProfile<I, H, O>;
  input: I;
  event: HostEvent;
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  fs: FileSystem;
  budget: number;
  options: HostHookOptions<O>;
  /** The keeper's key of a state file's text; undefined without a keeper. */
  keyOf(text: string | null): string | undefined;
}

/** An open conversation: its session and the state around it. */
interface Open<H> {
  session: AgentsSession;
  state: ConversationState<H>;
}

function sessionOptions<I, H, O>(run: Run<I, H, O>, cwd: string): SessionOptions {
  const own = run.options.session ?? {};
  const config = own.config ?? (own.configFile === undefined ? HOOK_CONFIG : undefined);
  const preset = own.preset ?? run.profile.preset;
  return {
    host: run.profile.host,
    ...own,
    fs: run.fs,
    ...(preset !== undefined ? { preset } : {}),
    ...(config !== undefined ? { config } : {}),
    cwd,
    home: run.home,
    env: run.env,
  };
}

async function fresh<I, H, O>(run: Run<I, H, O>): Promise<Open<H>> {
  const host = await run.profile.state.init(run.input, { fs: run.fs, home: run.home, env: run.env, host: undefined });
  const session = await createSession(sessionOptions(run, run.event.cwd));
  const state: ConversationState<H> = { kind: `agentsmd/${run.profile.host}`, version: 2, notified: {}, named: {}, host, session: session.snapshot() };
  return { session, state };
}

async function reopen<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>, cwd = stored.session.cwd): Promise<AgentsSession> {
  return reopenSession(stored.session, sessionOptions(run, cwd));
}

/** The initial files of a fresh session with their text (user layer and project chain). */
function initialPieces(session: AgentsSession): Piece[] {
  const mtimes = new Map(session.initialFiles.map((file) => [file.path, file.mtimeMs]));
  return (session.initialLoad?.blocks ?? []).map((block) => ({
    path: block.path,
    mtimeMs: mtimes.get(block.path) ?? 0,
    content: block.content,
    origin: "initial",
    ...(session.rules.ruleAt(block.path) ? { rule: true } : {}),
  }));
}

function nativeContext<I, H, O>(run: Run<I, H, O>, state: ConversationState<H>): NativeContext<H> {
  return { fs: run.fs, home: run.home, env: run.env, host: state.host, event: run.event };
}

/**
 * Packs what the host does not have into one answer and records it: shown files and files the
 * host loaded itself are admitted at their version; withheld ones (the host loads them later, or
 * they did not fit) are not, not even from the initial load; named ones are remembered so the
 * list is not repeated. Handing over happens after the step, still under the lock: a failure
 * before the save leaves the stored state as it was.
 */
async function deliverPieces<I, H, O>(
  run: Run<I, H, O>,
  open: Open<H>,
  header: string,
  all: readonly Piece[],
  seen?: (piece: Piece) => boolean,
): Promise<string> {
  const { state } = open;
  const context = nativeContext(run, state);
  const hostNative = run.profile.native;
  // Still in front of the model (the host kept it through a compaction): admitted, not given again.
  const native = seen
    ? async (piece: Piece) => (seen(piece) ? "loaded" : hostNative ? hostNative(piece.path, piece.origin, context) : "no")
    : hostNative
      ? (piece: Piece) => hostNative(piece.path, piece.origin, context)
      : undefined;
  const proposal = await proposePieces(open.session, all, {
    ...(native ? { native } : {}),
    order: nearestFirst,
    render: (ordered) => {
      const already = new Set(ordered.filter((piece) => state.named[piece.path] === piece.mtimeMs).map((piece) => piece.path));
      const packed = packContext(header, ordered, run.budget, already);
      return { text: packed.text, shown: new Set(packed.shown), named: packed.named };
    },
  });
  for (const piece of proposal.named) state.named[piece.path] = piece.mtimeMs;
  proposal.commit();
  return proposal.text;
}

interface Step<H> {
  text: string;
  /** null: nothing to save. */
  state: ConversationState<H> | null;
  /** Left open for the keeper: the caller keeps it once the step's state is the file's, else closes it. */
  session?: AgentsSession;
}

/** Runs a step on an open session and closes it, unless `keepable` (then the step carries it, open). */
async function withSession<H>(open: Open<H>, fn: () => Promise<string>, keepable = false): Promise<Step<H>> {
  let text: string;
  try {
    text = await fn();
  } catch (error) {
    await open.session.close();
    throw error;
  }
  const step: Step<H> = { text, state: { ...open.state, session: open.session.snapshot() } };
  if (keepable) return { ...step, session: open.session };
  await open.session.close();
  return step;
}

/** Gives a step's open session to the keeper under `key`, or closes it; either way the step no longer holds it. */
async function settle<I, H, O>(run: Run<I, H, O>, result: Step<H> | null, key: string | undefined): Promise<void> {
  const session = result?.session;
  if (!session) return;
  result.session = undefined;
  if (key !== undefined && run.options.sessions) run.options.sessions.keep(key, session);
  else await session.close();
}

/** start, and every event that finds no stored conversation: the initial chain minus what the host loads. */
async function onStart<I, H, O>(run: Run<I, H, O>): Promise<Step<H>> {
  const open = await fresh(run);
  return withSession(open, () => deliverPieces(run, open, run.profile.headers.startup, initialPieces(open.session)));
}

/** resume: only what changed since (the host replays earlier answers itself). */
async function onResume<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>): Promise<Step<H>> {
  const open = { session: await reopen(run, stored, run.event.cwd), state: stored };
  // What the host itself had shown and left out of the resumed history is the model's no longer.
  const lost = run.profile.resumed?.(nativeContext(run, stored)) ?? [];
  if (lost.length > 0) open.session.forget(lost);
  return withSession(open, () => resumeDiff(open.session, stored.session, { admit: true }));
}

/**
 * compact: the conversation lost every earlier answer: the chain again (minus what the host
 * restores itself), plus the path-layer files admitted before, which no host restores. `still`:
 * what the host's transcript shows the model still has (those are not given again).
 */
async function onCompact<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>, still?: (piece: Piece) => boolean): Promise<Step<H>> {
  const open = await fresh(run);
  return withSession(open, async () => {
    const earlier = stored.session.loaded.filter((entry) => entry.layer === "path").map((entry) => entry.path);
    const blocks = await open.session.touch(earlier, { admit: false });
    return deliverPieces(run, open, run.profile.headers.compact, [...initialPieces(open.session), ...piecesOf(blocks, "restore")], still);
  });
}

/** The most of a transcript read to find what the model still sees. */
const MAX_TRANSCRIPT_BYTES = 32 * 1024 * 1024;

/**
 * What the model sees now per the host's transcript, read from `offset` (at most the last
 * MAX_TRANSCRIPT_BYTES); null without a transcript or a readable file.
 */
async function transcriptHistory<I, H, O>(run: Run<I, H, O>, offset: number): Promise<{ replaced: boolean; seen: (piece: Piece) => boolean } | null> {
  const transcript = run.profile.transcript;
  const file = transcript?.path(run.input);
  if (!transcript || !file) return null;
  const size = (await run.fs.stat(file).catch(() => null))?.size;
  if (size === undefined) return null;
  const read = await readTextRange(file, Math.max(offset, size - MAX_TRANSCRIPT_BYTES), MAX_TRANSCRIPT_BYTES).catch(() => null);
  if (!read) return null;
  let history: { replaced: boolean; text: string };
  try {
    history = transcript.history(read.text);
  } catch {
    return null; // a transcript that cannot be read is no transcript: never a failure at every later event
  }
  // Seen means this very text (an edited file's old text does not count).
  return { replaced: history.replaced, seen: (piece) => transcript.sees(piece, history.text) };
}

/** precompact with a transcript: remember where the transcript ends; the next event checks what happened after. */
async function onMark<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>): Promise<Step<H>> {
  const file = run.profile.transcript?.path(run.input);
  const size = file ? (await run.fs.stat(file).catch(() => null))?.size : undefined;
  return { text: "", state: size === undefined ? stored : { ...stored, mark: { offset: size } } };
}

/**
 * A marked conversation at its next event: when the transcript shows the history was replaced
 * since the mark, what the model lost comes back first (as after a compaction), then the event.
 */
async function afterMark<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>, then: (state: ConversationState<H>) => Promise<Step<H>>): Promise<Step<H>> {
  const { mark, ...unmarked } = stored;
  const history = await transcriptHistory(run, mark!.offset);
  if (!history?.replaced) return then(unmarked);
  const restored = await onCompact(run, unmarked, history.seen);
  const next = await then(restored.state ?? unmarked);
  return { text: [restored.text, next.text].filter((part) => part !== "").join("\n\n"), state: next.state ?? restored.state };
}

/** tool: the files newly applicable to the targets; a read of an instruction file admits it. */
async function onTool<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H> | null, key?: string): Promise<Step<H>> {
  // No start seen for this conversation (a subagent, or hooks installed mid-session): the chain comes too.
  const kept = stored && key !== undefined ? run.options.sessions?.take(key) : undefined;
  const open = stored ? { session: kept ?? (await reopen(run, stored)), state: stored } : await fresh(run);
  const initial = stored ? [] : initialPieces(open.session);
  return withSession(
    open,
    async () => {
      const { session } = open;
      // Identity by real path (docs/security.md): `loop -> .` spellings of one file deliver it once.
      const targets = await canonicalTargets(run.fs, session.root, run.event.targets);
      const target = targets[0]!;
      if (run.event.read === "whole" && session.config.files.names.includes(nameOf(target))) {
        // The model read an instruction file itself: it has that version.
        const info = await run.fs.stat(target).catch(() => null);
        if (info && info.kind === "file") session.admit([{ path: target, mtimeMs: info.mtimeMs }]);
      }
      await run.profile.observe?.(run.event, nativeContext(run, open.state));
      const blocks = await session.touch(targets, { admit: false });
      // Hundreds of targets (VS Code's editFiles) are named up to a tenth of the budget, then counted.
      const header = run.profile.headers.tool(nameTargets(targets, Math.floor(run.budget / 10)));
      return deliverPieces(run, open, header, [...piecesOf(blocks, run.event.read ? "read" : "tool"), ...initial]);
    },
    stored !== null && key !== undefined,
  );
}

/** prompt: a short notice naming admitted files edited or deleted since (or their new text). */
async function onPrompt<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>): Promise<Step<H>> {
  const open = { session: await reopen(run, stored), state: { ...stored, notified: { ...stored.notified } } };
  return withSession(open, async () => {
    const { session, state } = open;
    const redeliver = run.profile.onPrompt === "redeliver";
    const result = await session.refresh({ admit: false, inline: redeliver });
    const context = nativeContext(run, state);
    const ownNotice = async (path: string) => (run.profile.native ? (await run.profile.native(path, "notice", context)) === "loaded" : false);
    const lines: string[] = [];
    let text = "";
    if (redeliver) {
      const blocks = result.blocks.filter((block) => !block.truncated);
      const whole = new Set(blocks.map((block) => block.path));
      session.release(result.changed.filter((file) => !whole.has(file.path)));
      text = await deliverPieces(run, open, run.profile.headers.updated ?? run.profile.headers.tool("files edited since"), piecesOf(blocks, "notice"));
      for (const file of result.changed) {
        if (whole.has(file.path) || (await ownNotice(file.path)) || state.notified[file.path] === file.mtimeMs) continue;
        state.notified[file.path] = file.mtimeMs;
        lines.push(`- ${quote(file.path)} was edited; read it again before working under ${quote(parentOf(file.path))}.`);
      }
    } else {
      session.release(result.changed);
      for (const file of result.changed) {
        if ((await ownNotice(file.path)) || state.notified[file.path] === file.mtimeMs) continue;
        state.notified[file.path] = file.mtimeMs;
        lines.push(
          `- ${quote(file.path)} was edited; the copy in this conversation is out of date. Read it again before working under ${quote(parentOf(file.path))}.`,
        );
      }
    }
    for (const file of result.deleted) {
      if (await ownNotice(file.path)) continue;
      lines.push(`- ${quote(file.path)} was deleted; its instructions no longer apply.`);
      delete state.notified[file.path];
    }
    session.forget(result.deleted);
    const notice = lines.length > 0 ? packNotice(lines, Math.max(0, run.budget - text.length - 2), run.profile.headers.notice) : "";
    return [text, notice].filter((part) => part !== "").join("\n\n");
  });
}

/** precompact: path-layer files become unadmitted, so the next event there brings them again (with a transcript: only a mark). */
async function onPrecompact<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>): Promise<Step<H>> {
  if (run.profile.transcript) return onMark(run, stored);
  const open = { session: await reopen(run, stored), state: stored };
  return withSession(open, async () => {
    open.session.compacted();
    return "";
  });
}

async function onCompactEvent<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>): Promise<Step<H>> {
  if (!run.profile.transcript) return onCompact(run, stored);
  const history = await transcriptHistory(run, 0);
  return onCompact(run, { ...stored, mark: undefined }, history?.seen);
}

/** `text`: the state file's text `stored` was read from (a kept session of it may be taken back). */
function step<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H> | null, text: string | null = null): Promise<Step<H>> {
  const kind = run.event.kind;
  if (stored?.mark && run.profile.transcript && (kind === "tool" || kind === "prompt")) return afterMark(run, stored, (state) => step(run, state));
  switch (kind) {
    case "tool":
      return onTool(run, stored, run.keyOf(text));
    case "resume":
      return stored ? onResume(run, stored) : onStart(run);
    case "compact":
      return stored ? onCompactEvent(run, stored) : onStart(run);
    case "prompt":
      return stored ? onPrompt(run, stored) : onStart(run);
    case "precompact":
      return stored ? onPrecompact(run, stored) : Promise.resolve({ text: "", state: null });
    default:
      return onStart(run);
  }
}

/**
 * Handles one host event: validates it against the profile, and returns the answer (also handed
 * to `options.deliver`), or null when there is nothing to say. Throws HookInputError for input
 * that is not the host's event.
 */
export async function handleHostEvent<I, H, O>(profile: HostProfile<I, H, O>, raw: unknown, options: HostHookOptions<O> = {}): Promise<O | null> {
  // Another host that runs this host's hooks (with its own fields): silence rather than half-work.
  const foreign = profile.foreign?.(raw, options.env ?? process.env) ?? null;
  return handleHostInput(profile, foreign === null ? parseHostInput(profile, raw) : null, options);
}

/**
 * `handleHostEvent` for an event already validated (`parseHostInput`) by a runner that needed it
 * first (Codex computes its targets before): the event is not validated twice. null: no answer.
 */
export async function handleHostInput<I, H, O>(profile: HostProfile<I, H, O>, input: I | null, options: HostHookOptions<O> = {}): Promise<O | null> {
  const env = options.env ?? process.env;
  const event = input === null ? null : profile.normalize(input);
  if (input === null || event === null || event.kind === "ignore" || (event.kind === "tool" && event.targets.length === 0)) {
    await options.deliver?.(null);
    return null;
  }
  const home = options.home ?? homeFromEnv(env, homedir);
  // Every read until the answer is handed over checks the deadline; the save after it does not.
  const baseFs = options.session?.fs ?? nodeFileSystem;
  const guard = guardOf(baseFs);
  const release = options.deadline ? guard.arm(options.deadline) : () => {};
  const deliver = async (output: O | null) => {
    // A check swallowed on the way (a read's error taken for an absent file) is seen here: past
    // the deadline no answer is handed over and no state saved, so nothing is admitted or lost.
    guard.check();
    release();
    await options.deliver?.(output);
  };
  const run: Run<I, H, O> = {
    profile,
    input,
    event: { ...event, cwd: absolute(event.cwd, "/"), targets: eventTargets(event.targets) },
    env,
    home,
    fs: guard.fs,
    budget: Math.min(options.budget ?? profile.budget.default, profile.budget.limit - 1),
    options,
    keyOf: () => undefined,
  };
  const dir = options.stateDir ?? profile.stateDir?.(env) ?? hostStateDir(profile.host, env, home);
  const path = conversationPath(dir, event.conversation);
  if (options.sessions) {
    // The session options (env, home, preset, config) are part of the key: a call with others reopens.
    const same = JSON.stringify(sessionOptions(run, ""));
    run.keyOf = (text) => (text === null ? undefined : `${path}\0${same}\0${text}`);
  }
  const format = conversationFormat(profile.host, profile.state.schema);
  const diagnose = (message: string) => options.onDiagnostic?.(message);
  const read = async (): Promise<ReadConversation<H>> => {
    const text = await readConversationText(path, diagnose, run.fs);
    return { text, state: parseConversation(text, path, format, diagnose) };
  };
  // Most tool calls change nothing (their path was covered before). The step runs first on the
  // state as read, without the lock: when it has nothing to hand over or save, that is the answer
  // (it saw one whole saved state: atomic writes). Otherwise the lock is taken, and the step runs
  // again under it only when another process saved in between.
  // A state directory others may write is refused before anything in it is read (a StateError).
  await privateStateDir(dir, run.fs, false);
  const first = event.fresh ? null : await read();
  let early: Step<H> | null = null;
  if (first?.state) {
    early = await step(run, first.state, first.text);
    if (early.text === "" && (early.state === null || checkedText(early.state) === first.text)) {
      await settle(run, early, run.keyOf(first.text));
      await deliver(null);
      return null;
    }
  }
  let result: Step<H> | null = null;
  try {
    return await lockConversation(
      path,
      async () => {
        const text = first ? await readConversationText(path, diagnose, run.fs) : null;
        const current = first && text === first.text ? first : await read();
        if (current !== first || !early) await settle(run, early, undefined);
        result = current === first && early ? early : await step(run, current.state, current.text);
        const output = result.text === "" ? null : profile.frame(fit(result.text, run.budget, profile.displayName), input);
        await deliver(output);
        const saved = result.state ? checkedText(result.state) : null;
        if (result.state && saved !== current.text) await saveConversation(path, result.state, run.fs, saved!);
        if (event.fresh || (current.state === null && event.kind === "prompt")) await collectGarbage(run.fs, dir, path);
        // The session is now what the file holds: kept under that text.
        await settle(run, result, run.keyOf(saved ?? current.text));
        return output;
      },
      // The lock is taken and released without the deadline: a check there would leave it behind.
      baseFs,
    );
  } finally {
    release();
    // A step that failed, or whose answer was not handed over: its session is not the file's.
    await settle(run, result, undefined);
    await settle(run, early, undefined);
  }
}

/** What `agentsmd hook <host>` passes to a host's runner. */
interface HookRunOptions extends Omit<HostHookOptions<unknown>, "deliver"> {
  /** The host's own command-line flags (see HookHostEntry.flags), validated against their choices. */
  flags: Readonly<Record<string, string | undefined>>;
  deliver(output: unknown): void | Promise<void>;
}

/** Reads one event from stdin text and delivers the answer (`agentsmd hook <host>`). */
export type HookRunner = (text: string, options: HookRunOptions) => Promise<void>;

/**
 * A runner for a profile: stdin text -> JSON -> one validation -> the delivery algorithm.
 */
export function hookRunner<I, H, O>(profileFor: (flags: Readonly<Record<string, string | undefined>>) => HostProfile<I, H, O>): HookRunner {
  return async (text, options) => {
    const profile = profileFor(options.flags);
    await handleHostEvent(profile, readHostJson(profile, text), options);
  };
}
