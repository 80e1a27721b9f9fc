/**
 * Issue 18 row 3 (path inputs): memory per call follows the directories that exist, never the
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

const HEAP = "--max-old-space-size=256";

function run(args: string[], options: { stdin?: string; env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}) {
  return new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [HEAP, ...args], { cwd: options.cwd, env: { PATH: process.env.PATH ?? "", ...options.env } });
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
