/**
 * Where the conversation engine (host/conversation.ts) keeps a conversation between events: the
 * store is a parameter of the engine, never a second engine. Three kinds:
 * - `fileStore`: one state file under the host's state directory (host/store.ts: lock, atomic
 *   writes, check, 30-day clean-up): hook processes, the plugins and pi, whose conversations
 *   outlive the process;
 * - `memoryStore`: the same checked text, held in memory (one process, tests);
 * - `noStore`: nothing kept; every event starts a conversation (the MCP server, whose
 *   conversation is the connection and lives in the session it holds).
 */
import { parentOf } from "../../core/paths.js";
import { removeFile, type FileSystem } from "../../io/file-system.js";
import { privateStateDir } from "../../io/state-store.js";
import {
  checkedText,
  collectGarbage,
  lockConversation,
  parseConversation,
  readConversationText,
  saveConversation,
  type ConversationFormat,
  type ConversationState,
  type ReadConversation,
} from "./store.js";

/** One conversation's stored state. */
export interface ConversationStore<H> {
  /** What is stored now; `text` is what the state was saved as (null: nothing stored). */
  read(): Promise<ReadConversation<H>>;
  /** Re-reads: `previous` itself when the stored text did not change since. */
  reread(previous: ReadConversation<H>): Promise<ReadConversation<H>>;
  /** Runs `fn` with no other writer of this conversation running. */
  locked<T>(fn: () => Promise<T>): Promise<T>;
  /** Replaces the stored state (`text`: its checked text, when the caller has it). */
  save(state: ConversationState<H>, text?: string): Promise<void>;
  /** A new conversation began: old conversations of the host may be collected. */
  collect(): Promise<void>;
  /** The conversation ended (the host deleted it). */
  remove(): Promise<void>;
}

export interface FileStoreOptions {
  /** Reads and writes (a deadline-guarded file system on the hook path). */
  fs: FileSystem;
  /** The lock's file system: taken and released without the deadline. @default fs */
  lockFs?: FileSystem;
  /** An unreadable or invalid file, replaced at the next save. @default ignored */
  diagnose?(message: string): void;
}

/**
 * The state file `path` (host/store.ts's `conversationPath`). Its directory must be the user's
 * alone: one others may write is refused (a StateError) before anything in it is read.
 */
export function fileStore<H>(path: string, format: ConversationFormat<H>, options: FileStoreOptions): ConversationStore<H> {
  const { fs } = options;
  const dir = parentOf(path);
  const diagnose = options.diagnose ?? (() => undefined);
  const parse = (text: string | null): ReadConversation<H> => ({ text, state: parseConversation(text, path, format, diagnose) });
  let checked = false;
  // A state directory others may write is refused before anything in it is read or locked.
  const check = async () => {
    if (!checked) await privateStateDir(dir, fs, false);
    checked = true;
  };
  return {
    read: async () => {
      await check();
      return parse(await readConversationText(path, diagnose, fs));
    },
    reread: async (previous) => {
      const text = await readConversationText(path, diagnose, fs);
      return text === previous.text ? previous : parse(text);
    },
    locked: async (fn) => {
      await check();
      return lockConversation(path, fn, options.lockFs ?? fs);
    },
    save: (state, text) => saveConversation(path, state, fs, text ?? checkedText(state)),
    collect: () => collectGarbage(fs, dir, path),
    remove: async () => {
      // Nothing is removed from a state directory others may write.
      checked = false;
      await check();
      await removeFile(path);
    },
  };
}

/**
 * A conversation kept in memory as the same checked text a file would hold (so every read gives
 * a fresh copy, as a file's does). Writers of one store queue up.
 */
export function memoryStore<H>(format: ConversationFormat<H>): ConversationStore<H> {
  let text: string | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  const parse = (from: string | null): ReadConversation<H> => ({ text: from, state: parseConversation(from, "(memory)", format, () => undefined) });
  return {
    read: async () => parse(text),
    reread: async (previous) => (previous.text === text ? previous : parse(text)),
    locked: (fn) => {
      const run = queue.then(fn, fn);
      queue = run.catch(() => undefined);
      return run;
    },
    save: async (state, saved) => {
      text = saved ?? checkedText(state);
    },
    collect: async () => undefined,
    remove: async () => {
      text = null;
    },
  };
}

/**
 * Keeps nothing: every read finds no conversation, every save is dropped.
 */
export function noStore<H>(): ConversationStore<H> {
  const none: ReadConversation<H> = { text: null, state: null };
  return {
    read: async () => none,
    reread: async () => none,
    locked: (fn) => fn(),
    save: async () => undefined,
    collect: async () => undefined,
    remove: async () => undefined,
  };
}
