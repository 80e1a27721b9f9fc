/**
 * A scripted Anthropic Messages API server for end-to-end tests of real agent CLIs
 * (Claude Code first). It listens on 127.0.0.1 on a random port, records every request,
 * and answers the agent's main-loop requests from a script of turns. Side requests (token
 * counting, model listing, title generation, compaction summaries, ...) are answered
 * sensibly and never consume a script turn.
 *
 * Example:
 * ```ts
 * const server = await startAnthropicServer({
 *   script: [
 *     { toolUses: [{ name: "Read", input: { file_path: "/repo/pkg/a.ts" } }] },
 *     { text: "done" },
 *   ],
 * });
 * // ANTHROPIC_BASE_URL=server.url ...
 * await server.close();
 * ```
 */
import http from "node:http";
import { listenLocal } from "./listen.js";

/** One tool call the scripted model makes. `id` defaults to a unique `toolu_e2e_<n>`. */
interface ScriptedToolUse {
  name: string;
  input: Record<string, unknown>;
  id?: string;
}

/** What the scripted model answers for one main-loop request. */
interface ScriptReply {
  /** Text before the tool calls, or the final answer when there are no tool calls. */
  text?: string;
  /** Tool calls; when present the stop reason is `tool_use`. */
  toolUses?: ScriptedToolUse[];
  /**
   * Overrides for the reported `usage` (e.g. a huge `input_tokens` to push the agent
   * over its auto-compaction threshold).
   */
  usage?: Partial<Usage>;
}

/** A turn is a fixed reply, or a function of the request it answers. */
export type ScriptTurn = ScriptReply | ((request: RecordedRequest) => ScriptReply);

interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/**
 * How the server classified a request:
 * - `main`: a main-loop Messages call, answered from the script;
 * - `compact`: a compaction (summary) call, answered with `compactSummary`;
 * - `side`: another Messages call (title, topic, quota check, suggestions...), answered with `sideText`;
 * - `count_tokens`, `models`: utility endpoints;
 * - `unknown`: any other path (answered 404, also listed in `unexpected`).
 */
type RequestKind = "main" | "compact" | "side" | "count_tokens" | "models" | "unknown";

export interface RecordedRequest {
  /** 0-based position among all requests. */
  seq: number;
  method: string;
  /** Path without the query string. */
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (undefined for an empty body, the raw string when not JSON). */
  body: any;
  kind: RequestKind;
  /** For `main`: the index of the script turn that answered it. */
  turn?: number;
  /** What the server answered (Messages calls only). */
  reply?: { content: any[]; stop_reason: string };
}

export interface AnthropicServerOptions {
  script: ScriptTurn[];
  /**
   * Decides the kind of a Messages request; the default is `classifyMessagesRequest`.
   * Return `undefined` to fall back to the default.
   */
  classify?: (body: any, headers: http.IncomingHttpHeaders) => RequestKind | undefined;
  /** Answer for compaction requests. */
  compactSummary?: string;
  /** Answer for other side requests (titles etc.). */
  sideText?: string;
  /** What to answer once the script is exhausted (the request is also listed in `unexpected`). */
  exhaustedText?: string;
}

export interface AnthropicServer {
  /** e.g. `http://127.0.0.1:41234` (no trailing slash): use as ANTHROPIC_BASE_URL. */
  url: string;
  port: number;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** Only the `main` requests, in order (request i was answered by turn i). */
  mainRequests(): RecordedRequest[];
  /** Requests of one kind. */
  ofKind(kind: RequestKind): RecordedRequest[];
  /** Script turns consumed so far. */
  turnsUsed(): number;
  /** Problems: unknown paths, main requests after the script ran out, bad JSON, handler errors. */
  unexpected: string[];
  /** Replace the script and reset the turn counter (recordings are kept). */
  setScript(script: ScriptTurn[]): void;
  close(): Promise<void>;
}

let toolUseCounter = 0;

/** The text of a content value (string or block list), text blocks only, joined by "\n". */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: any) => (b && b.type === "text" && typeof b.text === "string" ? b.text : ""))
    .filter(Boolean)
    .join("\n");
}

function systemText(system: unknown): string {
  return contentText(system);
}

/**
 * Default classifier for Messages requests:
 * - compaction: the last user message asks for a summary of the conversation
 *   ("Your task is to create a detailed summary of the conversation so far" and variants);
 * - main: the request offers the agent's file tools (`Read` among `tools`) and is not compaction;
 * - side: everything else (no tools: title generation, topic detection, quota probes, ...).
 */
function classifyMessagesRequest(body: any): RequestKind {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  // Claude Code may put `system`-role messages (hook context) after the last user message.
  const lastUser = [...messages].reverse().find((m) => m && m.role === "user");
  const lastText = lastUser ? contentText(lastUser.content) : "";
  if (/create a detailed summary of the conversation|summary of the conversation so far|summarize the conversation/i.test(lastText)) {
    return "compact";
  }
  const sys = systemText(body?.system);
  if (/summariz(e|ing) (the )?conversation/i.test(sys) && !hasTool(body, "Read")) return "compact";
  if (hasTool(body, "Read")) return "main";
  return "side";
}

function hasTool(body: any, name: string): boolean {
  return Array.isArray(body?.tools) && body.tools.some((t: any) => t && t.name === name);
}

function estimateTokens(body: any): number {
  try {
    return Math.max(1, Math.ceil(JSON.stringify(body?.messages ?? body ?? "").length / 4));
  } catch {
    return 1;
  }
}

