/**
 * What a host profile says about its host: how its events map to the normalized event the
 * conversation engine (host/conversation.ts) understands, what the host loads natively, how an answer
 * is framed, and its character budget. A profile is data plus small pure functions; the
 * algorithm, the store and the packer are shared.
 */
import type * as zc from "zod/v4/core";
import type { FileSystem } from "../../io/file-system.js";
import type { ConversationId } from "./store.js";

/**
 * What an event means for delivery:
 * - `start`: a conversation starts (or is cleared): the initial chain, minus what the host loads;
 * - `resume`: an earlier conversation continues: only the resume diff (the host replays earlier answers);
 * - `compact`: the conversation was compacted: the chain again plus the path-layer files admitted before;
 * - `tool`: a tool touched `targets`: the newly applicable files;
 * - `prompt`: a turn starts: a notice naming admitted files edited or deleted since (or their new text);
 * - `precompact`: the conversation is about to be compacted: path-layer files will be offered again;
 * - `ignore`: nothing to do (no answer, no state read).
 */
type HostEventKind = "start" | "resume" | "compact" | "tool" | "prompt" | "precompact" | "ignore";

export interface HostEvent {
  kind: HostEventKind;
  conversation: ConversationId;
  /** The host's working directory, absolute. */
  cwd: string;
  /** `tool`: the absolute paths the tool touched (see host/targets.ts). */
  targets: readonly string[];
  /** `tool`: the tool showed the model the text of `targets[0]`, whole or in part (a read). */
  read?: "whole" | "part" | undefined;
  /** `start`: a brand-new conversation (not a fork or an unknown source): old state files are collected. */
  fresh?: boolean | undefined;
  /** `tool`: the tool's name as the host calls it (what the host itself loads can depend on it). */
  tool?: string | undefined;
}

/**
 * Where a file would be delivered from, so a profile can say whether the host has it:
 * `initial` the root -> cwd chain; `read` a file that applies to a path the model read;
 * `tool` one that applies to a path another tool touched; `restore` a path-layer file given again
 * after compaction; `notice` a file named in an update notice.
 */
export type NativeOrigin = "initial" | "read" | "tool" | "restore" | "notice";

/**
 * `loaded`: the host gave the model this file itself (admit it, do not show it); `later`: the
 * host will load it itself later (neither show nor admit); `no`: agentsmd delivers it.
 */
export type NativeAnswer = "loaded" | "later" | "no";

export interface NativeContext<H> {
  fs: FileSystem;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The host's own fields of this conversation's state (decided at its start). */
  host: H;
  /** The event being answered (absent while a conversation's host fields are decided). */
  event?: HostEvent | undefined;
  /** At a restore after a compaction: the host's fields from before it (`host` is decided anew). */
  before?: H | undefined;
}

/**
 * How to read what the model still sees from the host's own record of the conversation (its
 * transcript), for hosts that drop earlier answers when they compact. With it, `compact` gives
 * again only the files the model no longer sees, and `precompact` only marks the transcript: the
 * next `tool` or `prompt` event checks it and gives back what a compaction took away.
 */
interface HostTranscript<I> {
  /** The transcript file of the conversation (absolute), if the event names one. */
  path(input: I): string | undefined;
  /** The history the model sees, from a piece of the transcript; `replaced`: the piece shows a compaction (or a reload). */
  history(text: string): { replaced: boolean; text: string };
  /** True when `history` (the text of what the model sees) still holds this text of the file (as agentsmd or the host framed it). */
  sees(file: { path: string; content: string }, history: string): boolean;
}

/**
 * The host's own record of its latest compaction of a conversation (profile `compaction`): `id`
 * names it (another id than the one applied: a compaction since), `sees` says whether a file's
 * text (as agentsmd framed it) is still in what the model kept.
 */
export interface HostCompaction {
  id: string;
  sees(file: { path: string; content: string }): boolean;
}

export interface HostHeaders {
  /** Above the initial chain. */
  startup: string;
  /** Above what is given again after a compaction. */
  compact: string;
  /** Above the files a tool event brings; `targets` is already quoted. */
  tool(targets: string): string;
  /** First line of an update notice. @default NOTICE_HEADING */
  notice?: string;
  /** Above edited files given again at a turn start (`prompt: "redeliver"`). */
  updated?: string;
}

/**
 * The headers of a host that loads no AGENTS.md below its own chain and whose compaction drops
 * what agentsmd gave (Gemini CLI, Qwen Code): one wording for every such host.
 */
