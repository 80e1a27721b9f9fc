/**
 * `agentsmd mcp`: an MCP server (stdio) that gives any MCP host path-aware AGENTS.md loading.
 *
 * - tool `agents_resolve {path}`: the instruction files that apply to `path` and are new or changed
 *   for this connection, metadata only;
 * - tool `agents_context {path}`: the bodies of the files not yet given through this tool,
 *   rendered in the preset's inline format;
 * - resource `agentsmd://initial`: the initial bundle (root -> cwd) of each workspace root;
 * - workspace roots: the client's `roots/list` when it offers roots (re-read when they change),
 *   else `--cwd`; a path outside every root is a tool error, never a protocol error.
 *
 * One connection = one set of sessions (one per root). The SDK loads only when a server starts.
 *
 * @example
 * import { createAgentsMcpServer } from "agentsmd/mcp";
 * const { server } = await createAgentsMcpServer({ cwd: process.cwd() });
 * await server.connect(transport);
 */
import { fileURLToPath } from "node:url";
import { homedir } from "node:os";
import * as z from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { piecesOf, type Proposal } from "../host/propose.js";
import { compactConversation, nativeOf, openConversation, proposeAll } from "../host/conversation.js";
import type { HeldView, HostHistory } from "../host/held.js";
import { noStore } from "../host/stores.js";
import { createSession, type AgentsSession, type SessionOptions } from "../../session/session.js";
import { absolute, isInside, pathInputProblem, homeFromEnv } from "../../core/paths.js";
import { nodeFileSystem } from "../../io/file-system.js";
import { realPathOf } from "../../io/real-path.js";
import { PROMPT_GUIDANCE } from "../../core/guidance.js";
import { VERSION } from "../../core/version.js";
import { jsonText, quote } from "../../core/quote.js";

export interface AgentsMcpOptions extends Omit<SessionOptions, "cwd"> {
  /** Workspace used when the client offers no roots. @default process.cwd() */
  cwd?: string;
  /** Server name announced to clients. @default "agentsmd" */
  name?: string;
  /**
   * The host does not load the initial chain (root -> cwd) itself: the tools then return those
   * files too. @default false (the host loaded them, as Codex does with preset codex)
   */
  deliverInitial?: boolean;
  /**
   * Watch the directories each workspace's sessions scanned (one `fs.watch` each) so a seen path
   * resolves without asking the disk. @default true: the server lives as long as its client
   */
  watch?: SessionOptions["watch"];
  /**
   * The host's own record of the conversation (host/held.ts), asked at each tool call: a file its
   * history holds (a resumed run) is not given again, and after a compaction it records, what the
   * tools gave before comes again. @default none: the connection is the conversation
   */
  history?: HostHistory;
}

/** One file of an `agents_resolve` answer. */
export const McpResolvedFileSchema = z.object({
  path: z.string(),
  mtime_ms: z.number(),
  size_bytes: z.number().int(),
  reason: z.enum(["new", "updated"]),
});

/** The `agents_resolve` answer (structured content). */
export const McpResolveResultSchema = z.object({
  target_path: z.string(),
  resolved_path: z.string(),
  count: z.number().int(),
  files: z.array(McpResolvedFileSchema),
});
export type McpResolveResult = z.infer<typeof McpResolveResultSchema>;

export const RESOLVE_DESCRIPTION = `Lists the AGENTS.md instruction files that apply to a file or directory and that you have not been given in this session yet (new, or changed since). Metadata only (path, mtime, size, reason): read the listed files before editing in that scope. Call it with the path you are about to read or edit when you work in a directory you have not worked in yet.

${PROMPT_GUIDANCE}`;

export const CONTEXT_DESCRIPTION = `Returns the text of the AGENTS.md instruction files that apply to a file or directory and that this tool has not returned yet in this session (new, or changed since). Call it before reading or editing files in a directory you have not worked in yet, and apply what it returns; an empty answer means nothing new applies.

${PROMPT_GUIDANCE}`;

/**
 * What the server tells the model. Only what these tools do: they answer calls and never insert
 * reminders into other tools' output, so no `<system-reminder>` is mentioned.
 */
