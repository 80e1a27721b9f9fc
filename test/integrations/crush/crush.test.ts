import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createTree, recordedEvents, type Tree } from "../../helpers/tree.js";
import { handleHostEvent } from "../../../src/integrations/host/deliver.js";
import { crushProfile } from "../../../src/integrations/crush/profile.js";
import { CRUSH_TOOL_MATCHER, CrushHookInputSchema, crushEvent } from "../../../src/integrations/crush/input.js";
import { crushConfigPath, installCrush, uninstallCrush } from "../../../src/integrations/crush/install.js";
import { createSession } from "../../../src/session/session.js";

// Built from Crush's source (internal/hooks/input.go), not recorded from a run: docs/hosts/crush.md.
const event = recordedEvents(new URL("./events/", import.meta.url));

async function tree(): Promise<Tree> {
  const t = await createTree({
    "r/.git/": null,
    "r/AGENTS.md": "ROOT\n",
    "r/CRUSH.md": "CRUSH-ROOT\n",
    "r/pkg/AGENTS.md": "PKG\n",
    "r/pkg/src/deep/AGENTS.md": "DEEP\n",
    "r/pkg/src/deep/a.ts": "x\n",
    "r/other/AGENTS.md": "OTHER\n",
  });
  return t;
}

const tool = (cwd: string, name: string, input: Record<string, unknown>, session = "s1", kind = "PreToolUse") => ({
  event: kind,
  session_id: session,
  cwd,
  tool_name: name,
  tool_input: input,
});
const lifecycle = (cwd: string, name: string, session = "s1") => ({ event: name, session_id: session, cwd });
const text = (output: { hookSpecificOutput: { additionalContext: string } } | null) => output?.hookSpecificOutput.additionalContext ?? "";

describe("crush events", () => {
  it("reads the payloads built from Crush's source: tool events by their tool table, PostCompact a compaction mark, the rest ignored", async () => {
    const view = crushEvent(CrushHookInputSchema.parse(await event("PreToolUse-view")));
    expect(view).toMatchObject({
      kind: "tool",
      targets: ["/tmp/crush-probe/repo/pkg/src/a.ts"],
      read: "whole",
      tool: "view",
      cwd: "/tmp/crush-probe/repo",
      conversation: { id: "6f1c2e0a-3b7d-4c59-9d8e-2a41f0c7b913" },
    });
    expect(crushEvent(CrushHookInputSchema.parse(await event("PreToolUse-edit")))).toMatchObject({
      kind: "tool",
      targets: ["/tmp/crush-probe/repo/pkg/src/a.ts"],
    });
    expect(crushEvent(CrushHookInputSchema.parse(await event("PreToolUse-edit"))).read).toBeUndefined();
    expect(crushEvent(CrushHookInputSchema.parse(await event("PostToolUse")))).toMatchObject({ kind: "tool", targets: ["/tmp/crush-probe/repo/pkg"] });
    expect(crushEvent(CrushHookInputSchema.parse(await event("PostCompact"))).kind).toBe("precompact");
    expect(crushEvent(CrushHookInputSchema.parse(await event("SessionStart"))).kind).toBe("ignore");
  });

  it("takes paths from view, edit, multiedit, write, download, ls, glob and grep; a view with a range is no whole read; a search without a path is cwd", () => {
    expect(crushEvent(tool("/r", "view", { file_path: "a.ts", offset: 10 }))).toMatchObject({ targets: ["/r/a.ts"], read: "part" });
    expect(crushEvent(tool("/r", "view", { file_path: "a.ts", limit: 5 })).read).toBe("part");
    for (const name of ["edit", "multiedit", "write", "download"])
      expect(crushEvent(tool("/r", name, { file_path: "n/b.ts" })).targets, name).toEqual(["/r/n/b.ts"]);
    for (const name of ["ls", "glob", "grep"]) {
      expect(crushEvent(tool("/r", name, { path: "/abs/d", pattern: "x" })).targets, name).toEqual(["/abs/d"]);
      expect(crushEvent(tool("/r", name, { pattern: "x" })).targets, name).toEqual(["/r"]);
    }
    expect(crushEvent(tool("/r", "bash", { command: "cat a.ts" })).targets).toEqual([]);
    expect(crushEvent(tool("/r", "mcp_fs_read", { file_path: "a.ts" })).targets).toEqual([]);
  });

  it("folds event names as Crush does; an event without a session id (SessionEnd at shutdown) is ignored", () => {
    expect(crushEvent(tool("/r", "view", { file_path: "a" }, "s", "pre_tool_use")).kind).toBe("tool");
    expect(crushEvent(lifecycle("/r", "post_compact")).kind).toBe("precompact");
    expect(crushEvent(tool("/r", "view", { file_path: "a" }, "")).kind).toBe("ignore");
    expect(crushEvent({ event: "SessionEnd", cwd: "/r" }).kind).toBe("ignore");
  });

  it("the installed matcher is an anchored regular expression naming exactly the tools with targets", () => {
    const matcher = new RegExp(CRUSH_TOOL_MATCHER);
    for (const name of ["view", "edit", "multiedit", "write", "download", "ls", "glob", "grep"]) expect(matcher.test(name), name).toBe(true);
    for (const name of ["bash", "fetch", "mcp_x_view", "viewer", "agent", "sourcegraph"]) expect(matcher.test(name), name).toBe(false);
  });
});

