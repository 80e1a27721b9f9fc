/**
 * The launcher's gate in front of the quiet stage (hook/quiet-gate.ts): it turns away, before any
 * bundle loads, every call the quiet stage could not answer (another event, a conversation without
 * a certificate, a target outside the certified directories, a head it cannot read), reads the
 * certificate's head as the stage reads files (no link, no FIFO, bounded), and lets through every
 * call the stage answers. Each quiet host's gate looks where its quiet stage looks.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { gateConversation, gateStateDir, namesPathIn, quietGateOpen } from "../../src/hook/quiet-gate.js";
import { quietCall } from "../../src/hook/quiet.js";
import { quietHost } from "../../src/integrations/claude-code/quiet.js";
import { CLAUDE_STYLE_GATE, certificateHead, quietPath } from "../../src/integrations/host/quiet-format.js";
import { hostStateDir } from "../../src/integrations/host/state-file.js";
import { hostDefinitions } from "../../src/integrations/registry.js";
import { certified, HOST } from "../helpers/quiet-setup.js";

const gateOf = (host: string) => hostDefinitions().find((definition) => definition.id === host)!.hook!.quiet!.gate;

describe("the gate's reading of an event (pure)", () => {
  const tool = (extra: object = {}) => JSON.stringify({ session_id: "s 1", hook_event_name: "PostToolUse", tool_input: { file_path: "/r/a.ts" }, ...extra });

  it("a tool event names its conversation; any other event, or none named, is turned away", () => {
    expect(gateConversation(tool(), CLAUDE_STYLE_GATE)).toEqual({ id: "s 1", agent: undefined });
    expect(gateConversation(tool({ agent_id: 'sub"1' }), CLAUDE_STYLE_GATE)).toEqual({ id: "s 1", agent: 'sub"1' });
    expect(gateConversation(tool({ agent_id: "" }), CLAUDE_STYLE_GATE)).toEqual({ id: "s 1", agent: undefined });
    expect(gateConversation(JSON.stringify({ session_id: "s", hook_event_name: "SessionStart" }), CLAUDE_STYLE_GATE)).toBeNull();
    expect(gateConversation(JSON.stringify({ hook_event_name: "PostToolUse" }), CLAUDE_STYLE_GATE)).toBeNull();
    expect(gateConversation(tool({ session_id: 7 }), CLAUDE_STYLE_GATE)).toBeNull();
  });

  it("a target in or below a listed directory, or the directory itself, lets through; beside it or elsewhere does not", () => {
    expect(namesPathIn(tool(), ["/r"])).toBe(true);
    expect(namesPathIn(JSON.stringify({ tool_input: { path: "/r" } }), ["/r"])).toBe(true);
    expect(namesPathIn(JSON.stringify({ tool_input: { file_path: "/r/sub/a.ts" } }), ["/r"])).toBe(true);
    expect(namesPathIn(JSON.stringify({ tool_input: { file_path: "/rr/a.ts" } }), ["/r"])).toBe(false);
    expect(namesPathIn(JSON.stringify({ tool_input: { file_path: "/x/r/a.ts" } }), ["/r"])).toBe(false);
    expect(namesPathIn(tool(), [])).toBe(false);
    expect(namesPathIn(JSON.stringify({ file: '/q"x/a' }), ['/q"x'])).toBe(true);
    expect(namesPathIn(JSON.stringify({ file: "/a.ts" }), ["/"])).toBe(true);
  });

  it("a target relative to the host's base (Auggie's workspace root) is looked for below it, spelled relative", () => {
    const auggie = (path: string) => JSON.stringify({ workspace_roots: ["/w"], tool_input: { path } });
    expect(namesPathIn(auggie("pkg/a.ts"), ["/w/pkg"], "/w")).toBe(true);
    expect(namesPathIn(auggie("pkg/sub/a.ts"), ["/w/pkg"], "/w/")).toBe(true);
    expect(namesPathIn(auggie("pkg"), ["/w/pkg"], "/w")).toBe(true);
    expect(namesPathIn(auggie("pkg/a.ts"), ["/w/pkg"])).toBe(false);
    expect(namesPathIn(auggie("pkgx/a.ts"), ["/w/pkg"], "/w")).toBe(false);
    expect(namesPathIn(auggie("pkg/a.ts"), ["/v/pkg"], "/w")).toBe(false);
    expect(namesPathIn(auggie("pkg/a.ts"), ["/w/pkg"], "w")).toBe(false);
  });

  it("a head is a list of absolute paths, else nothing", () => {
    expect(certificateHead('["/a","/b c"]')).toEqual(["/a", "/b c"]);
    for (const bad of ['{"format":4}', '["a"]', "[1]", "[", ""]) expect(certificateHead(bad), bad).toBeNull();
  });
});

describe("the gate on disk", () => {
  let setup: Awaited<ReturnType<typeof certified>>;
  const gate = gateOf(HOST);
  const open = (event: object = setup.read, env = setup.env) => quietGateOpen(HOST, gate, JSON.stringify(event), env);
  beforeAll(async () => {
    setup = await certified();
  }, 30_000);

  it("lets through the certified call the quiet stage answers, and turns away the others it would leave to the full path", () => {
    const stage = (event: object) => quietCall(quietHost, ["hook", HOST], JSON.stringify(event), setup.env, setup.version);
    expect(open()).toBe(true);
    expect(stage(setup.read)).toBe(true);
    const others = [
      { ...setup.read, hook_event_name: "SessionStart", source: "startup" },
      { ...setup.read, hook_event_name: "UserPromptSubmit", prompt: "x" },
      { ...setup.read, session_id: "another" },
      { ...setup.read, agent_id: "sub" },
      { ...setup.read, cwd: "/", tool_input: { file_path: setup.tree.path("elsewhere/x.ts") } },
    ];
    for (const event of others) {
      expect(open(event), JSON.stringify(event)).toBe(false);
      expect(stage(event), JSON.stringify(event)).toBe(false);
    }
    // In or below a directory the certificate lists (the root, certified at the start): through, and the stage answers.
    // A directory that does not exist yet is the full path's.
    for (const [file, quiet] of [
      ["r/top.ts", true],
      ["r/pkg/deeper/x.ts", false],
    ] as const) {
      const below = { ...setup.read, cwd: "/", tool_input: { file_path: setup.tree.path(file) } };
      expect(open(below), file).toBe(true);
      expect(stage(below), file).toBe(quiet);
    }
    // Claude Code's plugin names its own state directory: the certificate is looked for there.
    expect(open(setup.read, { ...setup.env, CLAUDE_PLUGIN_DATA: setup.tree.path("plugin-data") })).toBe(false);
  });

  it("a certificate that is a link, a FIFO, headless, an older format or a head past the bound: turned away, never blocks", () => {
    const cert = quietPath(setup.state);
    const text = readFileSync(cert, "utf8");
    const aside = `${cert}.aside`;
    renameSync(cert, aside);
    try {
      symlinkSync(aside, cert);
      expect(open(), "link").toBe(false);
      rmSync(cert);
      expect(spawnSync("mkfifo", [cert]).status).toBe(0);
      expect(open(), "fifo").toBe(false);
      rmSync(cert);
      for (const body of [
        "",
        text.replace(/\n/g, " "),
        `${text.slice(text.indexOf("\n") + 1)}`,
        `${JSON.stringify(Array(2000).fill(setup.tree.path("r/pkg")))}\n${text}`,
      ]) {
        writeFileSync(cert, body);
        expect(open(), body.slice(0, 60)).toBe(false);
      }
    } finally {
      rmSync(cert, { force: true });
      renameSync(aside, cert);
    }
    expect(open()).toBe(true);
  });
});

describe("each quiet host's gate", () => {
  it("looks for the certificate in the state directory its quiet stage reads", async () => {
    const hosts = hostDefinitions().filter((definition) => definition.hook?.quiet);
    expect(hosts.map((definition) => definition.id).sort()).toEqual(["auggie", "claude-code", "codex", "crush", "gemini", "qwen"]);
    for (const definition of hosts) {
      const quiet = await definition.hook!.quiet!.load();
      const { gate } = definition.hook!.quiet!;
      for (const env of [{ HOME: "/h" }, { HOME: "/h", CLAUDE_PLUGIN_DATA: "/p" }, { HOME: "/h", CLAUDE_PLUGIN_DATA: "relative" }]) {
        expect(gateStateDir(definition.id, gate, env, "/h"), `${definition.id} ${JSON.stringify(env)}`).toBe(
          quiet.stateDir?.(env) ?? hostStateDir(definition.id, env, "/h"),
        );
      }
    }
  });
});
