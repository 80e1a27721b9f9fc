/**
 * Preset opencode reads OpenCode's `instructions`: the config layers and their order,
 * the entry kinds, the glob walk's order and bounds, and what a session, `show`, `explain` and
 * `--no-agent-config` make of them. Proven against the real OpenCode 1.18.33 in
 * e2e/opencode/instructions.e2e.test.ts.
 */
import { describe, expect, it } from "vitest";
import { OPENCODE_CONFIG_LAYOUT, expandBraces, listFamilyInstructions, readFamilyInstructions } from "../src/presets/opencode-instructions.js";
import { nodeFileSystem } from "../src/io/file-system.js";
import { injectFs } from "./helpers/faults.js";
import { createTree, openSession, runCli, type Tree } from "./helpers/tree.js";

const context = (tree: Tree, cwd: string, env: Record<string, string> = {}, fs = nodeFileSystem) => ({
  cwd: tree.path(cwd),
  worktree: tree.path("repo"),
  home: tree.path("home"),
  env: { XDG_CONFIG_HOME: tree.path("home/.config"), OPENCODE_TEST_MANAGED_CONFIG_DIR: tree.path("managed"), ...env },
  fs,
});

const json = (instructions: unknown) => JSON.stringify({ instructions });

describe("OpenCode's config layers", () => {
  it("global (the last global file's list), $OPENCODE_CONFIG, project files root first, .opencode nearest first, ~/.opencode, $OPENCODE_CONFIG_DIR, $OPENCODE_CONFIG_CONTENT, managed; each entry once", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "home/.config/opencode/config.json": json(["g-config"]),
      "home/.config/opencode/opencode.json": json(["g-json"]),
      "home/.config/opencode/opencode.jsonc": '{ "instructions": ["g-jsonc", "shared"], } // jsonc\n',
      "custom.json": json(["custom"]),
      "repo/opencode.json": json(["root-json", "shared"]),
      "repo/opencode.jsonc": json(["root-jsonc"]),
      "repo/pkg/opencode.json": json(["pkg-json"]),
      "repo/.opencode/opencode.json": json(["root-dot"]),
      "repo/pkg/.opencode/opencode.jsonc": json(["pkg-dot"]),
      "home/.opencode/opencode.json": json(["home-dot"]),
      "confdir/opencode.json": json(["confdir"]),
      "managed/opencode.json": json(["managed"]),
    });
    const env = { OPENCODE_CONFIG: tree.path("custom.json"), OPENCODE_CONFIG_DIR: tree.path("confdir"), OPENCODE_CONFIG_CONTENT: json(["content", "custom"]) };
    const read = await readFamilyInstructions(OPENCODE_CONFIG_LAYOUT, context(tree, "repo/pkg", env));
    expect(read.diagnostics).toEqual([]);
    expect(read.entries).toEqual([
      "g-jsonc",
      "shared",
      "custom",
      "root-json",
      "root-jsonc",
      "pkg-json",
      "pkg-dot",
      "root-dot",
      "home-dot",
      "confdir",
      "content",
      "managed",
    ]);
    expect(read.sources.map((source) => source.file)).toContain(tree.path("home/.config/opencode/opencode.jsonc"));
  });

  it("OPENCODE_DISABLE_PROJECT_CONFIG drops project files and .opencode directories; {env:} is substituted", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "home/.config/opencode/opencode.json": json(["{env:RULES}.md", "{env:UNSET}x.md"]),
      "repo/opencode.json": json(["root"]),
      "repo/.opencode/opencode.json": json(["dot"]),
    });
    const read = await readFamilyInstructions(OPENCODE_CONFIG_LAYOUT, context(tree, "repo", { OPENCODE_DISABLE_PROJECT_CONFIG: "true", RULES: "team" }));
    expect(read.entries).toEqual(["team.md", "x.md"]);
  });

  it("an invalid global file voids the global config; an invalid project file is a warning naming it, the rest still applies", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "home/.config/opencode/config.json": json(["g"]),
      "home/.config/opencode/opencode.json": "{ nope",
      "repo/opencode.json": json("CONTRIBUTING.md"),
      "repo/.opencode/opencode.json": json(["dot"]),
    });
    const read = await readFamilyInstructions(OPENCODE_CONFIG_LAYOUT, context(tree, "repo"));
    expect(read.entries).toEqual(["dot"]);
    expect(read.diagnostics.map((each) => [each.code, each.path])).toEqual([
      ["agent-config-invalid", tree.path("home/.config/opencode/opencode.json")],
      ["agent-config-invalid", tree.path("repo/opencode.json")],
    ]);
    expect(read.diagnostics[1]!.message).toContain("instructions is not a list of strings");
  });
});

