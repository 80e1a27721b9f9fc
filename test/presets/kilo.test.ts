/**
 * Preset `kilo` (Kilo Code CLI 7.7.7; e2e/kilo/FINDINGS.md): OpenCode's picking with Kilo's
 * switches, config dir and Claude Code handoff, and Kilo's config variables in the text
 * (load/kilo-variables.ts). The byte-for-byte proof against the real binary is e2e/kilo/preset.e2e.test.ts.
 */
import { describe, expect, it } from "vitest";
import { nodeFileSystem } from "../../src/io/file-system.js";
import { inCommentLine, substituteKiloVariables } from "../../src/load/kilo-variables.js";
import { familySystemPaths } from "../../src/presets/opencode.js";
import { KILO_FAMILY, kiloStateDir } from "../../src/presets/kilo.js";
import { createTree, makeFifo, makeSymlink, openSession } from "../helpers/tree.js";

describe("preset kilo: what Kilo puts in its system prompt", () => {
  it("takes the first name with any match from cwd to the worktree, nearest first, in OpenCode's framing", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "ROOT\n", "repo/pkg/AGENTS.md": "PKG\n", "repo/pkg/CLAUDE.md": "CC\n" });
    const session = await openSession(tree, { cwd: tree.path("repo/pkg"), preset: "kilo" });
    expect(session.initialMessage).toBe(
      `Instructions from: ${tree.path("repo/pkg/AGENTS.md")}\nPKG\n\nInstructions from: ${tree.path("repo/AGENTS.md")}\nROOT\n`,
    );
    const off = await openSession(tree, { cwd: tree.path("repo/pkg"), preset: "kilo", env: { KILO_DISABLE_PROJECT_CONFIG: "1" } });
    expect(off.initialFiles).toEqual([]);
  });

  it("reads KILO_DISABLE_CLAUDE_CODE(_PROMPT), not OpenCode's switches", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/CLAUDE.md": "C", "repo/CONTEXT.md": "X" });
    const on = await openSession(tree, { cwd: tree.path("repo"), preset: "kilo", env: { OPENCODE_DISABLE_CLAUDE_CODE: "1" } });
    expect(on.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/CLAUDE.md")]);
    const off = await openSession(tree, { cwd: tree.path("repo"), preset: "kilo", env: { KILO_DISABLE_CLAUDE_CODE_PROMPT: "yes" } });
    expect(off.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/CONTEXT.md")]);
  });

  it("global: $KILO_CONFIG_DIR/AGENTS.md, else Kilo's config dir, else ~/.claude/CLAUDE.md unless Kilo migrated it", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "P", "extra/AGENTS.md": "EXTRA" });
    await tree.write(".test-home/.claude/CLAUDE.md", "CLAUDE GLOBAL");
    await tree.write(".test-home/.config/kilo/AGENTS.md", "KILO GLOBAL");
    const paths = async (env: Record<string, string>) =>
      (await openSession(tree, { cwd: tree.path("repo"), preset: "kilo", env })).initialFiles.map((f) => f.path);
    expect(await paths({})).toEqual([`${tree.home}/.config/kilo/AGENTS.md`, tree.path("repo/AGENTS.md")]);
    expect(await paths({ KILO_CONFIG_DIR: tree.path("extra") })).toEqual([tree.path("extra/AGENTS.md"), tree.path("repo/AGENTS.md")]);
    // With KILO_CONFIG_DIR set, Kilo's config dir is that directory: ~/.config/kilo is no candidate.
    expect(await paths({ KILO_CONFIG_DIR: tree.path("nowhere") })).toEqual([`${tree.home}/.claude/CLAUDE.md`, tree.path("repo/AGENTS.md")]);
    await tree.remove(".test-home/.config/kilo/AGENTS.md");
    expect(await paths({})).toEqual([`${tree.home}/.claude/CLAUDE.md`, tree.path("repo/AGENTS.md")]);
    await tree.write(".test-home/.local/state/kilo/claude-migration.json", "{}");
    expect(await paths({})).toEqual([tree.path("repo/AGENTS.md")]);
    // The handoff does not apply when Kilo runs with another config context.
    expect(await paths({ CLAUDE_CONFIG_DIR: "/x" })).toEqual([`${tree.home}/.claude/CLAUDE.md`, tree.path("repo/AGENTS.md")]);
    // The same decision where the plugin asks what Kilo loaded.
    const system = await familySystemPaths(KILO_FAMILY, { cwd: tree.path("repo"), worktree: tree.path("repo"), home: tree.home, env: {}, fs: nodeFileSystem });
    expect(system).toEqual([tree.path("repo/AGENTS.md")]);
  });

  it("config instructions in Kilo's order: legacy rule files, global (the last file's list), KILO_CONFIG, kilo.json(c) then opencode.json(c), .kilocode/.kilo, KILO_CONFIG_CONTENT, managed; the file scope", async () => {
    const json = (instructions: string[]) => JSON.stringify({ instructions });
    const tree = await createTree({
      "repo/.git/": null,
      "repo/AGENTS.md": "ROOT\n",
      "repo/pkg/sub/.kilo/rules/r1.md": "R1",
      "repo/pkg/sub/.kilocoderules": "LEGACY",
      "custom.json": json(["custom.md", "AGENTS.md"]),
      "repo/kilo.json": json(["root-kilo.md", "docs/*.md"]),
      "repo/opencode.json": json(["root-opencode.md"]),
      "repo/pkg/kilo.jsonc": json(["pkg-kilo.md", "/outside/*.md"]),
      "repo/.kilo/kilo.json": json(["dot-kilo.md"]),
      "repo/pkg/.kilocode/kilo.json": json(["dot-kilocode.md"]),
      "managed/kilo.json": json(["managed.md", "/trusted/*.md"]),
      "repo/custom.md": "C",
      "repo/root-kilo.md": "RK",
      "repo/docs/a.md": "A",
      "repo/root-opencode.md": "RO",
      "repo/pkg/pkg-kilo.md": "PK",
      "repo/dot-kilo.md": "DK",
      "repo/pkg/dot-kilocode.md": "DKC",
      "repo/content.md": "CT",
      "repo/managed.md": "M",
      "outside/o.md": "O",
      "trusted/t.md": "T",
    });
    await tree.write(".test-home/.kilocode/rules/h2.md", "H2");
    await tree.write(".test-home/.kilo/rules/h1.md", "H1");
    await tree.write(".test-home/.kilocode/rules/h1.md", "H1-DUP");
    await tree.write(".test-home/.config/kilo/kilo.json", json(["global-a.md"]));
    await tree.write(".test-home/.config/kilo/opencode.jsonc", '{ "instructions": ["global-b.md",], } // the last list wins\n');
    await tree.write("repo/global-b.md", "GB");
    await tree.write("repo/global-a.md", "GA");
    // Absolute entries: agentsmd's tree lives under a temp dir, so they are written with it.
    await tree.write("repo/pkg/kilo.jsonc", json(["pkg-kilo.md", `${tree.path("outside")}/*.md`]));
    await tree.write("managed/kilo.json", json(["managed.md", `${tree.path("trusted")}/*.md`]));
    const env = {
      KILO_CONFIG: tree.path("custom.json"),
      KILO_CONFIG_CONTENT: json(["content.md"]),
      KILO_TEST_MANAGED_CONFIG_DIR: tree.path("managed"),
    };
    const session = await openSession(tree, { cwd: tree.path("repo/pkg/sub"), preset: "kilo", env });
    expect(session.initialFiles.map((file) => file.path)).toEqual([
      tree.path("repo/AGENTS.md"),
      `${tree.home}/.kilo/rules/h1.md`,
      `${tree.home}/.kilocode/rules/h2.md`,
      tree.path("repo/pkg/sub/.kilo/rules/r1.md"),
      tree.path("repo/pkg/sub/.kilocoderules"),
      tree.path("repo/global-b.md"),
      tree.path("repo/custom.md"),
      tree.path("repo/root-kilo.md"),
      tree.path("repo/docs/a.md"),
      tree.path("repo/pkg/pkg-kilo.md"),
      tree.path("repo/root-opencode.md"),
      tree.path("repo/pkg/dot-kilocode.md"),
      tree.path("repo/dot-kilo.md"),
      tree.path("repo/content.md"),
      tree.path("repo/managed.md"),
      tree.path("trusted/t.md"),
    ]);
    // The project's absolute entry outside the project is one Kilo's file scope drops, and explain says so.
    expect(session.diagnostics.map((d) => d.message).join("\n")).toContain(`${tree.path("outside/o.md")}`);
    // --no-agent-config: the chain alone.
    const bare = await openSession(tree, { cwd: tree.path("repo/pkg/sub"), preset: "kilo", env, config: { agentConfig: false } });
    expect(bare.initialFiles.map((file) => file.path)).toEqual([tree.path("repo/AGENTS.md")]);
    // Under KILO_DISABLE_PROJECT_CONFIG relative entries are matched in Kilo's config dir; the legacy rules stay.
    await tree.write(".test-home/.config/kilo/global-b.md", "GB-CONFIG-DIR");
    const off = await openSession(tree, { cwd: tree.path("repo/pkg/sub"), preset: "kilo", env: { ...env, KILO_DISABLE_PROJECT_CONFIG: "1" } });
    expect(off.initialFiles.map((file) => file.path)).toContain(`${tree.home}/.config/kilo/global-b.md`);
    expect(off.initialFiles.map((file) => file.path)).toContain(tree.path("repo/pkg/sub/.kilocoderules"));
    expect(off.initialFiles.map((file) => file.path)).not.toContain(tree.path("repo/root-kilo.md"));
  });

  it("finds Kilo's state dir: the legacy <data>/kilo/state when it is a directory and XDG_STATE_HOME is unset", async () => {
    const tree = await createTree({});
    const context = { home: tree.home, env: {} };
    expect(await kiloStateDir(context, nodeFileSystem)).toBe(`${tree.home}/.local/state/kilo`);
    await tree.add({ ".test-home/.local/share/kilo/state/": null });
    expect(await kiloStateDir(context, nodeFileSystem)).toBe(`${tree.home}/.local/share/kilo/state`);
    expect(await kiloStateDir({ home: tree.home, env: { XDG_STATE_HOME: tree.path("s") } }, nodeFileSystem)).toBe(tree.path("s/kilo"));
  });

  it("shows the text through Kilo's config variables: {file:} inlined, {env:} refusing a project file", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/docs/style.md": "\n STYLE \n",
      "repo/AGENTS.md": "A {file:docs/style.md} B {file:nope.md}\n// {file:docs/style.md}\n",
      "repo/pkg/AGENTS.md": "SECRET {env:HOME}\n",
    });
    const session = await openSession(tree, { cwd: tree.path("repo/pkg"), preset: "kilo" });
    expect(session.initialMessage).toBe(`Instructions from: ${tree.path("repo/AGENTS.md")}\nA STYLE B \n// {file:docs/style.md}\n`);
    expect(session.diagnostics.map((d) => d.code)).toContain("kilo-file-refused");
  });
});

