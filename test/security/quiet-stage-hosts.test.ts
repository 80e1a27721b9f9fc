/**
 * Auggie's and Crush's quiet stages end to end on their own payloads (Auggie's as recorded from
 * the real client, Crush's as its source builds them). Neither sends a start agentsmd answers, so
 * the first tool call starts the conversation: it delivers, and certifies the touched directory,
 * the root and cwd; the next tool call there or below the root (no instruction file on the way)
 * is answered by the quiet stage (and let through by the launcher's gate), the full engine
 * agreeing that it answers nothing and changes nothing.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { quietGateOpen } from "../../src/hook/quiet-gate.js";
import { quietCall } from "../../src/hook/quiet.js";
import { hostDefinitions } from "../../src/integrations/registry.js";
import { agentsmdVersion, quietPath } from "../../src/integrations/host/quiet-format.js";
import { conversationPath, hostStateDir } from "../../src/integrations/host/state-file.js";
import { RACY_MS } from "../../src/io/unchanged.js";
import { createTree, type Tree } from "../helpers/tree.js";
import { fullCall, sleep } from "../helpers/quiet-setup.js";

/** How a host spells a tool call on `file` (absolute) in the conversation `id` rooted at `root`. */
type ToolEvent = (root: string, id: string, tool: "read" | "edit", file: string) => object;

const HOSTS: Record<string, ToolEvent> = {
  // Auggie: paths relative to the workspace root, no cwd (test/integrations/auggie/events/PostToolUse.json).
  auggie: (root, id, tool, file) => ({
    hook_event_name: "PostToolUse",
    conversation_id: id,
    workspace_roots: [root],
    tool_name: tool === "read" ? "view" : "str-replace-editor",
    tool_input:
      tool === "read" ? { path: relative(root, file), type: "file" } : { command: "str_replace", path: relative(root, file), old_str: "", new_str: "x" },
    tool_output: "ok",
    tool_error: null,
    is_mcp_tool: false,
  }),
  // Crush: internal/hooks/input.go's payload of a PreToolUse (the event agentsmd registers).
  crush: (root, id, tool, file) => ({
    event: "PreToolUse",
    session_id: id,
    cwd: root,
    tool_name: tool === "read" ? "view" : "edit",
    tool_input: tool === "read" ? { file_path: file } : { file_path: file, old_string: "", new_string: "x" },
  }),
};

async function project(): Promise<Tree> {
  const tree = await createTree({
    "r/.git/": null,
    "r/AGENTS.md": "root rules\n",
    "r/pkg/AGENTS.md": "pkg rules\n",
    "r/pkg/a.ts": "",
    "r/pkg/b.ts": "",
    "r/lib/deep/c.ts": "",
  });
  // The certificate refuses directories changed within RACY_MS.
  await sleep(RACY_MS + 200);
  return tree;
}

describe("a host's conversation is certified and its quiet stage answers a tool call there", () => {
  for (const [host, toolEvent] of Object.entries(HOSTS)) {
    it(`${host}: the first tool call delivers and certifies, the next one in that directory is quiet`, async () => {
      const definition = hostDefinitions().find((each) => each.id === host)!;
      const quiet = await definition.hook!.quiet!.load();
      const tree = await project();
      const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
      const root = tree.path("r");
      const state = conversationPath(hostStateDir(host, env, tree.home), { id: "c-1" });
      const version = await agentsmdVersion();
      const edit = toolEvent(root, "c-1", "edit", tree.path("r/pkg/b.ts"));
      const stage = (event: object) => quietCall(quiet, ["hook", host], JSON.stringify(event), env, version);

      expect(stage(edit)).toBe(false); // nothing certified yet
      const first = await fullCall(toolEvent(root, "c-1", "read", tree.path("r/pkg/a.ts")), env, host);
      expect(first).toContain("pkg rules");
      expect(first).not.toContain("root rules"); // the host loads the root's itself
      expect(readFileSync(quietPath(state), "utf8")).toContain(tree.path("r/pkg"));
      // Its first call gave the root's chain as a start does: the root is certified too, and a
      // directory below it with no instruction file on the way is quiet without a call there.
      const below = toolEvent(root, "c-1", "read", tree.path("r/lib/deep/c.ts"));
      expect(quietGateOpen(host, definition.hook!.quiet!.gate, JSON.stringify(below), env)).toBe(true);
      expect(stage(below)).toBe(true);

      expect(quietGateOpen(host, definition.hook!.quiet!.gate, JSON.stringify(edit), env)).toBe(true);
      expect(stage(edit)).toBe(true);
      const before = readFileSync(state, "utf8");
      expect(await fullCall(edit, env, host)).toBe("");
      expect(readFileSync(state, "utf8")).toBe(before);
      // Another conversation, or a directory not certified: the full path.
      expect(stage(toolEvent(root, "c-2", "edit", tree.path("r/pkg/b.ts")))).toBe(false);
      expect(stage(toolEvent(root, "c-1", "edit", tree.path("elsewhere/x.ts")))).toBe(false);
    }, 30_000);
  }
});

describe("Crush's PostCompact voids the record", () => {
  it("after a PostCompact the next tool call goes to the full path, which gives the nested files again", async () => {
    const quiet = await hostDefinitions()
      .find((each) => each.id === "crush")!
      .hook!.quiet!.load();
    const tree = await project();
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const root = tree.path("r");
    const edit = HOSTS.crush!(root, "c-1", "edit", tree.path("r/pkg/b.ts"));
    const version = await agentsmdVersion();
    const stage = () => quietCall(quiet, ["hook", "crush"], JSON.stringify(edit), env, version);
    expect(await fullCall(HOSTS.crush!(root, "c-1", "read", tree.path("r/pkg/a.ts")), env, "crush")).toContain("pkg rules");
    expect(stage()).toBe(true);
    expect(await fullCall({ event: "PostCompact", session_id: "c-1", cwd: root }, env, "crush")).toBe("");
    expect(stage()).toBe(false);
    expect(await fullCall(edit, env, "crush")).toContain("pkg rules");
  }, 30_000);
});
