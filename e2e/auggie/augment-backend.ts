/**
 * A fake of Augment's backend, the only server Auggie talks to (it has no OpenAI or Anthropic
 * endpoint option), built from the request and response shapes in the pinned client's own code
 * (`@augmentcode/auggie` 0.36.0): enough of the protocol for `auggie --print` to run a scripted
 * turn. It is not Augment's server: the real one builds the model's prompt from what the client
 * sends, this one only records the requests and answers each `/chat-stream` with the next
 * scripted step.
 *
 * - the client is pointed here by `AUGMENT_SESSION_AUTH` (`{accessToken, tenantURL, scopes}`);
 * - `get-models` answers the model list and the feature flags; `enable_hooks` switches Auggie's
 *   hooks on (without it no hook runs);
 * - `chat-stream` answers newline-delimited JSON chunks: `{text, nodes, stop_reason}`, a tool call
 *   as a node of type 5 (`tool_use: {tool_use_id, tool_name, input_json}`); the request carries
 *   the files the client sent (`rules`, `workspace_guidelines`), the earlier exchanges
 *   (`chat_history[].request_nodes`) and this turn's nodes (`nodes`: the tool results, of type 1);
 * - every other endpoint gets an empty answer of its shape.
 *
 * Example:
 * ```ts
 * const backend = await startAugmentBackend({ script: [{ toolCalls: [{ tool: "view", args: { path: "a.ts" } }] }, { text: "done" }] });
 * env.AUGMENT_SESSION_AUTH = backend.sessionAuth;
 * await backend.close();
 * ```
 */
import { createServer } from "node:http";
import { listenLocal } from "../lib/listen.js";

/** One scripted answer: tool calls (one chunk each), or the final text. */
export type AugmentStep = { toolCalls: Array<{ tool: string; args: Record<string, unknown> }> } | { text: string };

/** The parts of a `/chat-stream` request body the tests read. */
export interface ChatStreamBody {
  conversation_id?: string;
  rules?: Array<{ path?: string; content?: string; type?: number }>;
  workspace_guidelines?: string;
  user_guidelines?: string;
  message?: string;
  nodes?: ChatNode[];
  chat_history?: Array<{ request_message?: string; request_nodes?: ChatNode[] }>;
}

interface ChatNode {
  type?: number;
  text_node?: { content?: string };
  tool_result_node?: { content?: string };
}

export interface AugmentBackend {
  /** The value of `AUGMENT_SESSION_AUTH` that points Auggie here. */
  sessionAuth: string;
  /** Every request, in order: its endpoint and parsed body. */
  requests: Array<{ kind: string; body: unknown }>;
  /** The `/chat-stream` bodies, in order. */
  chatRequests(): ChatStreamBody[];
  /** Scripted steps the client has asked for. */
  readonly turnsUsed: number;
  setScript(script: AugmentStep[]): void;
  close(): Promise<void>;
}

/** Stop reasons of Augment's chat protocol: the turn ended, or it asks for tool results. */
const STOP_END_TURN = 1;
const STOP_TOOL_USE = 3;
/** Node types: raw response text, tool use. */
const NODE_RAW_RESPONSE = 0;
const NODE_TOOL_USE = 5;

/** Each scripted step as the chunks Auggie reads. */
function chunks(step: AugmentStep, turn: number): object[] {
  if ("text" in step)
    return [
      { text: step.text, nodes: [{ id: 0, type: NODE_RAW_RESPONSE, content: step.text }] },
      { text: "", nodes: [], stop_reason: STOP_END_TURN },
    ];
  const uses = step.toolCalls.map((call, index) => ({
    text: "",
    nodes: [
      {
        id: index + 1,
        type: NODE_TOOL_USE,
        content: "",
        tool_use: { tool_use_id: `call-${turn}-${index}`, tool_name: call.tool, input_json: JSON.stringify(call.args) },
      },
    ],
  }));
  return [...uses, { text: "", nodes: [], stop_reason: STOP_TOOL_USE }];
}

/** The empty answers of the endpoints Auggie calls at start-up. */
function answerOf(endpoint: string): unknown {
  if (endpoint === "get-models") {
    return {
      default_model: "e2e-model",
      models: [{ name: "e2e-model", suggested_prefix_char_count: 1000, suggested_suffix_char_count: 1000 }],
      languages: [],
      feature_flags: { enable_hooks: true },
      user_tier: "PROFESSIONAL_TIER",
    };
  }
  if (endpoint === "agents/list-remote-tools") return { tools: [] };
  return {};
}

/** A request body as JSON, or its text when it is not JSON. */
function parsed(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Starts the fake backend on an ephemeral 127.0.0.1 port. */
export async function startAugmentBackend(options: { script: AugmentStep[] }): Promise<AugmentBackend> {
  let script = options.script;
  let turn = 0;
  const requests: AugmentBackend["requests"] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      const endpoint = (req.url ?? "").replace(/^\/+/, "").split("?")[0]!;
      requests.push({ kind: endpoint, body: parsed(text) });
      res.setHeader("content-type", "application/json");
      if (endpoint !== "chat-stream") return void res.end(JSON.stringify(answerOf(endpoint)));
      const step = script[turn] ?? { text: "(script exhausted)" };
      turn += 1;
      res.end(
        `${chunks(step, turn)
          .map((chunk) => JSON.stringify(chunk))
          .join("\n")}\n`,
      );
    });
  });
  const listening = await listenLocal(server);
  return {
    sessionAuth: JSON.stringify({ accessToken: "e2e-token", tenantURL: `${listening.url}/`, scopes: ["email"] }),
    requests,
    chatRequests: () => requests.filter((request) => request.kind === "chat-stream").map((request) => request.body as ChatStreamBody),
    get turnsUsed() {
      return turn;
    },
    setScript(next) {
      script = next;
      turn = 0;
    },
    close: () => listening.close(),
  };
}

/**
 * Every text of a `/chat-stream` request the model's prompt is built from: the files sent as
 * rules and guidelines, the earlier exchanges' messages and tool results, this turn's nodes.
 */
export function chatText(body: ChatStreamBody): string {
  const nodeText = (node: ChatNode) => node.text_node?.content ?? node.tool_result_node?.content ?? "";
  return [
    ...(body.rules ?? []).map((rule) => rule.content ?? ""),
    body.workspace_guidelines ?? "",
    body.user_guidelines ?? "",
    ...(body.chat_history ?? []).flatMap((exchange) => [exchange.request_message ?? "", ...(exchange.request_nodes ?? []).map(nodeText)]),
    body.message ?? "",
    ...(body.nodes ?? []).map(nodeText),
  ].join("\n");
}
