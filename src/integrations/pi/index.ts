/**
 * `agentsmd/pi`: a pi extension (pi 0.87, `@earendil-works/pi-coding-agent`) that adds the nested
 * AGENTS.md files pi leaves to extensions, and never repeats what pi loaded itself.
 *
 * pi puts its global file and one instruction file per directory from `/` down to cwd in the
 * system prompt once, at startup (preset `pi`). This extension:
 * - `before_agent_start`: takes pi's own list of those files (`systemPromptOptions.contextFiles`)
 *   as what the model has, at the version on disk now (once per process: pi reads them at
 *   startup); then gives again, as a hidden custom message, every file it delivered that was
 *   edited since (also across a `--session-id` restart) and names the deleted ones;
 * - `tool_result` of read, edit, write, grep, find, ls, and of bash for the paths its command reads,
 *   lists or writes (codex/shell-paths.ts: `cat`, `sed`, `rg`, `ls`, redirections, ...): appends to the tool result the instruction
 *   files that newly apply to the touched path (root -> path, the first of AGENTS.override.md,
 *   AGENTS.md, AGENTS.MD, CLAUDE.md, CLAUDE.MD per directory; reads outside cwd and writes to new
 *   directories included); an edited file comes back once; a file the model read itself counts as had;
 * - `session_compact`: files whose carrying messages were summarised away are given again at once
 *   (a hidden custom message); files still in the kept messages are not repeated.
 * Each delivery records its files in the message's `details` (`agentsmd.files`), so what survives a
 * compaction is read from pi's own session. State per pi session is persisted atomically under
 * `$XDG_STATE_HOME/agentsmd/pi/`, so `pi --session-id`/`--continue` does not repeat anything.
 *
 * @example
 * pi install npm:agentsmd        # the package's `pi` manifest names this module
 * pi -e npm:agentsmd             # one run only
 */
import { homedir } from "node:os";
import * as z from "zod";
import { createSession, restoreSession, type AgentsSession } from "../../session/session.js";
import { readStateFile, writeStateFile } from "../../io/state-store.js";
import { nodeFileSystem } from "../../io/file-system.js";
import { absolute, join, nameOf, parentOf, xdgDir, homeFromEnv } from "../../core/paths.js";
import type { AgentsConfig, InlineBlock } from "../../core/schema.js";
import { PI_FILE_TOOLS, PI_SHELL_TOOL, piToolTargets } from "./targets.js";
import { shellCommandPaths } from "../codex/shell-paths.js";
import { settleShellPaths } from "../codex/targets.js";

/** The custom message type and the `details` key agentsmd uses in pi sessions. */
export const PI_CUSTOM_TYPE = "agentsmd";

/** The parts of pi's extension API this extension uses (structural: pi is not a dependency). */
export interface PiExtensionAPI {
  // `any`: pi's own `on` is a set of overloads with exact event types; this must accept it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: string, handler: (event: any, ctx: any) => unknown): unknown;
  sendMessage(
    message: { customType: string; content: string; display: boolean; details?: unknown },
    options?: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" | "nextTurn" },
  ): unknown;
}

/** What the extension reads of pi's extension context. */
const ContextSchema = z.object({
  cwd: z.string().min(1),
  sessionManager: z.object({
    getSessionId: z.custom<() => string>((value) => typeof value === "function"),
    buildContextEntries: z.custom<() => unknown[]>((value) => typeof value === "function"),
  }),
});
/** The context as the handlers use it (methods called on pi's own objects). */
interface PiContext {
  cwd: string;
  sessionId(): string;
  contextEntries(): unknown[];
}

const ToolResultSchema = z.object({
  toolName: z.string(),
  input: z.record(z.string(), z.unknown()),
  content: z.array(z.unknown()),
  details: z.unknown().optional(),
});

const BeforeStartSchema = z.object({
  systemPromptOptions: z.object({ contextFiles: z.array(z.object({ path: z.string() }).loose()).optional() }).loose(),
});

/** Files a message carried, as recorded in its `details`. */
const CarriedSchema = z.object({ files: z.array(z.object({ path: z.string(), mtimeMs: z.number() })) });

