/**
 * setup's check of the written pi extension: its default function registered on a stand-in of
 * pi's extension API, then one `tool_result` of a `read`, as pi emits it after its read tool. pi
 * reads state from the environment the extension runs in, so the check points
 * `XDG_STATE_HOME` at its own directory while the extension runs (setup's process, restored after).
 */
import type { PluginCheck } from "../host/definition.js";

type Handler = (event: unknown, ctx: unknown) => Promise<unknown>;

export const check: PluginCheck = async (module, { dir, target, stateDir }) => {
  const register = (module as { default?: unknown } | null)?.default;
  if (typeof register !== "function") throw new Error("the module has no default export function (pi's extension factory)");
  const handlers = new Map<string, Handler>();
  const api = { on: (event: string, handler: Handler) => void handlers.set(event, handler), sendMessage: () => undefined };
  const before = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = stateDir;
  try {
    (register as (pi: unknown) => void)(api);
    const handler = handlers.get("tool_result");
    if (handler === undefined) throw new Error("the extension registered no tool_result handler");
    const session = { getSessionId: () => "agentsmd-setup-check", buildContextEntries: () => [] };
    const result = (await handler(
      { type: "tool_result", toolCallId: "check-1", toolName: "read", input: { path: target }, content: [{ type: "text", text: "notes\n" }], isError: false },
      { cwd: dir, sessionManager: session },
    )) as { content?: Array<{ text?: string }> } | undefined;
    const added = (result?.content ?? []).slice(1).map((part) => part.text ?? "");
    return added.length > 0 ? added.join("\n") : undefined;
  } finally {
    if (before === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = before;
  }
};
