/**
 * Codex CLI (pinned in e2e/codex) with `agentsmd mcp` registered as an MCP server, against the
 * scripted Responses API server on 127.0.0.1. The scripted model calls `agents_resolve` and then
 * `agents_context` for a file two packages deep; the test reads the tool outputs Codex sent back
 * to the model in the next requests.
 *
 * Run: npm run build && npm ci --prefix e2e/codex && npx vitest run -c vitest.e2e.config.ts e2e/codex-mcp
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { AGENTSMD_BIN, assertAgentsmdBuilt } from "../lib/agentsmd.js";
import { cleanEnv, run } from "../lib/exec.js";
import { codexProviderConfig, startResponsesServer, type ResponsesServer } from "../lib/responses-server.js";
import { createTree, dir, type BuiltTree } from "../lib/tree.js";
import { codexEntry, CODEX_VERSION, FRAGMENT_PREFIX } from "../codex/oracle.js";

function mcpServerConfig(args: string[]): string {
  // required: Codex waits for the server (and fails loudly if it cannot start) instead of starting
  // the first turn without its tools on a slow machine.
  return [
    `[mcp_servers.agentsmd]`,
    `command = ${JSON.stringify(process.execPath)}`,
    `args = ${JSON.stringify([AGENTSMD_BIN, ...args])}`,
    `required = true`,
    `startup_timeout_sec = 60`,
    ``,
  ].join("\n");
}

/** The `output` text of the function_call_output item answering `callId` in a request's input. */
function callOutput(input: unknown[] | undefined, callId: string): string | undefined {
  for (const item of input ?? []) {
    const entry = item as { type?: string; call_id?: string; output?: unknown };
    if (entry.type?.endsWith("call_output") && entry.call_id === callId) return typeof entry.output === "string" ? entry.output : JSON.stringify(entry.output);
  }
  return undefined;
}

describe(`codex ${CODEX_VERSION} with agentsmd mcp`, () => {
  let server: ResponsesServer | undefined;
  let tree: BuiltTree | undefined;

  beforeAll(async () => {
    await codexEntry();
    await assertAgentsmdBuilt();
  }, 15 * 60_000);

  afterEach(async () => {
    await server?.close();
    await tree?.cleanup();
    server = tree = undefined;
  });

  for (const [label, withCwd] of [
    ["--cwd given", true],
    ["workspace taken from Codex (no --cwd)", false],
  ] as const) {
    it(`the model calls agents_resolve and agents_context for a nested path and gets the right files (${label})`, async () => {
      tree = await createTree(
        {
          "codex-home": dir(),
          home: dir(),
          "repo/.git": dir(),
          "repo/AGENTS.md": "ROOT-RULE-1c4\n",
          "repo/packages/api/AGENTS.md": "API-RULE-9d2\n",
          "repo/packages/api/src/handler.ts": "export {};\n",
          "repo/packages/web/AGENTS.md": "WEB-RULE-77e\n",
        },
        { prefix: "agentsmd-codex-mcp-" },
      );
      const repo = tree.path("repo");
      const target = tree.path("repo/packages/api/src/handler.ts");
      server = await startResponsesServer({
        script: [
          { calls: [{ namespace: "mcp__agentsmd", name: "agents_resolve", args: { path: target }, id: "call_resolve" }] },
          { calls: [{ namespace: "mcp__agentsmd", name: "agents_context", args: { path: target }, id: "call_context" }] },
          { calls: [{ namespace: "mcp__agentsmd", name: "agents_context", args: { path: tree.path("other/x.ts") }, id: "call_outside" }] },
          { text: "E2E DONE" },
        ],
      });
      const codexHome = tree.path("codex-home");
      await mkdir(codexHome, { recursive: true });
      await writeFile(
        path.join(codexHome, "config.toml"),
        codexProviderConfig(server.baseURL, mcpServerConfig(["mcp", "--preset", "codex", ...(withCwd ? ["--cwd", repo] : [])])),
      );

      const r = await run(process.execPath, [await codexEntry(), "exec", "-C", repo, "--skip-git-repo-check", "--ephemeral", "Fix the handler."], {
        cwd: repo,
        env: cleanEnv({ CODEX_HOME: codexHome, HOME: tree.path("home") }),
        timeoutMs: 120_000,
      });
      expect(r.code, r.stderr.toString()).toBe(0);
      expect(r.stdout.toString()).toContain("E2E DONE");

      const turns = server.requests.filter((q) => q.method === "POST" && q.path.endsWith("/responses"));
      expect(turns).toHaveLength(4);

      // The tools are offered as the mcp__agentsmd namespace, and Codex loaded the root AGENTS.md itself.
      const offered = JSON.stringify(turns[0]!.body?.tools);
      expect(offered, r.stderr.toString()).toContain("mcp__agentsmd");
      expect(offered).toContain("agents_resolve");
      expect(offered).toContain("agents_context");
      expect(JSON.stringify(turns[0]!.body?.input)).toContain(`${FRAGMENT_PREFIX} for ${repo}`);

      const resolved = callOutput(turns[1]!.body?.input, "call_resolve");
      expect(resolved, JSON.stringify(turns[1]!.body?.input)).toBeDefined();
      // Codex prefixes MCP output with "Wall time: ...\nOutput:\n".
      const json = JSON.parse(resolved!.slice(resolved!.indexOf("{")));
      expect(json).toMatchObject({ target_path: target, resolved_path: target, count: 1 });
      // The root AGENTS.md is Codex's own initial bundle (preset codex), so only the nested one is new.
      expect(json.files).toEqual([{ path: tree.path("repo/packages/api/AGENTS.md"), mtime_ms: expect.any(Number), size_bytes: 13, reason: "new" }]);
      expect(resolved).not.toContain("API-RULE-9d2"); // metadata only

      const context = callOutput(turns[2]!.body?.input, "call_context");
      expect(context).toBeDefined();
      expect(context).toContain("API-RULE-9d2");
      expect(context).not.toContain("ROOT-RULE-1c4");
      expect(context).not.toContain("WEB-RULE-77e");

      const outside = callOutput(turns[3]!.body?.input, "call_outside");
      expect(outside).toContain("is outside the workspace roots");
    });
  }
});
