import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createTree, recordedEvents, type Tree } from "../../helpers/tree.js";
import { handleHostEvent } from "../../../src/integrations/host/deliver.js";
import { auggieProfile } from "../../../src/integrations/auggie/profile.js";
import { AUGGIE_POST_TOOL_MATCHER, AuggieHookInputSchema, auggieEvent } from "../../../src/integrations/auggie/input.js";
import { auggieSettingsPath, installAuggie, uninstallAuggie } from "../../../src/integrations/auggie/install.js";
import { createSession } from "../../../src/session/session.js";

// Recorded from Auggie 0.36.0 (hooks in .augment/settings.json, against e2e/auggie's fake backend).
const event = recordedEvents(new URL("./events/", import.meta.url));

async function tree(): Promise<Tree> {
  const t = await createTree({
    "r/.git/": null,
    "r/AGENTS.md": "ROOT\n",
    "r/CLAUDE.md": "CLAUDE-ROOT\n",
    "r/pkg/AGENTS.md": "PKG\n",
    "r/pkg/CLAUDE.md": "CLAUDE-PKG\n",
    "r/pkg/src/deep/AGENTS.md": "DEEP\n",
    "r/pkg/src/deep/a.ts": "x\n",
    "r/other/AGENTS.md": "OTHER\n",
  });
  return t;
}

const postToolUse = (root: string, tool: string, input: Record<string, unknown>, conversation = "c1") => ({
  hook_event_name: "PostToolUse",
  conversation_id: conversation,
  workspace_roots: [root],
  tool_name: tool,
  tool_input: input,
  tool_output: "",
  tool_error: null,
  is_mcp_tool: false,
});

describe("auggie events", () => {
  it("reads Auggie's recorded payloads: PostToolUse view is a whole read relative to the workspace root; SessionStart and PromptSubmit are ignored", async () => {
    const post = AuggieHookInputSchema.parse(await event("PostToolUse"));
    expect(auggieEvent(post)).toMatchObject({
      kind: "tool",
      targets: ["/tmp/auggie-probe/repo/a/b.txt"],
      read: "whole",
      tool: "view",
      cwd: "/tmp/auggie-probe/repo",
      conversation: { id: "af9e05a7-fe90-4151-92ac-d6fa947b3902" },
    });
    expect(auggieEvent(AuggieHookInputSchema.parse(await event("SessionStart"))).kind).toBe("ignore");
    expect(auggieEvent(AuggieHookInputSchema.parse(await event("PromptSubmit"))).kind).toBe("ignore");
  });

  it("takes paths from view, save-file, str-replace-editor and apply_patch; a range, a search or a directory is no whole read", () => {
    const view = (input: Record<string, unknown>) => auggieEvent(postToolUse("/r", "view", input));
    expect(view({ path: "a.ts", view_range: [1, 5] })).toMatchObject({ targets: ["/r/a.ts"], read: "part" });
    expect(view({ path: "a.ts", search_query_regex: "x" }).read).toBe("part");
    expect(view({ path: "d", type: "directory" }).read).toBeUndefined();
    expect(auggieEvent(postToolUse("/r", "save-file", { path: "n/new.ts", file_content: "" })).targets).toEqual(["/r/n/new.ts"]);
    expect(auggieEvent(postToolUse("/r", "str-replace-editor", { command: "str_replace", path: "/abs/x.ts" })).targets).toEqual(["/abs/x.ts"]);
    expect(auggieEvent(postToolUse("/r", "apply_patch", { input: "*** Begin Patch\n*** Add File: p/q.ts\n+1\n*** End Patch" })).targets).toEqual(["/r/p/q.ts"]);
    expect(auggieEvent(postToolUse("/r", "launch-process", { command: "ls", cwd: "x" })).targets).toEqual([]);
  });

  it("the installed matcher is an anchored regular expression naming exactly the tools with targets", () => {
    const matcher = new RegExp(AUGGIE_POST_TOOL_MATCHER);
    for (const tool of ["view", "save-file", "str-replace-editor", "apply_patch"]) expect(matcher.test(tool), tool).toBe(true);
    for (const tool of ["launch-process", "view-session", "view_tasklist", "remove-files"]) expect(matcher.test(tool), tool).toBe(false);
  });
});

