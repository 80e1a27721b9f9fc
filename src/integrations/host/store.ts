/**
 * The conversation store every host shares: one state file per conversation under one XDG base
 * (`$XDG_STATE_HOME/agentsmd/<host>/`, else `~/.local/state/agentsmd/<host>/`), file names that
 * cannot collide, a cross-process lock around read-modify-write, atomic replacement and a 30-day
 * clean-up. The state document is validated once, here.
 *
 * Each file ends with a `check`: the schema id and a checksum of the rest (core/checksum.ts). A
 * file whose check holds is one this agentsmd wrote, already valid, and is read without zod: a
 * hook process (one per tool call) would otherwise build and run the whole state schema,
 * config included, on every call. Any other file (edited, truncated, written by another version
 * or by hand) is validated by the schema as before, with the same errors.
 */
import { DeadlineExceeded } from "../../core/deadline.js";
import * as z from "zod/mini";
import type * as zc from "zod/v4/core";
import "../../core/zod-locale.js";
import { join, parentOf } from "../../core/paths.js";
import { once } from "../../core/config-schema.js";
import { sessionStateSchema, type SessionState } from "../../core/state-schema.js";
import { checkedBody, checkedText } from "./state-file.js";

export { STATE_SCHEMA_ID, checkedText, conversationPath, encodeId, hostStateDir, type ConversationId } from "./state-file.js";
import { nodeFileSystem, writeFileAtomic, type FileSystem } from "../../io/file-system.js";
import { MAX_STATE_BYTES, privateStateDir, readStateText, withLock } from "../../io/state-store.js";
import { StateError, jsonParseProblem } from "../../core/errors.js";

/** State files untouched this long are removed when a new conversation starts. */
export const STATE_TTL_MS = 30 * 24 * 3600 * 1000;

/** What the store keeps besides the session: versions already announced or named, and the host's own fields. */
const ledgerShape = once(() => ({
  /** Versions announced by an update notice (-1: deleted), so a notice is not repeated. */
  notified: z.record(z.string(), z.number()),
  /** Versions named (too large to show) and not shown, so the list is not repeated. */
  named: z.record(z.string(), z.number()),
  /**
   * A possible compaction the host announced (its transcript's size then), to be checked against
   * the transcript at the next event (hosts whose pre-compaction event fires before every model call).
   */
  mark: z.optional(z.strictObject({ offset: z.number().check(z.int(), z.nonnegative()) })),
  /** The host's id of the last resume applied (profile `resumeId`), so it is applied once. */
  resumed: z.optional(z.string().check(z.maxLength(512))),
  /** The host's id of the last compaction applied (profile `compaction`), so it is applied once. */
  compacted: z.optional(z.string().check(z.maxLength(512))),
}));

/** A host's state file: the `kind` it must name, and its schema, built only when a file needs it. */
export interface ConversationFormat<H> {
  kind: string;
  schema(): zc.$ZodType<ConversationState<H>>;
}

/**
 * The format of a host's state file: `kind` names the host, `host` holds the profile's fields
 * (their schema built only when the whole schema is).
 */
