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
 *   lists or writes (host/shell-paths.ts: `cat`, `sed`, `rg`, `ls`, redirections, ...): appends to the tool result the instruction
 *   files that newly apply to the touched path (root -> path, the first of AGENTS.override.md,
 *   AGENTS.md, AGENTS.MD, CLAUDE.md, CLAUDE.MD per directory; reads outside cwd and writes to new
 *   directories included); an edited file comes back once; a file the model read itself counts as had;
 * - `session_compact`: files whose carrying messages were summarised away are given again at once
 *   (a hidden custom message); files still in the kept messages are not repeated.
 * Every event goes through the shared host layer (host/conversation.ts: the one conversation engine, through host/deliver.ts; the
 * conversation store under `$XDG_STATE_HOME/agentsmd/pi/`, so `pi --session-id`/`--continue` does not
 * repeat anything); this module is pi's profile (event -> targets, what pi loaded itself, framing)
 * and the handlers. Each delivery records its files in the message's `details` (`agentsmd.files`),
 * so what survives a compaction is read from pi's own session.
 *
 * @example
 * pi install npm:agentsmd        # the package's `pi` manifest names this module
 * pi -e npm:agentsmd             # one run only
 */
import { monotonicMs } from "../../io/cache.js";
import { homedir } from "node:os";
import * as z from "zod/mini";
import "../../core/zod-locale.js";
import { nodeFileSystem } from "../../io/file-system.js";
import { absolute, homeFromEnv, nameOf, optionDir } from "../../core/paths.js";
import { handleHostEvent } from "../host/deliver.js";
import { Deadline, deadlineMsOf } from "../../core/deadline.js";
import type { HostEvent, HostProfile, NativeAnswer, NativeOrigin } from "../host/profile.js";
import { hostStateDir } from "../host/store.js";
import { PI_NAMES } from "../../presets/pi.js";
import { once } from "../../core/config-schema.js";
import { PI_FILE_TOOLS, PI_SHELL_TOOL, piToolTargets } from "./targets.js";

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
  cwd: z.string().check(z.minLength(1)),
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
  details: z.optional(z.unknown()),
});

const BeforeStartSchema = z.object({
  systemPromptOptions: z.looseObject({ contextFiles: z.optional(z.array(z.looseObject({ path: z.string() }))) }),
});

/** Files a message carried, as recorded in its `details`. */
const CarriedSchema = z.object({ files: z.array(z.object({ path: z.string(), mtimeMs: z.number() })) });

export const PiExtensionOptionsSchema = z.strictObject({
  /** Session caps for bodies the extension delivers (`lazy.maxFiles` / `lazy.maxBytes`). @default unlimited, as pi */
  maxFiles: z.optional(z.number().check(z.int(), z.positive())),
  maxBytes: z.optional(z.number().check(z.int(), z.positive())),
  /** Directory names never entered (`lazy.exclude`). @default node_modules, .git, dist, build, vendor, ... */
  exclude: z.optional(z.array(z.string().check(z.minLength(1)))),
  /** Where per-session state lives: an absolute path or one under `~/` (a relative one is refused). @default $XDG_STATE_HOME/agentsmd/pi */
  stateDir: z.optional(z.string().check(z.minLength(1))),
  /** Extra agentsmd config merged under the options above. */
  config: z.optional(z.record(z.string(), z.unknown())),
});
export type PiExtensionOptions = z.infer<typeof PiExtensionOptionsSchema>;

/**
 * `$XDG_STATE_HOME/agentsmd/pi`, else `~/.local/state/agentsmd/pi`.
 * @example piStateDir("/home/me", {}) // "/home/me/.local/state/agentsmd/pi"
 */
