/**
 * The agentsmd Amp plugin (Amp's plugin API, "experimental", run with `PLUGINS=all amp`)
 * that adds what Amp does not load itself, and never repeats what it did.
 *
 * Amp loads its instruction files itself (preset `amp`): the chain from the workspace up at the
 * start, and, after its file tools, the nested files of the directories below the workspace it
 * has not given in this thread (`discoveredGuidanceFiles` in the tool's result). This plugin:
 * - `tool.result` of Read, edit_file, create_file, Grep, glob, and of Bash for the paths its
 *   command reads, lists or writes (host/shell-paths.ts): appends to the tool's output what
 *   newly applies to the touched path and Amp did not give: scoped rules of other formats, files
 *   outside the workspace, and an instruction file edited since the model saw it (Amp gives each
 *   file once per thread, at the version it first read);
 * - `agent.start` (a user message): every file the model has that was edited since comes back,
 *   appended to the user's message (Amp shows it: its API takes only a displayed message).
 * Amp's plugin API has no compaction event: after one, nothing is given again (docs/hosts/amp.md).
 *
 * Every event goes through the shared host layer (host/deliver.ts, the one conversation engine;
 * the conversation store under `$XDG_STATE_HOME/agentsmd/amp/`, one per Amp thread id).
 *
 * Event and result shapes: Amp's plugin runtime in `@sourcegraph/amp` 0.0.1777897475-g2324e1 (the
 * `@ampcode/plugin` types are not on the registry); unproven against an Amp binary.
 */
import { homedir } from "node:os";
import * as z from "zod/mini";
import { monotonicMs } from "../../io/cache.js";
import { nodeFileSystem } from "../../io/file-system.js";
import { absolute, homeFromEnv, isInside, nameOf } from "../../core/paths.js";
import { Deadline, deadlineMsOf } from "../../core/deadline.js";
import { handleHostEvent } from "../host/deliver.js";
import type { HostEvent, HostProfile, NativeAnswer, NativeOrigin } from "../host/profile.js";
import { hostStateDir } from "../host/store.js";
import { toolTargets } from "../host/targets.js";
import { AMP_NAMES } from "../../presets/amp.js";
import { AMP_DISCOVERS, AMP_SHELL_TOOL, AMP_TARGETS, discoveredPaths } from "./targets.js";

/**
 * The parts of Amp's plugin API this plugin uses (structural: Amp is not a dependency).
 * `on` returns a subscription; a request handler's return value is Amp's answer.
 */
export interface AmpPluginAPI {
  on(event: string, handler: (event: unknown, ctx: unknown) => unknown): unknown;
}

/** What a `tool.result` handler may answer: the result Amp then uses (`output` replaces the tool's). */
interface AmpToolResult {
  status: "done";
  output: unknown;
}

/** What an `agent.start` handler may answer: text appended to the user's message. */
interface AmpAgentStart {
  message: { content: string; display: true };
}

/** One plugin event, as the host layer's profile reads it (built by the handlers below). */
const AmpInputSchema = z.strictObject({
  kind: z.enum(["prompt", "tool"]),
  thread: z.string().check(z.minLength(1), z.maxLength(256)),
  cwd: z.string().check(z.minLength(1)),
  targets: z.array(z.string()).check(z.maxLength(256)),
  read: z.optional(z.enum(["whole", "part"])),
});
type AmpInput = z.infer<typeof AmpInputSchema>;

/** Amp sets no size limit on a tool's output a plugin returns; what one answer may hold. */
const AMP_BUDGET = { limit: 4 * 1024 * 1024, default: 1024 * 1024 };

const noFields = () => z.strictObject({}) as unknown as z.ZodMiniType<Record<string, never>>;

/** What one tool call tells the profile about Amp's own delivery. */
interface ToolFacts {
  tool: string | null;
  /** The files Amp attached to this tool's result itself. */
  discovered: ReadonlySet<string>;
}

/**
 * Whether Amp gives `path` itself after `tool`: a file of Amp's names, in a directory strictly
 * below the workspace, the first of Amp's names there. Amp's discovery walks from the touched
 * file's directory up to the workspace (excluded), once per thread.
 */
