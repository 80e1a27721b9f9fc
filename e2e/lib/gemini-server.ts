/**
 * A scripted Gemini API server (`generativelanguage` v1beta shape) for end-to-end tests of Gemini
 * CLI. Point the CLI at it with `GOOGLE_GEMINI_BASE_URL=<server.url>` and `GEMINI_API_KEY=x`
 * (Gemini CLI 0.61 then uses its "gateway" auth and sends every call here).
 *
 * It listens on 127.0.0.1 (random port), answers `POST /v1beta/models/<m>:streamGenerateContent`
 * (SSE) and `:generateContent` (JSON) and `:countTokens`, and records every request body. The
 * agent loop is a script: requests that offer tools consume one turn each (tool calls or final
 * text); side requests (chat compression's summary and verification, anything without tools) are
 * answered with `sideReply` and consume nothing.
 *
 * @example
 * const server = await startGeminiServer({ script: [
 *   { calls: [{ name: "read_file", args: { file_path: "pkg/a.ts" } }] },
 *   { text: "done" },
 * ] });
 * // env: GOOGLE_GEMINI_BASE_URL=server.url GEMINI_API_KEY=x; run `gemini -p ...`, then:
 * const last = server.mainRequests().at(-1)!;
 * geminiRequestText(last.body!); // everything the model saw, as text
 * await server.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listenLocal } from "./listen.js";

/** One part of a Gemini `Content`. */
interface GeminiPart {
  text?: string;
  functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response?: Record<string, unknown> };
  [key: string]: unknown;
}

interface GeminiContent {
  role?: string;
  parts?: GeminiPart[];
}

/** The request body of `generateContent` / `streamGenerateContent` (the fields tests read). */
export interface GeminiRequestBody {
  contents?: GeminiContent[];
  systemInstruction?: GeminiContent | { parts?: GeminiPart[] } | string;
  tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>;
  [key: string]: unknown;
}

/** `main`: the agent loop (tools offered); `compression`: the chat-compression summarizer; `other`: the rest. */
type GeminiRequestKind = "main" | "compression" | "count" | "other";

interface GeminiCall {
  name: string;
  args: Record<string, unknown>;
}

/** One scripted answer. `promptTokens` is reported as `usageMetadata.promptTokenCount` (large values provoke compression). */
type GeminiTurn = { calls: GeminiCall[]; text?: string; promptTokens?: number } | { text: string; promptTokens?: number };

interface GeminiRecordedRequest {
  index: number;
  method: string;
  /** Path with query, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`. */
  url: string;
  kind: GeminiRequestKind;
  body: GeminiRequestBody | null;
  /** Script turn consumed, or null. */
  turn: number | null;
}

export type GeminiStep = GeminiTurn | ((request: GeminiRecordedRequest) => GeminiTurn | Promise<GeminiTurn>);

export interface GeminiServerOptions {
  script: GeminiStep[];
  /** Text for side requests (compression summaries...). Default: a fixed state snapshot. */
  sideReply?: (request: GeminiRecordedRequest) => string;
  /** Text once the script is used up. Default "(script exhausted)". */
  exhaustedText?: string;
}

export interface GeminiServer {
  /** `http://127.0.0.1:PORT` (what GOOGLE_GEMINI_BASE_URL wants). */
  url: string;
  port: number;
  readonly requests: GeminiRecordedRequest[];
  mainRequests(): GeminiRecordedRequest[];
  readonly turnsUsed: number;
  /** Replaces the script and restarts it at turn 0 (between runs of one session). */
  setScript(script: GeminiStep[]): void;
  readonly errors: Error[];
  close(): Promise<void>;
}

/** The first words of Gemini CLI 0.61's compression system prompt (`getCompressionPrompt`). */
const GEMINI_COMPRESSION_MARKER = "state_snapshot";

function partsText(parts: readonly GeminiPart[] | undefined): string {
  const out: string[] = [];
  for (const part of parts ?? []) {
    if (typeof part.text === "string") out.push(part.text);
    if (part.functionCall) out.push(`[call ${part.functionCall.name} ${JSON.stringify(part.functionCall.args ?? {})}]`);
    if (part.functionResponse) {
      const response = part.functionResponse.response ?? {};
      const output = typeof response.output === "string" ? response.output : JSON.stringify(response);
      out.push(output);
    }
  }
  return out.join("\n");
}