describe("auggie delivery", () => {
  it("preset auggie: the workspace root's AGENTS.md and CLAUDE.md only, from the root and from a subdirectory", async () => {
    const t = await tree();
    for (const cwd of [t.path("r"), t.path("r/pkg")]) {
      const session = await createSession({ cwd, home: t.home, env: {}, preset: "auggie" });
      expect(session.initialFiles.map((file) => file.path)).toEqual([t.path("r/AGENTS.md"), t.path("r/CLAUDE.md")]);
      await session.close();
    }
  });

  it("a view below: every nested AGENTS.md once, the root's (Auggie sends it) never, a sibling never", async () => {
    const t = await tree();
    const options = { env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home };
    const first = await handleHostEvent(auggieProfile(), postToolUse(t.path("r"), "view", { path: "pkg/src/deep/a.ts" }), options);
    const text = first?.hookSpecificOutput.additionalContext ?? "";
    expect(first?.hookSpecificOutput.hookEventName).toBe("PostToolUse");
    expect(text).toContain("PKG");
    expect(text).toContain("DEEP");
    expect(text).not.toContain("ROOT");
    expect(text).not.toContain("OTHER");
    expect(await handleHostEvent(auggieProfile(), postToolUse(t.path("r"), "view", { path: "pkg/src/deep/a.ts" }), options)).toBeNull();
  });

  it("an AGENTS.md edited after delivery comes again, once, with the next tool event under it", async () => {
    const t = await tree();
    const options = { env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home };
    await handleHostEvent(auggieProfile(), postToolUse(t.path("r"), "view", { path: "pkg/src/deep/a.ts" }), options);
    await writeFile(t.path("r/pkg/src/deep/AGENTS.md"), "DEEP EDITED\n");
    const again = await handleHostEvent(
      auggieProfile(),
      postToolUse(t.path("r"), "str-replace-editor", { command: "str_replace", path: "pkg/src/deep/a.ts" }),
      options,
    );
    expect(again?.hookSpecificOutput.additionalContext).toContain("DEEP EDITED");
    expect(again?.hookSpecificOutput.additionalContext).not.toContain("PKG");
    expect(await handleHostEvent(auggieProfile(), postToolUse(t.path("r"), "view", { path: "pkg/src/deep/a.ts" }), options)).toBeNull();
  });
});

describe("auggie install", () => {
  it("writes one PostToolUse entry with a millisecond timeout, is idempotent, and uninstall gives the exact earlier bytes back", async () => {
    const t = await tree();
    const where = { projectDir: t.path("r"), home: t.home, env: {}, scope: "user" as const };
    const file = auggieSettingsPath(where);
    await t.write(".test-home/.augment/settings.json", '{\n  "model": "mine"\n}\n');
    const before = await readFile(file, "utf8");
    const result = await installAuggie({ ...where, command: "node /opt/agentsmd/hook.cjs hook auggie" });
    expect(result.changed).toBe(true);
    const settings = JSON.parse(await readFile(file, "utf8")) as { model: string; hooks: Record<string, unknown> };
    expect(settings.model).toBe("mine");
    expect(settings.hooks).toEqual({
      PostToolUse: [{ matcher: AUGGIE_POST_TOOL_MATCHER, hooks: [{ type: "command", command: "node /opt/agentsmd/hook.cjs hook auggie", timeout: 30_000 }] }],
    });
    expect((await installAuggie({ ...where, command: "node /opt/agentsmd/hook.cjs hook auggie" })).changed).toBe(false);
    expect((await uninstallAuggie(where)).changed).toBe(true);
    expect(await readFile(file, "utf8")).toBe(before);
    expect((await uninstallAuggie(where)).changed).toBe(false);
    expect(auggieSettingsPath({ ...where, scope: "project" })).toBe(t.path("r/.augment/settings.json"));
  });
});
