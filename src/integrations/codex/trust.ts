/**
 * Codex hook trust (codex-cli 0.169.0). A non-managed hook runs only when the user config.toml
 * holds `[hooks.state."<source file>:<event_snake>:<group>:<handler>"] trusted_hash = "sha256:..."`
 * equal to the hook's current hash; untrusted or modified hooks are skipped silently.
 *
 * The hash is sha256 over the canonical JSON (keys sorted, compact) of the normalised identity
 * `{event_name, matcher?, hooks: [{type: "command", command, timeout, async}]}` (timeout defaults
 * to 600; unset optional fields are left out), checked against `currentHash` from
 * `codex app-server` `hooks/list` in test/integrations/codex and e2e/codex-hooks.
 *
 * `codex app-server` speaks JSON-RPC 2.0, one JSON document a line, on stdio: `initialize`,
 * the `initialized` notification, `hooks/list {cwds}`, `config/batchWrite {edits}`.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";

/** A command hook handler as written in hooks.json. */
export interface CommandHandler {
  type: "command";
  command: string;
  timeout?: number;
  async?: boolean;
  statusMessage?: string;
}

/** snake_case label of a hook event in keys and hashes. */
function eventLabel(event: string): string {
  return event.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined && v !== null) out[key] = canonical(v);
    }
    return out;
  }
  return value;
}

/**
 * The trust hash Codex computes for one handler of one matcher group.
 */
export function codexHookHash(event: string, matcher: string | undefined, handler: CommandHandler): string {
  const identity = {
    event_name: eventLabel(event),
    ...(matcher === undefined ? {} : { matcher }),
    hooks: [
      {
        type: "command",
        command: handler.command,
        timeout: Math.max(1, handler.timeout ?? 600),
        async: handler.async ?? false,
        ...(handler.statusMessage === undefined ? {} : { statusMessage: handler.statusMessage }),
      },
    ],
  };
  return `sha256:${createHash("sha256")
    .update(JSON.stringify(canonical(identity)))
    .digest("hex")}`;
}

/**
 * The `hooks.state` key of a handler.
 */
export function codexHookKey(sourceFile: string, event: string, group: number, handler: number): string {
  return `${sourceFile}:${eventLabel(event)}:${group}:${handler}`;
}

/** One entry of `hooks/list`. */
export interface CodexListedHook {
  key: string;
  eventName: string;
  command: string | null;
  matcher: string | null;
  sourcePath: string;
  currentHash: string;
  trustStatus: string;
  enabled: boolean;
}

/** A JSON-RPC session with `codex app-server`, bounded in time. */
export interface AppServer {
  call(method: string, params: unknown): Promise<unknown>;
  close(): void;
}

/**
 * Starts `codex app-server` and completes the handshake.
 */
export async function startAppServer(codexBin: string, env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<AppServer> {
  const child = spawn(codexBin, ["app-server"], { env, stdio: ["pipe", "pipe", "pipe"] });
  let buffer = "";
  let failed: Error | undefined;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const failAll = (error: Error) => {
    failed ??= error;
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  child.on("error", (e) => failAll(new Error(`cannot run ${codexBin} app-server: ${e.message}`)));
  child.on("exit", (code) => failAll(new Error(`${codexBin} app-server exited (${code})`)));
  child.stderr.resume();
  child.stdin.on("error", () => undefined);
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    if (buffer.length > 16 * 1024 * 1024) return failAll(new Error("app-server answer too large"));
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let message: { id?: unknown; result?: unknown; error?: { message?: string } };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        continue;
      }
      if (typeof message.id !== "number") continue;
      const w = waiting.get(message.id);
      if (!w) continue;
      waiting.delete(message.id);
      if (message.error) w.reject(new Error(message.error.message ?? JSON.stringify(message.error)));
      else w.resolve(message.result);
    }
  });
  const timer = setTimeout(() => failAll(new Error(`${codexBin} app-server did not answer within ${timeoutMs} ms`)), timeoutMs);
  let next = 0;
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  const server: AppServer = {
    call(method, params) {
      if (failed) return Promise.reject(failed);
      const id = ++next;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        send({ id, method, params });
      });
    },
    close() {
      clearTimeout(timer);
      child.stdin.end();
      child.kill();
    },
  };
  try {
    await server.call("initialize", { clientInfo: { name: "agentsmd", version: "1" } });
    send({ method: "initialized" });
  } catch (error) {
    server.close();
    throw error;
  }
  return server;
}

/**
 * The hooks Codex sees for `cwd`, as `hooks/list` reports them.
 */
export async function listHooks(server: AppServer, cwd: string): Promise<CodexListedHook[]> {
  const result = (await server.call("hooks/list", { cwds: [cwd] })) as { data?: Array<{ hooks?: CodexListedHook[] }> };
  return (result.data ?? []).flatMap((entry) => entry.hooks ?? []);
}
