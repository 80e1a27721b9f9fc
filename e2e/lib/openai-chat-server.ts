/**
 * A scripted OpenAI-compatible Chat Completions server for end-to-end tests.
 *
 * It listens on 127.0.0.1 (random port), answers `POST <base>/chat/completions` in the shape the
 * caller asks for (SSE chunks when `stream: true`, one JSON document otherwise) and records every
 * request body. The conversation is a script: a list of turns, each either tool calls or final
 * text. Side requests (session title generation, compaction summaries, anything the classifier
 * does not call "main") are answered without consuming a turn, so the script only describes the
 * agent loop.
 *
 * @example
 * const server = await startOpenAIChatServer({
 *   script: [
 *     { toolCalls: [{ tool: "read", args: { filePath: "/repo/src/a.ts" } }] },
 *     { text: "done" },
 *   ],
 * });
 * // point the agent at server.baseURL ("http://127.0.0.1:PORT/v1"), run it, then:
 * const main = server.requests.filter((r) => r.kind === "main");
 * await server.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listenLocal } from "./listen.js";

/** One message as an OpenAI Chat Completions client sends it. */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool" | "developer";
  content?: string | Array<{ type: string; text?: string; [key: string]: unknown }> | null;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

/** The request body of `POST /chat/completions` (the fields the tests look at). */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  tools?: Array<{ type: "function"; function: { name: string; description?: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  [key: string]: unknown;
}

/** What a request is for. Only `main` requests consume script turns. */
export type RequestKind = "main" | "title" | "compaction" | "other";

interface ScriptedToolCall {
  /** Tool name as the agent registered it, e.g. `read`, `edit`, `write`. */
  tool: string;
  args: Record<string, unknown>;
  /** Tool call id; generated when omitted. */
  id?: string;
}

/** Token usage reported for a turn (e.g. a large `prompt_tokens` to provoke auto-compaction). */
interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

type ScriptTurn = { toolCalls: ScriptedToolCall[]; text?: string; usage?: ScriptedUsage } | { text: string; usage?: ScriptedUsage };

interface TurnContext {
  /** The request this turn answers. */
  request: RecordedRequest;
  /** Every request recorded so far, this one included. */
  requests: readonly RecordedRequest[];
}

/** A turn, or a function producing it when the request arrives (may do async work first). */
export type ScriptStep = ScriptTurn | ((context: TurnContext) => ScriptTurn | Promise<ScriptTurn>);

export interface RecordedRequest {
  /** 0-based arrival order over all requests. */
  index: number;
  method: string;
  path: string;
  kind: RequestKind;
  /** Parsed JSON body (`null` when it was not JSON). */
  body: ChatRequestBody | null;
  /** Script turn index consumed by this request, or `null` for side requests. */
  turn: number | null;
}

export interface OpenAIChatServerOptions {
  script: ScriptStep[];
  /** Decides what a request is for. Default: {@link classifyChatRequest}. */
  classify?: (body: ChatRequestBody) => RequestKind;
  /** Text answer for side requests. Default: a fixed title / summary / "ok". */
  sideReply?: (kind: RequestKind, body: ChatRequestBody) => string;
  /** Token usage reported for side requests (e.g. a compaction summary that must look smaller than what it replaced). Default: 100 prompt tokens. */
  sideUsage?: (kind: RequestKind, body: ChatRequestBody) => ScriptedUsage | undefined;
  /** Text answered when the script is exhausted. Default: "(script exhausted)". */
  exhaustedText?: string;
  /** Model id echoed in responses. Default: the request's `model`. */
  model?: string;
}

export interface OpenAIChatServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `http://127.0.0.1:PORT/v1`, what an OpenAI-compatible provider's `baseURL` wants. */
  baseURL: string;
  port: number;
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Requests of kind `main`, in order. */
  mainRequests(): RecordedRequest[];
  /** Number of script turns consumed so far. */
  readonly turnsUsed: number;
  /** Script turns not consumed. */
  readonly turnsLeft: number;
  /** Replaces the script and restarts it at turn 0 (between runs of one session). */
  setScript(script: ScriptStep[]): void;
  /** Errors thrown by script functions or the handler (they also fail the request with 500). */
  readonly errors: Error[];
  close(): Promise<void>;
}

const TITLE_SYSTEM_MARKER = "You are a title generator";
const COMPACTION_SYSTEM_MARKER = "You are a context summarization agent";

/** Text of a message's content, whether a string or an array of parts. */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part.text === "string" ? part.text : "")).join("");
  return "";
}

/** Texts of the system (and developer) messages of a request, in order. */
export function systemTexts(body: ChatRequestBody): string[] {
  return (body.messages ?? []).filter((m) => m.role === "system" || m.role === "developer").map(messageText);
}

/** One tool result as the model received it, with the name and arguments of the call it answers. */
export interface ToolResult {
  callId: string;
  tool: string | undefined;
  args: Record<string, unknown> | undefined;
  content: string;
  /** Index of the tool message in `body.messages`. */
  messageIndex: number;
}

/**
 * Every tool result in a request's history, in order.
 *
 * @example
 * const last = toolResults(server.mainRequests().at(-1)!.body!).at(-1);
 */
