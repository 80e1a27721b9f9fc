/**
 * setup's check of the written Amp plugin: its default function registered on a stand-in of Amp's
 * plugin API, then one `tool.result` of a `Read`, shaped as Amp's plugin runtime sends it
 * (`{ thread: { id }, toolUseID, tool, input, status, output }`). State goes to the check's own
 * directory (`XDG_STATE_HOME` while the plugin runs, restored after). The workspace (`PWD`, as
 * Amp's plugin process sees it) is the project's `app/`, so the read of `pkg/` is outside it, where
 * Amp attaches no nested file itself and the output rightly lists none.
 */
import type { PluginCheck } from "../host/definition.js";

type Handler = (event: unknown, ctx: unknown) => Promise<unknown>;

export const check: PluginCheck = async (module, { dir, target, stateDir }) => {
  const register = (module as { default?: unknown } | null)?.default;
  if (typeof register !== "function") throw new Error("the module has no default export function (Amp's plugin function)");
  const handlers = new Map<string, Handler>();
  const api = { on: (event: string, handler: Handler) => void handlers.set(event, handler) };
  const saved = { XDG_STATE_HOME: process.env.XDG_STATE_HOME, PWD: process.env.PWD };
  process.env.XDG_STATE_HOME = stateDir;
  process.env.PWD = `${dir}/app`;
  try {
    (register as (amp: unknown) => void)(api);
    const handler = handlers.get("tool.result");
    if (handler === undefined) throw new Error("the plugin registered no tool.result handler");
    const output = { absolutePath: target, content: "1: notes" };
    const result = (await handler(
      { thread: { id: "T-agentsmd-setup-check" }, toolUseID: "toolu_check", tool: "Read", input: { path: target }, status: "done", output },
      { thread: { id: "T-agentsmd-setup-check" } },
    )) as { output?: { agentsmd?: unknown } } | undefined;
    const added = result?.output?.agentsmd;
    return typeof added === "string" ? added : undefined;
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
};
