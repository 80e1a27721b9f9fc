/**
 * The plugin of the OpenCode family (OpenCode 1.18, Kilo Code 7.7: the same V1 hooks, the same
 * loading algorithm with other names): one implementation, parameterised by a {@link FamilyPluginHost}.
 * `agentsmd/opencode` and `agentsmd/kilo` are each a host description and the plugin function.
 *
 * The host puts the global file, the cwd -> worktree chain and the files its config `instructions`
 * list in the system prompt (re-read every step) and attaches nested AGENTS.md/CLAUDE.md/CONTEXT.md below cwd to `read` results
 * (`metadata.loaded`). This module, in `tool.execute.after`:
 * - for the host's file tools (and its shell tool, when it has one: the paths the command reads,
 *   lists or writes), finds the instruction files that apply to the touched paths (root -> path;
 *   `AGENTS.override.md` first in a directory), including reads outside cwd and writes to new files;
 * - skips every file the host already gave the model (the current system-prompt files, those its
 *   config `instructions` list included, `output.metadata.loaded`, an instruction file the model
 *   read itself) and every file this session already delivered at the same version; an edited
 *   file is presented again;
 * - appends the rest to the tool output as a `<system-reminder>` (bodies by default; docs/loading-rules.md#reminders
 *   paths with `mode: "paths"`), and only then admits them (two-phase admission). On `read` it
 *   also lists them in `metadata.loaded`, so the host does not attach them again itself, and it
 *   removes from the host's own attachment a file the model already has at that version.
 * `experimental.session.compacting` pushes the compaction context; `session.compacted` makes
 * path-layer files unadmitted (the host re-attaches its own, so do we); a pruned tool result
 * (`time.compacted`) seen in `experimental.chat.messages.transform` does the same for what it
 * carried; `session.deleted` drops the state. State per session lives in the host layer's
 * conversation store (`$XDG_STATE_HOME/agentsmd/<host>/<sessionID>.json`, replaced atomically),
 * so a restarted host does not repeat what the conversation already holds. The tool step is
 * the host layer's proposal (`proposePieces`): skip what the host gave the model, propose, render,
 * append, then admit.
 */
import { monotonicMs } from "../../io/cache.js";
import type { Hooks, Plugin, PluginModule, PluginOptions } from "@opencode-ai/plugin";
import * as z from "zod/mini";
import "../../core/zod-locale.js";
import { homedir } from "node:os";
import { createSession, reopenSession, type AgentsSession } from "../../session/session.js";
import { nodeFileSystem, type FileSystem } from "../../io/file-system.js";
import { canonicalTargets } from "../../io/real-path.js";
import { absolute, isInside, nameOf, homeFromEnv, optionDir } from "../../core/paths.js";
import { conversationPath, conversationFormat, hostStateDir } from "./store.js";
import { fileStore, type ConversationStore } from "./stores.js";
import { admitCurrent, compactConversation, conversationState, nativeOf, openConversation, proposeAll, prunedFromView } from "./conversation.js";
import { eventTargets, patchTargets, toolTargets as extractTargets, usablePath, type TargetTable, type ToolCall } from "./targets.js";
import { piecesOf, type Piece } from "./propose.js";
import { familyListedPaths, familyNames, familySystemPaths, type OpenCodeFamily } from "../../presets/opencode.js";
import { readFamilyInstructions } from "../../presets/opencode-instructions.js";
import { ListedPaths } from "./listed-paths.js";
import { formatIssues } from "../../core/config-schema.js";
import type { AgentsConfig, InlineBlock, ResolvedFile } from "../../core/schema.js";
import { ConfigError } from "../../core/errors.js";
import { DEFAULT_COMPACTION_TOKENS } from "../../session/compaction.js";
import { Deadline, deadlineMsOf } from "../../core/deadline.js";
import { guardOf } from "../../io/deadline-fs.js";

/** One CLI of the family, as the plugin sees it. */
export interface FamilyPluginHost {
  /** State directory and session host name ("opencode", "kilo"). */
  host: string;
  /** Its project config file, named in option errors. */
  configFile: string;
  /** Its switches and global candidates (presets/opencode.ts, presets/kilo.ts). */
  family: OpenCodeFamily;
  /** Its preset, and the preset the plugin resolves with when the options name that one. */
  preset: string;
  pluginPreset: string;
  /** Tools whose targets trigger resolution, by default. */
  tools: readonly string[];
  /** Tool name -> the paths it touched. */
  targets: TargetTable;
  /** The shell tool whose `command` (and `workdir`) is read for paths. @default none */
  shellTool?: string;
}

