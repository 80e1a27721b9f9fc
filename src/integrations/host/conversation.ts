/**
 * The one conversation engine every host runs, whatever carries its events: hook processes
 * (host/deliver.ts), the OpenCode/Kilo plugins (host/plugin-family.ts), pi's extension and the MCP
 * server. A conversation is opened (restored from its store, else created), stepped by an event
 * (start, resume, tool, prompt, precompact, compact), its files proposed (`{admit:false}`), the
 * answer handed over, then committed (admitted) and saved. The store is a parameter
 * (host/stores.ts: a state file under a lock, memory, or none). What a compaction takes from the
 * model and what the host already has (native) are decided here and nowhere else.
 */
import { nameOf, parentOf } from "../../core/paths.js";
import { quote } from "../../core/quote.js";
import { readTextRange, type FileSystem } from "../../io/file-system.js";
import { canonicalTargets } from "../../io/real-path.js";
import { createSession, reopenSession, resumeDiff, type AgentsSession, type SessionOptions } from "../../session/session.js";
import type { NativeAnswer, HostEvent, HostProfile, NativeContext } from "./profile.js";
import { fit, nameTargets, nearestFirst, packContext, packNotice } from "./pack.js";
import { piecesOf, proposePieces, type Piece, type Proposal, type ProposeOptions } from "./propose.js";
import { checkedText, type ConversationState, type ReadConversation } from "./store.js";
import type { ConversationStore } from "./stores.js";
import type { QuietCertifier, QuietPremises } from "./quiet-certificate.js";

/**
 * A new conversation's state: the one literal every host's store holds.
 */
export function conversationState<H>(host: string, fields: H, session: AgentsSession, prior?: ConversationState<H>): ConversationState<H> {
  return {
    kind: `agentsmd/${host}`,
    version: 2,
    notified: prior?.notified ?? {},
    named: prior?.named ?? {},
    ...(prior?.mark ? { mark: prior.mark } : {}),
    ...(prior?.resumed !== undefined ? { resumed: prior.resumed } : {}),
    ...(prior?.compacted !== undefined ? { compacted: prior.compacted } : {}),
    host: fields,
    session: session.snapshot(),
  };
}

/** An open conversation: its session and the state around it. */
export interface Conversation<H> {
  session: AgentsSession;
  state: ConversationState<H>;
}

/**
 * Opens the conversation `store` holds (`restore`), else a new one (`create`).
 */
export async function openConversation<H>(
  store: ConversationStore<H>,
  how: {
    host: string;
    /** @default none: the store holds no conversation (noStore) */
    restore?(state: ConversationState<H>): Promise<AgentsSession>;
    create(): Promise<{ session: AgentsSession; fields: H }>;
  },
): Promise<Conversation<H> & { restored: boolean }> {
  const stored = (await store.read()).state;
  if (stored && how.restore) return { session: await how.restore(stored), state: stored, restored: true };
  const made = await how.create();
  return { session: made.session, state: conversationState(how.host, made.fields, made.session), restored: false };
}

/**
 * The one decision of what the host already has: `seen` (what the model still has in front of
 * it: a transcript after a compaction, a plugin's system prompt and attachments) is "loaded";
 * anything else is the profile's answer (what the host loads itself), else "no".
 */
export function nativeOf(
  seen: ((piece: Piece) => boolean) | undefined,
  host?: (piece: Piece) => NativeAnswer | Promise<NativeAnswer>,
): ProposeOptions["native"] | undefined {
  if (!seen) return host;
  return (piece) => (seen(piece) ? "loaded" : host ? host(piece) : "no");
}

/**
 * Pieces for what a tool touched: targets by real path (`loop -> .` spellings of one file deliver
 * it once; docs/security.md), an instruction file the model read whole counts as had at its
 * version now, then the files newly applicable (`{admit:false}`).
 */
async function touchTargets(
  session: AgentsSession,
  fs: FileSystem,
  touched: readonly string[],
  read: "whole" | "part" | undefined,
): Promise<{ targets: string[]; blocks: Awaited<ReturnType<AgentsSession["touch"]>> }> {
  const targets = await canonicalTargets(fs, session.root, touched);
  const target = targets[0]!;
  if (read === "whole" && session.config.files.names.includes(nameOf(target))) {
    const info = await fs.stat(target).catch(() => null);
    if (info && info.kind === "file") session.admit([{ path: target, mtimeMs: info.mtimeMs }]);
  }
  return { targets, blocks: await session.touch(targets, { admit: false }) };
}

/**
 * A proposal for an in-process host whose answer holds every file it shows (no budget: a plugin's
 * tool result, an MCP answer): what the host has is skipped (`native`), the rest rendered by
 * `text` and, once the caller handed the text over, admitted by `commit()`.
 */