export function transcriptHeaders(displayName: string): HostHeaders {
  return {
    startup: `agentsmd: the AGENTS.md files below apply to this project (${displayName} does not load them itself). A file governs its directory and everything below it; deeper files are more specific.`,
    compact:
      "agentsmd: AGENTS.md files that apply here whose current text is no longer in this conversation (it was compressed, resumed or the file was edited since; most specific first). A file governs its directory and everything below it.",
    tool: (targets) => `agentsmd: ${targets} is governed by these AGENTS.md files, not shown before in this conversation (most specific first):`,
    updated: "agentsmd: these AGENTS.md files were edited since they were shown in this conversation; their current text replaces the earlier one:",
  };
}

/**
 * One host. `I` is its parsed event, `H` its own fields in the conversation state, `O` its answer.
 */
export interface HostProfile<I, H, O> {
  /** Folder and state-directory name, and `agentsmd hook <host>`. */
  host: string;
  /** How the host is named in messages ("Claude Code"). */
  displayName: string;
  /** The event schema (zod): unknown fields kept or dropped as the host needs; no casts downstream. */
  input: zc.$ZodType<I>;
  /** The fix named when input is not this host's event. @default register `agentsmd hook <host>` */
  inputFix?: string;
  /** Names another host whose events reach this hook (it runs this host's hook files): no answer then. */
  foreign?(raw: unknown, env: Readonly<Record<string, string | undefined>>): string | null;
  /** Maps a parsed event to what it means for delivery (pure). */
  normalize(input: I): HostEvent;
  /** Preset the sessions use unless the caller names one. @default the library default */
  preset?: string;
  /** The most characters an answer may have, and what answers are kept under. */
  budget: { limit: number; default: number };
  headers: HostHeaders;
  /** The answer document for `text` (never empty). */
  frame(text: string, input: I): O;
  /**
   * The host's own fields of a conversation's state: their schema (built on first call: only a state
   * file this agentsmd did not write is validated by it, see host/store.ts), and how a new
   * conversation decides them.
   */
  state: { schema(): zc.$ZodType<H>; init(input: I, context: NativeContext<undefined>): Promise<H> };
  /** A host-specific state directory (a plugin data dir), else the XDG one. */
  stateDir?(env: Readonly<Record<string, string | undefined>>): string | undefined;
  /** What the host loads itself. @default every file: "no" */
  native?(path: string, origin: NativeOrigin, context: NativeContext<H>): Promise<NativeAnswer>;
  /**
   * Called at each tool event before anything is proposed: the profile records in its state what
   * the host loaded on its own at this event (Copilot CLI attaches nested files after a `view`,
   * including ones agentsmd already gave), so `native` can answer later events. @default nothing
   */
  observe?(event: HostEvent, context: NativeContext<H>): Promise<void>;
  /**
   * Called when the host resumes a conversation: the files the host had shown the model itself
   * and leaves out of the resumed history (Copilot CLI drops its own nested-file reminders and
   * attaches them afresh). They count as not delivered from then on. The profile may update its
   * state (what the host will attach again). @default none: a resumed history keeps everything
   */
  resumed?(context: NativeContext<H>): string[];
  /**
   * The host's own record of its latest resume of this conversation (null: none found), for hosts
   * that run a resumed conversation's first prompt event beside its resume event (Copilot CLI
   * starts both hooks at once): a prompt that finds a resume not yet applied applies it first, and
   * the resume event then finds nothing left to do. @default none: events come in order
   */
  resumeId?(input: I, context: NativeContext<H>): Promise<string | null>;
  /**
   * The host's record of its latest compaction of this conversation (null: none found), for hosts
   * that run no hook when they compact (Cline): a tool or prompt event that finds a compaction not
   * yet applied first gives back what it took away (as `compact` does), then answers the event.
   * `applied`: the id of the compaction already applied (a record naming it need not be read further).
   * @default none: the host's events say when it compacts
   */
  compaction?(input: I, context: Pick<NativeContext<H>, "fs" | "home" | "env">, applied: string | undefined): Promise<HostCompaction | null>;
  /** At a turn start: name changed files (`notice`), or give their new text (`redeliver`). @default "notice" */
  onPrompt?: "notice" | "redeliver";
  /** The host's transcript, when what survives a compaction must be read from it. @default none */
  transcript?: HostTranscript<I>;
}