export const FamilyPluginOptionsSchema = z.strictObject({
  /** Preset the plugin resolves with; the host's own ("opencode", "kilo") means its names plus AGENTS.override.md, root to any path. @default the host's */
  preset: z.optional(z.string()),
  /** "bodies": the files' text (the host's own framing); "paths": the `agents.resolve.paths` reminder, paths + mtime (docs/loading-rules.md#reminders). @default "bodies" */
  mode: z.optional(z.enum(["bodies", "paths"])),
  /** Session caps for bodies delivered by the plugin (`lazy.maxFiles` / `lazy.maxBytes`). @default the hosts have none: files unlimited, bytes agentsmd's default (1 MiB, docs/security.md) */
  maxFiles: z.optional(z.number().check(z.int(), z.positive())),
  maxBytes: z.optional(z.number().check(z.int(), z.positive())),
  /** Directory names never entered (`lazy.exclude`). @default node_modules, .git, dist, build, vendor, ... */
  exclude: z.optional(z.array(z.string().check(z.minLength(1)))),
  /** Token budget of the compaction context. @default DEFAULT_COMPACTION_TOKENS (1000) */
  compactionTokens: z.optional(z.number().check(z.int(), z.positive())),
  /** Where per-session state lives: an absolute path or one under `~/` (a relative one is refused). @default $XDG_STATE_HOME/agentsmd/<host> */
  stateDir: z.optional(z.string().check(z.minLength(1))),
  /** Tools that trigger resolution. @default the host's file tools (and its shell tool) */
  tools: z.optional(z.array(z.string().check(z.minLength(1)))),
  /** Extra agentsmd config merged under the options above. */
  config: z.optional(z.record(z.string(), z.unknown())),
  /**
   * Watch the directories a session scanned (one `fs.watch` each, about 0.5 KB) so a seen path
   * resolves without asking the disk; `false` revalidates by stat instead (network mounts, where
   * change events may not arrive). @default true: the plugin lives as long as the host's process
   */
  watch: z.optional(z.boolean()),
});

export type FamilyPluginOptions = z.infer<typeof FamilyPluginOptionsSchema>;

/** Files a tool result carried, recorded in its metadata so pruning can be noticed later. */
const METADATA_KEY = "agentsmd";

interface SessionEntry {
  session: AgentsSession;
  /** The conversation's state file (the engine's file store). */
  store: ConversationStore<Record<string, never>>;
  /** Files this process delivered, path -> mtime (a native re-attachment of one is a duplicate). */
  delivered: Map<string, number>;
  /** Serialises state writes. */
  saving: Promise<void>;
}

export interface FamilyPluginContext {
  directory: string;
  worktree: string;
  home?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** @default nodeFileSystem (tests count calls through `countingFileSystem`) */
  fs?: FileSystem;
}

/** The plugin keeps no fields of its own in a conversation's state. */
const NO_FIELDS = z.strictObject({}) as unknown as z.ZodMiniType<Record<string, never>>;

/**
 * The plugin's options, checked: a clear error naming the host's config file.
 */
function parseFamilyOptions(host: FamilyPluginHost, options: PluginOptions | undefined): FamilyPluginOptions {
  const result = FamilyPluginOptionsSchema.safeParse(options ?? {});
  if (!result.success) {
    throw new ConfigError(`invalid agentsmd/${host.host} plugin options:\n${formatIssues(result.error)}`, {
      fix: `check the options given with the plugin in ${host.configFile}`,
    });
  }
  return result.data;
}

/** The files an apply_patch reported (`metadata.files`), else the paths its patch text names. */
export function patchCall(call: ToolCall): string[] {
  const files = Array.isArray(call.metadata?.files) ? call.metadata.files : [];
  const out: string[] = [];
  for (const file of files) {
    if (typeof file !== "object" || file === null || ("type" in file && (file as { type?: unknown }).type === "delete")) continue;
    for (const key of ["movePath", "filePath"]) {
      const path = key in file ? usablePath(Object.getOwnPropertyDescriptor(file, key)?.value, call.cwd) : undefined;
      if (path) out.push(path);
    }
  }
  return out.length > 0 ? out : patchTargets(call.input.patchText, call.cwd, { deleted: true });
}

