/**
 * Security (docs/security.md; path inputs): memory per call follows the directories that exist, never the
 * input's length, at every boundary (hook event, MCP argument, CLI argument, library). Each attack
 * runs in a child process with `--max-old-space-size=256`, so a regression fails (heap out of
 * memory, exit 134) instead of swapping.
 */
import { describe, expect, it, beforeAll } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { createTree, type Tree } from "../helpers/tree.js";
import { BIN, REPO, ensureBuilt } from "../helpers/bin.js";
import { HOOK_EVENTS } from "./host-table.js";

// Each call in its own process with this heap: the bound is the process's.
const HEAP = "--max-old-space-size=256";

function run(args: string[], options: { stdin?: string; env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}) {
  return new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [HEAP, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "", ...options.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? "");
  });
}

async function repo(): Promise<Tree> {
  // A CLAUDE.md turns Claude Code's own AGENTS.md loading off, so the hook delivers AGENTS.md itself.
  return createTree({ "r/.git/": null, "r/CLAUDE.md": "CLAUDE\n", "r/AGENTS.md": "ROOT\n", "r/pkg/AGENTS.md": "PKG\n", "r/pkg/x.ts": "x\n" });
}

/** 200 KB of path that does not exist below the root, one directory per two characters. */
const hugeBelow = (tree: Tree) => `${tree.path("r")}/${"a/".repeat(100_000)}x.ts`;
/** Just under PATH_MAX, 2,000 levels that do not exist. */
const deepBelow = (tree: Tree, tag: string) => `${tree.path("r")}/${tag}/${"a/".repeat(1_900)}x.ts`.slice(0, 4090);

