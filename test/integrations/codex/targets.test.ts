/**
 * Codex tool calls -> touched paths against a real temp tree: globs expanded (bounded, dot rules),
 * "revision or path" words kept only when they exist, `REV:PATH` from the git root, apply_patch.
 */
import { describe, expect, it } from "vitest";
import { nodeFileSystem } from "../../../src/io/file-system.js";
import { expandGlob, MAX_GLOB_MATCHES } from "../../../src/integrations/codex/targets.js";
import { codexEventTargets } from "../../../src/integrations/codex/profile.js";

/** The targets of a Codex tool event, as the hook computes them. */
async function codexToolTargets(call: { toolName: string; command: string; cwd: string }, fs: typeof nodeFileSystem): Promise<string[]> {
  const event = { session_id: "s", cwd: call.cwd, hook_event_name: "PostToolUse" as const, tool_name: call.toolName, tool_input: { command: call.command } };
  return (await codexEventTargets(event, fs, undefined)).targets.slice().sort();
}
import { createTree } from "../../helpers/tree.js";

describe("codexToolTargets", () => {
  it("expands globs against the file system, bash-style", async () => {
    const tree = await createTree({
      "src/a.ts": "",
      "src/b.ts": "",
      "src/c.md": "",
      "src/.hidden.ts": "",
      "pkg/x/AGENTS.md": "",
      "pkg/y/AGENTS.md": "",
      "pkg/z": "",
    });
    const t = (command: string) => codexToolTargets({ toolName: "Bash", command, cwd: tree.root }, nodeFileSystem);
    expect(await t("wc -l src/*.ts")).toEqual([tree.path("src/a.ts"), tree.path("src/b.ts")]);
    expect(await t("cat pkg/*/AGENTS.md")).toEqual([tree.path("pkg/x/AGENTS.md"), tree.path("pkg/y/AGENTS.md")].sort());
    expect(await t("cat src/.*.ts")).toEqual([tree.path("src/.hidden.ts")]);
    expect(await t("cat nothing/*.ts")).toEqual([]);
    expect(await t("cat 'src/*.ts'")).toEqual([tree.path("src/*.ts")]); // quoted: a literal name
  });

  it("bounds a glob's matches", async () => {
    const spec: Record<string, string> = {};
    for (let i = 0; i < MAX_GLOB_MATCHES + 20; i++) spec[`many/f${String(i).padStart(3, "0")}.txt`] = "";
    const tree = await createTree(spec);
    expect((await expandGlob(tree.path("many/*.txt"), nodeFileSystem)).length).toBe(MAX_GLOB_MATCHES);
  });

  it("keeps a git word only when it exists, and resolves REV:PATH from the repository root", async () => {
    const tree = await createTree({ ".git/": null, "src/a.ts": "", "pkg/sub/b.ts": "" });
    const t = (command: string, cwd = tree.root) => codexToolTargets({ toolName: "Bash", command, cwd }, nodeFileSystem);
    expect(await t("git diff main src/a.ts")).toEqual([tree.path("src/a.ts")]);
    expect(await t("git show HEAD:src/a.ts", tree.path("pkg/sub"))).toEqual([tree.path("src/a.ts")]);
  });

  it("reads apply_patch headers and ignores other tools and unparseable commands", async () => {
    const tree = await createTree({});
    const patch = "*** Begin Patch\n*** Add File: newdir/b.txt\n+x\n*** End Patch\n";
    expect(await codexToolTargets({ toolName: "apply_patch", command: patch, cwd: tree.root }, nodeFileSystem)).toEqual([tree.path("newdir/b.txt")]);
    expect(await codexToolTargets({ toolName: "mcp__x__y", command: "cat a", cwd: tree.root }, nodeFileSystem)).toEqual([]);
    expect(await codexToolTargets({ toolName: "Bash", command: "cat $(ls)", cwd: tree.root }, nodeFileSystem)).toEqual([]);
  });
});
