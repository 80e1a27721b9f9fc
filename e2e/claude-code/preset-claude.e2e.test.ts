/**
 * Preset `claude` against the real Claude Code (pinned in package.json here): what
 * `agentsmd show --preset claude` prints must be, byte for byte, the `claudeMd` reminder Claude
 * Code puts in the first user message, and `touch` must render a nested CLAUDE.md exactly as the
 * reminder Claude Code attaches after a Read below it. Runs with a scripted model on 127.0.0.1.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/claude-code`.
 */
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { startAnthropicServer } from "../lib/anthropic-server.js";
import { textSegments } from "../lib/anthropic-request-text.js";
import { runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { createClaudeFixture, describeRun, runClaude, type ClaudeFixture, useAgentsmdClaudeSuite } from "./harness.js";

const cleanups = useAgentsmdClaudeSuite();

const MEMORY_START = "<system-reminder>\nCodebase and user instructions are shown below.";

async function agentsmd(fx: ClaudeFixture, args: string[]): Promise<string> {
  const r = await runAgentsmd(["--preset", "claude", "--home", fx.home, ...args], { env: cleanEnv({ HOME: fx.home }) });
  expect(r.code, r.stderr.toString()).toBe(0);
  return r.stdout.toString("utf8");
}

/** Text segments of the first main request that start with `prefix`. */
function segmentsStarting(body: unknown, prefix: string): string[] {
  return textSegments(body)
    .map((segment) => segment.text)
    .filter((text) => text.startsWith(prefix));
}

async function setup(files: Record<string, string>, home: Record<string, string> = {}) {
  const fx = await createClaudeFixture({ files, prefix: "agentsmd-e2e-preset-claude-" });
  for (const [rel, content] of Object.entries(home)) {
    const file = path.join(fx.home, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  const server = await startAnthropicServer({ script: [{ text: "done" }] });
  cleanups.push(
    () => fx.cleanup(),
    () => server.close(),
  );
  return { fx, server };
}

describe("preset claude matches what Claude Code loads", () => {
  it("the initial claudeMd reminder, byte for byte (user file, CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md, HTML comments)", async () => {
    const { fx, server } = await setup(
      {
        "CLAUDE.md": "# Root\n<!-- maintainers only -->\nRoot rule CC-1.\n\n\n",
        "CLAUDE.local.md": "Local rule CC-2.\n",
        "AGENTS.md": "Agents rule AG-1 (not loaded: a CLAUDE.md exists).\n",
        "sub/.claude/CLAUDE.md": "Dot-claude rule CC-3.\n",
        "sub/file.txt": "x\n",
      },
      { ".claude/CLAUDE.md": "User rule CC-0.\n" },
    );
    const run = await runClaude({ fixture: fx, server, prompt: "hi", cwd: "sub" });
    expect(run.exitCode, describeRun(run)).toBe(0);
    const main = run.requests.find((request) => request.kind === "main")!;
    const sent = segmentsStarting(main.body, MEMORY_START);
    expect(sent).toHaveLength(1);
    for (const token of ["CC-0", "CC-1", "CC-2", "CC-3"]) expect(sent[0]).toContain(token);
    expect(sent[0]).not.toContain("maintainers only");
    expect(sent[0]).not.toContain("AG-1");
    expect(await agentsmd(fx, ["show", "--cwd", fx.path("sub")])).toBe(sent[0]);
  });

  it("a nested CLAUDE.md after a Read below it, as touch renders it", async () => {
    const { fx, server } = await setup({
      "CLAUDE.md": "Root CC-1.\n",
      "pkg/CLAUDE.md": "# Pkg\n<!-- hidden -->\nNested rule CC-9.\n",
      "pkg/src/a.ts": "export {};\n",
    });
    server.setScript([{ toolUses: [{ name: "Read", input: { file_path: fx.path("pkg/src/a.ts") } }] }, { text: "done" }]);
    const run = await runClaude({ fixture: fx, server, prompt: "read it" });
    expect(run.exitCode, describeRun(run)).toBe(0);
    const after = run.requests.filter((request) => request.kind === "main")[1]!;
    const sent = segmentsStarting(after.body, `<system-reminder>\nContents of ${fx.path("pkg/CLAUDE.md")}:`);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain("CC-9");
    const state = path.join(fx.base, "touch-state.json");
    const touched = await agentsmd(fx, ["--cwd", fx.repo, "touch", fx.path("pkg/src/a.ts"), "--state", state]);
    expect(touched.replace(/\n$/, "")).toBe(sent[0]!.replace(/\n$/, ""));
  });

  it("AGENTS.md when no CLAUDE file exists at or above cwd", async () => {
    const { fx, server } = await setup({ "AGENTS.md": "Agents rule AG-1.\n", ".claude/AGENTS.md": "Dot agents AG-2.\n" });
    const run = await runClaude({ fixture: fx, server, prompt: "hi" });
    expect(run.exitCode, describeRun(run)).toBe(0);
    const main = run.requests.find((request) => request.kind === "main")!;
    const sent = segmentsStarting(main.body, MEMORY_START);
    expect(sent).toHaveLength(1);
    for (const token of ["AG-1", "AG-2"]) expect(sent[0]).toContain(token);
    expect(await agentsmd(fx, ["show", "--cwd", fx.repo])).toBe(sent[0]);
  });
});