describe("OpenCode's instruction entries", () => {
  it("relative globs from cwd up to the worktree (dot files included), ~/, absolute globs (last segment, no dot files), URLs skipped", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/docs/a.md": "a",
      "repo/docs/.dot.md": "d",
      "repo/pkg/docs/near.md": "n",
      "repo/CONTRIBUTING.md": "c",
      "home/notes/n.md": "h",
      "shared/s.md": "s",
      "shared/.hidden.md": "x",
      "docs/above.md": "outside the worktree",
    });
    const listed = await listFamilyInstructions(OPENCODE_CONFIG_LAYOUT, context(tree, "repo/pkg"), [
      "docs/*.md",
      "CONTRIBUTING.md",
      "~/notes/*.md",
      `${tree.path("shared")}/*.md`,
      "https://example.com/rules.md",
      "docs/a.md",
    ]);
    expect(listed.paths.slice(0, 2)).toEqual([tree.path("repo/pkg/docs/near.md"), expect.stringMatching(/docs\/(a|\.dot)\.md$/)]);
    expect(new Set(listed.paths)).toEqual(
      new Set([
        tree.path("repo/pkg/docs/near.md"),
        tree.path("repo/docs/a.md"),
        tree.path("repo/docs/.dot.md"),
        tree.path("repo/CONTRIBUTING.md"),
        tree.path("home/notes/n.md"),
        tree.path("shared/s.md"),
      ]),
    );
    expect(listed.urls).toEqual(["https://example.com/rules.md"]);
    expect(listed.origin.get(tree.path("repo/docs/a.md"))?.entry).toBe("docs/*.md");
  });

  it("walks as OpenCode's glob does: a directory's entries last listed first, breadth first under **, no symlinked directory under **", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/g/x.md": "x",
      "repo/g/b/y.md": "y",
      "repo/g/a/z.md": "z",
      "repo/g/a/deep/w.md": "w",
      "repo/g/a/deep/not.txt": "t",
    });
    // Listing order fixed: alphabetical, so OpenCode's order is the reverse.
    const fs = injectFs({ readdirUnsorted: async ([path], next) => (await next(path)).sort((p, q) => (p.name < q.name ? -1 : 1)) });
    const listed = await listFamilyInstructions(OPENCODE_CONFIG_LAYOUT, context(tree, "repo", {}, fs), ["g/**/*.md", "g/{a,b}/*.md"]);
    expect(listed.paths).toEqual([tree.path("repo/g/x.md"), tree.path("repo/g/b/y.md"), tree.path("repo/g/a/z.md"), tree.path("repo/g/a/deep/w.md")]);
  });

  it("a glob that would walk without end stops at its bound with a warning", async () => {
    const tree = await createTree({ "repo/.git/": null });
    const fs = injectFs({ readdirUnsorted: async () => [{ name: "d", kind: "directory" as const }] });
    const listed = await listFamilyInstructions(OPENCODE_CONFIG_LAYOUT, context(tree, "repo", {}, fs), ["**/*.md"]);
    expect(listed.paths).toEqual([]);
    expect(listed.diagnostics).toContainEqual(expect.objectContaining({ level: "warning", code: "instructions-glob-bounded" }));
  });

  it("expands brace alternatives, nested ones too, within a bound", () => {
    expect(expandBraces("{docs,guides}/*.md")).toEqual(["docs/*.md", "guides/*.md"]);
    expect(expandBraces("a{b,c{d,e}}f")).toEqual(["abf", "acdf", "acef"]);
    expect(expandBraces("no{brace}")).toEqual(["no{brace}"]);
    expect(expandBraces("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}")).toHaveLength(64);
  });
});

describe("preset opencode with instructions", () => {
  const setup = async () =>
    createTree({
      "repo/.git/": null,
      "repo/AGENTS.md": "ROOT",
      "repo/pkg/AGENTS.md": "PKG",
      "repo/CONTRIBUTING.md": "CONTRIB",
      "repo/docs/empty.md": "",
      "repo/opencode.json": json(["CONTRIBUTING.md", "AGENTS.md", "docs/*.md", "http://example.com/x.md"]),
    });

  it("show: the listed files after the chain, a chain file keeps its place, an empty file is dropped; explain says where each came from; --no-agent-config drops them", async () => {
    const tree = await setup();
    const base = ["--home", tree.home, "--cwd", tree.path("repo/pkg"), "--preset", "opencode"];
    const shown = await runCli([...base, "show"], { env: {} });
    expect(shown.stdout).toBe(
      `Instructions from: ${tree.path("repo/pkg/AGENTS.md")}\nPKG\nInstructions from: ${tree.path("repo/AGENTS.md")}\nROOT\nInstructions from: ${tree.path("repo/CONTRIBUTING.md")}\nCONTRIB`,
    );
    const explained = await runCli([...base, "explain", tree.path("repo/pkg/a.ts")], { env: {} });
    expect(explained.stdout).toContain(
      `setting: instructions CONTRIBUTING.md, AGENTS.md, docs/*.md, http://example.com/x.md from ${tree.path("repo/opencode.json")}`,
    );
    expect(explained.stdout).toContain("setting: instructions entry http://example.com/x.md is a URL");
    expect(explained.stdout).toContain(
      `config: whole (7 bytes)\n   why: listed by the instructions entry CONTRIBUTING.md of ${tree.path("repo/opencode.json")}`,
    );
    const off = await runCli([...base, "--no-agent-config", "show"], { env: {} });
    expect(off.stdout).not.toContain("CONTRIB");
    // Other presets never read OpenCode's configuration.
    expect((await runCli(["--home", tree.home, "--cwd", tree.path("repo/pkg"), "--preset", "codex", "show"], { env: {} })).stdout).not.toContain("CONTRIB");
  });

  it("agentsmd's opencode.instructions replaces OpenCode's list, with --no-agent-config too; a listed file counts as loaded for touch", async () => {
    const tree = await setup();
    await tree.write("repo/pkg/sub/AGENTS.md", "SUB");
    const config = { opencode: { instructions: ["pkg/sub/AGENTS.md"] } };
    const session = await openSession(tree, { cwd: tree.path("repo"), preset: "opencode", config: { ...config, agentConfig: false } });
    expect(session.initialFiles.map((file) => [file.layer, file.path])).toEqual([
      ["project", tree.path("repo/AGENTS.md")],
      ["config", tree.path("repo/pkg/sub/AGENTS.md")],
    ]);
    expect(await session.touch([tree.path("repo/pkg/sub/x.ts")])).toEqual([expect.objectContaining({ path: tree.path("repo/pkg/AGENTS.md") })]);
  });
});
