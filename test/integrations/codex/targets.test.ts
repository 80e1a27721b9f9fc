/**
 * Codex tool calls -> touched paths against a real temp tree: globs expanded (bounded, dot rules),
 * "revision or path" words kept only when they exist, `REV:PATH` from the git root, apply_patch.
 */
import { describe, expect, it } from "vitest";
import { nodeFileSystem } from "../../../src/io/file-system.js";
import fc from "fast-check";
import { spawnSync } from "node:child_process";
import { expandGlob, MAX_GLOB_MATCHES, segmentMatcher } from "../../../src/integrations/host/shell-targets.js";
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

describe("segmentMatcher (bash glob, one segment)", () => {
  it("matches like bash", () => {
    const m = (p: string, n: string) => segmentMatcher(p)(n);
    expect(m("*.ts", "a.ts")).toBe(true);
    expect(m("*.ts", ".a.ts")).toBe(false);
    expect(m(".*.ts", ".a.ts")).toBe(true);
    expect(m("a?c", "abc")).toBe(true);
    expect(m("[ab]x", "bx")).toBe(true);
    expect(m("[!ab]x", "bx")).toBe(false);
    expect(m("[a-c]*", "cz")).toBe(true);
    expect(m("f(1).md", "f(1).md")).toBe(true);
    expect(m("**", "deep")).toBe(true);
    expect(m("[", "[")).toBe(true);
  });

  it("agrees with bash's own pattern matching (differential, one bash process)", () => {
    const atom = fc.constantFrom("a", "b", ".", "*", "?", "[ab]", "[!a]", "[^b]", "[a-b]", "-", "(", "+");
    const cases = fc.sample(
      fc.tuple(
        fc.array(atom, { minLength: 1, maxLength: 5 }).map((a) => a.join("")),
        fc.stringMatching(/^[ab.\-(+]{1,6}$/),
      ),
      { numRuns: 400, seed: 7 },
    );
    // [[ name == pattern ]] is bash's glob matching; the leading-dot rule belongs to pathname expansion, so it is applied here
    const script = cases.map(([p, n]) => `[[ ${JSON.stringify(n).replace(/"/g, "'")} == ${p.replace(/[()+]/g, "\\$&")} ]] && echo 1 || echo 0`).join("\n");
    const out = spawnSync("bash", ["-c", script], { encoding: "utf8" }).stdout.trim().split("\n");
    cases.forEach(([pattern, name], i) => {
      const bash = out[i] === "1" && (pattern.startsWith(".") || !name.startsWith("."));
      expect(segmentMatcher(pattern)(name), `${pattern} vs ${name}`).toBe(bash);
    });
  });
});