export function toolResults(body: ChatRequestBody): ToolResult[] {
  const calls = new Map<string, { name: string; args: Record<string, unknown> | undefined }>();
  const results: ToolResult[] = [];
  (body.messages ?? []).forEach((message, messageIndex) => {
    for (const call of message.tool_calls ?? []) {
      let args: Record<string, unknown> | undefined;
      try {
        args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      } catch {
        args = undefined;
      }
      calls.set(call.id, { name: call.function.name, args });
    }
    if (message.role === "tool") {
      const callId = message.tool_call_id ?? "";
      const call = calls.get(callId);
      results.push({ callId, tool: call?.name, args: call?.args, content: messageText(message), messageIndex });
    }
  });
  return results;
}

/**
 * Default classifier, tuned on OpenCode 1.18.33: its title and compaction agents are recognised
 * by their system prompts; everything that offers tools is the agent loop.
 */
export function classifyChatRequest(body: ChatRequestBody): RequestKind {
  const system = (body.messages ?? [])
    .filter((m) => m.role === "system" || m.role === "developer")
    .map(messageText)
    .join("\n");
  if (system.includes(TITLE_SYSTEM_MARKER)) return "title";
  if (system.includes(COMPACTION_SYSTEM_MARKER)) return "compaction";
  if (Array.isArray(body.tools) && body.tools.length > 0) return "main";
  return "other";
}

function defaultSideReply(kind: RequestKind): string {
  if (kind === "title") return "Scripted session";
  if (kind === "compaction") return "## Goal\nScripted summary of the conversation so far.";
  return "ok";
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Start the server. Close it with `close()` (idempotent).
 *
 * @example
 * const server = await startOpenAIChatServer({ script: [{ text: "hello" }] });
 */
export async function startOpenAIChatServer(options: OpenAIChatServerOptions): Promise<OpenAIChatServer> {
  const classify = options.classify ?? classifyChatRequest;
  const sideReply = options.sideReply ?? defaultSideReply;
  const exhaustedText = options.exhaustedText ?? "(script exhausted)";
  let script = options.script;
  const requests: RecordedRequest[] = [];
  const errors: Error[] = [];
  let turnsUsed = 0;
  let callCounter = 0;
  let completionCounter = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    let body: ChatRequestBody | null;
    try {
      body = raw ? (JSON.parse(raw) as ChatRequestBody) : null;
    } catch {
      body = null;
    }
    const isChat = req.method === "POST" && path.endsWith("/chat/completions") && body !== null;
    const kind: RequestKind = isChat && body ? classify(body) : "other";
    const record: RecordedRequest = { index: requests.length, method: req.method ?? "", path, kind, body, turn: null };
    requests.push(record);

    if (!isChat || !body) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `not scripted: ${req.method} ${path}`, type: "not_found" } }));
      return;
    }

    let turn: ScriptTurn;
    if (kind === "main") {
      const step = script[turnsUsed];
      if (step === undefined) {
        turn = { text: exhaustedText };
      } else {
        record.turn = turnsUsed;
        turnsUsed += 1;
        turn = typeof step === "function" ? await step({ request: record, requests }) : step;
      }
    } else {
      const usage = options.sideUsage?.(kind, body);
      turn = usage ? { text: sideReply(kind, body), usage } : { text: sideReply(kind, body) };
    }
    respond(res, body, turn);
  }

  function respond(res: ServerResponse, body: ChatRequestBody, turn: ScriptTurn): void {
    completionCounter += 1;
    const id = `chatcmpl-scripted-${completionCounter}`;
    const created = Math.floor(Date.now() / 1000);
    const model = options.model ?? body.model;
    const toolCalls =
      "toolCalls" in turn
        ? turn.toolCalls.map((call) => ({
            id: call.id ?? `call_scripted_${++callCounter}`,
            type: "function" as const,
            function: { name: call.tool, arguments: JSON.stringify(call.args) },
          }))
        : [];
    const text = turn.text ?? "";
    const finishReason = toolCalls.length > 0 ? "tool_calls" : "stop";
    const usage = {
      prompt_tokens: turn.usage?.prompt_tokens ?? 100,
      completion_tokens: turn.usage?.completion_tokens ?? 10,
      total_tokens: (turn.usage?.prompt_tokens ?? 100) + (turn.usage?.completion_tokens ?? 10),
    };

    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: text || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
              finish_reason: finishReason,
            },
          ],
          usage,
        }),
      );
      return;
    }

    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const send = (data: unknown): void => {
      res.write(`data: ${JSON.stringify(data)}\n\n`);
    };
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): void =>
      send({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }] });

    chunk({ role: "assistant", content: "" });
    if (text) chunk({ content: text });
    toolCalls.forEach((call, index) => {
      chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] });
      chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] });
    });
    chunk({}, finishReason);
    send({ id, object: "chat.completion.chunk", created, model, choices: [], usage });
    res.write("data: [DONE]\n\n");
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const err = error instanceof Error ? error : new Error(String(error));
      errors.push(err);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: err.message, type: "server_error" } }));
    });
  });
  const { url, port, close } = await listenLocal(server);

  return {
    url,
    baseURL: `${url}/v1`,
    port,
    requests,
    mainRequests: () => requests.filter((r) => r.kind === "main"),
    get turnsUsed() {
      return turnsUsed;
    },
    get turnsLeft() {
      return script.length - turnsUsed;
    },
    setScript(next) {
      script = next;
      turnsUsed = 0;
    },
    errors,
    close,
  };
}