describe("crush delivery", () => {
  it("preset crush: cwd's own context files only (no walk up), the user's two files", async () => {
    const t = await tree();
    await t.write(".test-home/.config/crush/CRUSH.md", "USER-CRUSH\n");
    await t.write(".test-home/.config/AGENTS.md", "USER-AGENTS\n");
    const root = await createSession({ cwd: t.path("r"), home: t.home, env: {}, preset: "crush" });
    expect(root.initialFiles.map((file) => file.path)).toEqual(
      expect.arrayContaining([
        t.path("r/AGENTS.md"),
        t.path("r/CRUSH.md"),
        t.path(".test-home/.config/crush/CRUSH.md"),
        t.path(".test-home/.config/AGENTS.md"),
      ]),
    );
    await root.close();
    const sub = await createSession({ cwd: t.path("r/pkg"), home: t.home, env: { XDG_CONFIG_HOME: t.path("xdg") }, preset: "crush" });
    expect(sub.initialFiles.map((file) => file.path)).toEqual([t.path("r/pkg/AGENTS.md")]);
    await sub.close();
  });

  it("the first tool event starts the session: nested files once, Crush's own (cwd's) never, a sibling never; a second read nothing", async () => {
    const t = await tree();
    const options = { env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home };
    const first = await handleHostEvent(crushProfile(), tool(t.path("r"), "view", { file_path: "pkg/src/deep/a.ts" }), options);
    expect(first?.hookSpecificOutput.hookEventName).toBe("PreToolUse");
    expect(text(first)).toContain("PKG");
    expect(text(first)).toContain("DEEP");
    expect(text(first)).not.toContain("ROOT");
    expect(text(first)).not.toContain("OTHER");
    expect(await handleHostEvent(crushProfile(), tool(t.path("r"), "view", { file_path: "pkg/src/deep/a.ts" }), options)).toBeNull();
    // Another session is a conversation of its own.
    expect(text(await handleHostEvent(crushProfile(), tool(t.path("r"), "ls", { path: "pkg" }, "s2"), options))).toContain("PKG");
  });

  it("started in a subdirectory: the root's AGENTS.md comes with the first tool event (Crush reads cwd only), cwd's own never", async () => {
    const t = await tree();
    const options = { env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home };
    const first = await handleHostEvent(crushProfile(), tool(t.path("r/pkg"), "grep", { pattern: "x" }), options);
    expect(text(first)).toContain("ROOT");
    expect(text(first)).not.toContain("PKG");
  });

  it("a view of a nested AGENTS.md itself admits it: no second copy", async () => {
    const t = await tree();
    const options = { env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home };
    await handleHostEvent(crushProfile(), tool(t.path("r"), "view", { file_path: "pkg/AGENTS.md" }), options);
    expect(text(await handleHostEvent(crushProfile(), tool(t.path("r"), "edit", { file_path: "pkg/x.ts" }), options))).not.toContain("PKG");
  });

  it("an AGENTS.md edited after delivery comes again, once, with the next tool event under it", async () => {
    const t = await tree();
    const options = { env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home };
    await handleHostEvent(crushProfile(), tool(t.path("r"), "view", { file_path: "pkg/src/deep/a.ts" }), options);
    await writeFile(t.path("r/pkg/src/deep/AGENTS.md"), "DEEP EDITED\n");
    const again = await handleHostEvent(
      crushProfile(),
      tool(t.path("r"), "edit", { file_path: "pkg/src/deep/a.ts", old_string: "x", new_string: "y" }),
      options,
    );
    expect(text(again)).toContain("DEEP EDITED");
    expect(text(again)).not.toContain("PKG");
    expect(await handleHostEvent(crushProfile(), tool(t.path("r"), "view", { file_path: "pkg/src/deep/a.ts" }), options)).toBeNull();
  });

  it("PostCompact answers nothing (Crush drops it) and the next tool event under a directory gives its nested files again, once", async () => {
    const t = await tree();
    const options = { env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home };
    await handleHostEvent(crushProfile(), tool(t.path("r"), "view", { file_path: "pkg/src/deep/a.ts" }), options);
    expect(await handleHostEvent(crushProfile(), lifecycle(t.path("r"), "PostCompact"), options)).toBeNull();
    const restored = await handleHostEvent(crushProfile(), tool(t.path("r"), "view", { file_path: "pkg/src/deep/a.ts" }), options);
    expect(text(restored)).toContain("PKG");
    expect(text(restored)).toContain("DEEP");
    expect(text(restored)).not.toContain("ROOT");
    expect(await handleHostEvent(crushProfile(), tool(t.path("r"), "view", { file_path: "pkg/src/deep/a.ts" }), options)).toBeNull();
  });

  it("lifecycle events answer nothing: their answers never reach Crush's model", async () => {
    const t = await tree();
    const options = { env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home };
    for (const name of ["SessionStart", "TurnStart", "TurnEnd", "PreCompact", "SessionEnd"])
      expect(await handleHostEvent(crushProfile(), lifecycle(t.path("r"), name), options), name).toBeNull();
  });

  it("hostile payloads: a path outside the project, control characters, a huge field, a wrong shape", async () => {
    const t = await tree();
    await t.write("outside/AGENTS.md", "OUTSIDE\n");
    const options = { env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home };
    expect(text(await handleHostEvent(crushProfile(), tool(t.path("r"), "view", { file_path: t.path("outside/x.ts") }), options))).not.toContain("OUTSIDE");
    expect(text(await handleHostEvent(crushProfile(), tool(t.path("r"), "view", { file_path: "../outside/x.ts" }), options))).not.toContain("OUTSIDE");
    const controls = await handleHostEvent(crushProfile(), tool(t.path("r"), "view", { file_path: "pkg/\u001b[2J\u0007x.ts" }, "s3"), options);
    expect(text(controls)).toContain("PKG");
    expect(text(controls)).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    const huge = await handleHostEvent(
      crushProfile(),
      tool(t.path("r"), "write", { file_path: "a".repeat(70_000), content: "y".repeat(1_000_000) }, "s4"),
      options,
    );
    expect(text(huge).length).toBeLessThanOrEqual(32_000);
    await expect(handleHostEvent(crushProfile(), { event: "PreToolUse", cwd: 7 }, options)).rejects.toMatchObject({
      message: expect.stringMatching(/not a Crush hook event/),
      fix: expect.stringMatching(/agentsmd install crush/),
    });
  });
});

