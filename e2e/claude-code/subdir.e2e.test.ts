/**
 * Claude Code started in a subdirectory: after the install the README recommends
 * (`agentsmd install claude-code`, user scope) the chain root -> cwd and the nested files arrive;
 * with the project scope they do not, because Claude Code (2.1.328+) does not read
 * `<repo>/.claude/settings.json` when started below the repo root: the caveat `install` prints.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/claude-code`.
 */
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { startAnthropicServer, type RecordedRequest } from "../lib/anthropic-server.js";
import { locateText } from "../lib/anthropic-request-text.js";
import { runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { createClaudeFixture, describeRun, pinnedClaudeCodeVersion, runClaude, useAgentsmdClaudeSuite } from "./harness.js";

const FILES: Record<string, string> = {
  "CLAUDE.md": "Token CC-ROOT-1: Claude Code loads this itself.\n",
  "AGENTS.md": "Token AG-ROOT-1: root rules.\n",
  "packages/api/AGENTS.md": "Token AG-API-2: api rules.\n",
  "packages/api/src/index.ts": "export const api = 1;\n",
  "packages/api/src/db/AGENTS.md": "Token AG-DB-3: db rules.\n",
  "packages/api/src/db/schema.ts": "export const schema = {};\n",
  "packages/web/AGENTS.md": "Token AG-WEB-4: a sibling, never delivered here.\n",
};

const cleanups = useAgentsmdClaudeSuite();

function delivered(request: RecordedRequest, token: string): number {
  return locateText(request.body, token).filter((hit) => hit.blockType !== "tool_use").length;
}

async function session(scope: "user" | "project") {
  const fx = await createClaudeFixture({ files: FILES, prefix: "agentsmd-e2e-claude-subdir-" });
  const server = await startAnthropicServer({ script: [] });
  cleanups.push(
    () => fx.cleanup(),
    () => server.close(),
  );
  const env = cleanEnv({ HOME: fx.home, XDG_STATE_HOME: path.join(fx.home, ".local", "state"), XDG_CONFIG_HOME: path.join(fx.home, ".config") });
  const install = await runAgentsmd(["install", "claude-code", ...(scope === "user" ? [] : ["--scope", scope])], { cwd: fx.repo, env });
  expect(install.code, install.stderr.toString()).toBe(0);
  // The README's install is quiet; the project scope says why it will not work from a subdirectory.
  if (scope === "user") expect(install.stderr.toString()).toBe("");
  else expect(install.stderr.toString()).toContain("a session started in a subdirectory gets nothing");
  server.setScript([{ toolUses: [{ name: "Read", input: { file_path: fx.path("packages/api/src/db/schema.ts") } }] }, { text: "done" }]);
  const run = await runClaude({ fixture: fx, server, prompt: "Read the schema.", cwd: "packages/api/src" });
  expect(run.exitCode, describeRun(run)).toBe(0);
  return { fx, run, last: run.requests.filter((request) => request.kind === "main").at(-1)! };
}

describe(`Claude Code ${pinnedClaudeCodeVersion()} started in a subdirectory`, () => {
  it("after `agentsmd install claude-code` (user scope): the chain root -> cwd and the nested file, each exactly once, never a sibling's", async () => {
    const { fx, last } = await session("user");
    expect(JSON.parse(fs.readFileSync(path.join(fx.home, ".claude/settings.json"), "utf8")).hooks.SessionStart).toHaveLength(1);
    for (const token of ["AG-ROOT-1", "AG-API-2", "AG-DB-3", "CC-ROOT-1"]) expect(delivered(last, token), token).toBe(1);
    expect(delivered(last, "AG-WEB-4")).toBe(0);
  });

  it("with `--scope project` the hooks never run there (only Claude Code's own CLAUDE.md arrives)", async () => {
    const { last } = await session("project");
    expect(delivered(last, "CC-ROOT-1")).toBe(1);
    for (const token of ["AG-ROOT-1", "AG-API-2", "AG-DB-3"]) expect(delivered(last, token), token).toBe(0);
  });
});
