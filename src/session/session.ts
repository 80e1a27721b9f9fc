export { parseSessionState } from "../core/session-state.js";

/**
 * AgentsSession: a small facade over the parts that do the work (one job each): the admission
 * ledger (ledger.ts), scope rules (scope.ts), inline reads under caps (reads.ts), refresh and
 * compaction reads (refresh.ts), state and the resume diff (snapshot.ts), scoped rules (rules.ts).
 * No part imports this module.
 */
import type { Found, StatCache } from "../io/cache.js";
import type { ResolvedConfig } from "../load/config.js";
import { AdmissionLedger, type AdmitOptions } from "./ledger.js";
import type { SessionOptions } from "./options.js";
import { buildParts, type Parts } from "./setup.js";
import { parseSessionState } from "../core/session-state.js";
import type { Preset } from "../presets/preset.js";
import type { RootReason } from "../load/root.js";
import { loadInitial, type InitialLoad } from "../load/initial.js";
import { groupsFor, type DiagnosticSink, type NameGroups } from "../load/discover.js";
import { parentOf } from "../core/paths.js";
import type { Renderer } from "../core/render.js";
import { agentsRemoved, agentsResolvePaths, agentsUpdated, agentsUpdatedInline } from "../core/reminders.js";
import { buildCompactionContext, type CompactionContext, type CompactionContextOptions } from "./compaction.js";
import { SessionRules } from "./rules.js";
import { SessionScope } from "./scope.js";
import { InlineReads } from "./reads.js";
import { compactionFiles, forgetPathLayer, refreshAdmitted, type RefreshOptions, type RefreshResult } from "./refresh.js";
import { initialScopeChanges, restoreState, resumeDiff, sessionState, type StateParts } from "./snapshot.js";
import type { AgentsConfig, Diagnostic, InitialFile, InlineBlock, Layer, ResolvedAgents, ResolvedFile, SessionState } from "../core/schema.js";

export type { SessionOptions } from "./options.js";
export type { AdmitOptions } from "./ledger.js";
export type { RefreshedFile, RefreshOptions, RefreshResult } from "./refresh.js";
export { resumeDiff } from "./snapshot.js";

/** A file the session knows, at a version. */
export interface FileVersion {
  path: string;
  mtimeMs: number;
}

/** Tools whose targets trigger the resolver (docs/loading-rules.md#progressive-resolution), by common names across hosts. */
export const RESOLVE_TRIGGER_TOOLS: ReadonlySet<string> = new Set([
  "read",
  "edit",
  "write",
  "multiedit",
  "patch",
  "apply_patch",
  "notebookedit",
  "read_file",
  "write_file",
  "edit_file",
  "replace",
]);

/** What `resolve` answers when nothing is new: shared, so frozen. */
const NOTHING_NEW: ResolvedAgents = Object.freeze({ files: Object.freeze([]) as unknown as ResolvedFile[] });
const NOTHING_NEW_ANSWER: Promise<ResolvedAgents> = Promise.resolve(NOTHING_NEW);

/** Quiet targets remembered at once (about 100 bytes each, the target's spelling aside). */
const QUIET_TARGET_LIMIT = 1024;

export class AgentsSession {
  readonly cwd: string;
  readonly root: string;
  readonly rootReason: RootReason;
  /** false when the preset found no project: nothing but user layers loads. */
  readonly hasProject: boolean;
  readonly preset: Preset;
  readonly config: ResolvedConfig;
  /** The raw merged config (what a snapshot records). */
  readonly rawConfig: AgentsConfig;
  /** Frozen at creation: the files of the initial bundle. */
  readonly initialFiles: readonly InitialFile[];
  /** Frozen at creation: the initial message, byte-identical for the session's life. */
  readonly initialMessage: string;
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly renderer: Renderer;
  /** Scoped rules (`.github/instructions`, `.cursor/rules`, ...) delivered like nested AGENTS.md files. */
  readonly rules: SessionRules;
  /** Files the agent's configuration lists (layer `config`), each with why, in words. */
  readonly listed: ReadonlyMap<string, string>;
  /** Files the agent's own settings exclude (`Preset.excludes`), if any. */
  readonly excludes: ((path: string) => boolean) | undefined;