async function ampWouldGive(path: string, workspace: string, exists: (path: string) => Promise<boolean>): Promise<boolean> {
  const name = nameOf(path);
  const at = AMP_NAMES.indexOf(name);
  if (at < 0) return false;
  const dir = path.slice(0, path.length - name.length - 1);
  if (dir === workspace || !isInside(dir, workspace)) return false;
  for (const earlier of AMP_NAMES.slice(0, at)) if (await exists(`${dir}/${earlier}`)) return false;
  return true;
}

/**
 * Amp as a host profile. `native`: at the start, what preset `amp` loads (Amp's own startup
 * files); after a tool, the files Amp attached to that result itself (`facts.discovered`), and,
 * after a tool Amp runs no discovery for (Grep, glob), the nested files of its names it gives at
 * the next read there ("later"); everything else is agentsmd's to deliver.
 */
function ampProfile(facts: ToolFacts): HostProfile<AmpInput, Record<string, never>, string> {
  return {
    host: "amp",
    displayName: "Amp",
    input: AmpInputSchema,
    inputFix: "load agentsmd as an Amp plugin (`agentsmd setup amp`, then `PLUGINS=all amp`)",
    normalize: (input): HostEvent => ({
      kind: input.kind,
      conversation: { id: input.thread },
      cwd: input.cwd,
      targets: input.targets,
      ...(input.read ? { read: input.read } : {}),
    }),
    preset: "amp",
    budget: AMP_BUDGET,
    headers: {
      startup: "agentsmd: the instruction files below apply to this project. A file governs its directory and everything below it.",
      compact: "agentsmd: the instruction files that applied before this thread was compacted, most specific first.",
      tool: (targets) => `agentsmd: ${targets} is governed by these instructions, not given before in this thread (most specific first):`,
      updated: "agentsmd: these instruction files were edited since they were given in this thread; their text now:",
    },
    frame: (text) => text,
    state: { schema: noFields, init: async () => ({}) },
    async native(path: string, origin: NativeOrigin, context): Promise<NativeAnswer> {
      if (origin === "initial") return "loaded";
      if (facts.discovered.has(path)) return "loaded";
      if (origin === "tool" && facts.tool !== null && !AMP_DISCOVERS.has(facts.tool)) {
        const exists = async (file: string) => (await context.fs.stat(file).catch(() => null))?.kind === "file";
        if (context.event && (await ampWouldGive(path, context.event.cwd, exists))) return "later";
      }
      return "no";
    },
    onPrompt: "redeliver",
  };
}

/**
 * The workspace Amp runs in, as its plugin process can know it: Amp starts the plugin in the
 * plugin's own directory, with Amp's environment, so `PWD` (the shell's directory when amp
 * started) names it; without an absolute `PWD`, the process's cwd.
 */
export function ampWorkspace(env: Readonly<Record<string, string | undefined>>, cwd: string): string {
  const pwd = env.PWD;
  return pwd !== undefined && pwd.startsWith("/") && !pwd.includes("\0") && pwd.length <= 4096 ? absolute(pwd, "/") : cwd;
}

