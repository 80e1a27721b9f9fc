/**
 * Amp's own plugin machinery against the plugin `agentsmd setup amp` writes. No Amp conversation
 * runs here (the native binary is not on the registry, and a thread needs Amp's server), so this is
 * the nearest proof: the pinned last JavaScript build of Amp (`@sourcegraph/amp`
 * 0.0.1777897475-g2324e1) and the Bun it runs plugins in.
 * - `amp plugins exec FILE session.start`: Amp's host loads the written file (its acknowledgement
 *   line accepted; the same file without it refused);
 * - Amp's plugin runtime (the Bun script Amp starts per plugin, taken from its dist/main.js) run on
 *   the written file, driven over its JSON-lines protocol as Amp's host drives it, with
 *   `tool.result` and `agent.start` requests shaped as Amp sends them.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/amp` (done on first use).
 */
import { spawn } from "node:child_process";
import { access, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ensureInstalled, REPO_ROOT } from "../lib/install.js";
import { run } from "../lib/exec.js";
import { setupPluginHost } from "../lib/setup-plugin.js";

const AMP_VERSION = "0.0.1777897475-g2324e1";
let ampMain = "";
let bunBin = "";
let root = "";

beforeAll(async () => {
  await access(join(REPO_ROOT, "dist", "cli", "bin.js"));
  ampMain = join(await ensureInstalled({ folder: "amp", pkg: "@sourcegraph/amp", version: AMP_VERSION }), "dist", "main.js");
  // Amp finds Bun by `which bun`: the package's `.bin/bun` link.
  bunBin = join(dirname(await ensureInstalled({ folder: "amp", pkg: "bun", version: "1.4.5" })), ".bin", "bun");
  root = await mkdtemp(join(tmpdir(), "agentsmd-amp-e2e-"));
}, 15 * 60_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** Amp's plugin runtime: the Bun script its dist/main.js holds as a template literal and writes out per plugin. */
async function extractRuntime(): Promise<string> {
  const source = await readFile(ampMain, "utf8");
  const start = source.indexOf("=`#!/usr/bin/env bun\n// @bun\n");
  const end = source.indexOf("`;import{execSync", start);
  if (start < 0 || end < 0) throw new Error(`Amp's plugin runtime not found in ${ampMain}`);
  // The literal's own escapes (\` \$ \\) undone by evaluating the literal alone: it has no substitutions.
  const text = (0, eval)(source.slice(start + 1, end + 1)) as string;
  const file = join(root, "amp-plugin-runtime.js");
  await writeFile(file, text);
  return file;
}

interface Runtime {
  request(method: string, params: unknown): Promise<{ result?: unknown; error?: string }>;
  close(): void;
}

/** Starts the runtime on `plugin` as Amp's host does (cwd the plugin's directory, Amp's environment) and answers its requests. */
async function startRuntime(runtime: string, plugin: string, env: Record<string, string>, workspace: string): Promise<Runtime> {
  const child = spawn(bunBin, ["run", runtime, plugin], { cwd: dirname(plugin), stdio: ["pipe", "pipe", "pipe"], env });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const pending = new Map<string, (message: { result?: unknown; error?: string }) => void>();
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  let ready!: () => void;
  const readyPromise = new Promise<void>((resolve) => (ready = resolve));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line) as { type: string; id?: string; event?: string; method?: string; result?: unknown; error?: string };
    if (message.type === "event" && message.event === "runtime.ready") ready();
    else if (message.type === "response") pending.get(message.id!)?.(message);
    else if (message.type === "request" && message.method === "client.info")
      send({ type: "response", id: message.id, result: { ampURL: "http://127.0.0.1:9", executorKind: "unknown", workspaceRoot: `file://${workspace}` } });
    else if (message.type === "request") send({ type: "response", id: message.id, error: `no handler for ${message.method}` });
  });
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the plugin runtime was not ready in 20 s: ${stderr}`)), 20_000));
  await Promise.race([readyPromise, timeout]);
  let id = 0;
  return {
    request: (method, params) =>
      new Promise((resolve) => {
        const key = String(++id);
        pending.set(key, resolve);
        send({ type: "request", id: key, method, params });
      }),
    close: () => child.kill("SIGTERM"),
  };
}

describe("Amp's plugin machinery (Amp 0.0.1777897475, Bun 1.4.5) on the plugin agentsmd setup writes", () => {
  test("Amp loads the written file; the runtime answers tool.result and agent.start as Amp expects", async () => {
    const home = join(root, "home");
    const project = join(root, "project");
    await mkdir(join(project, ".git"), { recursive: true });
    await mkdir(join(project, "pkg", "deep"), { recursive: true });
    await mkdir(join(root, "lib"), { recursive: true });
    await writeFile(join(project, "AGENTS.md"), "ROOT-RULE\n");
    await writeFile(join(project, "pkg", "AGENTS.md"), "PKG-RULE v1\n");
    await writeFile(join(project, "pkg", "deep", "x.ts"), "x\n");
    await writeFile(join(root, "lib", "AGENTS.md"), "LIB-RULE\n");
    await writeFile(join(root, "lib", "util.ts"), "util\n");
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_STATE_HOME: join(home, ".local", "state") };
    const agent = await setupPluginHost("amp", env);
    const plugin = agent.changes[0]!.file;
    expect(plugin).toBe(join(home, ".config", "amp", "plugins", "agentsmd.js"));

    // Amp's host: the acknowledgement line accepted, its absence refused.
    const path = `${dirname(bunBin)}:${process.env.PATH ?? "/usr/bin:/bin"}`;
    const execEnv = { ...env, PATH: path, PWD: project };
    const loaded = await run(process.execPath, [ampMain, "plugins", "exec", plugin, "session.start", "--data", '{"thread":{"id":"T-e2e"}}'], {
      cwd: project,
      env: execEnv,
      timeoutMs: 60_000,
    });
    expect(loaded.stdout.toString() + loaded.stderr.toString()).not.toMatch(/Plugin not loaded|Error/);
    const bare = join(project, "bare.js");
    await writeFile(bare, (await readFile(plugin, "utf8")).replace(/^\/\/ @i-know.*\n/m, ""));
    const refused = await run(process.execPath, [ampMain, "plugins", "exec", bare, "session.start", "--data", '{"thread":{"id":"T-e2e"}}'], {
      cwd: project,
      env: execEnv,
      timeoutMs: 60_000,
    });
    expect(refused.stdout.toString() + refused.stderr.toString()).toContain("Plugin not loaded");

    // Amp's plugin runtime, driven as Amp's host drives it.
    const runtime = await startRuntime(await extractRuntime(), plugin, { ...process.env, ...execEnv } as Record<string, string>, project);
    try {
      const thread = { id: "T-e2e" };
      const read = (path: string, output: unknown) =>
        runtime.request("tool.result", { thread, toolUseID: "toolu_r", tool: "Read", input: { path }, status: "done", output, span: "s" });
      const x = join(project, "pkg", "deep", "x.ts");
      expect((await runtime.request("events.list", {})).result).toEqual(["tool.result", "agent.start"]);
      expect((await runtime.request("agent.start", { thread, message: "go", id: 1, span: "s" })).result).toBeUndefined();
      // Amp attached pkg/AGENTS.md itself: nothing added; the same read again: nothing.
      const own = {
        absolutePath: x,
        content: "1: x",
        discoveredGuidanceFiles: [{ uri: `file://${join(project, "pkg", "AGENTS.md")}`, lineCount: 1, content: "PKG-RULE v1\n" }],
      };
      expect((await read(x, own)).result).toBeUndefined();
      expect((await read(x, { absolutePath: x, content: "1: x" })).result).toBeUndefined();
      // A file outside the workspace (Amp's discovery stops at it): added once, in the shape Amp's host accepts.
      const bash = () =>
        runtime.request("tool.result", {
          thread,
          toolUseID: "toolu_b",
          tool: "Bash",
          input: { cmd: "cat ../lib/util.ts" },
          status: "done",
          output: { output: "util\n", exitCode: 0 },
          span: "s",
        });
      const outside = (await bash()).result as { status: string; output: { output: string; agentsmd: string } };
      expect(outside.status).toBe("done");
      expect(outside.output.output).toBe("util\n");
      expect(outside.output.agentsmd).toContain("LIB-RULE");
      expect(outside.output.agentsmd).not.toContain("ROOT-RULE");
      expect((await bash()).result).toBeUndefined();
      // An edited file Amp gave once: back at the next message, once (Amp's API: a displayed message).
      await writeFile(join(project, "pkg", "AGENTS.md"), "PKG-RULE v2\n");
      await utimes(join(project, "pkg", "AGENTS.md"), 2_000_000_000, 2_000_000_000);
      const edited = (await runtime.request("agent.start", { thread, message: "again", id: 2, span: "s" })).result as {
        message: { content: string; display: boolean };
      };
      expect(edited.message.display).toBe(true);
      expect(edited.message.content.split("PKG-RULE v2").length - 1).toBe(1);
      expect((await runtime.request("agent.start", { thread, message: "more", id: 3, span: "s" })).result).toBeUndefined();
    } finally {
      runtime.close();
    }
  });
});