export const PiExtensionOptionsSchema = z
  .object({
    /** Session caps for bodies the extension delivers (`lazy.maxFiles` / `lazy.maxBytes`). @default unlimited, as pi */
    maxFiles: z.number().int().positive().optional(),
    maxBytes: z.number().int().positive().optional(),
    /** Directory names never entered (`lazy.exclude`). @default node_modules, .git, dist, build, vendor, ... */
    exclude: z.array(z.string().min(1)).optional(),
    /** Where per-session state lives. @default $XDG_STATE_HOME/agentsmd/pi */
    stateDir: z.string().min(1).optional(),
    /** Extra agentsmd config merged under the options above. */
    config: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type PiExtensionOptions = z.infer<typeof PiExtensionOptionsSchema>;

interface Entry {
  session: AgentsSession;
  /** pi's context files were taken as had in this process. */
  native: boolean;
  saving: Promise<void>;
}

/**
 * `$XDG_STATE_HOME/agentsmd/pi`, else `~/.local/state/agentsmd/pi`.
 * @example piStateDir("/home/me", {}) // "/home/me/.local/state/agentsmd/pi"
 */
export function piStateDir(home: string, env: Readonly<Record<string, string | undefined>>): string {
  return join(xdgDir(env, "XDG_STATE_HOME", home, ".local/state"), "agentsmd/pi");
}

/** `text` appended to a tool result's content. */
function appended(content: readonly unknown[], text: string): unknown[] {
  return [...content, { type: "text", text }];
}

/** `details` with the files a delivery carried (an object's own keys kept). */
function withCarried(details: unknown, files: ReadonlyArray<{ path: string; mtimeMs: number }>): Record<string, unknown> {
  const base = details !== null && typeof details === "object" && !Array.isArray(details) ? (details as Record<string, unknown>) : {};
  return { ...base, [PI_CUSTOM_TYPE]: { files: files.map(({ path, mtimeMs }) => ({ path, mtimeMs })) } };
}

/**
 * The files the messages still in the model's context carry (pi's kept entries after a compaction).
 * @example carriedFiles(ctx.contextEntries()) // Map { "/r/pkg/AGENTS.md" => 1700000000000 }
 */
export function carriedFiles(entries: readonly unknown[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of entries) {
    if (entry === null || typeof entry !== "object") continue;
    const record = entry as { type?: unknown; customType?: unknown; details?: unknown; message?: { details?: unknown } };
    const details = record.type === "custom_message" && record.customType === PI_CUSTOM_TYPE ? record.details : record.message?.details;
    const carried = CarriedSchema.safeParse((details as Record<string, unknown> | undefined)?.[PI_CUSTOM_TYPE]);
    if (carried.success) for (const file of carried.data.files) out.set(file.path, file.mtimeMs);
  }
  return out;
}

/** The extension's machinery, exposed for tests and for embedders (pi's SDK). */
export class PiAgents {
  readonly options: PiExtensionOptions;
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stateDir: string;
  readonly #sessions = new Map<string, Promise<Entry>>();

  constructor(options: PiExtensionOptions = {}, context: { home?: string; env?: Readonly<Record<string, string | undefined>> } = {}) {
    this.options = PiExtensionOptionsSchema.parse(options);
    this.env = context.env ?? process.env;
    this.home = context.home ?? homeFromEnv(this.env, homedir);
    this.stateDir = this.options.stateDir ?? piStateDir(this.home, this.env);
  }

  /** The state file of a pi session (ids are sanitised). */
  statePath(sessionId: string): string {
    return join(this.stateDir, `${sessionId.replace(/[^A-Za-z0-9_-]/g, "_")}.json`);
  }

  #config(): AgentsConfig {
    const o = this.options;
    const config: Record<string, unknown> = { ...(o.config ?? {}) };
    if (o.maxFiles !== undefined || o.maxBytes !== undefined || o.exclude !== undefined) {
      config.lazy = {
        ...((config.lazy as object | undefined) ?? {}),
        ...(o.maxFiles !== undefined ? { maxFiles: o.maxFiles } : {}),
        ...(o.maxBytes !== undefined ? { maxBytes: o.maxBytes } : {}),
        ...(o.exclude !== undefined ? { exclude: o.exclude } : {}),
      };
    }
    return config as AgentsConfig;
  }

  /** The session of a pi session id: in memory, else restored from its state file, else new. */
  session(sessionId: string, cwd: string): Promise<Entry> {
    let entry = this.#sessions.get(sessionId);
    if (!entry) {
      entry = this.#open(sessionId, cwd);
      this.#sessions.set(sessionId, entry);
      entry.catch(() => this.#sessions.delete(sessionId));
    }
    return entry;
  }

  async #open(sessionId: string, cwd: string): Promise<Entry> {
    const stored = await readStateFile(this.statePath(sessionId)).catch(() => null);
    const session = stored
      ? (await restoreSession(stored, { cwd, home: this.home, env: this.env, admit: false })).session
      : await createSession({ cwd, home: this.home, env: this.env, preset: "pi", config: this.#config() });
    return { session, native: false, saving: Promise.resolve() };
  }

  #save(sessionId: string, entry: Entry): Promise<void> {
    const path = this.statePath(sessionId);
    entry.saving = entry.saving.then(() => writeStateFile(path, entry.session.snapshot())).catch(() => undefined);
    return entry.saving;
  }

  /** Admits `paths` at their version on disk now. */
  async #admitCurrent(session: AgentsSession, paths: Iterable<string>): Promise<void> {
    const files: Array<{ path: string; mtimeMs: number }> = [];
    for (const path of new Set(paths)) {
      const info = await nodeFileSystem.stat(path).catch(() => null);
      if (info?.kind === "file" && session.loadedVersion(path)?.mtimeMs !== info.mtimeMs) files.push({ path, mtimeMs: info.mtimeMs });
    }
    session.admit(files);
  }

  /**
   * `before_agent_start`: pi's context files are had; later prompts get edited files again.
   * Returns the text of a hidden message for the model ("" for none) and the files it carries.
   */
  async beforeStart(
    sessionId: string,
    cwd: string,
    contextFiles: readonly string[],
  ): Promise<{ text: string; files: Array<{ path: string; mtimeMs: number }> }> {
    const entry = await this.session(sessionId, cwd);
    const { session } = entry;
    if (!entry.native) {
      // The first prompt of this process: pi just loaded these from disk.
      const had = new Set(contextFiles.map((path) => absolute(path, cwd)));
      session.forget(session.initialFiles.filter((file) => !had.has(file.path)));
      await this.#admitCurrent(session, had);
      entry.native = true;
    }
    const result = await session.refresh({ admit: false, inline: true });
    const whole = result.blocks.filter((block) => !block.truncated);
    const wholePaths = new Set(whole.map((block) => block.path));
    session.release(result.changed.filter((file) => !wholePaths.has(file.path)));
    const text = session.refreshNotice({ ...result, changed: result.changed.filter((file) => wholePaths.has(file.path)), blocks: whole });
    if (text === "") {
      await this.#save(sessionId, entry);
      return { text: "", files: [] };
    }
    session.admit(whole);
    session.forget(result.deleted);
    await this.#save(sessionId, entry);
    return { text, files: whole.map(({ path, mtimeMs }) => ({ path, mtimeMs })) };
  }

  /** `tool_result`: the text to append for the files newly applicable to what the tool touched, and those files. */
  async afterTool(
    sessionId: string,
    cwd: string,
    tool: string,
    input: Readonly<Record<string, unknown>>,
  ): Promise<{ text: string; files: Array<{ path: string; mtimeMs: number }> }> {
    const shell = tool === PI_SHELL_TOOL ? await this.#shellTargets(input.command, cwd) : null;
    const targets = shell ? shell.targets : Object.hasOwn(PI_FILE_TOOLS, tool) ? piToolTargets(tool, input, cwd, this.home) : [];
    if (targets.length === 0) return { text: "", files: [] };
    const entry = await this.session(sessionId, cwd);
    const { session } = entry;
    const isInstruction = (path: string) => session.cache.names.some((name) => nameOf(name) === nameOf(path));
    // The model read an instruction file itself (whole with `read`; `cat` and the like in a shell): it has that version.
    if (tool === "read" && input.offset === undefined && input.limit === undefined && isInstruction(targets[0]!)) await this.#admitCurrent(session, targets);
    if (shell) await this.#admitCurrent(session, shell.read.filter(isInstruction));
    const written = tool === "edit" || tool === "write" ? targets : (shell?.written ?? []);
    // Files just changed: do not trust a cached probe of them or of their directories.
    for (const target of written) {
      session.cache.invalidate(target);
      session.cache.invalidateDir(parentOf(target));
    }
    const blocks: InlineBlock[] = await session.touch(targets, { admit: false });
    const text = session.renderInline(blocks);
    if (text === "") {
      session.release(blocks);
      return { text: "", files: [] };
    }
    // Handed over by the caller's return value: admitted now.
    session.admit(blocks);
    await this.#save(sessionId, entry);
    return { text, files: blocks.map(({ path, mtimeMs }) => ({ path, mtimeMs })) };
  }

  /** The paths a shell command reads, lists or writes (codex/shell-paths.ts; nothing for a command it cannot read with certainty). */
  async #shellTargets(command: unknown, cwd: string): Promise<{ targets: string[]; read: string[]; written: string[] } | null> {
    if (typeof command !== "string") return null;
    const parsed = shellCommandPaths(command, { cwd, home: this.home });
    if (!parsed.ok) return null;
    const targets = await settleShellPaths(parsed.paths, nodeFileSystem);
    const plain = (use: string) => parsed.paths.filter((path) => path.use === use && !path.glob && !path.gitRoot && !path.ifExists).map((path) => path.path);
    return { targets, read: plain("read"), written: plain("write") };
  }

  /**
   * `session_compact`: path-layer files no kept message carries any more are given again.
   * `kept`: the files the kept messages carry (see {@link carriedFiles}).
   */
  async compacted(
    sessionId: string,
    cwd: string,
    kept: ReadonlyMap<string, number>,
  ): Promise<{ text: string; files: Array<{ path: string; mtimeMs: number }> }> {
    const entry = await this.session(sessionId, cwd);
    const { session } = entry;
    const lost = session.admitted().filter((file) => file.layer === "path" && kept.get(file.path) !== file.mtimeMs);
    if (lost.length === 0) return { text: "", files: [] };
    session.forget(lost);
    const blocks = await session.touch(
      lost.map((file) => file.path),
      { admit: false },
    );
    const text = session.renderInline(blocks);
    if (text === "") {
      session.release(blocks);
      await this.#save(sessionId, entry);
      return { text: "", files: [] };
    }
    session.admit(blocks);
    await this.#save(sessionId, entry);
    return { text, files: blocks.map(({ path, mtimeMs }) => ({ path, mtimeMs })) };
  }

  /** Saves and closes every session (pi's `session_shutdown`). */
  async dispose(): Promise<void> {
    const entries = [...this.#sessions.values()];
    this.#sessions.clear();
    for (const entry of entries) {
      const resolved = await entry.catch(() => undefined);
      await resolved?.saving;
      await resolved?.session.close();
    }
  }

  /**
   * Registers the handlers on pi's extension API. A handler that fails leaves pi's data alone.
   * @example new PiAgents().register(pi);
   */
  register(pi: PiExtensionAPI): void {
    const context = (ctx: unknown): PiContext | null => {
      if (!ContextSchema.safeParse(ctx).success) return null;
      const raw = ctx as { cwd: string; sessionManager: { getSessionId(): string; buildContextEntries(): unknown[] } };
      return { cwd: raw.cwd, sessionId: () => raw.sessionManager.getSessionId(), contextEntries: () => raw.sessionManager.buildContextEntries() };
    };
    const guard = async <T>(run: () => Promise<T | undefined>): Promise<T | undefined> => {
      try {
        return await run();
      } catch {
        return undefined; // never break pi's turn
      }
    };
    const on = (name: string, handler: (event: unknown, ctx: unknown) => Promise<unknown>) => pi.on(name, handler);
    on("before_agent_start", (event, raw) =>
      guard(async () => {
        const ctx = context(raw);
        const parsed = BeforeStartSchema.safeParse(event);
        if (!ctx || !parsed.success) return undefined;
        const files = (parsed.data.systemPromptOptions.contextFiles ?? []).map((file) => file.path);
        const result = await this.beforeStart(ctx.sessionId(), ctx.cwd, files);
        if (result.text === "") return undefined;
        return { message: { customType: PI_CUSTOM_TYPE, content: result.text, display: false, details: withCarried(undefined, result.files) } };
      }),
    );
    on("tool_result", (event, raw) =>
      guard(async () => {
        const ctx = context(raw);
        const parsed = ToolResultSchema.safeParse(event);
        if (!ctx || !parsed.success) return undefined;
        const result = await this.afterTool(ctx.sessionId(), ctx.cwd, parsed.data.toolName, parsed.data.input);
        if (result.text === "") return undefined;
        return { content: appended(parsed.data.content, result.text), details: withCarried(parsed.data.details, result.files) };
      }),
    );
    on("session_compact", (_event, raw) =>
      guard(async () => {
        const ctx = context(raw);
        if (!ctx) return undefined;
        const kept = carriedFiles(ctx.contextEntries());
        const result = await this.compacted(ctx.sessionId(), ctx.cwd, kept);
        if (result.text !== "") {
          await pi.sendMessage(
            { customType: PI_CUSTOM_TYPE, content: result.text, display: false, details: withCarried(undefined, result.files) },
            { deliverAs: "steer" },
          );
        }
        return undefined;
      }),
    );
    on("session_shutdown", () => guard(() => this.dispose()));
  }
}

/**
 * An extension factory with options (for a wrapper file or pi's SDK `extensionFactories`).
 * @example
 * // ~/.pi/agent/extensions/agentsmd.ts
 * import { createPiExtension } from "agentsmd/pi";
 * export default createPiExtension({ maxFiles: 20 });
 */
export function createPiExtension(options: PiExtensionOptions = {}): (pi: PiExtensionAPI) => void {
  return (pi) => new PiAgents(options).register(pi);
}

/**
 * The extension pi loads (`pi install npm:agentsmd`, `pi -e npm:agentsmd`).
 * @example export { default } from "agentsmd/pi";
 */
export default function agentsmdPi(pi: PiExtensionAPI): void {
  new PiAgents().register(pi);
}