export function conversationFormat<H>(host: string, hostFields: () => zc.$ZodType<H>): ConversationFormat<H> {
  const kind = `agentsmd/${host}`;
  return {
    kind,
    schema: once(
      () =>
        z.strictObject({
          kind: z.literal(kind),
          version: z.literal(2),
          ...ledgerShape(),
          host: hostFields(),
          session: sessionStateSchema(),
        }) as unknown as zc.$ZodType<ConversationState<H>>,
    ),
  };
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A stored conversation: the session snapshot and the ledger around it. */
export interface ConversationState<H> {
  kind: string;
  version: 2;
  notified: Record<string, number>;
  named: Record<string, number>;
  mark?: { offset: number } | undefined;
  resumed?: string | undefined;
  compacted?: string | undefined;
  host: H;
  session: SessionState;
}

/** A state file as read: its text (null: none, or unreadable) and what it holds (null: nothing valid). */
export interface ReadConversation<H> {
  text: string | null;
  state: ConversationState<H> | null;
}

/**
 * Reads a state file's text; null when absent. A regular file that cannot be read is reported
 * through `diagnose` and treated as absent (the next save replaces its directory entry, never its
 * bytes). An entry that is not a regular file (a symbolic link, a FIFO, a device) throws a
 * StateError naming it: nothing of this conversation is read or saved until it is removed.
 */
export async function readConversationText(path: string, diagnose: (message: string) => void, fs: FileSystem = nodeFileSystem): Promise<string | null> {
  try {
    return await readStateText(path, MAX_STATE_BYTES, fs);
  } catch (error) {
    if (error instanceof StateError) throw error;
    // Past the event's deadline the state is not unreadable: the event stops, the state stays.
    if (error instanceof DeadlineExceeded) throw error;
    diagnose(`cannot read ${path}: ${(error as Error).message}; starting a new session state`);
    return null;
  }
}

/**
 * What a state file's text holds: a file this agentsmd wrote (its check holds) as written, any
 * other validated; one that is not valid is reported through `diagnose` and counts as none.
 */
export function parseConversation<H>(
  text: string | null,
  path: string,
  format: ConversationFormat<H>,
  diagnose: (message: string) => void,
): ConversationState<H> | null {
  if (text === null) return null;
  const body = checkedBody(text);
  if (body !== null) {
    // Written by this agentsmd for this host: valid as written (another host's file is checked below).
    const data = parseOrNull(body) as ConversationState<H> | null;
    if (data?.kind === format.kind) return data;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    diagnose(`state file ${path} is not valid (${jsonParseProblem(error)}); starting a new session state`);
    return null;
  }
  // A check that does not hold says nothing: the rest is validated as any file.
  if (typeof data === "object" && data !== null && Object.hasOwn(data, "check")) delete (data as { check?: unknown }).check;
  const result = z.safeParse(format.schema(), data);
  if (!result.success) {
    const issue = result.error.issues[0];
    diagnose(
      `state file ${path} is not valid (${issue ? `${issue.path.join(".") || "(top level)"}: ${issue.message}` : "invalid"}); starting a new session state`,
    );
    return null;
  }
  return result.data;
}

/**
 * Reads and validates a state file; null when absent. A file that cannot be read or is not valid
 * is reported through `diagnose` and treated as absent (the next save replaces it). A state
 * directory others may write, or an entry that is not a regular file, throws a StateError.
 */
export async function loadConversation<H>(
  path: string,
  format: ConversationFormat<H>,
  diagnose: (message: string) => void,
  fs: FileSystem = nodeFileSystem,
): Promise<ConversationState<H> | null> {
  await privateStateDir(parentOf(path), fs, false);
  return parseConversation(await readConversationText(path, diagnose, fs), path, format, diagnose);
}

/**
 * Replaces a state file atomically: the directory entry, never a link's target, in a directory
 * only this user may write (created 0700 when missing; else a StateError).
 */
export async function saveConversation<H>(
  path: string,
  state: ConversationState<H>,
  fs: FileSystem = nodeFileSystem,
  text = checkedText(state),
): Promise<void> {
  await privateStateDir(parentOf(path), fs, true);
  await writeFileAtomic(path, text, fs);
}

/**
 * Runs `fn` holding the conversation's lock (parallel hook processes of one conversation queue up).
 */
export function lockConversation<T>(path: string, fn: () => Promise<T>, fs: FileSystem = nodeFileSystem): Promise<T> {
  return withLock(path, fn, { fs });
}

/**
 * Removes the state files in `dir` untouched for `STATE_TTL_MS`, except `keep` (best effort).
 */
export async function collectGarbage(fs: FileSystem, dir: string, keep: string, now = Date.now()): Promise<void> {
  try {
    for (const entry of await fs.readdir(dir)) {
      if (entry.kind !== "file" || !entry.name.endsWith(".json")) continue;
      const path = join(dir, entry.name);
      if (path === keep) continue;
      const info = await fs.stat(path).catch(() => null);
      if (info && now - info.mtimeMs > STATE_TTL_MS) await fs.remove(path).catch(() => undefined);
    }
  } catch {
    // nothing to clean
  }
}
