/**
 * setup's check of a written OpenCode-family plugin module (OpenCode, Kilo Code): the module's
 * `default.server` (or a plain default function) called as the host calls a plugin, then one
 * `tool.execute.after` of a `read`, as the host runs it after its read tool. The project directory
 * is the worktree and the session starts in a sibling of the file read, so the host's own
 * attachment of nested files below its directory leaves the file to the plugin.
 */
import { join, parentOf } from "../../core/paths.js";
import type { PluginCheck } from "./definition.js";

type Hooks = Record<string, ((input: unknown, output: unknown) => Promise<void>) | undefined> & { dispose?: () => Promise<void> };
type Server = (input: Record<string, unknown>, options?: Record<string, unknown>) => Promise<Hooks>;

/** The plugin function the host takes from a module: `default.server` when the default is `{ id, server }`. */
function serverOf(module: unknown): Server | undefined {
  const main = (module as { default?: unknown } | null)?.default;
  const server = typeof main === "function" ? main : (main as { server?: unknown } | null | undefined)?.server;
  return typeof server === "function" ? (server as Server) : undefined;
}

export const check: PluginCheck = async (module, { dir, target, stateDir }) => {
  const server = serverOf(module);
  if (server === undefined) throw new Error("the module exports no plugin function (neither `default.server` nor a default function)");
  // The session runs in a directory beside the file's: the host attaches nothing below its own directory there.
  const directory = join(dir, "app");
  const hooks = await server(
    { directory, worktree: dir, project: { id: "agentsmd-setup-check", worktree: dir }, serverUrl: new URL("http://127.0.0.1:0") },
    { stateDir, watch: false },
  );
  try {
    const after = hooks["tool.execute.after"];
    if (after === undefined) throw new Error("the plugin has no tool.execute.after hook");
    const body = "notes\n";
    const output = { title: parentOf(target), output: body, metadata: {} };
    await after({ tool: "read", sessionID: "agentsmd-setup-check", callID: "check-1", args: { filePath: target } }, output);
    return output.output === body ? undefined : output.output.slice(body.length);
  } finally {
    await hooks.dispose?.();
  }
};