/** The system instruction's text. */
function geminiSystemText(body: GeminiRequestBody): string {
  const system = body.systemInstruction;
  if (system === undefined) return "";
  if (typeof system === "string") return system;
  return partsText(system.parts);
}

/**
 * Everything the model sees in one request, as text: the system instruction, then every content's
 * parts in order (texts, function-response outputs, calls as `[call name args]`).
 */
export function geminiRequestText(body: GeminiRequestBody): string {
  return [geminiSystemText(body), ...(body.contents ?? []).map((content) => partsText(content.parts))].join("\n");
}

function classify(url: string, body: GeminiRequestBody | null): GeminiRequestKind {
  if (url.includes(":countTokens")) return "count";
  if (!body) return "other";
  if (Array.isArray(body.tools) && body.tools.some((tool) => (tool.functionDeclarations ?? []).length > 0)) return "main";
  if (geminiSystemText(body).includes(GEMINI_COMPRESSION_MARKER)) return "compression";
  return "other";
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const DEFAULT_SIDE = "<state_snapshot>\n<overall_goal>Scripted summary of the conversation so far.</overall_goal>\n</state_snapshot>";

/**
 * Starts the server. Close it with `close()` (idempotent).
 * @example const server = await startGeminiServer({ script: [{ text: "hello" }] });
 */
export async function startGeminiServer(options: GeminiServerOptions): Promise<GeminiServer> {
  let script = options.script;
  const requests: GeminiRecordedRequest[] = [];
  const errors: Error[] = [];
  let turnsUsed = 0;
  let callCounter = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = req.url ?? "/";
    let body: GeminiRequestBody | null;
    try {
      body = raw ? (JSON.parse(raw) as GeminiRequestBody) : null;
    } catch {
      body = null;
    }
    const record: GeminiRecordedRequest = { index: requests.length, method: req.method ?? "", url, kind: classify(url, body), body, turn: null };
    requests.push(record);
    if (req.method !== "POST" || !/\/models\/[^/:]+:(streamGenerateContent|generateContent|countTokens)/.test(url)) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: 404, message: `not scripted: ${req.method} ${url}`, status: "NOT_FOUND" } }));
      return;
    }
    if (record.kind === "count") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ totalTokens: Math.ceil(raw.length / 4) }));
      return;
    }
    let turn: GeminiTurn;
    if (record.kind === "main") {
      const step = script[turnsUsed];
      if (step === undefined) turn = { text: options.exhaustedText ?? "(script exhausted)" };
      else {
        record.turn = turnsUsed;
        turnsUsed += 1;
        turn = typeof step === "function" ? await step(record) : step;
      }
    } else {
      turn = { text: options.sideReply?.(record) ?? DEFAULT_SIDE };
    }
    const parts: GeminiPart[] = [];
    if (turn.text) parts.push({ text: turn.text });
    if ("calls" in turn) {
      for (const call of turn.calls) parts.push({ functionCall: { id: `call_${++callCounter}`, name: call.name, args: call.args } });
    }
    const promptTokens = turn.promptTokens ?? 100;
    const payload = {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: promptTokens, candidatesTokenCount: 10, totalTokenCount: promptTokens + 10 },
      modelVersion: "scripted",
    };
    if (url.includes(":streamGenerateContent")) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end(`data: ${JSON.stringify(payload)}\r\n\r\n`);
    } else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const err = error instanceof Error ? error : new Error(String(error));
      errors.push(err);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: 500, message: err.message, status: "INTERNAL" } }));
    });
  });
  const { url, port, close } = await listenLocal(server);
  return {
    url,
    port,
    requests,
    mainRequests: () => requests.filter((request) => request.kind === "main"),
    get turnsUsed() {
      return turnsUsed;
    },
    setScript(next) {
      script = next;
      turnsUsed = 0;
    },
    errors,
    close,
  };
}
