/**
 * The child process of the plugin rows (bench/plugin.ts): imports one plugin entry as the host does
 * and, with `event`, handles the first events a host sends against a small tree, then prints what
 * the import and the events cost inside the process (wall and CPU, ms) as one JSON line.
 *
 * Usage: node plugin-child.js <host: opencode|kilo|pi> <entry file> import|event <tree>
 * The tree: <tree>/AGENTS.md (what the host loads itself), <tree>/pkg/AGENTS.md, <tree>/pkg/src/a.ts.
 */
import { pathToFileURL } from "node:url";
import { join } from "node:path";

type Handler = (event: unknown, ctx: unknown) => Promise<unknown>;
type Hooks = Record<string, (input: unknown, output: unknown) => Promise<void>>;

const [host, entry, mode, tree] = process.argv.slice(2) as [string, string, string, string];
const cpu = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/** pi: before_agent_start (pi's own context file had), then a read below the nested file. */
async function piEvents(module: { default: (pi: unknown) => void }): Promise<string> {
  const handlers = new Map<string, Handler>();
  module.default({ on: (name: string, handler: Handler) => handlers.set(name, handler), sendMessage: () => undefined });
  const ctx = { cwd: tree, sessionManager: { getSessionId: () => "bench", buildContextEntries: () => [] } };
  await handlers.get("before_agent_start")!({ systemPromptOptions: { contextFiles: [{ path: join(tree, "AGENTS.md") }] } }, ctx);
  const result = (await handlers.get("tool_result")!({ toolName: "read", input: { path: "pkg/src/a.ts" }, content: [] }, ctx)) as
    { content: Array<{ text?: string }> } | undefined;
  return result?.content.map((part) => part.text ?? "").join("") ?? "";
}

/** OpenCode, Kilo: the plugin function, then `tool.execute.after` of a read below the nested file. */
async function familyEvents(module: { default: { server: (input: unknown, options?: unknown) => Promise<Hooks> } }): Promise<string> {
  const hooks = await module.default.server({ directory: tree, worktree: tree }, {});
  const output = { title: "", output: "a", metadata: {} };
  await hooks["tool.execute.after"]!({ tool: "read", sessionID: "bench", callID: "c1", args: { filePath: join(tree, "pkg/src/a.ts") } }, output);
  await hooks.dispose?.(undefined, undefined);
  return output.output;
}

const wall0 = performance.now();
const cpu0 = cpu();
const module = (await import(pathToFileURL(entry).href)) as never;
const imported = { wallMs: performance.now() - wall0, cpuMs: cpu() - cpu0 };
let event: { wallMs: number; cpuMs: number; delivered: boolean } | undefined;
if (mode === "event") {
  const wall1 = performance.now();
  const cpu1 = cpu();
  const text = host === "pi" ? await piEvents(module) : await familyEvents(module);
  event = { wallMs: performance.now() - wall1, cpuMs: cpu() - cpu1, delivered: text.includes("nested rules") };
}
process.stdout.write(`${JSON.stringify({ import: imported, ...(event ? { event } : {}) })}\n`);