export const SERVER_INSTRUCTIONS = `agentsmd serves AGENTS.md instructions for paths in this workspace.
1. The AGENTS.md files from the project root to your working directory are normally loaded at the start of the session (the resource agentsmd://initial holds them if they were not). Do not search for AGENTS.md files every turn.
2. Before reading or editing files in a directory you have not worked in yet, call agents_context with that path (the text of the AGENTS.md files that apply there and that you have not been given yet), or agents_resolve (their paths only; then read the listed files). Apply what they return before editing in that scope.
3. An empty answer means nothing new applies. A file comes back again only after it was edited; then read or apply it again.`;

interface Workspace {
  root: string;
  /** Metadata track (agents_resolve) and body track (agents_context): each reports what it has not reported. */
  resolve: Promise<AgentsSession>;
  context: Promise<AgentsSession>;
}

/** The sessions of one connection, one workspace per root. */
class Workspaces {
  readonly #options: AgentsMcpOptions;
  readonly #byRoot = new Map<string, Workspace>();
  #roots: Promise<string[]> | undefined;
  #listRoots: (() => Promise<string[] | undefined>) | undefined;

  constructor(options: AgentsMcpOptions) {
    this.#options = options;
  }

  /** Supplies the client's roots (undefined: the client offers none). */
  useClientRoots(list: () => Promise<string[] | undefined>): void {
    this.#listRoots = list;
    this.#roots = undefined;
  }

  rootsChanged(): void {
    this.#roots = undefined;
  }