/** A file tool: its `filePath`, else the path the host reported in `metadata.filepath`. */
export function fileCall(call: ToolCall): string[] {
  const path = usablePath(call.input.filePath, call.cwd) ?? usablePath(call.metadata?.filepath, call.cwd);
  return path ? [path] : [];
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {};
}

/**
 * The paths a tool call touched, by `table`.
 */
export function familyToolTargets(table: TargetTable, tool: string, args: unknown, metadata: unknown, directory: string): string[] {
  return extractTargets(table, { tool, input: record(args), metadata: record(metadata), cwd: directory });
}

/** The entries of `all` that `shown` names, in the order of `shown`. */
function pick<T extends { path: string }>(all: readonly T[], shown: readonly Piece[]): T[] {
  const byPath = new Map(all.map((each) => [each.path, each]));
  return shown.map((piece) => byPath.get(piece.path)).filter((each): each is T => each !== undefined);
}

/** The family's inline rendering inside one `<system-reminder>` ("" stays ""). */
function wrapReminder(rendered: string): string {
  return rendered === "" || rendered.startsWith("<system-reminder") ? rendered : `<system-reminder>\n${rendered}\n</system-reminder>`;
}

/** The instruction-file paths the host natively attached to this result. */
function nativeLoaded(metadata: unknown): string[] {
  const loaded = (metadata as { loaded?: unknown } | undefined)?.loaded;
  return Array.isArray(loaded) ? loaded.filter((path): path is string => typeof path === "string") : [];
}

/**
 * Removes the blocks of `paths` from the host's own `<system-reminder>` at the end of a read
 * result (`Instructions from: <path>\n<body>` blocks joined by blank lines). Returns the text
 * unchanged when the shape is not recognised.
 */
export function stripNativeBlocks(output: string, paths: readonly string[], all: readonly string[]): string {
  if (paths.length === 0) return output;
  const open = output.lastIndexOf("\n\n<system-reminder>\n");
  const close = output.indexOf("\n</system-reminder>", open);
  if (open < 0 || close < 0) return output;
  const body = output.slice(open + "\n\n<system-reminder>\n".length, close);
  const starts = all.map((path) => ({ path, at: body.indexOf(`Instructions from: ${path}\n`) })).filter((entry) => entry.at >= 0);
  if (starts.length !== all.length) return output;
  starts.sort((x, y) => x.at - y.at);
  if (starts[0]!.at !== 0) return output;
  const keep: string[] = [];
  starts.forEach((entry, index) => {
    const end = index + 1 < starts.length ? starts[index + 1]!.at - 2 : body.length;
    if (!paths.includes(entry.path)) keep.push(body.slice(entry.at, Math.max(entry.at, end)));
  });
  const rest = output.slice(close + "\n</system-reminder>".length);
  if (keep.length === 0) return output.slice(0, open) + rest;
  return `${output.slice(0, open)}\n\n<system-reminder>\n${keep.join("\n\n")}\n</system-reminder>${rest}`;
}

/** The plugin's machinery for one host of the family, exposed for tests and for hosts that embed it. */
export class FamilyAgents {
  readonly host: FamilyPluginHost;
  readonly options: FamilyPluginOptions;
  readonly directory: string;
  readonly worktree: string;
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stateDir: string;
  readonly #tools: Set<string>;
  readonly fs: FileSystem;
  readonly #sessions = new Map<string, Promise<SessionEntry>>();
  /**
   * The files the host's config `instructions` list: the entries read once per process as the
   * host reads its config, their globs listed again only when a directory they depend on changed.
   */
  #listed: Promise<ListedPaths> | undefined;

  constructor(host: FamilyPluginHost, context: FamilyPluginContext, options: FamilyPluginOptions = {}) {
    this.host = host;
    this.options = options;
    this.env = context.env ?? process.env;
    // Its reads check the deadline of the hook call under way (hooks() arms it per call).
    this.fs = guardOf(context.fs ?? nodeFileSystem).fs;
    this.home = context.home ?? homeFromEnv(this.env, homedir);
    this.directory = absolute(context.directory, process.cwd());
    this.worktree = context.worktree && context.worktree.length > 0 ? absolute(context.worktree, this.directory) : this.directory;
    this.stateDir =
      options.stateDir !== undefined
        ? optionDir("stateDir", options.stateDir, this.home, { owner: `agentsmd/${host.host} plugin options`, where: host.configFile })
        : hostStateDir(host.host, this.env, this.home);
    this.#tools = new Set(options.tools ?? host.tools);
  }