/** A string field of an untrusted record, else undefined. */
const text = (record: unknown, key: string): string | undefined => {
  if (record === null || typeof record !== "object") return undefined;
  const value = (record as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
};

/** The thread id of an Amp event (`{ thread: { id } }`), else undefined. */
function threadOf(event: unknown): string | undefined {
  const thread = event !== null && typeof event === "object" ? (event as { thread?: unknown }).thread : undefined;
  const id = text(thread, "id");
  return id !== undefined && id.length > 0 && id.length <= 256 ? id : undefined;
}

/**
 * `output` with `added` appended: a string output gets it after a blank line, an array (Grep's
 * matches) one element more, an object output an `agentsmd` key (Amp shows the model a result that
 * is no string as JSON); no output becomes `added`.
 */
export function withInstructions(output: unknown, added: string): unknown {
  if (typeof output === "string") return output === "" ? added : `${output}\n\n${added}`;
  if (Array.isArray(output)) return [...(output as unknown[]), added];
  if (output !== null && typeof output === "object" && !Array.isArray(output)) return { ...(output as Record<string, unknown>), agentsmd: added };
  return added;
}

/** The plugin's machinery on the host layer, exposed for tests and embedders. */
export class AmpAgents {
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stateDir: string;
  readonly workspace: string;

  constructor(context: { home?: string; env?: Readonly<Record<string, string | undefined>>; cwd?: string; stateDir?: string } = {}) {
    this.env = context.env ?? process.env;
    this.home = context.home ?? homeFromEnv(this.env, homedir);
    this.stateDir = context.stateDir ?? hostStateDir("amp", this.env, this.home);
    this.workspace = context.cwd ?? ampWorkspace(this.env, process.cwd());
  }

  async #deliver(input: AmpInput, facts: ToolFacts): Promise<string> {
    const answer = await handleHostEvent(ampProfile(facts), input, {
      env: this.env,
      home: this.home,
      // A deadline per plugin call: past it the call answers nothing and admits nothing.
      deadline: new Deadline(deadlineMsOf(this.env), monotonicMs),
      stateDir: this.stateDir,
    });
    return answer ?? "";
  }

  /** `agent.start`: the files given earlier in this thread and edited since (nothing on a thread's first message). */
  prompt(thread: string): Promise<string> {
    return this.#deliver({ kind: "prompt", thread, cwd: this.workspace, targets: [] }, { tool: null, discovered: new Set() });
  }

  /** `tool.result`: what newly applies to the paths the tool touched, beyond what Amp attached itself. */
  async afterTool(thread: string, tool: string, input: Readonly<Record<string, unknown>>, output: unknown): Promise<string> {
    const discovered = new Set(discoveredPaths(output));
    let targets: string[];
    let read: "whole" | "part" | undefined;
    if (tool === AMP_SHELL_TOOL) {
      const dir = typeof input.cwd === "string" && input.cwd.startsWith("/") ? input.cwd : this.workspace;
      const shell = await this.#shellTargets(input.cmd, dir);
      if (shell === null) return "";
      // An instruction file the command printed (`cat AGENTS.md`): the model has it.
      const printed = shell.read.find((path) => AMP_NAMES.includes(nameOf(path)));
      targets = printed ? [printed, ...shell.targets.filter((path) => path !== printed)] : shell.targets;
      if (printed) read = "whole";
    } else {
      targets = toolTargets(AMP_TARGETS, { tool, input, cwd: this.workspace });
      if (tool === "Read") read = input.read_range === undefined ? "whole" : "part";
    }
    if (targets.length === 0) return "";
    return this.#deliver({ kind: "tool", thread, cwd: this.workspace, targets, ...(read ? { read } : {}) }, { tool, discovered });
  }

  /** The paths a shell command reads, lists or writes; null for a command it cannot read with certainty. Loaded on the first Bash call. */
  async #shellTargets(command: unknown, cwd: string): Promise<{ targets: string[]; read: string[] } | null> {
    if (typeof command !== "string") return null;
    const [{ shellCommandPaths }, { settleShellPaths }] = await Promise.all([import("../host/shell-paths.js"), import("../host/shell-targets.js")]);
    const parsed = shellCommandPaths(command, { cwd, home: this.home });
    if (!parsed.ok) return null;
    const targets = await settleShellPaths(parsed.paths, nodeFileSystem);
    const read = parsed.paths.filter((path) => path.use === "read" && !path.glob && !path.gitRoot && !path.ifExists).map((path) => path.path);
    return { targets, read };
  }

  /**
   * Registers the handlers on Amp's plugin API. A handler that fails answers nothing: Amp's result stands.
   */
  register(amp: AmpPluginAPI): void {
    const guard = async <T>(run: () => Promise<T | undefined>): Promise<T | undefined> => {
      try {
        return await run();
      } catch {
        return undefined; // never break Amp's turn
      }
    };
    amp.on("tool.result", (event) =>
      guard(async (): Promise<AmpToolResult | undefined> => {
        const thread = threadOf(event);
        const tool = text(event, "tool");
        if (thread === undefined || tool === undefined || text(event, "status") !== "done") return undefined;
        const raw = (event as { input?: unknown }).input;
        const input = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
        const output = (event as { output?: unknown }).output;
        const added = await this.afterTool(thread, tool, input, output);
        return added === "" ? undefined : { status: "done", output: withInstructions(output, added) };
      }),
    );
    amp.on("agent.start", (event) =>
      guard(async (): Promise<AmpAgentStart | undefined> => {
        const thread = threadOf(event);
        if (thread === undefined) return undefined;
        const added = await this.prompt(thread);
        return added === "" ? undefined : { message: { content: added, display: true } };
      }),
    );
  }
}

/**
 * The plugin Amp loads (the default export of a file in `.amp/plugins/` or `~/.config/amp/plugins/`).
 */
export default function agentsmdAmp(amp: AmpPluginAPI): void {
  new AmpAgents().register(amp);
}