  get fallbackCwd(): string {
    return absolute(this.#options.cwd ?? process.cwd(), process.cwd());
  }

  roots(): Promise<string[]> {
    this.#roots ??= (async () => {
      const fromClient = await this.#listRoots?.().catch(() => undefined);
      return fromClient && fromClient.length > 0 ? fromClient : [this.fallbackCwd];
    })();
    return this.#roots;
  }

  workspace(root: string): Workspace {
    let workspace = this.#byRoot.get(root);
    if (!workspace) {
      const { name: _name, deliverInitial, ...rest } = this.#options;
      const options: SessionOptions = { ...rest, watch: rest.watch ?? true, cwd: root };
      // The engine's conversation with no store: the connection is the conversation, held here.
      const open = async () => {
        const conversation = await openConversation(noStore(), {
          host: "mcp",
          create: async () => {
            const session = await createSession(options);
            if (deliverInitial) session.forget(session.initialFiles.filter((file) => file.layer !== "user"));
            return { session, fields: {} };
          },
        });
        return conversation.session;
      };
      workspace = { root, resolve: open(), context: open() };
      // A failed creation is retried on the next call.
      workspace.resolve.catch(() => this.#byRoot.delete(root));
      workspace.context.catch(() => this.#byRoot.delete(root));
      this.#byRoot.set(root, workspace);
    }
    return workspace;
  }

  /**
   * The workspace whose root holds `path` (the deepest one), or an error text. Decided on real
   * paths (docs/security.md): a symlinked directory inside a root that leads outside it is outside, and
   * the session is asked about the real location (spelled under the root), so `loop -> .` or two
   * links to one directory deliver a file once.
   */
  async locate(path: string): Promise<{ workspace: Workspace; resolved: string } | { error: string }> {
    const roots = await this.roots();
    const lexical = pathInputProblem(path) === null ? absolute(path, roots[0]!) : path;
    const problem = pathInputProblem(lexical);
    if (problem !== null) {
      const shown = lexical.length > 200 ? `${lexical.slice(0, 200)}...` : lexical;
      return { error: `the path ${quote(shown)} ${problem}. Pass the path of a file or directory inside a workspace root.` };
    }
    const fs = this.#options.fs ?? nodeFileSystem;
    const real = await realPathOf(fs, lexical);
    const holders: Array<{ root: string; real: string }> = [];
    for (const root of roots) {
      const rootReal = await this.#realRoot(root);
      if (isInside(real, rootReal)) holders.push({ root, real: rootReal });
    }
    holders.sort((a, b) => b.real.length - a.real.length);
    const holder = holders[0];
    if (!holder) {
      const where = real === lexical ? "" : ` (really ${quote(real)})`;
      return {
        error: `${quote(lexical)}${where} is outside the workspace roots (${roots.map(quote).join(", ")}); agentsmd only answers for paths inside them. Pass a path inside a workspace root.`,
      };
    }
    const below = real.slice(holder.real.length).replace(/^\//, "");
    return { workspace: this.workspace(holder.root), resolved: below === "" ? holder.root : absolute(below, holder.root) };
  }

  readonly #realRoots = new Map<string, Promise<string>>();
  #realRoot(root: string): Promise<string> {
    let real = this.#realRoots.get(root);
    if (!real) {
      real = (this.#options.fs ?? nodeFileSystem).realpath(root).catch(() => root);
      this.#realRoots.set(root, real);
    }
    return real;
  }

  /** The host compacted: in every open session, what the tools gave is the model's no longer. */
  async compacted(): Promise<void> {
    const sessions = [...this.#byRoot.values()].flatMap((workspace) => [workspace.resolve, workspace.context]);
    for (const session of await Promise.all(sessions.map((each) => each.catch(() => null)))) if (session) compactConversation(session);
  }

  async close(): Promise<void> {
    const all = [...this.#byRoot.values()];
    this.#byRoot.clear();
    await Promise.all(
      all.flatMap((workspace) => [workspace.resolve, workspace.context].map((session) => session.then((each) => each.close()).catch(() => undefined))),
    );
  }
}

function rootPath(uri: string): string | undefined {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Two-phase admission over MCP: a tool's proposal is admitted once the transport has sent the
 * answer carrying it (hand over -> admit), and released when sending fails or the connection
 * closes first, so a file is never marked as given before it left.
 */
class HandOver {
  readonly #pending = new Map<string | number, Proposal>();
  readonly #watched = new WeakSet<Transport>();

  /** Holds `proposal` until the answer to `requestId` is sent on `transport` (no transport: admitted now). */
  hold(transport: Transport | undefined, requestId: string | number, proposal: Proposal): void {
    if (!transport) return proposal.commit();
    this.#watch(transport);
    this.#pending.set(requestId, proposal);
  }

  #watch(transport: Transport): void {
    if (this.#watched.has(transport)) return;
    this.#watched.add(transport);
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      const answer = "id" in message && ("result" in message || "error" in message) ? message.id : undefined;
      const proposal = answer === undefined ? undefined : this.#pending.get(answer);
      if (answer !== undefined) this.#pending.delete(answer);
      try {
        await send(message, options);
      } catch (error) {
        proposal?.release();
        throw error;
      }
      proposal?.commit();
    };
  }

  /** The connection is closing: nothing pending was delivered. */
  releaseAll(): void {
    for (const proposal of this.#pending.values()) proposal.release();
    this.#pending.clear();
  }
}

function errorResult(text: string) {
  return { isError: true, content: [{ type: "text" as const, text }] };
}

/**
 * Builds the server for one connection (not yet connected). `close()` closes its sessions and the
 * server; it is idempotent.
 * @example
 * const { server, close } = await createAgentsMcpServer({ cwd: "/repo", preset: "codex" });
 * await server.connect(new StdioServerTransport());
 */
export async function createAgentsMcpServer(options: AgentsMcpOptions = {}): Promise<{ server: McpServer; close(): Promise<void> }> {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { RootsListChangedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const env = options.env ?? process.env;
  const workspaces = new Workspaces({ ...options, env, home: options.home ?? homeFromEnv(env, homedir) });
  const handOver = new HandOver();
  const server = new McpServer(
    { name: options.name ?? "agentsmd", version: VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: SERVER_INSTRUCTIONS },
  );

  server.server.oninitialized = () => {
    if (!server.server.getClientCapabilities()?.roots) return;
    workspaces.useClientRoots(async () => {
      const { roots } = await server.server.listRoots(undefined, { timeout: 10_000 });
      return roots.map((root) => rootPath(root.uri)).filter((path): path is string => path !== undefined);
    });
  };
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => workspaces.rootsChanged());

  /** What the host's record says now (compactions applied); undefined without a record. */
  const look = async (): Promise<HeldView | undefined> => {
    const view = await options.history?.look().catch(() => undefined);
    if (view?.compacted) await workspaces.compacted();
    return view;
  };

  const pathInput = { path: z.string().min(1).describe("The file or directory you are about to read or edit (absolute, or relative to the workspace root).") };

  server.registerTool(
    "agents_resolve",
    {
      title: "AGENTS.md files for a path",
      description: RESOLVE_DESCRIPTION,
      inputSchema: pathInput,
      outputSchema: McpResolveResultSchema.shape,
      annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false, title: "AGENTS.md files for a path" },
    },
    async ({ path }, extra) => {
      const located = await workspaces.locate(path);
      if ("error" in located) return errorResult(located.error);
      await look();
      const session = await located.workspace.resolve;
      const found = await session.resolve(located.resolved, { admit: false });
      // MCP answers are not budgeted: the client asked for them.
      const proposal = await proposeAll(session, piecesOf(found.files, "tool"), () => "");
      const result: McpResolveResult = {
        target_path: path,
        resolved_path: located.resolved,
        count: found.files.length,
        files: found.files.map((file) => ({
          path: file.path,
          mtime_ms: file.mtimeMs,
          size_bytes: file.sizeBytes,
          reason: session.loadedVersion(file.path) ? "updated" : "new",
        })),
      };
      handOver.hold(server.server.transport, extra.requestId, proposal);
      return { content: [{ type: "text" as const, text: jsonText(result) }], structuredContent: result };
    },
  );

  server.registerTool(
    "agents_context",
    {
      title: "AGENTS.md instructions for a path",
      description: CONTEXT_DESCRIPTION,
      inputSchema: pathInput,
      annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false, title: "AGENTS.md instructions for a path" },
    },
    async ({ path }, extra) => {
      const located = await workspaces.locate(path);
      if ("error" in located) return errorResult(located.error);
      const view = await look();
      const session = await located.workspace.context;
      const blocks = await session.touch([located.resolved], { admit: false });
      // What the host's history still holds is had (admitted at its version), not shown again.
      const held = view ? (piece: { path: string; content: string }) => view.holds(piece) : undefined;
      const render = (shown: readonly { path: string }[]) => {
        const paths = new Set(shown.map((piece) => piece.path));
        return session.renderInline(blocks.filter((block) => paths.has(block.path)));
      };
      const proposal = await proposeAll(session, piecesOf(blocks, "tool"), render, nativeOf(held));
      const text = proposal.text;
      handOver.hold(server.server.transport, extra.requestId, proposal);
      return {
        content: [
          {
            type: "text" as const,
            text: text === "" ? `No AGENTS.md instructions apply to ${quote(located.resolved)} beyond those already given in this session.` : text,
          },
        ],
      };
    },
  );

  server.registerResource(
    "initial-bundle",
    "agentsmd://initial",
    {
      title: "Initial AGENTS.md bundle",
      description:
        "The AGENTS.md files from the project root to the working directory of each workspace root, rendered as the preset injects them at session start.",
      mimeType: "text/plain",
    },
    async (uri) => {
      const roots = await workspaces.roots();
      const contents = [];
      for (const root of roots) {
        const session = await workspaces.workspace(root).resolve;
        contents.push({
          uri: roots.length === 1 ? uri.href : `${uri.href}?root=${encodeURIComponent(root)}`,
          mimeType: "text/plain",
          text: session.initialMessage,
        });
      }
      return { contents };
    },
  );

  let closed: Promise<void> | undefined;
  return {
    server,
    // Idempotent: every call returns the one closing promise.
    close: () =>
      (closed ??= (async () => {
        handOver.releaseAll();
        await workspaces.close();
        await server.close();
      })()),
  };
}

/**
 * Serves MCP on stdin/stdout until the client disconnects.
 * @example await runMcpStdio({ cwd: process.cwd() });
 */
export async function runMcpStdio(options: AgentsMcpOptions = {}): Promise<void> {
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { server, close } = await createAgentsMcpServer(options);
  const transport = new StdioServerTransport();
  let done: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (done = resolve));
  process.stdin.once("end", () => done());
  process.stdin.once("close", () => done());
  await server.connect(transport);
  server.server.onclose = () => done();
  await closed;
  await close();
}