  readonly #sink: DiagnosticSink;
  readonly #cache: StatCache;
  /** Name groups for the initial scope and `resolve`, and for directories reached by `touch`. */
  readonly #groups: { initial: NameGroups; lazy: NameGroups; reason?: string };
  /** What the model has and what is proposed (two-phase admission). */
  readonly #ledger = new AdmissionLedger();
  /**
   * Candidate lists (the scope's memoised answers) a resolve found nothing new in, with the
   * ledger's revision then: the same list at the same revision answers at once (a seen
   * resolve at agent pace runs as little code as it can).
   */
  readonly #quiet = new WeakMap<readonly Found[], number>();
  /**
   * Targets (as given) whose resolve found nothing new while the cache trusted its entries until
   * a watcher's event (no window), with the cache's generation and the ledger's revision then:
   * while both are the same, `resolve` answers at once (see there).
   */
  readonly #quietTargets = new Map<string, { readonly generation: number; readonly revision: number }>();
  readonly #scope: SessionScope;
  readonly #reads: InlineReads;
  /** The mutable parts a snapshot records. */
  readonly #state: StateParts;
  #closed: Promise<void> | undefined;
  readonly #closers: Array<() => Promise<void> | void> = [];
  #initialLoad: InitialLoad | undefined;

  /** @internal use createSession / restoreSession */
  constructor(parts: Parts, initial: { files: readonly InitialFile[]; message: string; load?: InitialLoad }, rules: SessionRules = rulesOf(parts)) {
    this.rules = rules;
    this.listed = parts.listed?.reasons ?? new Map();
    this.excludes = parts.excludes?.matches;
    this.cwd = parts.options.cwd;
    this.home = parts.options.home;
    this.env = parts.options.env;
    this.root = parts.root;
    this.rootReason = parts.rootReason;
    this.hasProject = parts.project;
    this.preset = parts.preset;
    this.config = parts.config;
    this.rawConfig = parts.raw;
    this.#sink = parts.sink;
    this.#cache = parts.cache;
    const groups = parts.prepared?.groups ?? groupsFor(parts.config.files.names, parts.config.files.select);
    const lazy = parts.prepared?.lazyGroups ?? parts.prepared?.groups ?? parts.preset.lazy.groups ?? groups;
    this.#groups = { initial: groups, lazy, ...(parts.prepared?.reason ? { reason: parts.prepared.reason } : {}) };
    this.renderer = parts.preset.renderer;
    this.initialFiles = Object.freeze(initial.files.map((file) => Object.freeze({ ...file })));
    this.initialMessage = initial.message;
    this.#initialLoad = initial.load;
    const common = { root: this.root, home: this.home, config: this.config, preset: this.preset, sink: this.#sink, ledger: this.#ledger };
    this.#scope = new SessionScope({ ...common, cwd: this.cwd, hasProject: this.hasProject, cache: this.#cache, groups, lazyGroups: lazy });
    this.#reads = new InlineReads({ ...common, env: this.env, importRoot: parts.importRoot, fs: this.#cache.fs, scope: this.#scope, rules });
    this.#state = { ledger: this.#ledger, scope: this.#scope, reads: this.#reads, leftOut: new Map() };
    for (const file of this.initialFiles) this.#ledger.mark(file.path, file.mtimeMs, file.layer);
    for (const file of initial.load?.blank ?? []) this.#ledger.mark(file.path, file.mtimeMs, "project");
    for (const file of initial.load?.leftOut ?? []) this.#state.leftOut.set(file.path, file.mtimeMs);
  }

  /** Non-fatal problems met so far (unreadable files, skipped FIFOs, truncations...). */
  get diagnostics(): readonly Diagnostic[] {
    return this.#sink.items;
  }

  /** The details of the initial load (left-out and blank files), when this process performed it. */
  get initialLoad(): InitialLoad | undefined {
    return this.#initialLoad;
  }

  /** The stat cache (watchers invalidate it). */
  get cache(): StatCache {
    return this.#cache;
  }

  /**
   * The name groups files are selected by (at startup and for `resolve`; for `touch`), and why,
   * when the preset decided them for this session (`Preset.prepare`). For `explain`.
   */
  get nameGroups(): { initial: NameGroups; lazy: NameGroups; reason?: string } {
    return { ...this.#groups };
  }

  /** Directories whose instruction files are resolved (docs/loading-rules.md#covered-directories). */
  get coveredDirs(): ReadonlySet<string> {
    return this.#ledger.coveredDirs;
  }

  /** Admitted versions: path -> mtimeMs (docs/loading-rules.md#admission). */
  get loadedVersions(): ReadonlyMap<string, number> {
    return new Map(this.#ledger.entries().map((entry) => [entry.path, entry.mtimeMs]));
  }

  /** The version of `path` the model has, if any. */
  loadedVersion(path: string): FileVersion | undefined {
    const version = this.#ledger.version(path);
    return version ? { path, mtimeMs: version.mtimeMs } : undefined;
  }

  /** Absolute path of a target, relative paths against cwd. */
  absolute(target: string): string {
    return this.#scope.absolute(target);
  }

  /** The directory a target governs from: itself when it is an existing directory, else its parent. */
  targetDir(target: string): Promise<string> {
    return this.#scope.targetDir(target);
  }

  /**
   * Progressive resolution (docs/loading-rules.md#progressive-resolution): the instruction files that apply to `target` and are new or changed, root side first,
   * at most `resolver.maxFilesPerResolve`. Metadata only. An answer with nothing new is one shared,
   * frozen object (`{ files: [] }`).
   * @example
   * const found = await session.resolve("packages/api/src/index.ts");
   * const text = session.reminder(found); // "" or <system-reminder type="agents.resolve.paths">
   */
  resolve(target: string, options?: AdmitOptions): Promise<ResolvedAgents> {
    // A target that had nothing new while a watcher vouched for the cache, with neither the cache
    // nor the ledger changed since: nothing is new now. No clock, no allocation, no await of our
    // own (after an agent's pause every line run is a cache miss).
    const quiet = this.#quietTargets.get(target);
    if (quiet !== undefined && quiet.generation === this.#cache.generation && quiet.revision === this.#ledger.revision) return NOTHING_NEW_ANSWER;
    return this.#resolve(target, options);
  }

  async #resolve(target: string, options: AdmitOptions = {}): Promise<ResolvedAgents> {
    if (!this.config.enabled || !this.config.resolver.enabled) return NOTHING_NEW;
    const candidates = this.#scope.seen(target) ?? (await this.#scope.applicable(target));
    // These very candidates had nothing new at this ledger revision before: nothing is new now.
    if (this.#quiet.get(candidates) !== this.#ledger.revision) {
      const out: ResolvedFile[] = [];
      for (const found of candidates) {
        if (!this.#ledger.isNew(found.path, found.info.mtimeMs) || this.#scope.isEmpty(found.info.size)) continue;
        out.push({ path: found.path, mtimeMs: found.info.mtimeMs, sizeBytes: found.info.size });
        if (out.length >= this.config.resolver.maxFilesPerResolve) break;
      }
      // Selection above and marking below run without an await between: concurrent resolves
      // cannot both return a file.
      if (out.length > 0) {
        this.#ledger.record(out, options.admit !== false, "path");
        return { files: out };
      }
      this.#quiet.set(candidates, this.#ledger.revision);
    }
    // Under a watcher the target's memo holds these candidates until the cache's generation moves.
    if (this.#scope.seenUntilChanged(target) === candidates) {
      if (this.#quietTargets.size >= QUIET_TARGET_LIMIT) this.#quietTargets.clear();
      this.#quietTargets.set(target, { generation: this.#cache.generation, revision: this.#ledger.revision });
    }
    return NOTHING_NEW;
  }

  /** Renders a resolve result as the `agents.resolve.paths` reminder (docs/loading-rules.md#reminders) ("" when empty). */
  reminder(found: ResolvedAgents): string {
    return agentsResolvePaths(found);
  }

  /**
   * The resolver's trigger for a tool call (docs/loading-rules.md#progressive-resolution): read/edit/write targets run the resolver, and the returned
   * text is what to append to the tool output ("" for nothing).
   * @example output += await session.afterToolCall({ tool: "read", path: "src/x.ts" });
   */
  async afterToolCall(call: { tool: string; path?: string | undefined }, options: AdmitOptions = {}): Promise<string> {
    if (!call.path || !RESOLVE_TRIGGER_TOOLS.has(call.tool.toLowerCase())) return "";
    return this.reminder(await this.resolve(call.path, options));
  }

  /**
   * Inline (lazy) mode: the bodies of instruction files newly applicable to `paths`, root side first
   * (docs/loading-rules.md#inline-delivery) or nearest first where the agent delivers so (`preset.scope.touchOrder`).
   * Session caps `lazy.maxFiles` / `lazy.maxBytes`: the first overflow adds one diagnostic and stops
   * further loading; a file is never half-read.
   * @example
   * const blocks = await session.touch(["packages/api/src/index.ts"]);
   * const text = session.renderInline(blocks);
   */
  touch(paths: readonly string[], options: AdmitOptions = {}): Promise<InlineBlock[]> {
    return this.#reads.touch(paths, options);
  }

  /** Renders inline blocks in the preset's format ("" for none). */
  renderInline(blocks: readonly InlineBlock[]): string {
    return this.renderer.inline(blocks, { cwd: this.cwd, root: this.root });
  }

  /** Marks proposed files as delivered to the model, at the version proposed (two-phase admission). */
  admit(files: ReadonlyArray<{ path: string; mtimeMs: number }>): void {
    this.#ledger.admit(files);
  }

  /** Drops claims on proposals that were not delivered, so they are offered again. */
  release(files: ReadonlyArray<{ path: string; mtimeMs: number }>): void {
    this.#ledger.release(files);
  }

  /** Every admitted file with the version the model has and the layer it entered by. */
  admitted(): Array<{ path: string; mtimeMs: number; layer: Layer }> {
    return this.#ledger.entries();
  }

  /**
   * Drops files from the admitted set (a removal notice was delivered, or the host knows the model
   * lost them), so they are offered again if they apply later.
   * @example session.forget(result.deleted);
   */
  forget(files: ReadonlyArray<{ path: string } | string>): void {
    this.#ledger.forget(files);
  }

  /**
   * Turn-boundary check (docs/loading-rules.md#refresh): compares every admitted file with the disk.
   * `changed` holds files whose mtime moved, `deleted` files that are gone (or no longer regular
   * files). By default both are admitted at once (changed at their new version, deleted
   * forgotten); with `{admit:false}` the changed files are only claimed: call `admit(changed)`
   * and `forget(deleted)` once the notice is delivered, or `release(changed)`.
   * The initial message never changes.
   * @example
   * const result = await session.refresh();
   * const notice = session.refreshNotice(result); // "" or update/removal reminders
   */
  refresh(options: RefreshOptions = {}): Promise<RefreshResult> {
    const parts = { root: this.root, cache: this.#cache, sink: this.#sink, ledger: this.#ledger, rules: this.rules, maxBytes: this.config.lazy.maxBytes };
    return refreshAdmitted(parts, options);
  }

  /** Renders a refresh result: the update notice (paths + mtime, or bodies when `blocks` are there) and the removal notice. "" when nothing changed. */
  refreshNotice(result: RefreshResult): string {
    const update = result.blocks.length > 0 ? agentsUpdatedInline(this.renderInline(result.blocks)) : agentsUpdated(result.changed);
    return [update, agentsRemoved(result.deleted.map((file) => file.path))].filter((text) => text !== "").join("\n");
  }

  /**
   * The instruction files in force, for a compaction summary (docs/loading-rules.md#compaction): the initial files plus
   * the admitted path-layer files, read now, most specific kept first, rendered root first, cut to
   * `maxTokens` (default 1000, counted by `countTokens`, default ceil(bytes / 4)) with a visible
   * line naming the files to read again. Deleted files are left out.
   * @example output.context.push((await session.compactionContext({ maxTokens: 1000 })).text);
   */
  async compactionContext(options: CompactionContextOptions = {}): Promise<CompactionContext> {
    return buildCompactionContext(await compactionFiles({ cache: this.#cache, sink: this.#sink, ledger: this.#ledger }), options);
  }

  /**
   * Call after the host compacted the conversation: path-layer files become unadmitted, so the
   * next resolve/touch presents them again. Returns the paths dropped.
   */
  compacted(): string[] {
    return forgetPathLayer(this.#ledger);
  }

  /**
   * Subscribes to the directory chains the session scans, with the target each was scanned for,
   * before they are probed (watchers use it). Returns the unsubscribe function.
   * @example const stop = session.onScan((dirs) => watcher.add(dirs));
   */
  onScan(listener: (dirs: readonly string[], target?: string) => void): () => void {
    return this.#scope.onScan(listener);
  }

  /** Records a non-fatal problem found by a helper of the session (the watcher) in `diagnostics`. */
  addDiagnostic(diagnostic: Diagnostic): void {
    this.#sink.add(diagnostic);
  }

  /** Runs `fn` when the session closes (watchers register here). */
  onClose(fn: () => Promise<void> | void): void {
    this.#closers.push(fn);
  }

  /** True when `target`'s directory is covered (already resolved). */
  isCovered(target: string): boolean {
    const covered = this.#ledger.coveredDirs;
    return covered.has(parentOf(this.absolute(target))) || covered.has(this.absolute(target));
  }

  /** A JSON-safe snapshot, valid against `SessionStateSchema`. Claims are not persisted. */
  snapshot(): SessionState {
    const { preset, cwd, root, initialFiles, initialMessage } = this;
    return sessionState({ preset, cwd, root, markers: this.config.root.markers, config: this.rawConfig, initialFiles, initialMessage }, this.#state);
  }

  /**
   * The instruction files `touch` weighs for a target in `dir` (its lazy chain, exclusions and
   * the preset's scope applied), admitted or not: what a quiet certificate
   * (integrations/host/quiet-certificate.ts) vouches for. Reads metadata only.
   */
  quietCandidates(dir: string): Promise<Array<{ path: string; mtimeMs: number }>> {
    return this.#scope.applicable(dir, { lazy: true }).then((found) => found.map((each) => ({ path: each.path, mtimeMs: each.info.mtimeMs })));
  }

  /** Releases resources (watchers). Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      for (const fn of this.#closers.splice(0)) await fn();
      this.#cache.clear();
    })();
    return this.#closed;
  }

  /** @internal restore the mutable state of a snapshot */
  restoreState(state: SessionState): void {
    restoreState(state, this.#state);
  }

  /**
   * Files of the current initial scope (root -> cwd) that are new or changed: the model does not
   * have them at their current version, and they are not the unchanged files the budget left out.
   */
  initialScopeChanges(): Promise<ResolvedFile[]> {
    return initialScopeChanges(this.#state);
  }
}

/**
 * Starts a session: finds the root, loads the initial bundle once and freezes it.
 * @example
 * const session = await createSession({ cwd: "/repo/packages/api" });
 * systemMessages.push(session.initialMessage);
 */
export async function createSession(options: SessionOptions = {}): Promise<AgentsSession> {
  const parts = await buildParts(options);
  const load = await loadInitial({
    cache: parts.cache,
    groups: parts.prepared?.groups,
    listed: parts.listed?.paths,
    exclude: parts.excludes?.matches,
    projectNames: parts.projectNames,
    config: parts.config,
    preset: parts.preset,
    root: parts.project ? parts.root : null,
    importRoot: parts.importRoot,
    cwd: parts.options.cwd,
    home: parts.options.home,
    env: parts.options.env,
    sink: parts.sink,
  });
  const rules = rulesOf(parts);
  if (parts.config.enabled) {
    for (const hit of await rules.always()) {
      const block = rules.block(hit, "project");
      load.blocks.push(block);
      load.files.push({
        path: block.path,
        layer: "project",
        mtimeMs: block.mtimeMs,
        sizeBytes: block.sizeBytes,
        includedBytes: Buffer.byteLength(block.content),
        truncated: block.truncated,
      });
    }
  }
  const message = parts.preset.renderer.initial({ cwd: parts.options.cwd, root: parts.root, blocks: load.blocks });
  const session = new AgentsSession(parts, { files: load.files, message, load }, rules);
  await startWatch(session, options.watch);
  return session;
}

/** The scoped-rules part of a session built from `parts`. */
function rulesOf(parts: Parts): SessionRules {
  return new SessionRules({
    root: parts.project ? parts.importRoot : null,
    fs: parts.cache.fs,
    sink: parts.sink,
    host: parts.host,
    preset: parts.preset.name,
    native: parts.nativeRuleFormats,
    formats: parts.raw.rules?.formats,
    revalidateMs: parts.config.cache.revalidateMs,
  });
}

async function startWatch(session: AgentsSession, watch: SessionOptions["watch"]): Promise<void> {
  if (!watch) return;
  const { watchSession } = await import("./watch.js");
  await watchSession(session, watch === true ? {} : watch);
}

export interface RestoreOptions extends Omit<SessionOptions, "preset" | "configFile"> {
  /** Mark the files listed in the resume diff as delivered. @default true */
  admit?: boolean;
}

/**
 * Restores a session from a snapshot. `diff` is the `session.resume.diff` reminder (docs/loading-rules.md#resume) for what changed since
 * (cwd, root, markers, AGENTS.md to re-check), or "" when nothing did. The initial message stays
 * the one the conversation already holds. Callers that do not show a diff use `reopenSession`,
 * which skips validation (for state already validated) and the probe of the chain.
 * @example
 * const { session, diff } = await restoreSession(JSON.parse(text), { cwd: process.cwd() });
 */
export async function restoreSession(state: unknown, options: RestoreOptions = {}): Promise<{ session: AgentsSession; diff: string }> {
  const parsed = parseSessionState(state);
  const session = await reopenSession(parsed, { ...options, watch: false });
  const diff = await resumeDiff(session, parsed, { admit: options.admit !== false });
  await startWatch(session, options.watch);
  return { session, diff };
}

/**
 * Reopens a validated snapshot (from `parseSessionState` or a schema that embeds
 * `SessionStateSchema`) without computing a resume diff: no probe beyond what set-up needs.
 */
export async function reopenSession(state: SessionState, options: Omit<RestoreOptions, "admit"> = {}): Promise<AgentsSession> {
  const parts = await buildParts({ ...options, cwd: options.cwd ?? state.cwd, preset: state.preset }, state.config);
  const session = new AgentsSession(parts, { files: state.initialFiles, message: state.initialMessage });
  session.restoreState(state);
  await startWatch(session, options.watch);
  return session;
}