  /** Long-lived sessions watch by default (docs/performance.md: a seen resolve then makes no stat). */
  get #watch(): boolean {
    return this.options.watch ?? true;
  }

  /** The state file of a session (ids encoded so two never share a file). */
  statePath(sessionID: string): string {
    return conversationPath(this.stateDir, { id: sessionID });
  }

  #sessionConfig(): AgentsConfig {
    const o = this.options;
    const names = familyNames(this.host.family, this.env);
    const config: Record<string, unknown> = { ...(o.config ?? {}) };
    const root = {
      ...((config.root as object | undefined) ?? {}),
      projectRootOverride: this.worktree.startsWith("/") && isInside(this.directory, this.worktree) ? this.worktree : this.directory,
    };
    config.root = root;
    if ((o.preset ?? this.host.preset) === this.host.preset && !names.includes("CLAUDE.md")) {
      config.files = { ...(config.files ?? {}), names: ["AGENTS.override.md", ...names] };
    }
    if (o.maxFiles !== undefined || o.maxBytes !== undefined || o.exclude !== undefined) {
      config.lazy = {
        ...(config.lazy ?? {}),
        ...(o.maxFiles !== undefined ? { maxFiles: o.maxFiles } : {}),
        ...(o.maxBytes !== undefined ? { maxBytes: o.maxBytes } : {}),
        ...(o.exclude !== undefined ? { exclude: o.exclude } : {}),
      };
    }
    return config;
  }

  /** The session for a host session id: in memory, else restored from disk, else new. */
  session(sessionID: string): Promise<SessionEntry> {
    let entry = this.#sessions.get(sessionID);
    if (!entry) {
      entry = this.#open(sessionID);
      this.#sessions.set(sessionID, entry);
      entry.catch(() => this.#sessions.delete(sessionID));
    }
    return entry;
  }

  /** The engine's store of a session: its state file (read and written outside any call's deadline). */
  #store(sessionID: string): ConversationStore<Record<string, never>> {
    return fileStore(
      this.statePath(sessionID),
      conversationFormat(this.host.host, () => NO_FIELDS),
      { fs: nodeFileSystem },
    );
  }

  async #open(sessionID: string): Promise<SessionEntry> {
    const store = this.#store(sessionID);
    const base = { cwd: this.directory, home: this.home, env: this.env, fs: this.fs, host: this.host.host, watch: this.#watch };
    const open = await openConversation(store, {
      host: this.host.host,
      restore: (stored) => reopenSession(stored.session, base),
      create: async () => {
        const preset = this.options.preset ?? this.host.preset;
        const session = await createSession({
          ...base,
          preset: preset === this.host.preset ? this.host.pluginPreset : preset,
          config: this.#sessionConfig(),
        });
        // What the session loaded at start is not what the host has: keep only its system files.
        const system = new Set(await this.systemPaths());
        session.forget(session.initialFiles.filter((file) => !system.has(file.path)));
        return { session, fields: {} };
      },
    });
    return { session: open.session, store, delivered: new Map(), saving: Promise.resolve() };
  }

  /**
   * The files in the host's system prompt now: its global and project files, then the files its
   * config `instructions` list (the host re-runs those globs every step: kept while no directory
   * they depend on changed, see listed-paths.ts). `touched`: the paths of the tool call being answered.
   */
  async systemPaths(touched: readonly string[] = []): Promise<string[]> {
    const input = { cwd: this.directory, worktree: this.worktree, home: this.home, env: this.env, fs: this.fs };
    this.#listed ??= readFamilyInstructions(this.host.family.config, input).then(
      (read) => new ListedPaths((observer) => familyListedPaths(this.host.family, input, read.entries, observer), { fs: this.fs, watch: this.#watch }),
      () => new ListedPaths(async () => [], { fs: this.fs, watch: false }),
    );
    const listed = await this.#listed;
    const [system, paths] = await Promise.all([familySystemPaths(this.host.family, input), listed.paths(touched)]);
    return [...new Set([...system, ...paths])];
  }

  #save(entry: SessionEntry): Promise<void> {
    entry.saving = entry.saving.then(() => entry.store.save(conversationState(this.host.host, {}, entry.session))).catch(() => undefined);
    return entry.saving;
  }

  /** The paths a tool call touched: the host's table, or for its shell tool the paths its command reads, lists or writes. */
  async #targets(tool: string, args: unknown, metadata: unknown): Promise<string[]> {
    if (tool !== this.host.shellTool) return familyToolTargets(this.host.targets, tool, args, metadata, this.directory);
    const input = record(args);
    const cwd = typeof input.workdir === "string" && input.workdir !== "" ? absolute(input.workdir, this.directory) : this.directory;
    if (typeof input.command !== "string") return [];
    // The shell reader loads on the first shell call: OpenCode has no shell tool, so never there.
    const [{ shellCommandPaths }, { settleShellPaths }] = await Promise.all([import("../host/shell-paths.js"), import("../host/shell-targets.js")]);
    const parsed = shellCommandPaths(input.command, { cwd, home: this.home });
    return parsed.ok ? settleShellPaths(parsed.paths, this.fs) : [];
  }

  /** `tool.execute.after`: amends `output` in place. */
  async afterTool(
    input: { tool: string; sessionID: string; callID: string; args: unknown },
    output: { title: string; output: string; metadata: unknown },
  ): Promise<void> {
    const tool = input.tool.toLowerCase();
    if (!this.#tools.has(tool)) return;
    const touched = eventTargets(await this.#targets(tool, input.args, output.metadata));
    if (touched.length === 0) return;
    const entry = await this.session(input.sessionID);
    const { session } = entry;
    // Identity by real path (docs/security.md): `loop -> .` spellings of one file deliver it once.
    const targets = await canonicalTargets(session.cache.fs, session.root, touched);
    const names = new Set(session.cache.names.map((name) => nameOf(name)));
    const system = await this.systemPaths(targets);
    const native = tool === "read" ? nativeLoaded(output.metadata) : [];
    // What the host gave the model is admitted at its current version before anything is picked.
    const readInstruction = tool === "read" && targets.length === 1 && names.has(nameOf(targets[0]!)) ? targets : [];
    const had = new Map(native.map((path) => [path, session.loadedVersion(path)?.mtimeMs]));
    const current = await admitCurrent(session, [...system, ...native, ...readInstruction]);
    // A native attachment of a version the plugin already delivered (and the model still has) is a duplicate.
    const duplicates = native.filter(
      (path) => entry.delivered.get(path) !== undefined && entry.delivered.get(path) === had.get(path) && current.get(path) === had.get(path),
    );
    const skip = new Set([...system, ...native, ...readInstruction]);

    const paths = (this.options.mode ?? "bodies") === "paths";
    const files: ResolvedFile[] = [];
    const blocks: InlineBlock[] = paths ? [] : await session.touch(targets, { admit: false });
    if (paths) for (const target of targets) files.push(...(await session.resolve(target, { admit: false })).files);
    const proposal = await proposeAll(
      session,
      paths ? piecesOf(files, "tool") : piecesOf(blocks, tool === "read" ? "read" : "tool"),
      (shown) => (paths ? session.reminder({ files: pick(files, shown) }) : wrapReminder(session.renderInline(pick(blocks, shown)))),
      nativeOf((piece) => skip.has(piece.path)),
    );
    // Past the deadline nothing is handed over, so nothing is admitted (the next call tries again).
    try {
      guardOf(this.fs).check();
    } catch (error) {
      proposal.release();
      throw error;
    }
    const delivered = proposal.shown;
    if (duplicates.length > 0 && typeof output.output === "string") output.output = stripNativeBlocks(output.output, duplicates, native);
    if (proposal.text !== "") {
      output.output = `${output.output ?? ""}\n\n${proposal.text}`;
      const metadata = (output.metadata && typeof output.metadata === "object" ? output.metadata : (output.metadata = {})) as Record<string, unknown>;
      metadata[METADATA_KEY] = { files: delivered.map((file) => ({ path: file.path, mtimeMs: file.mtimeMs })) };
      if (tool === "read" && !paths) {
        metadata.loaded = [...nativeLoaded(metadata), ...delivered.map((file) => file.path).filter((path) => !native.includes(path))];
      }
      for (const file of delivered) entry.delivered.set(file.path, file.mtimeMs);
    }
    // Admitted only now that the output carries them.
    proposal.commit();
    await this.#save(entry);
  }

  /** `experimental.session.compacting`: the path-layer files in force, for the summary. */
  async compacting(input: { sessionID: string }, output: { context: string[] }): Promise<void> {
    const entry = await this.session(input.sessionID);
    // System-prompt files survive a compaction (the host re-reads them every step).
    const context = await entry.session.compactionContext({
      maxTokens: this.options.compactionTokens ?? DEFAULT_COMPACTION_TOKENS,
      layers: ["path"],
      exclude: await this.systemPaths(),
    });
    if (context.text !== "") output.context.push(context.text);
  }

  /** After a compaction the host re-attaches its nested files; path-layer files are offered again too. */
  async compacted(sessionID: string): Promise<void> {
    const entry = await this.session(sessionID);
    compactConversation(entry.session);
    entry.delivered.clear();
    await this.#save(entry);
  }

  /** Forgets a deleted host session: memory and state file. */
  async deleted(sessionID: string): Promise<void> {
    const entry = this.#sessions.get(sessionID);
    this.#sessions.delete(sessionID);
    if (entry) {
      const resolved = await entry.catch(() => undefined);
      await resolved?.saving;
      await resolved?.session.close();
    }
    // Nothing is removed from a state directory others may write (a StateError, kept quiet by the hooks' guard).
    await this.#store(sessionID).remove();
  }

  /**
   * `experimental.chat.messages.transform`: a tool result the host pruned (`time.compacted`) no
   * longer shows what it carried; those files are offered again.
   */
  async messages(messages: ReadonlyArray<{ info: { sessionID?: string }; parts: ReadonlyArray<unknown> }>): Promise<void> {
    const lost = new Map<string, Set<string>>();
    for (const message of messages) {
      for (const part of message.parts as Array<{
        type?: string;
        sessionID?: string;
        tool?: string;
        state?: { status?: string; time?: { compacted?: number }; metadata?: Record<string, unknown> };
      }>) {
        if (part?.type !== "tool" || part.state?.status !== "completed" || !part.state.time?.compacted) continue;
        const sessionID = part.sessionID ?? message.info.sessionID;
        if (!sessionID || !this.#sessions.has(sessionID)) continue;
        const carried = (part.state.metadata?.[METADATA_KEY] as { files?: Array<{ path?: unknown }> } | undefined)?.files ?? [];
        const paths = [...carried.map((file) => file.path), ...(part.tool === "read" ? nativeLoaded(part.state.metadata) : [])].filter(
          (path): path is string => typeof path === "string",
        );
        if (paths.length === 0) continue;
        let set = lost.get(sessionID);
        if (!set) lost.set(sessionID, (set = new Set()));
        for (const path of paths) set.add(path);
      }
    }
    for (const [sessionID, paths] of lost) {
      const entry = await this.session(sessionID);
      const drop = prunedFromView(entry.session, paths);
      if (drop.length === 0) continue;
      for (const path of drop) entry.delivered.delete(path);
      await this.#save(entry);
    }
  }

  /** Closes every session (plugin disposal). */
  async dispose(): Promise<void> {
    const entries = [...this.#sessions.values()];
    this.#sessions.clear();
    (await this.#listed)?.close();
    for (const entry of entries) {
      const resolved = await entry.catch(() => undefined);
      await resolved?.saving;
      await resolved?.session.close();
    }
  }

  /** The V1 hooks. Errors never fail a tool call: a hook that cannot work leaves the output alone. */
  hooks(): Hooks {
    const deadlines = guardOf(this.fs);
    const guard = async (run: () => Promise<void>): Promise<void> => {
      // A deadline per plugin call: past it the call gives up (nothing admitted) and the host goes on.
      const release = deadlines.arm(new Deadline(deadlineMsOf(this.env), monotonicMs));
      try {
        await run();
      } catch {
        // Never break the host's tool call or compaction.
      } finally {
        release();
      }
    };
    return {
      "tool.execute.after": (input, output) => guard(() => this.afterTool(input, output)),
      "experimental.session.compacting": (input, output) => guard(() => this.compacting(input, output)),
      "experimental.chat.messages.transform": (_input, output) => guard(() => this.messages(output.messages)),
      event: ({ event }) =>
        guard(async () => {
          if (event.type === "session.compacted") await this.compacted(event.properties.sessionID);
          else if (event.type === "session.deleted") await this.deleted(event.properties.info.id);
        }),
      dispose: () => guard(() => this.dispose()),
    };
  }
}

/**
 * The plugin function of `host` and the module shape both CLIs load alone (`{ id, server }`: only
 * `default.server` is loaded when the default export is that).
 */
export function familyPlugin(host: FamilyPluginHost): { server: Plugin; module: PluginModule } {
  const server: Plugin = async (input, options) =>
    new FamilyAgents(host, { directory: input.directory, worktree: input.worktree }, parseFamilyOptions(host, options)).hooks();
  return { server, module: { id: "agentsmd", server } };
}