describe("hostile paths cost memory in proportion to what exists", () => {
  beforeAll(ensureBuilt, 120_000);

  it("the Claude Code hook: a 200 KB path in an event exits cleanly, leaves no lock, and the state stays small", async () => {
    const tree = await repo();
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const base = { session_id: "s1", transcript_path: tree.path("t.jsonl"), cwd: tree.path("r") };
    const start = await run([BIN, "hook", "claude-code"], { stdin: JSON.stringify({ ...base, hook_event_name: "SessionStart", source: "startup" }), env });
    expect(start.code, start.stderr).toBe(0);
    for (const path of [hugeBelow(tree), `${tree.path("r")}/${"b/".repeat(9_500)}x.ts`, deepBelow(tree, "c")]) {
      const event = { ...base, hook_event_name: "PostToolUse", tool_name: "Read", tool_input: { file_path: path }, tool_response: {}, tool_use_id: "t" };
      const result = await run([BIN, "hook", "claude-code"], { stdin: JSON.stringify(event), env });
      expect(result.signal).toBeNull();
      expect(result.code, result.stderr).toBe(0);
    }
    // A normal event afterwards still works from the same state (it was not replaced).
    const normal = {
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "Read",
      tool_input: { file_path: tree.path("r/pkg/x.ts") },
      tool_response: {},
      tool_use_id: "t",
    };
    const after = await run([BIN, "hook", "claude-code"], { stdin: JSON.stringify(normal), env });
    expect(after.stdout).toContain("PKG");
    const dir = join(tree.path("state"), "agentsmd/claude-code");
    const files = readdirSync(dir);
    expect(files.filter((name) => name.endsWith(".lock"))).toEqual([]);
    for (const name of files) expect(statSync(join(dir, name)).size, name).toBeLessThan(64 * 1024);
  }, 60_000);

  it("the CLI: resolve and touch refuse a 200 KB argument with a clear error naming the limit", async () => {
    const tree = await repo();
    for (const command of ["resolve", "touch", "explain"]) {
      // 100 KB: one argv string may hold at most 128 KiB (MAX_ARG_STRLEN).
      const args = [
        BIN,
        "--cwd",
        tree.path("r"),
        command,
        `${tree.path("r")}/${"a/".repeat(50_000)}x.ts`,
        ...(command === "explain" ? [] : ["--state", tree.path("s.json")]),
      ];
      const result = await run(args);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain("at most 4095 bytes");
      expect(result.stderr).toContain("fix:");
      expect(result.stderr.length).toBeLessThan(2_000);
    }
  });

  it("the library: 3,000 distinct 2,000-level paths that do not exist stay within a 256 MB heap", async () => {
    const tree = await repo();
    const script = `
      const { createSession } = await import(${JSON.stringify(join(REPO, "dist/index.js"))});
      const session = await createSession({ cwd: ${JSON.stringify(tree.path("r"))}, home: ${JSON.stringify(tree.home)}, env: {} });
      const root = ${JSON.stringify(tree.path("r"))};
      for (let i = 0; i < 3000; i++) {
        const path = (root + "/t" + i + "/" + "a/".repeat(1900)).slice(0, 4080) + "/x.ts";
        await session.resolve(path);
        await session.touch([path]);
      }
      const found = await session.resolve(root + "/pkg/x.ts");
      process.stdout.write(JSON.stringify({ files: found.files.length, heap: process.memoryUsage().heapUsed, state: JSON.stringify(session.snapshot()).length }));
      await session.close();
    `;
    const result = await run(["--input-type=module", "-e", script], { timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { files: number; heap: number; state: number };
    expect(out.files).toBe(1);
    expect(out.state).toBeLessThan(64 * 1024);
  }, 90_000);
});

/** The state files of a host's directory: no lock left, each small. */
function expectSmallState(dir: string): void {
  const files = existsSync(dir) ? readdirSync(dir) : [];
  expect(files.filter((name) => name.endsWith(".lock"))).toEqual([]);
  for (const name of files) expect(statSync(join(dir, name)).size, name).toBeLessThan(64 * 1024);
}

describe("every host: hostile paths in tool events cost memory in proportion to what exists (256 MB heap)", () => {
  beforeAll(ensureBuilt, 120_000);

  /** Events that each name huge paths or many of them, per hook host, beyond the shared 200 KB / 40 KB / deep ones. */
  const extra = (tree: Tree): Record<string, Array<Record<string, unknown>>> => {
    const cwd = tree.path("r");
    const deepMany = Array.from({ length: 3_500 }, (_, i) => `${cwd}/t${i}/${"a/".repeat(1_990)}`.slice(0, 4_000));
    const codex = { session_id: "s1", transcript_path: null, cwd, model: "m", hook_event_name: "PostToolUse", tool_response: "", tool_use_id: "t" };
    return {
      codex: [
        // 64 directories match the first `*`, then 30,000 literal segments: 64 x 30,000 joins of a 60 KB path (606 s before).
        { ...codex, tool_name: "Bash", tool_input: { command: `cat ${cwd}/*/${"a/".repeat(30_000)}x*` } },
        // 1,500 patch headers of 10 KB each (out of memory before).
        {
          ...codex,
          tool_name: "apply_patch",
          tool_input: { command: `*** Begin Patch\n${`*** Add File: ${"b/".repeat(5_000)}n.ts\n+x\n`.repeat(1_500)}*** End Patch\n` },
        },
      ],
      gemini: [
        // 3,500 distinct paths of 4 KB (14 MB; out of memory before), 250 relative ones of 40 KB, 200,000 short ones (46 s before).
        { session_id: "s1", cwd, hook_event_name: "AfterTool", tool_name: "read_many_files", tool_input: { include: deepMany }, tool_response: {} },
        {
          session_id: "s1",
          cwd,
          hook_event_name: "AfterTool",
          tool_name: "read_many_files",
          tool_input: { include: Array.from({ length: 250 }, (_, i) => `t${i}/${"a/".repeat(20_000)}`) },
          tool_response: {},
        },
        {
          session_id: "s1",
          cwd,
          hook_event_name: "AfterTool",
          tool_name: "read_many_files",
          tool_input: { include: Array.from({ length: 200_000 }, (_, i) => `d${i % 64}/f${i}.ts`) },
          tool_response: {},
        },
      ],
      copilot: [
        {
          sessionId: "s1",
          timestamp: 1,
          cwd,
          toolName: "grep",
          toolArgs: { pattern: "x", paths: deepMany },
          toolResult: { resultType: "success" },
        },
      ],
    };
  };

  for (const host of Object.keys(HOOK_EVENTS)) {
    it(`hook ${host}: 200 KB, 40 KB relative and 2,000-level paths (and the host's own many-path calls) exit cleanly, leave no lock, and the state stays small`, async () => {
      const files: Record<string, string | null> = {
        "r/.git/": null,
        "r/CLAUDE.md": "CLAUDE\n",
        "r/AGENTS.md": "ROOT\n",
        "r/pkg/AGENTS.md": "PKG\n",
        "r/pkg/x.ts": "x\n",
      };
      for (let i = 0; i < 64; i++) files[`r/d${i}/`] = null;
      const tree = await createTree(files);
      const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
      const events = HOOK_EVENTS[host]!;
      const cwd = tree.path("r");
      const flags = (kind: string) =>
        Object.entries(events.flags?.(kind) ?? {}).flatMap(([name, value]) => [`--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, value]);
      const send = (kind: string, event: unknown) => run([BIN, "hook", host, ...flags(kind)], { stdin: JSON.stringify(event), env, cwd });
      const start = await send("start", events.start(cwd, "s1"));
      expect(start.code, start.stderr).toBe(0);
      const hostile = [
        ...[hugeBelow(tree), `${"a/".repeat(20_000)}x.ts`, deepBelow(tree, "c"), `${cwd}/${"./".repeat(100_000)}x.ts`].map((path) =>
          events.read(cwd, "s1", path),
        ),
        ...(extra(tree)[host] ?? []),
      ];
      for (const event of hostile) {
        const result = await send("read", event);
        expect(result.signal, host).toBeNull();
        expect(result.code, `${host}: ${result.stderr.slice(0, 300)}`).toBe(0);
      }
      const after = await send("read", events.read(cwd, "s1", tree.path("r/pkg/x.ts")));
      expect(after.stdout, host).toContain("PKG");
      expectSmallState(join(tree.path("state"), "agentsmd", host));
    }, 120_000);
  }

  it("pi and Kilo: the same attacks through their handlers, in one process", async () => {
    const files: Record<string, string | null> = { "r/.git/": null, "r/AGENTS.md": "ROOT\n", "r/pkg/AGENTS.md": "PKG\n", "r/pkg/x.ts": "x\n" };
    for (let i = 0; i < 64; i++) files[`r/d${i}/`] = null;
    const tree = await createTree(files);
    const cwd = tree.path("r");
    const script = `
      const { PiAgents } = await import(${JSON.stringify(join(REPO, "dist/integrations/pi/index.js"))});
      const { KiloAgents } = await import(${JSON.stringify(join(REPO, "dist/integrations/kilo/index.js"))});
      const cwd = ${JSON.stringify(cwd)};
      const home = ${JSON.stringify(tree.home)};
      const huge = cwd + "/" + "a/".repeat(100000) + "x.ts";
      const relative = "a/".repeat(20000) + "x.ts";
      const glob = "cat " + cwd + "/*/" + "a/".repeat(30000) + "x*";
      const patch = "*** Begin Patch\\n" + ("*** Add File: " + "b/".repeat(5000) + "n.ts\\n+x\\n").repeat(1500) + "*** End Patch\\n";
      const pi = new PiAgents({ stateDir: ${JSON.stringify(tree.path("state/pi"))} }, { home, env: {} });
      const out = [];
      for (const [tool, input] of [["read", { path: huge }], ["read", { path: relative }], ["bash", { command: glob }], ["bash", { command: "cat " + relative }], ["read", { path: cwd + "/pkg/x.ts" }]]) {
        out.push((await pi.afterTool("s1", cwd, tool, input)).text);
      }
      const kilo = new KiloAgents({ directory: cwd, worktree: cwd, home, env: {} }, { stateDir: ${JSON.stringify(tree.path("state/kilo"))} });
      const hooks = kilo.hooks();
      let n = 0;
      for (const [tool, args] of [["read", { filePath: huge }], ["read", { filePath: relative }], ["bash", { command: glob }], ["apply_patch", { patchText: patch }], ["read", { filePath: cwd + "/pkg/x.ts" }]]) {
        const output = { title: "", output: "", metadata: {} };
        await hooks["tool.execute.after"]({ tool, sessionID: "s1", callID: "c" + ++n, args }, output);
        out.push(output.output);
      }
      await kilo.dispose();
      process.stdout.write(JSON.stringify(out));
    `;
    const result = await run(["--input-type=module", "-e", script], { timeoutMs: 90_000 });
    expect(result.signal).toBeNull();
    expect(result.code, result.stderr.slice(0, 500)).toBe(0);
    const out = JSON.parse(result.stdout) as string[];
    expect(out[4]).toContain("PKG");
    expect(out[9]).toContain("PKG");
    for (const host of ["pi", "kilo"]) expectSmallState(tree.path(`state/${host}`));
  }, 120_000);

  it("Gemini CLI and Qwen Code: a 32 MB transcript of tiny messages is read within the bound (MAX_TRANSCRIPT_BYTES)", async () => {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "ROOT\n", "r/pkg/AGENTS.md": "PKG\n", "r/pkg/x.ts": "x\n" });
    const cwd = tree.path("r");
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const send = (host: string, event: Record<string, unknown>) => run([BIN, "hook", host], { stdin: JSON.stringify(event), env, cwd });
    // Qwen: a compaction record, then ~32 MB of messages made of 80,000 one-character parts each.
    const parts = JSON.stringify({ type: "user", message: { parts: Array.from({ length: 80_000 }, (_, i) => ({ t: String(i % 10) })) } });
    const qwen = tree.path("qwen.jsonl");
    await tree.write(
      "qwen.jsonl",
      `${JSON.stringify({ type: "system", subtype: "chat_compression", systemPayload: { compressedHistory: [] } })}\n${`${parts}\n`.repeat(40)}`,
    );
    const base = { session_id: "q", cwd, transcript_path: qwen };
    expect((await send("qwen", { ...base, hook_event_name: "SessionStart", source: "startup" })).code).toBe(0);
    const compact = await send("qwen", { ...base, hook_event_name: "SessionStart", source: "compact" });
    expect(compact.signal).toBeNull();
    expect(compact.code, compact.stderr.slice(0, 300)).toBe(0);
    // Gemini: marked before a history replacement of 660,000 messages (31 MB) lands in the transcript.
    const gemini = tree.path("gemini.jsonl");
    await tree.write("gemini.jsonl", `${JSON.stringify({ sessionId: "g" })}\n`);
    const g = { session_id: "g", cwd, transcript_path: gemini };
    expect((await send("gemini", { ...g, hook_event_name: "SessionStart", source: "startup" })).code).toBe(0);
    expect((await send("gemini", { ...g, hook_event_name: "PreCompress", trigger: "auto" })).code).toBe(0);
    const messages = Array.from({ length: 660_000 }, (_, i) => ({ type: "user", content: [{ text: `m${i}` }] }));
    await tree.write("gemini.jsonl", `${JSON.stringify({ sessionId: "g" })}\n${JSON.stringify({ $set: { messages } })}\n`);
    const tool = await send("gemini", {
      ...g,
      hook_event_name: "AfterTool",
      tool_name: "read_file",
      tool_input: { file_path: tree.path("r/pkg/x.ts") },
      tool_response: {},
    });
    expect(tool.signal).toBeNull();
    expect(tool.code, tool.stderr.slice(0, 300)).toBe(0);
    // The history was replaced and holds no agentsmd text: the root file the model lost comes back, with the nested one.
    expect(tool.stdout).toContain("PKG");
    for (const host of ["qwen", "gemini"]) expectSmallState(join(tree.path("state"), "agentsmd", host));
  }, 120_000);
});