function buildContent(reply: ScriptReply): { content: any[]; stop_reason: string } {
  const content: any[] = [];
  if (reply.text !== undefined && reply.text !== "") content.push({ type: "text", text: reply.text });
  for (const use of reply.toolUses ?? []) {
    toolUseCounter += 1;
    content.push({
      type: "tool_use",
      id: use.id ?? `toolu_e2e_${String(toolUseCounter).padStart(4, "0")}`,
      name: use.name,
      input: use.input,
    });
  }
  if (content.length === 0) content.push({ type: "text", text: "(empty scripted reply)" });
  return { content, stop_reason: reply.toolUses && reply.toolUses.length > 0 ? "tool_use" : "end_turn" };
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  const data = JSON.stringify(value);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(data),
    "request-id": `req_e2e_${Date.now()}`,
  });
  res.end(data);
}

function sendMessage(res: http.ServerResponse, body: any, reply: { content: any[]; stop_reason: string }, usage: Usage): void {
  const id = `msg_e2e_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
  const model = typeof body?.model === "string" ? body.model : "claude-e2e";
  if (!body?.stream) {
    sendJson(res, 200, {
      id,
      type: "message",
      role: "assistant",
      model,
      content: reply.content,
      stop_reason: reply.stop_reason,
      stop_sequence: null,
      usage,
    });
    return;
  }
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "request-id": `req_e2e_${Date.now()}`,
  });
  const event = (type: string, data: unknown) => res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  event("message_start", {
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  reply.content.forEach((block, index) => {
    if (block.type === "text") {
      event("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      event("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } });
    } else if (block.type === "tool_use") {
      event("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      event("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    event("content_block_stop", { type: "content_block_stop", index });
  });
  event("message_delta", {
    type: "message_delta",
    delta: { stop_reason: reply.stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  event("message_stop", { type: "message_stop" });
  res.end();
}

const MODELS = ["claude-opus-5-5", "claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "claude-haiku-4-5", "claude-haiku-4-5-20251001"];

/** Start the server on 127.0.0.1 with a random free port. */
export async function startAnthropicServer(options: AnthropicServerOptions): Promise<AnthropicServer> {
  let script = options.script.slice();
  let nextTurn = 0;
  const requests: RecordedRequest[] = [];
  const unexpected: string[] = [];

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, raw: string) => {
    const [path = "/", query = ""] = (req.url ?? "/").split("?", 2) as [string, string?];
    let body: any;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
        unexpected.push(`${req.method} ${path}: body is not JSON`);
      }
    }
    const record: RecordedRequest = {
      seq: requests.length,
      method: req.method ?? "GET",
      path,
      query: query ?? "",
      headers: req.headers,
      body,
      kind: "unknown",
    };
    requests.push(record);

    if (req.method === "POST" && /\/v1\/messages\/count_tokens$/.test(path)) {
      record.kind = "count_tokens";
      sendJson(res, 200, { input_tokens: estimateTokens(body) });
      return;
    }
    if (req.method === "GET" && /\/v1\/models(\/[^/]+)?$/.test(path)) {
      record.kind = "models";
      const one = /\/v1\/models\/([^/]+)$/.exec(path)?.[1];
      const entry = (id: string) => ({ type: "model", id, display_name: id, created_at: "2026-01-01T00:00:00Z" });
      if (one) sendJson(res, 200, entry(decodeURIComponent(one)));
      else sendJson(res, 200, { data: MODELS.map(entry), has_more: false, first_id: MODELS[0], last_id: MODELS[MODELS.length - 1] });
      return;
    }
    if (req.method === "POST" && /\/v1\/messages$/.test(path)) {
      const kind = options.classify?.(body, req.headers) ?? classifyMessagesRequest(body);
      record.kind = kind;
      const baseUsage: Usage = {
        input_tokens: estimateTokens(body),
        output_tokens: 20,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      };
      let reply: ScriptReply;
      if (kind === "main") {
        const turn = script[nextTurn];
        if (turn === undefined) {
          unexpected.push(`main request #${record.seq} after the script ran out (${script.length} turns)`);
          reply = { text: options.exhaustedText ?? "(script exhausted)" };
        } else {
          record.turn = nextTurn;
          nextTurn += 1;
          reply = typeof turn === "function" ? turn(record) : turn;
        }
      } else if (kind === "compact") {
        reply = {
          text:
            options.compactSummary ??
            "<summary>\n1. Primary Request and Intent: the user asked the assistant to read and edit files in the fixture repository.\n2. Pending Tasks: none.\n</summary>",
        };
      } else {
        reply = { text: options.sideText ?? "E2E scripted side answer" };
      }
      const built = buildContent(reply);
      record.reply = built;
      sendMessage(res, body, built, { ...baseUsage, ...reply.usage });
      return;
    }
    // HEAD / and other probes: answer without noise for `/`, flag everything else.
    if (path === "/" || path === "") {
      record.kind = "unknown";
      sendJson(res, 200, {});
      return;
    }
    unexpected.push(`${req.method} ${path}: no handler`);
    sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: `e2e server: no handler for ${path}` } });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        handle(req, res, Buffer.concat(chunks).toString("utf8"));
      } catch (error) {
        unexpected.push(`handler error: ${(error as Error).stack ?? String(error)}`);
        if (!res.headersSent) sendJson(res, 500, { type: "error", error: { type: "api_error", message: String(error) } });
        else res.end();
      }
    });
  });
  server.keepAliveTimeout = 1000;

  const { url, port, close } = await listenLocal(server);

  return {
    url,
    port,
    requests,
    unexpected,
    mainRequests: () => requests.filter((r) => r.kind === "main"),
    ofKind: (kind) => requests.filter((r) => r.kind === kind),
    turnsUsed: () => nextTurn,
    setScript(next) {
      script = next.slice();
      nextTurn = 0;
    },
    close,
  };
}
