/**
 * Security (docs/security.md): every preset has a byte budget, imports included, and every read is bounded by
 * it. Import amplification (51 files of 204 KB importing each other, 10 imports each, 5 levels:
 * 346 MB with preset claude before) and a 3 GB sparse AGENTS.md run in child processes with
 * `--max-old-space-size=256`.
 */
import { describe, expect, it, beforeAll } from "vitest";
import { spawn } from "node:child_process";
import { open } from "node:fs/promises";
import { createTree, runCli, type Tree } from "../helpers/tree.js";
import { BIN, ensureBuilt } from "../helpers/bin.js";
import { AGENTSMD_DEFAULT_MAX_BYTES } from "../../src/presets/preset.js";

// Each call in its own process with this heap: the bound is the process's.
const HEAP = "--max-old-space-size=256";
/** Presets that expand imports or had no limit of their own. */
const PRESETS = ["claude", "gemini", "opencode", "hygge", "codelia", "pi", "copilot"];

function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [HEAP, ...args], { env: { PATH: process.env.PATH ?? "", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end();
  });
}

/** 51 files of ~204 KB, each importing 10 others: 5 levels would be 10^5 expansions. */
async function amplifier(): Promise<Tree> {
  const tree = await createTree({ "r/.git/": null });
  const filler = `${"x".repeat(99)}\n`.repeat(2040);
  for (let i = 0; i <= 50; i++) {
    const imports = Array.from({ length: 10 }, (_, k) => `@./f${(i + k + 1) % 51}.md`).join(" ");
    await tree.write(`r/f${i}.md`, `${imports}\n${filler}`);
  }
  const top = Array.from({ length: 10 }, (_, k) => `@./f${k}.md`).join(" ");
  for (const name of ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]) await tree.write(`r/${name}`, `${top}\n`);
  for (const name of ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]) await tree.write(`r/sub/${name}`, `${top}\n`);
  await tree.write("on.json", JSON.stringify({ imports: { enabled: true } }));
  return tree;
}

describe("every preset has a byte budget, imports included", () => {
  beforeAll(ensureBuilt, 120_000);

  for (const preset of PRESETS) {
    it(`preset ${preset}: import amplification stays within the budget (show and touch, 256 MB heap)`, async () => {
      const tree = await amplifier();
      const base = [BIN, "--home", tree.home, "--cwd", tree.path("r"), "--preset", preset];
      const config = preset === "codelia" ? ["--config", tree.path("on.json")] : [];
      const show = await run([...base, ...config, "show"]);
      expect(show.code, show.stderr.slice(0, 500)).toBe(0);
      expect(Buffer.byteLength(show.stdout)).toBeLessThanOrEqual(AGENTSMD_DEFAULT_MAX_BYTES + 64 * 1024);
      const touch = await run([...base, ...config, "touch", tree.path("r/sub/x.ts"), "--state", tree.path("s.json")]);
      expect(touch.code, touch.stderr.slice(0, 500)).toBe(0);
      expect(Buffer.byteLength(touch.stdout)).toBeLessThanOrEqual(AGENTSMD_DEFAULT_MAX_BYTES + 64 * 1024);
    }, 90_000);
  }

  it("a 3 GB sparse instruction file is read only up to the budget", async () => {
    const tree = await createTree({ "r/.git/": null, "r/sub/x.ts": "x" });
    for (const name of ["r/AGENTS.md", "r/CLAUDE.md", "r/GEMINI.md", "r/sub/AGENTS.md", "r/sub/CLAUDE.md", "r/sub/GEMINI.md"]) {
      const handle = await open(tree.path(name), "w");
      await handle.truncate(3 * 1024 ** 3);
      await handle.close();
    }
    for (const preset of ["claude", "gemini", "opencode", "hygge"]) {
      const base = [BIN, "--home", tree.home, "--cwd", tree.path("r"), "--preset", preset];
      const show = await run([...base, "show"]);
      expect(show.code, `${preset}: ${show.stderr.slice(0, 300)}`).toBe(0);
      expect(Buffer.byteLength(show.stdout)).toBeLessThanOrEqual(AGENTSMD_DEFAULT_MAX_BYTES + 64 * 1024);
      const touch = await run([...base, "touch", tree.path("r/sub/x.ts"), "--state", tree.path(`s-${preset}.json`)]);
      expect(touch.code, `${preset}: ${touch.stderr.slice(0, 300)}`).toBe(0);
      expect(Buffer.byteLength(touch.stdout)).toBeLessThanOrEqual(AGENTSMD_DEFAULT_MAX_BYTES + 64 * 1024);
    }
  }, 120_000);

  it("explain says where a budget comes from: the agent's own limit or agentsmd's default", async () => {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "a", "r/CLAUDE.md": "c" });
    const claude = await runCli(["--home", tree.home, "--cwd", tree.path("r"), "--preset", "claude", "explain", tree.path("r/x.ts")]);
    expect(claude.stdout).toContain(`initial.maxBytes ${AGENTSMD_DEFAULT_MAX_BYTES} (agentsmd's default: the agent sets no limit)`);
    const codex = await runCli(["--home", tree.home, "--cwd", tree.path("r"), "--preset", "codex", "explain", tree.path("r/x.ts")]);
    expect(codex.stdout).toContain("initial.maxBytes 32768 (the agent's own limit)");
    const json = await runCli(["--home", tree.home, "--cwd", tree.path("r"), "--preset", "gemini", "--json", "explain", tree.path("r/x.ts")]);
    expect((JSON.parse(json.stdout) as { budget: string }).budget).toContain("agentsmd's default");
  });
});
