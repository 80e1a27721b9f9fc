import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createTree, recordedEvents, type Tree } from "../../helpers/tree.js";
import { ConfigError } from "../../../src/core/errors.js";
import { handleHostEvent } from "../../../src/integrations/host/deliver.js";
import { clineEvent, clineProfile } from "../../../src/integrations/cline/profile.js";
import { ClineHookInputSchema } from "../../../src/integrations/cline/input.js";
import { clineHookPath, clineHookScript, installCline, isAgentsmdClineHook, uninstallCline } from "../../../src/integrations/cline/install.js";

// Recorded from Cline 3.0.65 (a PostToolUse hook in .clinerules/hooks/, e2e/cline/).
const event = recordedEvents(new URL("./events/", import.meta.url));

async function tree(): Promise<Tree> {
  const t = await createTree({
    "r/.git/": null,
    "r/AGENTS.md": "ROOT\n",
    "r/pkg/AGENTS.md": "PKG\n",
    "r/pkg/src/deep/AGENTS.md": "DEEP\n",
    "r/pkg/src/deep/a.ts": "x\n",
  });
  return t;
}

const toolResult = (cwd: string, files: unknown, taskId = "t1", session?: string) => ({
  hookName: "tool_result",
  taskId,
  ...(session ? { sessionContext: { rootSessionId: session } } : {}),
  workspaceRoots: [cwd],
  agent_id: "a1",
  parent_agent_id: null,
  tool_result: { id: "c1", name: "read_files", input: { files } },
});

describe("cline events", () => {
  it("reads Cline's recorded payloads: tool_result is a read of its files, relative to the workspace; agent_start is ignored", async () => {
    const result = ClineHookInputSchema.parse(await event("tool_result"));
    expect(clineEvent(result)).toMatchObject({
      kind: "tool",
      targets: ["/tmp/clprobe2/repo/packages/api/src/a.ts"],
      read: "whole",
      conversation: { id: "1795821642313_uni7a" },
    });
    expect(clineEvent(ClineHookInputSchema.parse(await event("agent_start"))).kind).toBe("ignore");
    expect(clineEvent(ClineHookInputSchema.parse(await event("tool_call"))).kind).toBe("ignore");
  });

  it("takes read_files paths from objects or strings, apply_patch paths from the patch, and a line range as a partial read", () => {
    const base = { hookName: "tool_result", taskId: "t", workspaceRoots: ["/r"] };
    expect(clineEvent({ ...base, tool_result: { name: "read_files", input: { files: [{ path: "a.ts", start_line: 2 }] } } })).toMatchObject({
      targets: ["/r/a.ts"],
      read: "part",
    });
    expect(clineEvent({ ...base, tool_result: { name: "read_files", input: { file_paths: ["b.ts"] } } }).targets).toEqual(["/r/b.ts"]);
    expect(
      clineEvent({ ...base, tool_result: { name: "apply_patch", input: { input: "*** Begin Patch\n*** Add File: x/n.ts\n+1\n*** End Patch" } } }).targets,
    ).toEqual(["/r/x/n.ts"]);
    expect(clineEvent({ ...base, tool_result: { name: "search_codebase", input: { queries: ["q"] } } }).targets).toEqual(["/r"]);
  });
});

describe("cline delivery", () => {
  it("from a subdirectory: the root's file and the nested ones come with the first tool event, cwd's own (Cline loads it) never, and nothing twice", async () => {
    const t = await tree();
    const options = { env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home };
    const first = await handleHostEvent(clineProfile(), toolResult(t.path("r/pkg"), [{ path: "src/deep/a.ts" }]), options);
    expect(first?.contextModification).toContain("ROOT");
    expect(first?.contextModification).toContain("DEEP");
    expect(first?.contextModification).not.toContain("PKG");
    expect(await handleHostEvent(clineProfile(), toolResult(t.path("r/pkg"), [{ path: "src/deep/a.ts" }]), options)).toBeNull();
  });

  it("a resumed session (a new taskId, the same rootSessionId) repeats nothing and gives an edited file's new text once", async () => {
    const t = await tree();
    const options = { env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home };
    const first = await handleHostEvent(clineProfile(), toolResult(t.path("r"), [{ path: "pkg/src/deep/a.ts" }], "conv_1", "s1"), options);
    expect(first?.contextModification).toContain("DEEP");
    await t.write("r/pkg/src/deep/AGENTS.md", "DEEP EDITED\n");
    const resumed = await handleHostEvent(clineProfile(), toolResult(t.path("r"), [{ path: "pkg/src/deep/a.ts" }], "conv_2", "s1"), options);
    expect(resumed?.contextModification).toContain("DEEP EDITED");
    expect(resumed?.contextModification).not.toContain("PKG");
    expect(await handleHostEvent(clineProfile(), toolResult(t.path("r"), [{ path: "pkg/src/deep/a.ts" }], "conv_2", "s1"), options)).toBeNull();
    // Another session is another conversation.
    expect(
      (await handleHostEvent(clineProfile(), toolResult(t.path("r"), [{ path: "pkg/src/deep/a.ts" }], "conv_3", "s2"), options))?.contextModification,
    ).toContain("PKG");
  });
});

describe("cline install", () => {
  it("writes one hook file of its own, refuses a file it did not write, and uninstall removes exactly it", async () => {
    const t = await tree();
    const where = { projectDir: t.path("r"), home: t.home, env: {} };
    const result = await installCline({ ...where, scope: "user", command: "node /opt/agentsmd/hook.cjs" });
    expect(result.file).toBe(clineHookPath("user", where));
    const text = await readFile(result.file, "utf8");
    expect(text).toBe(clineHookScript("node /opt/agentsmd/hook.cjs"));
    expect(isAgentsmdClineHook(text)).toBe(true);
    expect((await installCline({ ...where, scope: "user", command: "node /opt/agentsmd/hook.cjs" })).changed).toBe(false);
    expect((await uninstallCline({ ...where, scope: "user" })).changed).toBe(true);
    await expect(readFile(result.file, "utf8")).rejects.toThrow();

    await t.write(".test-home/.cline/hooks/PostToolUse.sh", "#!/bin/sh\necho mine\n");
    await expect(installCline({ ...where, scope: "user" })).rejects.toThrow(ConfigError);
    await expect(uninstallCline({ ...where, scope: "user" })).rejects.toThrow(ConfigError);
    expect(await readFile(result.file, "utf8")).toBe("#!/bin/sh\necho mine\n");
    expect(() => clineHookScript("a\nb")).toThrow(ConfigError);
  });
});