describe("crush install", () => {
  it("writes PreToolUse and PostCompact entries into crush.json, keeps the rest, is idempotent, and uninstall gives the exact bytes back", async () => {
    const t = await tree();
    const where = { projectDir: t.path("r"), home: t.home, env: {}, scope: "user" as const };
    const file = await crushConfigPath(where);
    expect(file).toBe(t.path(".test-home/.config/crush/crush.json"));
    await t.write(".test-home/.config/crush/crush.json", '{"options":{"debug":true},"hooks":{"pre_tool_use":[{"matcher":"^bash$","command":"./no-rm.sh"}]}}');
    const before = await readFile(file, "utf8");
    const command = "node /opt/agentsmd/hook.cjs hook crush";
    expect((await installCrush({ ...where, command })).changed).toBe(true);
    const config = JSON.parse(await readFile(file, "utf8")) as { options: unknown; hooks: Record<string, unknown> };
    expect(config.options).toEqual({ debug: true });
    expect(config.hooks).toEqual({
      pre_tool_use: [{ matcher: "^bash$", command: "./no-rm.sh" }],
      PreToolUse: [{ name: "agentsmd", matcher: CRUSH_TOOL_MATCHER, command, timeout: 30 }],
      PostCompact: [{ name: "agentsmd", command, timeout: 30 }],
    });
    const written = await readFile(file, "utf8");
    expect((await installCrush({ ...where, command })).changed).toBe(false);
    expect(await readFile(file, "utf8")).toBe(written);
    expect((await uninstallCrush(where)).changed).toBe(true);
    expect(await readFile(file, "utf8")).toBe(before);
    expect((await uninstallCrush(where)).changed).toBe(false);
  });

  it("an edited config keeps the user's change on uninstall; an older agentsmd entry under another spelling is replaced", async () => {
    const t = await tree();
    const where = { projectDir: t.path("r"), home: t.home, env: {}, scope: "project" as const };
    await t.write("r/crush.json", JSON.stringify({ hooks: { pretooluse: [{ command: "agentsmd hook crush" }] } }));
    await installCrush({ ...where, command: "agentsmd hook crush" });
    const installed = JSON.parse(await readFile(t.path("r/crush.json"), "utf8")) as { hooks: Record<string, unknown[]> };
    expect(Object.keys(installed.hooks)).toEqual(["PreToolUse", "PostCompact"]);
    await writeFile(t.path("r/crush.json"), JSON.stringify({ ...installed, mine: 1 }));
    await uninstallCrush(where);
    expect(JSON.parse(await readFile(t.path("r/crush.json"), "utf8"))).toEqual({ mine: 1 });
  });

  it("project scope: .crush.json when it is the project's config (Crush prefers it), else crush.json; XDG_CONFIG_HOME and CRUSH_GLOBAL_CONFIG move the user file", async () => {
    const t = await tree();
    const project = { projectDir: t.path("r"), home: t.home, env: {}, scope: "project" as const };
    expect(await crushConfigPath(project)).toBe(t.path("r/crush.json"));
    await t.write("r/.crush.json", "{}");
    expect(await crushConfigPath(project)).toBe(t.path("r/.crush.json"));
    const user = { projectDir: t.path("r"), home: t.home, scope: "user" as const };
    expect(await crushConfigPath({ ...user, env: { XDG_CONFIG_HOME: "/x" } })).toBe("/x/crush/crush.json");
    expect(await crushConfigPath({ ...user, env: { XDG_CONFIG_HOME: "/x", CRUSH_GLOBAL_CONFIG: "/g" } })).toBe("/g/crush.json");
  });

  it("refuses a broken config (comments, not an object, hooks of the wrong shape), naming the file and the fix, and leaves it unchanged", async () => {
    const t = await tree();
    const where = { projectDir: t.path("r"), home: t.home, env: {}, scope: "project" as const };
    for (const broken of ['{ // mine\n "a": 1 }', "[]", '{"hooks": []}', '{"hooks": {"PreToolUse": {}}}']) {
      await writeFile(t.path("r/crush.json"), broken);
      await expect(installCrush({ ...where, command: "agentsmd hook crush" })).rejects.toThrow(/crush\.json/);
      await expect(installCrush({ ...where, command: "agentsmd hook crush" })).rejects.toMatchObject({ fix: expect.stringMatching(/fix/) });
      expect(await readFile(t.path("r/crush.json"), "utf8")).toBe(broken);
    }
  });
});
