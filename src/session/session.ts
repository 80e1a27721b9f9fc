export { parseSessionState } from "../core/session-state.js";

/**
 * AgentsSession: the frozen initial bundle, the resolver (metadata), inline mode (bodies),
 * two-phase admission, snapshot/restore and the resume diff.
 */
import type { StatCache, DirProbe, Found } from "../io/cache.js";
import type { ResolvedConfig } from "../load/config.js";
import type { FileSystem } from "../io/file-system.js";
import { AdmissionLedger } from "./ledger.js";
import type { SessionOptions } from "./options.js";
import { buildParts, type Parts } from "./setup.js";
import { parseSessionState } from "../core/session-state.js";
import type { Preset } from "../presets/preset.js";
import { findProjectRoot, type RootReason } from "../load/root.js";
import { initialDirs, loadInitial, reportReadError, type InitialLoad } from "../load/initial.js";
import { DiagnosticSink, groupsFor, identityKey, selectFiles, type NameGroups } from "../load/discover.js";
import { absolute, chain, isInside, nameOf, parentOf, pathInputProblem } from "../core/paths.js";
import { quote } from "../core/quote.js";
import type { Renderer } from "../core/render.js";
import { getRenderer } from "../presets/table.js";
import { agentsRemoved, agentsResolvePaths, agentsUpdated, agentsUpdatedInline, sessionResumeDiff } from "../core/reminders.js";
import { buildCompactionContext, type CompactionContext, type CompactionContextOptions, type CompactionFile } from "./compaction.js";
import type { WatchOptions } from "./watch.js";
import { readInstruction } from "../load/read.js";
import { importContextOf, readInstructionExpanded } from "../load/imports.js";
import { isBlank } from "../core/budget.js";
import { SessionRules } from "./rules.js";
import { agentsScope, scopeMatches } from "../load/rules/agents-scope.js";
import {
  SESSION_STATE_VERSION,
  type AgentsConfig,
  type Diagnostic,
  type InitialFile,
  type InlineBlock,
  type Layer,
  type ResolvedAgents,
  type ResolvedFile,
  type SessionState,
} from "../core/schema.js";

export type { SessionOptions } from "./options.js";

/** A changed admitted file found by `session.refresh()`. */
export interface RefreshedFile {
  path: string;
  layer: Layer;
  /** The version on disk now. */
  mtimeMs: number;
  sizeBytes: number;
  /** The version the model has. */
  previousMtimeMs: number;
}

export interface RefreshOptions extends AdmitOptions {
  /** Also read the changed files' bodies (`blocks`), for an inline update notice. @default false */
  inline?: boolean;
}

/** What `session.refresh()` found: admitted files that changed or disappeared since admission. */
export interface RefreshResult {
  changed: RefreshedFile[];
  deleted: Array<{ path: string; layer: Layer; mtimeMs: number }>;
  /** Bodies of the changed files (with `inline: true`), in the order of `changed`. */
  blocks: InlineBlock[];
}

export interface AdmitOptions {
  /** false: propose only; the files are claimed until `admit()` or `release()`. @default true */
  admit?: boolean;
}

/** A file the session knows, at a version. */
export interface FileVersion {
  path: string;
  mtimeMs: number;
}