describe("Kilo's config variables", () => {
  const options = (tree: { home: string; path(p: string): string }, trusted: boolean) => ({
    fs: nodeFileSystem,
    trusted,
    root: tree.path("repo"),
    home: tree.home,
    env: { NAME: "value", KILO_SERVER_PASSWORD: "pw" },
    maxBytes: 1024,
  });

  it("knows comment lines", () => {
    expect(inCommentLine("a\n  // {env:X}", 7)).toBe(true);
    expect(inCommentLine("x // {env:X}", 5)).toBe(false);
    expect(inCommentLine("{env:X}", 0)).toBe(false);
  });

  it("substitutes {env:} in the global file, refuses it for a server secret, keeps ${env:} in a project file", async () => {
    const tree = await createTree({ "repo/.git/": null });
    const from = `${tree.home}/.claude/CLAUDE.md`;
    expect((await substituteKiloVariables("[{env:NAME}] [{env:UNSET}] ${env:NAME}", from, options(tree, true))).content).toBe("[value] [] $value");
    expect((await substituteKiloVariables("{env:kilo_server_password}", from, options(tree, true))).content).toBe("");
    const project = tree.path("repo/AGENTS.md");
    expect((await substituteKiloVariables("keep ${env:NAME}\n// {env:NAME}", project, options(tree, false))).content).toBe("keep ${env:NAME}\n// {env:NAME}");
    expect((await substituteKiloVariables("x {env:NAME}", project, options(tree, false))).content).toBe("");
  });

  it("confines a project file's {file:} to the root (real paths), not the global file's", async () => {
    const tree = await createTree({ "repo/.git/": null, "outside.md": "OUT", "repo/in.md": " IN \n" });
    await makeSymlink(tree, "repo/link.md", tree.path("outside.md"));
    const project = tree.path("repo/AGENTS.md");
    expect((await substituteKiloVariables("[{file:in.md}]", project, options(tree, false))).content).toBe("[IN]");
    expect((await substituteKiloVariables("[{file:../outside.md}] rest", project, options(tree, false))).content).toBe("");
    expect((await substituteKiloVariables("[{file:link.md}] rest", project, options(tree, false))).content).toBe("");
    expect((await substituteKiloVariables("[{file:../missing.md}]", project, options(tree, false))).content).toBe("[]");
    expect((await substituteKiloVariables("[{file:../outside.md}]", `${tree.home}/x.md`, { ...options(tree, true), root: "/" })).content).toBe("[OUT]");
  });

  it("never blocks on a FIFO, and keeps a target over the budget as written", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/big.md": "x".repeat(2000) });
    await makeFifo(tree, "repo/pipe.md");
    const project = tree.path("repo/AGENTS.md");
    const fifo = await substituteKiloVariables("[{file:pipe.md}]", project, options(tree, false));
    expect(fifo.content).toBe("[]");
    expect(fifo.diagnostics.map((d) => d.code)).toEqual(["kilo-file-unreadable"]);
    const big = await substituteKiloVariables("[{file:big.md}]", project, options(tree, false));
    expect(big.content).toBe("[{file:big.md}]");
    expect(big.diagnostics.map((d) => d.code)).toEqual(["kilo-file-over-budget"]);
  });
});