export function piStateDir(home: string, env: Readonly<Record<string, string | undefined>>): string {
  return hostStateDir("pi", env, home);
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

/** What one pi event means, as the host layer's profile reads it (built by the handlers below). */
export const PiHookInputSchema = z.strictObject({
  kind: z.enum(["prompt", "tool", "compact"]),
  sessionId: z.string().check(z.minLength(1)),
  cwd: z.string().check(z.minLength(1)),
  targets: z._default(z.array(z.string()).check(z.maxLength(256)), []),
  read: z.optional(z.enum(["whole", "part"])),
});
export type PiHookInput = z.infer<typeof PiHookInputSchema>;

/** What one delivery carried: its text, and the files shown (recorded in pi's message `details`). */
export interface PiDelivery {
  text: string;
  files: Array<{ path: string; mtimeMs: number }>;
}

const NOTHING: PiDelivery = { text: "", files: [] };

/** pi has no size limit on what an extension adds; what one answer may hold. */
const PI_BUDGET = { limit: 4 * 1024 * 1024, default: 1024 * 1024 };

/** pi keeps no per-conversation fields of its own. */
const noFields = once(() => z.strictObject({}) as unknown as z.ZodMiniType<Record<string, never>>);

/**
 * pi as a host profile. `native` answers from two maps this process knows: pi's own context files
 * at the version pi read (`had`), and, after a compaction, the files still carried by the kept
 * messages (`kept`). Every file it answers "no" for is recorded in `shown` (the answer carries it).
 * @example const profile = piProfile({ had: new Map(), kept: new Map(), shown: [] });
 */
export function piProfile(maps: {
  had: ReadonlyMap<string, number>;
  kept: ReadonlyMap<string, number>;
  shown: Array<{ path: string; mtimeMs: number }>;
}): HostProfile<PiHookInput, Record<string, never>, string> {
  return {
    host: "pi",
    displayName: "pi",
    input: PiHookInputSchema,
    inputFix: "load agentsmd as a pi extension (`pi install npm:agentsmd`)",
    normalize: (input): HostEvent => ({
      kind: input.kind,
      conversation: { id: input.sessionId },
      cwd: input.cwd,
      targets: input.targets,
      read: input.read,
    }),
    preset: "pi",
    budget: PI_BUDGET,
    headers: {
      startup:
        "agentsmd: the instruction files below apply to this project. A file governs its directory and everything below it; deeper files are more specific.",
      compact:
        "agentsmd: the instruction files that applied before this conversation was compacted, most specific first. A file governs its directory and everything below it.",
      tool: (targets) => `agentsmd: ${targets} is governed by these instruction files, not shown before in this conversation (most specific first):`,
      updated: "agentsmd: these instruction files were edited since they were shown in this conversation; their text now:",
    },
    frame: (text) => text,
    state: { schema: noFields, init: async () => ({}) },
    async native(path: string, origin: NativeOrigin, context): Promise<NativeAnswer> {
      const info = await context.fs.stat(path).catch(() => null);
      const mtimeMs = info?.kind === "file" ? info.mtimeMs : undefined;
      if (mtimeMs !== undefined && maps.had.get(path) === mtimeMs) return "loaded";
      if (origin === "restore" && mtimeMs !== undefined && maps.kept.get(path) === mtimeMs) return "loaded";
      // pi loads the root -> cwd chain itself; one it did not load (`--no-context-files`) is not forced on it.
      if (origin === "initial") return "later";
      if (mtimeMs !== undefined) maps.shown.push({ path, mtimeMs });
      return "no";
    },
    onPrompt: "redeliver",
  };
}

/** The extension's machinery on the host layer, exposed for tests and for embedders (pi's SDK). */
export class PiAgents {
  readonly options: PiExtensionOptions;
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stateDir: string;
  /** pi session id -> pi's own context files, at the version on disk when this process first saw them. */
  readonly #had = new Map<string, Map<string, number>>();

  constructor(options: PiExtensionOptions = {}, context: { home?: string; env?: Readonly<Record<string, string | undefined>> } = {}) {
    this.options = PiExtensionOptionsSchema.parse(options);
    this.env = context.env ?? process.env;
    this.home = context.home ?? homeFromEnv(this.env, homedir);
    this.stateDir =
      this.options.stateDir !== undefined
        ? optionDir("stateDir", this.options.stateDir, this.home, { owner: "agentsmd/pi extension options", where: "the createPiExtension call" })
        : piStateDir(this.home, this.env);
  }

  #config(): Record<string, unknown> | undefined {
    const o = this.options;
    if (o.config === undefined && o.maxFiles === undefined && o.maxBytes === undefined && o.exclude === undefined) return undefined;
    const config: Record<string, unknown> = { ...(o.config ?? {}) };
    config.lazy = {
      ...(config.lazy ?? {}),
      ...(o.maxFiles !== undefined ? { maxFiles: o.maxFiles } : {}),
      ...(o.maxBytes !== undefined ? { maxBytes: o.maxBytes } : {}),
      ...(o.exclude !== undefined ? { exclude: o.exclude } : {}),
    };
    return config;
  }

  /** One event through the host layer's delivery algorithm. */
  async #deliver(input: PiHookInput, kept: ReadonlyMap<string, number> = new Map()): Promise<PiDelivery> {
    const shown: Array<{ path: string; mtimeMs: number }> = [];
    const profile = piProfile({ had: this.#had.get(input.sessionId) ?? new Map(), kept, shown });
    const config = this.#config();
    const text = await handleHostEvent(profile, input, {
      env: this.env,
      home: this.home,
      // A deadline per extension call: past it the call answers nothing and admits nothing.
      deadline: new Deadline(deadlineMsOf(this.env), monotonicMs),
      stateDir: this.stateDir,
      ...(config !== undefined ? { session: { config } } : {}),
    });
    return text === null ? NOTHING : { text, files: shown };
  }

  /** Records pi's context files (once per process: pi reads them at startup) at their version now. */
  async #recordHad(sessionId: string, cwd: string, contextFiles: readonly string[]): Promise<void> {
    if (this.#had.has(sessionId)) return;
    const had = new Map<string, number>();
    for (const path of new Set(contextFiles.map((file) => absolute(file, cwd)))) {
      const info = await nodeFileSystem.stat(path).catch(() => null);
      if (info?.kind === "file") had.set(path, info.mtimeMs);
    }
    this.#had.set(sessionId, had);
  }

  /**
   * `before_agent_start`: pi's context files are had; every file delivered earlier and edited since
   * comes back (a hidden message). The first prompt of a conversation delivers nothing.
   */
  async beforeStart(sessionId: string, cwd: string, contextFiles: readonly string[]): Promise<PiDelivery> {
    await this.#recordHad(sessionId, cwd, contextFiles);
    return this.#deliver({ kind: "prompt", sessionId, cwd, targets: [] });
  }

  /** `tool_result`: the files newly applicable to what the tool touched. */
  async afterTool(sessionId: string, cwd: string, tool: string, input: Readonly<Record<string, unknown>>): Promise<PiDelivery> {
    if (tool === PI_SHELL_TOOL) {
      const shell = await this.#shellTargets(input.command, cwd);
      if (!shell || shell.targets.length === 0) return NOTHING;
      // An instruction file a command printed (`cat AGENTS.md`): the model has it.
      const printed = shell.read.find((path) => PI_NAMES.includes(nameOf(path)));
      const targets = printed ? [printed, ...shell.targets.filter((path) => path !== printed)] : shell.targets;
      return this.#deliver({ kind: "tool", sessionId, cwd, targets, ...(printed ? { read: "whole" as const } : {}) });
    }
    if (!Object.hasOwn(PI_FILE_TOOLS, tool)) return NOTHING;
    const targets = piToolTargets(tool, input, cwd, this.home);
    if (targets.length === 0) return NOTHING;
    const read = tool === "read" ? (input.offset === undefined && input.limit === undefined ? "whole" : "part") : undefined;
    return this.#deliver({ kind: "tool", sessionId, cwd, targets, ...(read ? { read } : {}) });
  }

  /** The paths a shell command reads, lists or writes (host/shell-paths.ts; nothing for a command it cannot read with certainty). */
  async #shellTargets(command: unknown, cwd: string): Promise<{ targets: string[]; read: string[] } | null> {
    if (typeof command !== "string") return null;
    // The shell reader (shell-quote) loads on the first bash call, not with the extension.
    const [{ shellCommandPaths }, { settleShellPaths }] = await Promise.all([import("../host/shell-paths.js"), import("../host/shell-targets.js")]);
    const parsed = shellCommandPaths(command, { cwd, home: this.home });
    if (!parsed.ok) return null;
    const targets = await settleShellPaths(parsed.paths, nodeFileSystem);
    const read = parsed.paths.filter((path) => path.use === "read" && !path.glob && !path.gitRoot && !path.ifExists).map((path) => path.path);
    return { targets, read };
  }

  /**
   * `session_compact`: the files of earlier deliveries that no kept message carries are given again.
   * `kept`: the files the kept messages carry (see {@link carriedFiles}).
   */
  compacted(sessionId: string, cwd: string, kept: ReadonlyMap<string, number>): Promise<PiDelivery> {
    return this.#deliver({ kind: "compact", sessionId, cwd, targets: [] }, kept);
  }

  /** Forgets this process's view of pi's files (pi's `session_shutdown`); state files stay for `--continue`. */
  async dispose(): Promise<void> {
    this.#had.clear();
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