/** Tools whose targets trigger the resolver (spec §6.1), by common names across hosts. */
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

  readonly #sink: DiagnosticSink;
  readonly #cache: StatCache;
  /** Name groups for the initial scope and `resolve`, and for directories reached by `touch`. */
  readonly #groups: NameGroups;
  readonly #lazyGroups: NameGroups;
  readonly #groupsReason: string | undefined;
  /** What the model has and what is proposed (two-phase admission). */
  readonly #ledger = new AdmissionLedger();
  readonly #seen = new Set<string>();
  /** Initial-scope files the budget left out, at the version seen then (never delivered: the resolver offers them). */
  readonly #leftOut = new Map<string, number>();
  readonly #chains = new Map<string, readonly string[]>();
  /** path -> device:inode of loaded files (`files.dedupe: "identity"`). */
  readonly #identities = new Map<string, string>();
  /** Where imports of project files stay (load/imports.ts `importRootOf`). */
  readonly #importRoot: string;
  #lazy = { files: 0, bytes: 0, capped: false };
  #closed: Promise<void> | undefined;
  readonly #closers: Array<() => Promise<void> | void> = [];
  #scanListeners: Array<(dirs: readonly string[]) => void> | undefined;
  #initialLoad: InitialLoad | undefined;

  /** @internal use createSession / restoreSession */
  constructor(parts: Parts, initial: { files: readonly InitialFile[]; message: string; load?: InitialLoad }, rules: SessionRules = rulesOf(parts)) {
    this.rules = rules;
    this.cwd = parts.options.cwd;
    this.home = parts.options.home;
    this.env = parts.options.env;
    this.root = parts.root;
    this.rootReason = parts.rootReason;
    this.hasProject = parts.project;
    this.#importRoot = parts.importRoot;
    this.preset = parts.preset;
    this.config = parts.config;
    this.rawConfig = parts.raw;
    this.#sink = parts.sink;
    this.#cache = parts.cache;
    this.#groups = parts.prepared?.groups ?? groupsFor(parts.config.files.names, parts.config.files.select);
    this.#lazyGroups = parts.prepared?.lazyGroups ?? parts.prepared?.groups ?? parts.preset.lazy.groups ?? this.#groups;
    this.#groupsReason = parts.prepared?.reason;
    this.renderer = getRenderer(parts.preset.renderer);
    this.initialFiles = Object.freeze(initial.files.map((file) => Object.freeze({ ...file })));
    this.initialMessage = initial.message;
    this.#initialLoad = initial.load;
    for (const file of this.initialFiles) this.#ledger.mark(file.path, file.mtimeMs, file.layer);
    for (const file of initial.load?.blank ?? []) this.#ledger.mark(file.path, file.mtimeMs, "project");
    for (const file of initial.load?.leftOut ?? []) this.#leftOut.set(file.path, file.mtimeMs);
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
    return { initial: this.#groups, lazy: this.#lazyGroups, ...(this.#groupsReason ? { reason: this.#groupsReason } : {}) };
  }

  /** Directories whose instruction files are resolved (spec §5.3). */
  get coveredDirs(): ReadonlySet<string> {
    return this.#ledger.coveredDirs;
  }

  /** Admitted versions: path -> mtimeMs (spec §6.3 `loadedVersions`). */
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
    return absolute(target, this.cwd);
  }

  /** The directory a target governs from: itself when it is an existing directory, else its parent. */
  async targetDir(target: string): Promise<string> {
    const path = this.absolute(target);
    if (pathInputProblem(path) !== null) return parentOf(path);
    const entry = await this.#cache.statEntry(path);
    return entry.info?.kind === "directory" ? path : parentOf(path);
  }

  /**
   * Spec §6: the instruction files that apply to `target` and are new or changed, root side first,
   * at most `resolver.maxFilesPerResolve`. Metadata only.
   * @example
   * const found = await session.resolve("packages/api/src/index.ts");
   * const text = session.reminder(found); // "" or <system-reminder type="agents.resolve.paths">
   */
  async resolve(target: string, options: AdmitOptions = {}): Promise<ResolvedAgents> {
    if (!this.config.enabled || !this.config.resolver.enabled) return { files: [] };
    const candidates = await this.#applicable(target);
    const out: ResolvedFile[] = [];
    for (const found of candidates) {
      if (!this.#isNew(found.path, found.info.mtimeMs) || this.#isEmpty(found.info.size)) continue;
      out.push({ path: found.path, mtimeMs: found.info.mtimeMs, sizeBytes: found.info.size });
      if (out.length >= this.config.resolver.maxFilesPerResolve) break;
    }

    // Selection above and marking below run without an await between: concurrent resolves
    // cannot both return a file.
    this.#record(out, options, "path");
    return { files: out };
  }

  /** Renders a resolve result as the spec §11.2 reminder ("" when empty). */
  reminder(found: ResolvedAgents): string {
    return agentsResolvePaths(found);
  }

  /**
   * Spec §6.1 trigger for a tool call: read/edit/write targets run the resolver, and the returned
   * text is what to append to the tool output ("" for nothing).
   * @example output += await session.afterToolCall({ tool: "read", path: "src/x.ts" });
   */
  async afterToolCall(call: { tool: string; path?: string | undefined }, options: AdmitOptions = {}): Promise<string> {
    if (!call.path || !RESOLVE_TRIGGER_TOOLS.has(call.tool.toLowerCase())) return "";
    return this.reminder(await this.resolve(call.path, options));
  }

  /**
   * Inline (lazy) mode: the bodies of instruction files newly applicable to `paths`, deepest first.
   * Session caps `lazy.maxFiles` / `lazy.maxBytes`: the first overflow adds one diagnostic and stops
   * further loading; a file is never half-read.
   * @example
   * const blocks = await session.touch(["packages/api/src/index.ts"]);
   * const text = session.renderInline(blocks);
   */
  async touch(paths: readonly string[], options: AdmitOptions = {}): Promise<InlineBlock[]> {
    if (!this.config.enabled || this.#lazy.capped) return [];
    const picked: Found[] = [];
    const pickedPaths = new Set<string>();
    for (const target of paths) {
      const candidates = await this.#applicable(target, { lazy: true });
      for (const found of deepestFirst(candidates)) {
        if (pickedPaths.has(found.path) || !this.#isNew(found.path, found.info.mtimeMs)) continue;
        pickedPaths.add(found.path);
        picked.push(found);
        // Claim at once (the next target is awaited) so a concurrent touch cannot pick it too.
        this.#ledger.claim(found.path, found.info.mtimeMs);
      }
    }
    const absoluteTargets = paths.filter((target) => pathInputProblem(target) === null).map((target) => this.absolute(target));
    const ruleHits = this.rules.formats.length > 0 ? await this.rules.matching(absoluteTargets) : [];
    const ruleBlocks: InlineBlock[] = [];
    for (const hit of ruleHits) {
      if (pickedPaths.has(hit.rule.path) || !this.#isNew(hit.rule.path, hit.rule.mtimeMs)) continue;
      pickedPaths.add(hit.rule.path);
      ruleBlocks.push(this.rules.block(hit, this.root, this.#ledger.version(hit.rule.path)?.layer ?? "path"));
      this.#ledger.claim(hit.rule.path, hit.rule.mtimeMs);
    }
    const blocks: InlineBlock[] = [];
    try {
      for (const found of picked) {
        if (this.#lazy.capped) break;
        const room = this.config.lazy.maxBytes - this.#lazy.bytes;
        if (this.#lazy.files + 1 > this.config.lazy.maxFiles || found.info.size > room) {
          this.#cap(found.path);
          break;
        }
        let text;
        try {
          text = await readInstructionExpanded(this.#cache.fs, found.path, room, "byte", this.#imports(), (diagnostic) => this.#sink.add(diagnostic));
        } catch (error) {
          reportReadError(this.#sink, found.path, error);
          continue;
        }
        if (!text) continue;
        if (text.truncated) {
          // It grew past the cap while we looked: never deliver half a file.
          this.#cap(found.path);
          break;
        }
        // An AGENTS.md with `applyTo`/`globs` frontmatter applies only to matching paths: left
        // unclaimed otherwise, so a later matching touch delivers it.
        const scope = agentsScope(text.content);
        if (scope && !absoluteTargets.some((target) => scopeMatches(scope, parentOf(found.path), target))) continue;
        const blank = (this.preset.blank ?? isBlank)(text.content);
        this.#lazy.files += blank ? 0 : 1;
        this.#lazy.bytes += blank ? 0 : text.chargedBytes;
        const block: InlineBlock = {
          path: found.path,
          layer: this.#ledger.version(found.path)?.layer ?? "path",
          mtimeMs: text.mtimeMs,
          sizeBytes: text.sizeBytes,
          // Read with the byte cut (a file is never half-delivered), but a leading BOM is dropped
          // as the preset's initial load drops it.
          content: this.preset.initial.cut === "byte" ? text.content : text.content.replace(/^\uFEFF/, ""),
          truncated: false,
        };
        if (blank) {
          this.#record([{ path: block.path, mtimeMs: block.mtimeMs, sizeBytes: block.sizeBytes }], options, block.layer);
          continue;
        }
        blocks.push(block);
      }
      // Scoped rules count against the same session caps; their text is already in memory.
      for (const block of ruleBlocks) {
        if (this.#lazy.capped) break;
        const bytes = Buffer.byteLength(block.content);
        if (this.#lazy.files + 1 > this.config.lazy.maxFiles || bytes > this.config.lazy.maxBytes - this.#lazy.bytes) {
          this.#cap(block.path);
          break;
        }
        this.#lazy.files += 1;
        this.#lazy.bytes += bytes;
        blocks.push(block);
      }
    } finally {
      for (const found of picked) this.#ledger.unclaim(found.path, found.info.mtimeMs);
      for (const block of ruleBlocks) this.#ledger.unclaim(block.path, block.mtimeMs);
    }
    this.#record(
      blocks.map((block) => ({ path: block.path, mtimeMs: block.mtimeMs, sizeBytes: block.sizeBytes })),
      options,
      "path",
    );
    return blocks;
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
   * Turn-boundary check (seed 003's context epochs): compares every admitted file with the disk.
   * `changed` holds files whose mtime moved, `deleted` files that are gone (or no longer regular
   * files). By default both are admitted at once (changed at their new version, deleted
   * forgotten); with `{admit:false}` the changed files are only claimed: call `admit(changed)`
   * and `forget(deleted)` once the notice is delivered, or `release(changed)`.
   * The initial message never changes.
   * @example
   * const result = await session.refresh();
   * const notice = session.refreshNotice(result); // "" or update/removal reminders
   */
  async refresh(options: RefreshOptions = {}): Promise<RefreshResult> {
    const fs = this.#cache.fs;
    const result: RefreshResult = { changed: [], deleted: [], blocks: [] };
    const entries = this.admitted();
    const infos = await Promise.all(
      entries.map((entry) =>
        fs.stat(entry.path).catch((error: unknown) => {
          reportReadError(this.#sink, entry.path, error);
          return undefined;
        }),
      ),
    );
    entries.forEach((entry, index) => {
      const info = infos[index];
      if (info === undefined) return; // unreadable: neither changed nor deleted
      this.#cache.invalidate(entry.path);
      this.#cache.invalidateDir(parentOf(entry.path));
      if (info === null || info.kind !== "file") result.deleted.push(entry);
      else if (info.mtimeMs !== entry.mtimeMs && this.#ledger.claimed(entry.path) !== info.mtimeMs) {
        result.changed.push({ path: entry.path, layer: entry.layer, mtimeMs: info.mtimeMs, sizeBytes: info.size, previousMtimeMs: entry.mtimeMs });
      }
    });
    for (const file of result.changed) this.#ledger.claim(file.path, file.mtimeMs);
    if (options.inline) {
      for (const file of result.changed) {
        if (this.rules.ruleAt(file.path)) {
          const hit = (await this.rules.matching([file.path])).find((each) => each.rule.path === file.path);
          if (hit && hit.rule.mtimeMs === file.mtimeMs) result.blocks.push(this.rules.block(hit, this.root, file.layer));
          continue;
        }
        try {
          const text = await readInstruction(fs, file.path, this.config.lazy.maxBytes, "utf8-with-note");
          if (text)
            result.blocks.push({
              path: file.path,
              layer: file.layer,
              mtimeMs: text.mtimeMs,
              sizeBytes: text.sizeBytes,
              content: text.content,
              truncated: text.truncated,
            });
        } catch (error) {
          reportReadError(this.#sink, file.path, error);
        }
      }
    }
    if (options.admit !== false) {
      this.admit(result.changed);
      this.forget(result.deleted);
    }
    return result;
  }

  /** Renders a refresh result: the update notice (paths + mtime, or bodies when `blocks` are there) and the removal notice. "" when nothing changed. */
  refreshNotice(result: RefreshResult): string {
    const update = result.blocks.length > 0 ? agentsUpdatedInline(this.renderInline(result.blocks)) : agentsUpdated(result.changed);
    return [update, agentsRemoved(result.deleted.map((file) => file.path))].filter((text) => text !== "").join("\n");
  }

  /**
   * The instruction files in force, for a compaction summary (seed 002): the initial files plus
   * the admitted path-layer files, read now, most specific kept first, rendered root first, cut to
   * `maxTokens` (default 1000, counted by `countTokens`, default ceil(bytes / 4)) with a visible
   * line naming the files to read again. Deleted files are left out.
   * @example output.context.push((await session.compactionContext({ maxTokens: 1000 })).text);
   */
  async compactionContext(options: CompactionContextOptions = {}): Promise<CompactionContext> {
    const fs = this.#cache.fs;
    const files: CompactionFile[] = [];
    for (const entry of this.admitted()) {
      try {
        const read = await fs.read(entry.path, COMPACTION_READ_BYTES);
        const content = new TextDecoder("utf-8", { fatal: false }).decode(read.bytes);
        if (!isBlank(content)) files.push({ path: entry.path, layer: entry.layer, content });
      } catch (error) {
        reportReadError(this.#sink, entry.path, error);
      }
    }
    return buildCompactionContext(files, options);
  }

  /**
   * Call after the host compacted the conversation: path-layer files become unadmitted, so the
   * next resolve/touch presents them again. Returns the paths dropped.
   */
  compacted(): string[] {
    const dropped = this.admitted()
      .filter((entry) => entry.layer === "path")
      .map((entry) => entry.path);
    this.forget(dropped);
    return dropped;
  }

  /**
   * Subscribes to the directory chains the session scans (watchers use it). Returns the unsubscribe function.
   * @example const stop = session.onScan((dirs) => watcher.add(dirs));
   */
  onScan(listener: (dirs: readonly string[]) => void): () => void {
    (this.#scanListeners ??= []).push(listener);
    return () => {
      this.#scanListeners = this.#scanListeners?.filter((each) => each !== listener);
      if (this.#scanListeners?.length === 0) this.#scanListeners = undefined;
    };
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
    return {
      version: SESSION_STATE_VERSION,
      preset: this.preset.name,
      cwd: this.cwd,
      root: this.root,
      markers: [...this.config.root.markers],
      config: this.rawConfig,
      initialFiles: this.initialFiles.map((file) => ({ ...file })),
      initialMessage: this.initialMessage,
      coveredDirs: [...this.#ledger.coveredDirs],
      seenDirs: [...this.#seen],
      loaded: this.#ledger.entries(),
      lazyLoadedFiles: this.#lazy.files,
      lazyLoadedBytes: this.#lazy.bytes,
      lazyCapped: this.#lazy.capped,
      leftOut: [...this.#leftOut].map(([path, mtimeMs]) => ({ path, mtimeMs })),
    };
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
    this.#ledger.restore(state.loaded, state.coveredDirs);
    for (const dir of state.seenDirs) this.#seen.add(dir);
    this.#lazy = { files: state.lazyLoadedFiles, bytes: state.lazyLoadedBytes, capped: state.lazyCapped };
    for (const entry of state.leftOut ?? []) this.#leftOut.set(entry.path, entry.mtimeMs);
  }

  /**
   * Files of the current initial scope (root -> cwd) that are new or changed: the model does not
   * have them at their current version, and they are not the unchanged files the budget left out.
   */
  async initialScopeChanges(): Promise<ResolvedFile[]> {
    const out: ResolvedFile[] = [];
    for (const dir of initialDirs(this.hasProject ? this.root : null, this.cwd, this.preset.initial.dirs)) {
      for (const found of selectFiles(await this.#cache.probeDir(dir), this.#groups, this.#sink)) {
        if (!this.#isNew(found.path, found.info.mtimeMs) || this.#isEmpty(found.info.size) || this.#leftOut.get(found.path) === found.info.mtimeMs) continue;
        out.push({ path: found.path, mtimeMs: found.info.mtimeMs, sizeBytes: found.info.size });
      }
    }
    return out;
  }

  /** Records delivered (or proposed) files. */
  #record(files: readonly ResolvedFile[], options: AdmitOptions, layer: Layer): void {
    this.#ledger.record(files, options.admit !== false, layer);
  }

  /** Import settings for inline reads (imports count against the lazy budget). */
  #imports() {
    return importContextOf(this.config, this.preset, this.#importRoot, this.home);
  }

  /** An empty file has nothing to apply: skipped like the initial load skips it (metadata only, no read). */
  #isEmpty(sizeBytes: number): boolean {
    return sizeBytes === 0 && this.preset.initial.skipBlank;
  }

  #isNew(path: string, mtimeMs: number): boolean {
    return this.#ledger.isNew(path, mtimeMs);
  }

  #cap(path: string): void {
    this.#lazy.capped = true;
    this.#sink.add({
      level: "warning",
      code: "lazy-cap",
      message: `inline loading stopped at ${path}: the session caps (lazy.maxFiles ${this.config.lazy.maxFiles}, lazy.maxBytes ${this.config.lazy.maxBytes}) are reached; no further files are loaded this session`,
      path,
    });
  }

  /** Every instruction file that applies to `target`, root first (the chain root -> target dir). */
  async #applicable(target: string, mode: { lazy?: boolean } = {}): Promise<Found[]> {
    if (!this.hasProject) return [];
    const path = this.#checkedPath(target);
    if (path === null) return [];
    // Gemini CLI: just-in-time files only for targets inside the workspace (cwd).
    if (this.preset.lazy.scope === "inside-cwd" && !isInside(path, this.cwd)) return [];
    const now = this.#cache.now();
    // Fast path: when every cache entry is fresh, nothing below awaits the disk.
    const known = this.#cache.peekPath(path, now) ?? (await this.#cache.statEntry(path));
    let dir = known.info?.kind === "directory" ? path : parentOf(path);
    // A directory already on a memoised chain existed when it was first resolved: no new stat.
    if (!known.info && !this.#chains.has(dir)) dir = await this.#deepestExisting(dir, now);
    let root = this.root;
    if (!isInside(dir, root)) {
      if (this.config.resolver.outsideRoot !== "own-root") return [];
      root = (
        await findProjectRoot({
          cwd: dir,
          markers: this.config.root.markers,
          stopAtFsRoot: this.config.root.stopAtFsRoot,
          home: this.home,
          fs: this.#cache.fs,
        })
      ).root;
    }
    let dirs = this.#chainTo(root, dir);
    if (this.#scanListeners) for (const listener of this.#scanListeners) listener(dirs);
    if (this.preset.lazy.scope === "below-cwd") {
      // Only directories strictly below cwd; targets outside cwd get nothing.
      if (dir === this.cwd || !isInside(dir, this.cwd)) return [];
      dirs = dirs.slice(dirs.indexOf(this.cwd) + 1);
    }
    if (mode.lazy) {
      dirs = this.#withoutExcluded(dirs, root);
      for (const each of dirs) this.#seen.add(each);
    }
    const probes: DirProbe[] = new Array(dirs.length);
    let pending: Array<Promise<unknown>> | undefined;
    for (let index = 0; index < dirs.length; index++) {
      const fresh = this.#cache.peekDir(dirs[index]!, now);
      if (fresh) probes[index] = fresh;
      // Unseen directories are probed in parallel: one round trip, not one per level.
      else (pending ??= []).push(this.#cache.probeDir(dirs[index]!).then((probe) => (probes[index] = probe)));
    }
    if (pending) await Promise.all(pending);
    const groups = mode.lazy ? this.#lazyGroups : this.#groups;
    const out: Found[] = [];
    for (const probe of probes) for (const found of selectFiles(probe, groups, this.#sink)) out.push(found);
    return this.preset.files.dedupe === "identity" ? this.#withoutAliases(out) : out;
  }

  /**
   * `files.dedupe: "identity"` (Gemini CLI): drops a file whose device + inode is already loaded
   * under another path, or appears earlier in `found`.
   */
  async #withoutAliases(found: Found[]): Promise<Found[]> {
    if (found.length === 0) return found;
    const loaded = new Set<string>();
    for (const path of this.#ledger.paths()) {
      let key = this.#identities.get(path);
      if (key === undefined) {
        const entry = await this.#cache.statEntry(path);
        key = entry.info ? identityKey(entry.info) : "";
        this.#identities.set(path, key);
      }
      if (key !== "") loaded.add(key);
    }
    const seen = new Set<string>();
    return found.filter((each) => {
      const key = identityKey(each.info);
      // A loaded identity is never offered again, edited or not (Gemini CLI keeps it until /memory reload).
      const keep = !loaded.has(key) && !seen.has(key);
      seen.add(key);
      return keep;
    });
  }

  /**
   * An input path made absolute, or null (with a `path-rejected` warning) when it cannot be a path:
   * too long, too deep, a NUL byte (core/paths.ts `pathInputProblem`). Checked before any work.
   */
  #checkedPath(target: string): string | null {
    const problem = pathInputProblem(target) ?? pathInputProblem(this.absolute(target));
    if (problem === null) return this.absolute(target);
    this.#sink.add({
      level: "warning",
      code: "path-rejected",
      message: `the path ${quote(target.length > 200 ? `${target.slice(0, 200)}...` : target)} ${problem}: nothing is resolved for it`,
      fix: "pass the path of a file or directory that can exist",
    });
    return null;
  }

  /**
   * `dir` when it exists as a directory, else its deepest ancestor that does. Existence is monotone
   * along a path, so a binary search over the ancestors finds it in log2(depth) uncached stats: a
   * made-up deep path costs memory and calls in proportion to the directories that exist, never
   * to its length (issue 18 row 2: every ancestor used to be stored).
   */
  async #deepestExisting(dir: string, now: number): Promise<string> {
    // Only a fresh positive cache entry is trusted; a miss asks the disk without caching, so a
    // directory created later (watch mode trusts its cache) is seen at once.
    if (this.#cache.peekPath(dir, now)?.info?.kind === "directory") return dir;
    if ((await this.#cache.fs.stat(dir).catch(() => null))?.kind === "directory") return dir;
    const cuts: number[] = [];
    for (let index = dir.indexOf("/", 1); index !== -1; index = dir.indexOf("/", index + 1)) cuts.push(index);
    let low = -1; // "/" exists
    let high = cuts.length; // dir itself does not
    while (high - low > 1) {
      const middle = (low + high) >> 1;
      const info = await this.#cache.fs.stat(dir.slice(0, cuts[middle])).catch(() => null);
      if (info?.kind === "directory") low = middle;
      else high = middle;
    }
    return low === -1 ? "/" : dir.slice(0, cuts[low]);
  }

  /** chain(root, dir), memoised for the session root (hot path: no string work on a warm resolve). */
  #chainTo(root: string, dir: string): readonly string[] {
    if (root !== this.root) return chain(root, dir);
    let dirs = this.#chains.get(dir);
    if (!dirs) {
      dirs = chain(root, dir);
      this.#chains.set(dir, dirs);
    }
    return dirs;
  }

  /** Cuts the chain at the first excluded directory name below the root. */
  #withoutExcluded(dirs: readonly string[], root: string): readonly string[] {
    const excluded = this.config.lazy.exclude;
    if (excluded.length === 0) return dirs;
    for (let index = 0; index < dirs.length; index++) {
      const dir = dirs[index]!;
      if (dir !== root && excluded.includes(nameOf(dir))) return dirs.slice(0, index);
    }
    return dirs;
  }
}

/** Root-first candidates reordered deepest directory first, keeping name order within a directory. */
function deepestFirst(candidates: readonly Found[]): Found[] {
  const byDir = new Map<string, Found[]>();
  for (const found of candidates) {
    const dir = parentOf(found.path);
    const list = byDir.get(dir);
    if (list) list.push(found);
    else byDir.set(dir, [found]);
  }
  return [...byDir.values()].reverse().flat();
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
      const block = rules.block(hit, parts.root, "project");
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
  const message = getRenderer(parts.preset.renderer).initial({ cwd: parts.options.cwd, root: parts.root, blocks: load.blocks });
  const session = new AgentsSession(parts, { files: load.files, message, load }, rules);
  await startWatch(session, options.watch);
  return session;
}

/** The scoped-rules part of a session built from `parts`. */
function rulesOf(parts: Parts): SessionRules {
  return new SessionRules({
    root: parts.project ? parts.root : null,
    fs: parts.cache.fs,
    sink: parts.sink,
    host: parts.host,
    formats: parts.raw.rules?.formats,
    revalidateMs: parts.config.cache.revalidateMs,
  });
}

/** Largest instruction file read for a compaction context. */
const COMPACTION_READ_BYTES = 1024 * 1024;

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
 * Restores a session from a snapshot. `diff` is the spec §11.3 reminder for what changed since
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
 * @example const session = await reopenSession(stored.session, { cwd: stored.session.cwd });
 */
export async function reopenSession(state: SessionState, options: Omit<RestoreOptions, "admit"> = {}): Promise<AgentsSession> {
  const parts = await buildParts({ ...options, cwd: options.cwd ?? state.cwd, preset: state.preset }, state.config);
  const session = new AgentsSession(parts, { files: state.initialFiles, message: state.initialMessage });
  session.restoreState(state);
  await startWatch(session, options.watch);
  return session;
}

/**
 * The spec §11.3 resume reminder of a reopened session against the snapshot it came from: cwd,
 * root and markers that moved, and the initial-scope files to re-check ("" when nothing changed).
 * With `admit` (default true) the files to re-check count as delivered.
 * @example const diff = await resumeDiff(session, stored.session);
 */
export async function resumeDiff(session: AgentsSession, before: SessionState, options: { admit?: boolean } = {}): Promise<string> {
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
