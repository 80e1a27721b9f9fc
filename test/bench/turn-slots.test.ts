/**
 * bench/lib/turn-slots.ts: the control configurations of bench/turn.ts are built from agentsmd's own
 * install, and the check that the no-op sits in exactly agentsmd's slots.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { noopHookSource, noopMcpServerSource, noopPluginModule, noopPluginText, slotDifferences, type InstalledFiles } from "../../bench/lib/turn-slots.js";

const AGENTSMD = "node /pkg/dist/hook/hook.cjs";
const settings = (base: string, command: string, events: string[]) =>
  JSON.stringify(
    {
      hooks: Object.fromEntries(events.map((event) => [event, [{ hooks: [{ type: "command", command: `${command} hook qwen`, timeout: 5 }] }]])),
      note: `${base}/x`,
    },
    null,
    2,
  );

describe("slotDifferences", () => {
  const agentsmd: InstalledFiles = {
    base: "/t/a",
    command: AGENTSMD,
    files: { "home/.qwen/settings.json": settings("/t/a", AGENTSMD, ["SessionStart", "PostToolUse"]) },
  };
  const noopOf = (events: string[], extra: Record<string, string> = {}): InstalledFiles => ({
    base: "/t/b",
    command: "node /t/b/noop-hook.cjs",
    files: { "home/.qwen/settings.json": settings("/t/b", "node /t/b/noop-hook.cjs", events), ...extra },
  });

  it("none when the two installs differ only in the command and the fixture's path", () => {
    expect(slotDifferences(agentsmd, noopOf(["SessionStart", "PostToolUse"]))).toEqual([]);
  });

  it("a slot missing or moved, a command in a file of one side only, a command in no file", () => {
    expect(slotDifferences(agentsmd, noopOf(["SessionStart"]))).toEqual(["home/.qwen/settings.json: agentsmd's command 2 times, the no-op's 1 times"]);
    expect(slotDifferences(agentsmd, noopOf(["PostToolUse", "SessionStart"]))).toEqual(["home/.qwen/settings.json: the entries differ beyond the command"]);
    expect(slotDifferences(agentsmd, noopOf(["SessionStart", "PostToolUse"], { "home/.qwen/extra.json": "node /t/b/noop-hook.cjs" }))).toEqual([
      "home/.qwen/extra.json: agentsmd's command 0 times, the no-op's 1 times",
    ]);
    expect(slotDifferences({ ...agentsmd, files: { "a.json": "{}" } }, { ...noopOf([]), files: { "a.json": "{}" } })).toEqual([
      `agentsmd's command "${AGENTSMD}" occurs in no file its install wrote`,
    ]);
  });

  it("what else an install touched is no slot: an agent's own files, a server's port elsewhere in the settings", () => {
    const withPort = (side: InstalledFiles, port: number): InstalledFiles => ({
      ...side,
      files: {
        ...side.files,
        "home/.qwen/settings.json": side.files["home/.qwen/settings.json"]!.replace("{", `{\n  "model": { "baseUrl": "http://127.0.0.1:${port}" },`),
        "home/state.sqlite-wal": `${port}`,
      },
    });
    expect(slotDifferences(withPort(agentsmd, 4100), withPort(noopOf(["SessionStart", "PostToolUse"]), 4200))).toEqual([]);
  });
});

describe("the no-op hook, module and MCP server", () => {
  it("the hook reads its input to the end, prints nothing and counts its call", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentsmd-noop-"));
    try {
      const log = join(dir, "calls.log");
      writeFileSync(join(dir, "noop.cjs"), noopHookSource(log));
      for (let i = 0; i < 2; i++) {
        const out = execFileSync(process.execPath, [join(dir, "noop.cjs"), "hook", "qwen"], { input: JSON.stringify({ hook_event_name: "PostToolUse" }) });
        expect(out.toString()).toBe("");
      }
      expect(readFileSync(log, "utf8")).toBe("call\ncall\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the module setup wrote re-exports the no-op where it re-exported agentsmd; a text without agentsmd's module is refused", () => {
    const setup = '// Written by `agentsmd setup`\nexport { default } from "file:///p/dist/integrations/kilo/index.js";\n';
    expect(noopPluginText(setup, "file:///p/dist/integrations/kilo/index.js", "file:///t/noop-module.js")).toBe(
      '// Written by `agentsmd setup`\nexport { default } from "file:///t/noop-module.js";\n',
    );
    expect(() => noopPluginText("export {};\n", "file:///p/x.js", "file:///t/n.js")).toThrow(/does not re-export "file:\/\/\/p\/x.js" once/);
    expect(noopPluginModule("plugin")).toContain("export default async function noopPlugin()");
    expect(noopPluginModule("extension")).toContain("export default function noopExtension()");
  });

  it("the MCP server answers initialize and lists nothing, refuses other methods, and counts each message", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentsmd-noop-mcp-"));
    try {
      const log = join(dir, "calls.log");
      writeFileSync(join(dir, "mcp.cjs"), noopMcpServerSource(log));
      const input = [
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18" } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "x" } },
      ]
        .map((m) => JSON.stringify(m) + "\n")
        .join("");
      const replies = execFileSync(process.execPath, [join(dir, "mcp.cjs")], { input })
        .toString()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { id: number; result?: any; error?: any });
      expect(replies.map((r) => r.id)).toEqual([1, 2, 3]);
      expect(replies[0]!.result.protocolVersion).toBe("2025-06-18");
      expect(replies[1]!.result).toEqual({ tools: [] });
      expect(replies[2]!.error.code).toBe(-32601);
      expect(readFileSync(log, "utf8")).toBe("initialize\nnotifications/initialized\ntools/list\ntools/call\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