export function proposeAll(
  session: AgentsSession,
  pieces: readonly Piece[],
  text: (shown: readonly Piece[]) => string,
  native?: ProposeOptions["native"],
): Promise<Proposal> {
  return proposePieces(session, pieces, {
    ...(native ? { native } : {}),
    render: (shown) => ({ text: text(shown), shown: new Set(shown.map((piece) => piece.path)) }),
  });
}

/**
 * What the host gave the model (its system prompt, its own attachments) is had at its version on
 * disk now: admitted at that version (a session's claim at another version is replaced). Returns
 * the versions found.
 */
export async function admitCurrent(session: AgentsSession, paths: Iterable<string>): Promise<Map<string, number>> {
  const fs = session.cache.fs;
  const current = new Map<string, number>();
  await Promise.all(
    [...new Set(paths)].map(async (path) => {
      const info = await fs.stat(path).catch(() => null);
      if (info?.kind === "file") current.set(path, info.mtimeMs);
    }),
  );
  session.admit([...current].filter(([path, mtimeMs]) => session.loadedVersion(path)?.mtimeMs !== mtimeMs).map(([path, mtimeMs]) => ({ path, mtimeMs })));
  return current;
}

/**
 * precompact (the host is about to compact): path-layer files become unadmitted, so the next
 * event that needs them brings them again. The host re-reads its own startup files.
 */
export function compactConversation(session: AgentsSession): void {
  session.compacted();
}

/**
 * Part of the history was pruned (a plugin saw a tool result the host compacted): the path-layer
 * files of `paths` it carried are the model's no longer. Returns those that were dropped.
 */
export function prunedFromView(session: AgentsSession, paths: Iterable<string>): string[] {
  const layerOf = new Map(session.admitted().map((file) => [file.path, file.layer]));
  const drop = [...new Set(paths)].filter((path) => layerOf.get(path) === "path");
  if (drop.length > 0) session.forget(drop);
  return drop;
}

/** What an event-driven host gives the engine besides the event. */
export interface ConversationRun<I, H, O> {
  profile: HostProfile<I, H, O>;
  input: I;
  event: HostEvent;
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  /** Reads (deadline-guarded on the hook path). */
  fs: FileSystem;
  /** Characters of one answer. */
  budget: number;
  /** The session options at `cwd` (preset, config, fs, host). */
  sessionOptions(cwd: string): SessionOptions;
  store: ConversationStore<H>;
  /** Hands the answer over (null: nothing to say); called under the store's lock, before the save. */
  deliver(output: O | null): Promise<void>;
  /** Certifies quiet answers beside the state (the hook adapter; host/quiet-certificate.ts). @default none */
  quiet?: QuietCertifier;
}

type Run<I, H, O> = ConversationRun<I, H, O>;
type Open<H> = Conversation<H>;

async function fresh<I, H, O>(run: Run<I, H, O>): Promise<Open<H>> {
  const host = await run.profile.state.init(run.input, { fs: run.fs, home: run.home, env: run.env, host: undefined });
  const session = await createSession(run.sessionOptions(run.event.cwd));
  return { session, state: conversationState(run.profile.host, host, session) };
}

async function reopen<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>, cwd = stored.session.cwd): Promise<AgentsSession> {
  return reopenSession(stored.session, run.sessionOptions(cwd));
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

function nativeContext<I, H, O>(run: Run<I, H, O>, state: ConversationState<H>, before?: H): NativeContext<H> {
  return { fs: run.fs, home: run.home, env: run.env, host: state.host, event: run.event, ...(before !== undefined ? { before } : {}) };
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
  before?: H,
): Promise<string> {
  const { state } = open;
  const context = nativeContext(run, state, before);
  const hostNative = run.profile.native;
  // Still in front of the model (the host kept it through a compaction): admitted, not given again.
  const native = nativeOf(seen, hostNative ? (piece: Piece) => hostNative(piece.path, piece.origin, context) : undefined);
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
  /** What a tool step certified quiet for the state it leaves (host/quiet-certificate.ts). */
  quiet?: QuietPremises | null;
  /** `checkedText(state)`, when the step computed it (a certifying tool step): not computed twice. */
  checked?: string;
}

/** Runs a step on an open session, then (`certify`: on the state it leaves) certifies, then closes it. */
async function withSession<H>(
  open: Open<H>,
  fn: () => Promise<string>,
  certify?: (state: ConversationState<H>, checked: string) => Promise<QuietPremises | null>,
): Promise<Step<H>> {
  try {
    const text = await fn();
    const state = { ...open.state, session: open.session.snapshot() };
    if (!certify) return { text, state };
    const checked = checkedText(state);
    return { text, state, checked, quiet: await certify(state, checked) };
  } finally {
    await open.session.close();
  }
}

/**
 * A host whose answer at a tool call depends on more than the state and the disk is never
 * certified quiet: one that observes each call (what it attached itself, Copilot's `view`), or one
 * whose compaction only its own record tells (profile `compaction`: the quiet stage does not read
 * that record, so a compaction would go unanswered until a call the stage leaves to the engine).
 */
function uncertifiable(profile: { observe?: unknown; compaction?: unknown }): boolean {
  return profile.observe !== undefined || profile.compaction !== undefined;
}

/** start, and every event that finds no stored conversation: the initial chain minus what the host loads. */
async function onStart<I, H, O>(run: Run<I, H, O>): Promise<Step<H>> {
  const open = await fresh(run);
  // The start certifies the root and cwd (the certifier's anchors; their chain is what it gave or
  // the host loaded): a tool call later in or below them that finds no instruction file on its way is quiet.
  const quiet = uncertifiable(run.profile) ? undefined : run.quiet;
  return withSession(
    open,
    () => deliverPieces(run, open, run.profile.headers.startup, initialPieces(open.session)),
    quiet && ((state) => quiet.premises(open.session, [], null, state.mark !== undefined)),
  );
}

/** resume: only what changed since (the host replays earlier answers itself). */
async function onResume<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>): Promise<Step<H>> {
  const open = { session: await reopen(run, stored, run.event.cwd), state: stored };
  // What the host itself had shown and left out of the resumed history is the model's no longer.
  const lost = run.profile.resumed?.(nativeContext(run, stored)) ?? [];
  if (lost.length > 0) open.session.forget(lost);
  return withSession(open, () => resumeDiff(open.session, stored.session, { admit: true }));
}

