/**
 * Claude Code's own settings that change which memory files it loads, against the real
 * Claude Code (pinned in package.json here): `$CLAUDE_CONFIG_DIR` (the user CLAUDE.md and user
 * settings), `claudeMdExcludes` in the user, project and local settings files, and
 * `CLAUDE_CODE_DISABLE_CLAUDE_MDS`. `agentsmd show --preset claude` must equal the `claudeMd`
 * reminder Claude Code sends, byte for byte; with `--no-agent-config` it equals what Claude Code
 * sends without the settings files.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/claude-code`.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startAnthropicServer } from "../lib/anthropic-server.js";
import { textSegments } from "../lib/anthropic-request-text.js";
import { runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { createClaudeFixture, describeRun, runClaude, type ClaudeFixture, useAgentsmdClaudeSuite } from "./harness.js";

const cleanups = useAgentsmdClaudeSuite();
const MEMORY_START = "<system-reminder>\nCodebase and user instructions are shown below.";

/** What Claude Code sent as memory in its first request ("" for none). */
async function claudeMemory(fx: ClaudeFixture, cwd: string, env: Record<string, string> = {}): Promise<string> {
  const server = await startAnthropicServer({ script: [{ text: "done" }] });
  cleanups.push(() => server.close());
  const run = await runClaude({ fixture: fx, server, prompt: "hi", cwd, env });
  expect(run.exitCode, describeRun(run)).toBe(0);
  const main = run.requests.find((request) => request.kind === "main")!;
  const sent = textSegments(main.body)
    .map((segment) => segment.text)
    .filter((text) => text.startsWith(MEMORY_START));
  expect(sent.length).toBeLessThanOrEqual(1);
  return sent[0] ?? "";
}

async function show(fx: ClaudeFixture, cwd: string, env: Record<string, string> = {}, args: string[] = []): Promise<string> {
  const r = await runAgentsmd(["--preset", "claude", "--home", fx.home, "--cwd", fx.path(cwd), ...args, "show"], { env: cleanEnv({ HOME: fx.home, ...env }) });
  expect(r.code, r.stderr.toString()).toBe(0);
  return r.stdout.toString("utf8");
}

function write(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

async function fixture(files: Record<string, string>): Promise<ClaudeFixture> {
  const fx = await createClaudeFixture({ files, prefix: "agentsmd-e2e-claude-settings-" });
  cleanups.push(() => fx.cleanup());
  return fx;
}

describe("preset claude reads Claude Code's own settings like Claude Code", () => {
  it("$CLAUDE_CONFIG_DIR holds the user CLAUDE.md (not ~/.claude)", async () => {
    const fx = await fixture({ "CLAUDE.md": "Root CC-1.\n" });
    const configDir = path.join(fx.base, "claude-config");
    write(path.join(configDir, "CLAUDE.md"), "Config-dir user CC-U.\n");
    write(path.join(fx.home, ".claude", "CLAUDE.md"), "Home user CC-X.\n");
    const env = { CLAUDE_CONFIG_DIR: configDir };
    const sent = await claudeMemory(fx, ".", env);
    expect(sent).toContain("CC-U");
    expect(sent).not.toContain("CC-X");
    expect(await show(fx, ".", env)).toBe(sent);
  });

  it("claudeMdExcludes from the user, project and local settings (globs and absolute paths); the managed file is never excluded", async () => {
    const fx = await fixture({
      "CLAUDE.md": "Root CC-1.\n",
      "CLAUDE.local.md": "Local CC-L.\n",
      "pkg/CLAUDE.md": "Pkg CC-P.\n",
      "pkg/.claude/CLAUDE.md": "Pkg dot CC-D.\n",
      "pkg/sub/CLAUDE.md": "Sub CC-S.\n",
    });
    write(path.join(fx.home, ".claude", "CLAUDE.md"), "User CC-U.\n");
    write(path.join(fx.home, ".claude", "settings.json"), JSON.stringify({ claudeMdExcludes: [path.join(fx.home, ".claude", "CLAUDE.md")] }));
    write(fx.path("pkg/sub/.claude/settings.json"), JSON.stringify({ claudeMdExcludes: ["**/pkg/CLAUDE.md"] }));
    write(fx.path("pkg/sub/.claude/settings.local.json"), JSON.stringify({ claudeMdExcludes: ["**/CLAUDE.local.md", `${fx.repo}/pkg/.claude/*.md`] }));
    const sent = await claudeMemory(fx, "pkg/sub");
    for (const token of ["CC-1", "CC-S"]) expect(sent).toContain(token);
    for (const token of ["CC-U", "CC-L", "CC-P", "CC-D"]) expect(sent).not.toContain(token);
    expect(await show(fx, "pkg/sub")).toBe(sent);
    // --no-agent-config: what Claude Code sends without those settings files.
    const ignored = await show(fx, "pkg/sub", {}, ["--no-agent-config"]);
    for (const file of [
      path.join(fx.home, ".claude", "settings.json"),
      fx.path("pkg/sub/.claude/settings.json"),
      fx.path("pkg/sub/.claude/settings.local.json"),
    ])
      fs.rmSync(file);
    expect(ignored).toBe(await claudeMemory(fx, "pkg/sub"));
  });

  it("an excluded CLAUDE.md no longer switches Claude Code's own AGENTS.md loading off: AGENTS.md loads in its place", async () => {
    const fx = await fixture({ "CLAUDE.md": "Root CC-1.\n", "AGENTS.md": "Agents AG-1.\n" });
    fx.writeSettings({ claudeMdExcludes: ["**/CLAUDE.md"] });
    const sent = await claudeMemory(fx, ".");
    expect(sent).not.toContain("CC-1");
    expect(sent).toContain("AG-1");
    expect(await show(fx, ".")).toBe(sent);
  });

  it("CLAUDE_CODE_DISABLE_CLAUDE_MDS=1 loads no memory file at all", async () => {
    const fx = await fixture({ "CLAUDE.md": "Root CC-1.\n", "AGENTS.md": "Agents AG-1.\n" });
    write(path.join(fx.home, ".claude", "CLAUDE.md"), "User CC-U.\n");
    const env = { CLAUDE_CODE_DISABLE_CLAUDE_MDS: "1" };
    expect(await claudeMemory(fx, ".", env)).toBe("");
    expect(await show(fx, ".", env)).toBe("");
  });
});
