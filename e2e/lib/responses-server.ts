/**
 * A scripted OpenAI Responses API server for end-to-end tests of Codex CLI (`codex exec`).
 *
 * It listens on 127.0.0.1 (random port), answers `POST <base>/responses` with a Server-Sent
 * Events stream (`response.created`, `response.output_item.added/done`, `response.completed`)
 * and records every request. Each POST consumes one turn of the script: final text, or function
 * calls. Once the script is used up it answers with `fallbackText`.
 *
 * Point Codex at it with `codexProviderConfig(server.baseURL)` in `CODEX_HOME/config.toml`
 * (checked with Codex 0.169.0: no login needed, one POST per model turn, `stream: true`,
 * `store: false`). An MCP tool is called with its bare tool name plus `namespace: "mcp__<server>"`;
 * a flat `mcp__<server>__<tool>` name is rejected by Codex as "unsupported call".
 *
 * @example
 * const server = await startResponsesServer({
 *   script: [{ calls: [{ namespace: "mcp__agentsmd", name: "agents_resolve", args: { path: "src/a.ts" } }] }, { text: "done" }],
 * });
 * await writeFile(join(codexHome, "config.toml"), codexProviderConfig(server.baseURL));
 * // CODEX_HOME=codexHome codex exec --skip-git-repo-check --ephemeral -C <dir> "prompt" </dev/null
 * server.requests[0].body.input; // the model-visible input list, AGENTS.md fragment included
 * await server.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listenLocal } from "./listen.js";

/** One function call the scripted model makes. */
interface ScriptedCall {
  /** Tool name as offered, e.g. `exec_command`, or an MCP tool's own name. */
  name: string;
  /** For MCP tools: `mcp__<server name>`. */
  namespace?: string;
  args: Record<string, unknown>;
  /** call_id; generated when omitted. */
  id?: string;
}

/**
 * One call of a freeform ("custom") tool, e.g. Codex's `apply_patch` for models whose metadata says
 * `apply_patch_tool_type: "freeform"` (such as `gpt-5.5`): the raw `input` text, no JSON arguments.
 */
interface ScriptedCustomCall {
  custom: true;
  name: string;
  input: string;
  id?: string;
}

export type ResponsesTurn = { text: string } | { calls: (ScriptedCall | ScriptedCustomCall)[]; text?: string };

export interface RecordedResponsesRequest {
  index: number;
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** Parsed JSON body, or the raw text when it is not JSON; undefined when empty. */
  body: ResponsesRequestBody | undefined;
}

/** The fields of a Responses API request body the tests look at. */
interface ResponsesRequestBody {
  model?: string;
  input?: unknown[];
  tools?: unknown[];
  stream?: boolean;
  [key: string]: unknown;
}

export interface ResponsesServer {
  /** e.g. `http://127.0.0.1:PORT/v1` */
  readonly baseURL: string;
  readonly requests: readonly RecordedResponsesRequest[];
  /** Requests to paths the server does not know (answered 404). */
  readonly unexpected: readonly RecordedResponsesRequest[];
  close(): Promise<void>;
}

export interface ResponsesServerOptions {
  script: ResponsesTurn[];
  /** Answer once the script is exhausted. Default `"done"`. */
  fallbackText?: string;
}

/**
 * The `config.toml` text that points Codex at `baseURL` through a custom provider named `mock`.
 * `extra` is appended verbatim (e.g. `[mcp_servers.NAME]` tables).
 */
export function codexProviderConfig(baseURL: string, extra = ""): string {
  return [
    `model = "mock-model"`,
    `model_provider = "mock"`,
    `approval_policy = "never"`,
    ``,
    `[model_providers.mock]`,
    `name = "mock"`,
    `base_url = ${JSON.stringify(baseURL)}`,
    `wire_api = "responses"`,
    ``,
    extra,
  ].join("\n");
}

/** Text of every `input_text` item in a Responses input list, in order. */
export function inputTexts(input: unknown[] | undefined): string[] {
  const texts: string[] = [];
  for (const item of input ?? []) {
    const content = (item as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const part of content) {
      const p = part as { type?: unknown; text?: unknown };
      if (p.type === "input_text" && typeof p.text === "string") texts.push(p.text);
    }
  }
  return texts;
}

export async function startResponsesServer(options: ResponsesServerOptions): Promise<ResponsesServer> {
  const requests: RecordedResponsesRequest[] = [];
  const unexpected: RecordedResponsesRequest[] = [];
  let turn = 0;
  let seq = 0;

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string): void => {
    let body: ResponsesRequestBody | undefined;
    if (raw) {
      try {
        body = JSON.parse(raw) as ResponsesRequestBody;
      } catch {
        body = { raw } as ResponsesRequestBody;
      }
    }
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const record: RecordedResponsesRequest = { index: requests.length, method: req.method ?? "", path, headers: req.headers, body };
    requests.push(record);

    if (req.method === "POST" && path.endsWith("/responses")) {
      const step = options.script[turn++] ?? { text: options.fallbackText ?? "done" };
      const id = `resp_e2e_${++seq}`;
      const items: Record<string, unknown>[] = [];
      const text = "text" in step ? step.text : undefined;
      if (text !== undefined) {
        items.push({
          type: "message",
          role: "assistant",
          id: `msg_e2e_${seq}`,
          content: [{ type: "output_text", text, annotations: [] }],
        });
      }
      if ("calls" in step) {
        step.calls.forEach((call, i) => {
          if ("custom" in call) {
            items.push({ type: "custom_tool_call", id: `ctc_e2e_${seq}_${i}`, call_id: call.id ?? `call_e2e_${seq}_${i}`, name: call.name, input: call.input });
            return;
          }
          items.push({
            type: "function_call",
            id: `fc_e2e_${seq}_${i}`,
            call_id: call.id ?? `call_e2e_${seq}_${i}`,
            name: call.name,
            ...(call.namespace ? { namespace: call.namespace } : {}),
            arguments: JSON.stringify(call.args),
          });
        });
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const send = (type: string, data: Record<string, unknown>): void => {
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      };
      send("response.created", { response: { id } });
      items.forEach((item, index) => {
        send("response.output_item.added", { output_index: index, item });
        send("response.output_item.done", { output_index: index, item });
      });
      send("response.completed", {
        response: {
          id,
          output: items,
          usage: {
            input_tokens: 100,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 10,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 110,
          },
        },
      });
      res.end();
      return;
    }
    if (req.method === "GET" && path.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [], models: [] }));
      return;
    }
    unexpected.push(record);
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `no route for ${req.method} ${path}` } }));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  const { url, close } = await listenLocal(server);
  return {
    baseURL: `${url}/v1`,
    requests,
    unexpected,
    close,
  };
}