/** The host's id of its latest resume of this conversation, when the profile reads one. */
async function resumeIdOf<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>): Promise<string | null> {
  return run.profile.resumeId ? run.profile.resumeId(run.input, nativeContext(run, stored)) : null;
}

/** resume, applied once per host resume (a prompt event may have applied it already). */
async function onResumeOnce<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>): Promise<Step<H>> {
  const id = await resumeIdOf(run, stored);
  if (id !== null && stored.resumed === id) return { text: "", state: null };
  const resumed = await onResume(run, stored);
  return id === null ? resumed : { text: resumed.text, state: { ...(resumed.state ?? stored), resumed: id } };
}

/** prompt: when the host resumed and its resume event has not been handled yet, the resume first. */
async function onPromptAfterResume<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>): Promise<Step<H>> {
  const id = await resumeIdOf(run, stored);
  if (id === null || stored.resumed === id) return onPrompt(run, stored);
  const resumed = await onResume(run, stored);
  const state = { ...(resumed.state ?? stored), resumed: id };
  const prompt = await onPrompt(run, state);
  return { text: [resumed.text, prompt.text].filter((part) => part !== "").join("\n\n"), state: prompt.state ?? state };
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
    return deliverPieces(run, open, run.profile.headers.compact, [...initialPieces(open.session), ...piecesOf(blocks, "restore")], still, stored.host);
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

/**
 * A host that runs no hook when it compacts (profile `compaction`): when its record names a
 * compaction not applied yet, what the model lost comes back first (as after a compaction: the
 * files still in the kept messages are not repeated), then the event; the compaction's id is saved
 * so it is applied once. A conversation first seen now only records the id (its answer is whole).
 */
async function afterCompaction<I, H, O>(
  run: Run<I, H, O>,
  stored: ConversationState<H> | null,
  then: (state: ConversationState<H> | null) => Promise<Step<H>>,
): Promise<Step<H>> {
  const found = await run.profile.compaction!(run.input, { fs: run.fs, home: run.home, env: run.env }, stored?.compacted);
  if (found === null || found.id === stored?.compacted) return then(stored);
  const withId = (state: ConversationState<H>): ConversationState<H> => ({ ...state, compacted: found.id });
  if (stored === null) {
    const first = await then(null);
    return first.state ? { text: first.text, state: withId(first.state) } : first;
  }
  const restored = await onCompact(run, stored, (piece) => found.sees(piece));
  const base = withId(restored.state ?? stored);
  const next = await then(base);
  return { text: [restored.text, next.text].filter((part) => part !== "").join("\n\n"), state: withId(next.state ?? base) };
}

/**
 * tool: the files newly applicable to the targets; a read of an instruction file admits it. `from`:
 * the text of the state the step starts from, whose certificate it carries on (the stored text, or
 * the unmarked state's after a mark the transcript showed was no compaction).
 */
async function onTool<I, H, O>(
  run: Run<I, H, O>,
  stored: ConversationState<H> | null,
  storedText: string | null,
  from: string | null = storedText,
): Promise<Step<H>> {
  // No start seen for this conversation (a subagent, or hooks installed mid-session): the chain comes too.
  const open = stored ? { session: await reopen(run, stored), state: stored } : await fresh(run);
  const initial = stored ? [] : initialPieces(open.session);
  let dirs: string[] = [];
  const quiet = uncertifiable(run.profile) ? undefined : run.quiet;
  return withSession(
    open,
    async () => {
      const { session } = open;
      const { targets, blocks } = await touchTargets(session, run.fs, run.event.targets, run.event.read);
      await run.profile.observe?.(run.event, nativeContext(run, open.state));
      // The certifier adds the root and cwd itself (also for a conversation first seen at a tool
      // call: Auggie, Crush, a subagent).
      if (quiet) dirs = await Promise.all(targets.map((target) => session.targetDir(target)));
      // Hundreds of targets (VS Code's editFiles) are named up to a tenth of the budget, then counted.
      const header = run.profile.headers.tool(nameTargets(targets, Math.floor(run.budget / 10)));
      return deliverPieces(run, open, header, [...piecesOf(blocks, run.event.read ? "read" : "tool"), ...initial]);
    },
    quiet &&
      ((state, checked) =>
        // Certified only with a save (the text on disk differs): a call that changes nothing writes nothing, and computes nothing for it.
        checked === storedText ? Promise.resolve(null) : quiet.premises(open.session, dirs, from, state.mark !== undefined)),
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
    compactConversation(open.session);
    return "";
  });
}

