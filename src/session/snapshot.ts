/**
 * Session state: the JSON-safe snapshot of a session, restoring one into the parts, and the resume
 * diff (docs/loading-rules.md#resume), computed only on request. One job: persistence. Claims are never persisted.
 */
import { sessionResumeDiff } from "../core/reminders.js";
import { SESSION_STATE_VERSION } from "../core/state-schema.js";
import type { AgentsConfig, InitialFile, ResolvedFile, SessionState } from "../core/schema.js";
import type { AdmissionLedger } from "./ledger.js";
import type { InlineReads } from "./reads.js";
import type { SessionScope } from "./scope.js";

/** The mutable parts a snapshot records and a restore fills. */
export interface StateParts {
  ledger: AdmissionLedger;
  scope: SessionScope;
  reads: InlineReads;
  /** Initial-scope files the budget left out, at the version seen then. */
  leftOut: Map<string, number>;
}

/** What is fixed for a session's life. */
export interface FixedState {
  preset: { readonly name: string };
  cwd: string;
  root: string;
  markers: readonly string[];
  config: AgentsConfig;
  initialFiles: readonly InitialFile[];
  initialMessage: string;
}

/** A JSON-safe snapshot, valid against `SessionStateSchema`. */
export function sessionState(fixed: FixedState, parts: StateParts): SessionState {
  const lazy = parts.reads.totals;
  return {
    version: SESSION_STATE_VERSION,
    preset: fixed.preset.name,
    cwd: fixed.cwd,
    root: fixed.root,
    markers: [...fixed.markers],
    config: fixed.config,
    initialFiles: fixed.initialFiles.map((file) => ({ ...file })),
    initialMessage: fixed.initialMessage,
    coveredDirs: [...parts.ledger.coveredDirs],
    loaded: parts.ledger.entries(),
    lazyLoadedFiles: lazy.files,
    lazyLoadedBytes: lazy.bytes,
    lazyCapped: lazy.capped,
    leftOut: [...parts.leftOut].map(([path, mtimeMs]) => ({ path, mtimeMs })),
  };
}

/** Fills the parts from a snapshot's mutable state. */
export function restoreState(state: SessionState, parts: StateParts): void {
  parts.ledger.restore(state.loaded, state.coveredDirs);
  parts.reads.restore({ files: state.lazyLoadedFiles, bytes: state.lazyLoadedBytes, capped: state.lazyCapped });
  for (const entry of state.leftOut ?? []) parts.leftOut.set(entry.path, entry.mtimeMs);
}

/**
 * Files of the current initial scope (root -> cwd) that are new or changed: the model does not
 * have them at their current version, and they are not the unchanged files the budget left out.
 */
export async function initialScopeChanges(parts: Omit<StateParts, "reads">): Promise<ResolvedFile[]> {
  const out: ResolvedFile[] = [];
  for (const found of await parts.scope.initialFiles()) {
    if (!parts.ledger.isNew(found.path, found.info.mtimeMs) || parts.scope.isEmpty(found.info.size) || parts.leftOut.get(found.path) === found.info.mtimeMs)
      continue;
    out.push({ path: found.path, mtimeMs: found.info.mtimeMs, sizeBytes: found.info.size });
  }
  return out;
}

/** What a resume diff needs of a reopened session (an `AgentsSession` is one). */
export interface ResumableSession {
  readonly cwd: string;
  readonly root: string;
  readonly config: { readonly root: { readonly markers: readonly string[] } };
  initialScopeChanges(): Promise<ResolvedFile[]>;
  admit(files: ReadonlyArray<{ path: string; mtimeMs: number }>): void;
}

/**
 * The `session.resume.diff` reminder (docs/loading-rules.md#resume) of a reopened session against the snapshot it came from: cwd,
 * root and markers that moved, and the initial-scope files to re-check ("" when nothing changed).
 * With `admit` (default true) the files to re-check count as delivered.
 */
export async function resumeDiff(session: ResumableSession, before: SessionState, options: { admit?: boolean } = {}): Promise<string> {
  const recheck = await session.initialScopeChanges();
  const diff = sessionResumeDiff({
    cwd: { before: before.cwd, after: session.cwd },
    root: { before: before.root, after: session.root },
    markers: { before: before.markers, after: session.config.root.markers },
    recheck,
  });
  if (options.admit !== false) session.admit(recheck);
  return diff;
}