async function onCompactEvent<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H>): Promise<Step<H>> {
  if (!run.profile.transcript) return onCompact(run, stored);
  const history = await transcriptHistory(run, 0);
  return onCompact(run, { ...stored, mark: undefined }, history?.seen);
}

/**
 * The event's step on the stored state (null: none). After a mark the transcript showed was no
 * compaction, the state is the unmarked one again: its certificate (written before the mark) is
 * carried on, so a host that marks before every model call (Gemini CLI's PreCompress) keeps its
 * certified directories.
 */
function step<I, H, O>(run: Run<I, H, O>, stored: ConversationState<H> | null, storedText: string | null, from: string | null = storedText): Promise<Step<H>> {
  const kind = run.event.kind;
  if (stored?.mark && run.profile.transcript && (kind === "tool" || kind === "prompt"))
    return afterMark(run, stored, (state) => step(run, state, storedText, checkedText(state)));
  if (run.profile.compaction && (kind === "tool" || kind === "prompt")) return afterCompaction(run, stored, (state) => stepOf(run, state, storedText, from));
  return stepOf(run, stored, storedText, from);
}

/**
 * The event's own step; `storedText`: the state file's text as read (what a save would replace);
 * `from`: the text of the state the step starts from (a tool step carries on its certificate).
 */
function stepOf<I, H, O>(
  run: Run<I, H, O>,
  stored: ConversationState<H> | null,
  storedText: string | null,
  from: string | null = storedText,
): Promise<Step<H>> {
  switch (run.event.kind) {
    case "tool":
      return onTool(run, stored, storedText, from);
    case "resume":
      return stored ? onResumeOnce(run, stored) : onStart(run);
    case "compact":
      return stored ? onCompactEvent(run, stored) : onStart(run);
    case "prompt":
      return stored ? onPromptAfterResume(run, stored) : onStart(run);
    case "precompact":
      return stored ? onPrecompact(run, stored) : Promise.resolve({ text: "", state: null });
    default:
      return onStart(run);
  }
}

/**
 * Runs one event through the engine: the step on the stored state, the answer handed over
 * (`run.deliver`), then the save. Most tool calls change nothing (their path was covered before):
 * the step runs first on the state as read, without the lock; when it has nothing to hand over or
 * save, that is the answer (it saw one whole saved state: atomic writes). Otherwise the lock is
 * taken, and the step runs again under it only when another writer saved in between. A file is
 * admitted only in the state saved after its answer was handed over.
 */
export async function runConversationEvent<I, H, O>(run: ConversationRun<I, H, O>): Promise<O | null> {
  const { store, event } = run;
  const first: ReadConversation<H> | null = event.fresh ? null : await store.read();
  let early: Step<H> | null = null;
  if (first?.state) {
    early = await step(run, first.state, first.text);
    if (early.text === "" && (early.state === null || (early.checked ?? checkedText(early.state)) === first.text)) {
      await run.deliver(null);
      return null;
    }
  }
  return store.locked(async () => {
    const current = first ? await store.reread(first) : await store.read();
    const result = current === first && early ? early : await step(run, current.state, current.text);
    const output = result.text === "" ? null : run.profile.frame(fit(result.text, run.budget, run.profile.displayName), run.input);
    await run.deliver(output);
    const saved = result.state ? (result.checked ?? checkedText(result.state)) : null;
    if (result.state && saved !== current.text) {
      await store.save(result.state, saved!);
      if (result.quiet) await run.quiet?.write(result.quiet, saved!);
    }
    if (event.fresh || (current.state === null && event.kind === "prompt")) await store.collect();
    return output;
  });
}
