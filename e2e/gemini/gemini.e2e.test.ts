/**
 * Proof that preset `gemini` loads what Gemini CLI loads, byte for byte, against Gemini's own
 * code: `@google/gemini-cli-core` 0.61.0 (pinned in package.json here) runs its real startup
 * loader and its real just-in-time loader on each fixture tree (oracle.mjs), and the built
 * agentsmd CLI runs on the same tree, cwd, HOME and settings.
 *
 * - `agentsmd show --preset gemini` = `renderUserMemory(config.getUserMemory())` without the
 *   `\n---\n\n` separator Gemini puts before it in the system prompt: Gemini's own rendering of
 *   all its memory tiers (`<loaded_context>` holding `<global_context>` and `<project_context>`).
 *   With project files only, that is exactly `config.getSessionMemory()` (trimmed), the text of
 *   the first user message. See FINDINGS.md for what goes where.
 * - `agentsmd touch --preset gemini PATH --state S`, one call per tool call, = what
 *   `appendJitContext` adds to that tool's output (less the two leading newlines), or nothing.
 *
 * Run: npm run build && npm ci --prefix e2e/gemini && npx vitest run -c vitest.e2e.config.ts e2e/gemini
 */
import { access, chmod, link, mkdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { REPO_ROOT } from "../lib/install.js";
import { bytes, createTree, dir, symlink, type BuiltTree, type TreeSpec } from "../lib/tree.js";
import { GEMINI_CORE_VERSION, startGeminiOracle, type GeminiOracle, type GeminiStart } from "./oracle.js";

let gemini: GeminiOracle;
const trees: BuiltTree[] = [];

beforeAll(async () => {
  await assertAgentsmdBuilt();
  gemini = await startGeminiOracle();
}, 15 * 60_000);
afterAll(async () => {
  await gemini?.close();
});
afterEach(async () => {
  if (process.env.AGENTSMD_E2E_KEEP === "1") return;
  for (const tree of trees.splice(0)) await tree.cleanup();
});

interface Setup {
  /** Tree-relative cwd. */
  cwd: string;
  /** Tree-relative HOME. @default "home" */
  home?: string;
  /** Tree-relative GEMINI_CLI_HOME. */
  geminiCliHome?: string;
  /** `context.fileName` (agentsmd: `files.names`). */
  fileName?: string[];
  /** `context.memoryBoundaryMarkers` (agentsmd: `root.markers`). */
  markers?: string[];
}

interface Fixture {
  tree: BuiltTree;
  setup: Setup;
  gemini: GeminiStart;
  state: string;
  /** agentsmd with the fixture's cwd, home, env and settings. */
  agentsmd(args: string[]): Promise<string>;
  /** Gemini's JIT text for a tool call on `target` (tree-relative), less the two newlines before it: what agentsmd touch prints, byte for byte. */
  geminiJit(target: string): Promise<string>;
  /** `agentsmd touch` on `target` (tree-relative) against the fixture's state file. */
  touch(target: string): Promise<string>;
}

async function fixture(spec: TreeSpec, setup: Setup, prepare?: (tree: BuiltTree) => Promise<void>): Promise<Fixture> {
  const tree = await createTree({ home: dir(), ...spec } as TreeSpec, { prefix: "agentsmd-e2e-gemini-" });
  trees.push(tree);
  await prepare?.(tree);
  const cwd = tree.path(setup.cwd);
  const home = tree.path(setup.home ?? "home");
  const geminiCliHome = setup.geminiCliHome === undefined ? undefined : tree.path(setup.geminiCliHome);
  // Gemini CLI follows symlinks leading outside the project; agentsmd confines them unless told to follow.
  const config: Record<string, unknown> = { files: { symlinks: "follow", ...(setup.fileName ? { names: setup.fileName } : {}) } };
  if (setup.markers) config.root = { markers: setup.markers };
  const configFile = path.join(tree.root, "agentsmd.json");
  await writeFile(configFile, JSON.stringify(config));
  const state = path.join(tree.root, "agentsmd-state.json");
  // Gemini first: its Storage writes ~/.gemini/{projects.json,tmp,history}, which must not matter.
  const started = await gemini.start({
    cwd,
    home,
    ...(geminiCliHome ? { geminiCliHome } : {}),
    ...(setup.fileName ? { fileName: setup.fileName } : {}),
    ...(setup.markers ? { markers: setup.markers } : {}),
  });
  const env = cleanEnv({ HOME: home, GEMINI_CLI_HOME: geminiCliHome });
  const agentsmd = async (args: string[]) => {
    const r = await runAgentsmd(["--preset", "gemini", "--cwd", cwd, "--home", home, "--config", configFile, ...args], { env });
    expect(r.code, r.stderr.toString()).toBe(0);
    return r.stdout.toString("utf8");
  };
  return {
    tree,
    setup,
    gemini: started,
    state,
    agentsmd,
    geminiJit: async (target) => {
      const { appended } = await gemini.jit(started.session, tree.path(target));
      return appended.replace(/^\n\n/, "");
    },
    touch: (target) => agentsmd(["touch", tree.path(target), "--state", state]),
  };
}

/** What `show` must print: Gemini's rendered memory without the separator before it. */
function expectedShow(start: GeminiStart): string {
  return start.rendered.replace(/^\n---\n\n/, "");
}

async function expectShowMatches(fx: Fixture): Promise<string> {
  const shown = await fx.agentsmd(["show"]);
  expect(shown).toBe(expectedShow(fx.gemini));
  return shown;
}

/** Each target in turn: Gemini's JIT addition and agentsmd touch agree (both sessions advance). */
async function expectJitMatches(fx: Fixture, targets: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const target of targets) {
    const expected = await fx.geminiJit(target);
    expect(await fx.touch(target), `touch ${target}`).toBe(expected);
    out.push(expected);
  }
  return out;
}

describe(`preset gemini is byte-identical with Gemini CLI core ${GEMINI_CORE_VERSION}`, () => {
  it("runs in a temp dir with no .git in any ancestor", async () => {
    let current = await realpath(tmpdir());
    const found: string[] = [];
    for (;;) {
      if (
        await access(path.join(current, ".git")).then(
          () => true,
          () => false,
        )
      )
        found.push(current);
      const parent = path.dirname(current);
      if (parent === current) break;
      current = parent;
    }
    expect(found, "set TMPDIR to a directory outside any repository").toEqual([]);
  });

  it("nested git root: nothing above the nearest .git (a directory or a submodule's .git file)", async () => {
    const spec: TreeSpec = {
      "outer/.git": dir(),
      "outer/GEMINI.md": "OUTER-1 (above the nearest git root: not loaded)\n",
      "outer/inner/.git": "gitdir: ../.git/modules/inner\n",
      "outer/inner/GEMINI.md": "# Inner\nINNER-2\n",
      "outer/inner/pkg/GEMINI.md": "PKG-3\n",
      "outer/inner/pkg/src/GEMINI.md": "SRC-4 (below cwd: just in time)\n",
      "outer/inner/pkg/src/a.ts": "export {};\n",
    };
    const fx = await fixture(spec, { cwd: "outer/inner/pkg" });
    const shown = await expectShowMatches(fx);
    expect(shown).toContain("INNER-2");
    expect(shown).toContain("PKG-3");
    expect(shown).not.toContain("OUTER-1");
    const [first, second] = await expectJitMatches(fx, ["outer/inner/pkg/src/a.ts", "outer/inner/pkg/src/a.ts"]);
    expect(first).toContain("SRC-4");
    expect(second).toBe("");
  });

  it("no git root: cwd alone at startup; JIT stops at cwd; an import may not leave the importing file's directory", async () => {
    const spec: TreeSpec = {
      "ws/GEMINI.md": "PARENT-1 (above cwd, no git: not loaded)\n",
      "ws/app/GEMINI.md": "APP-2\n",
      "ws/app/shared.md": "SHARED-3\n",
      "ws/app/sub/GEMINI.md": "SUB-4 imports @../shared.md and @./near.md\n",
      "ws/app/sub/near.md": "NEAR-5\n",
      "ws/app/sub/x.ts": "x\n",
    };
    const fx = await fixture(spec, { cwd: "ws/app" });
    const shown = await expectShowMatches(fx);
    expect(shown).toContain("APP-2");
    expect(shown).not.toContain("PARENT-1");
    const [jit] = await expectJitMatches(fx, ["ws/app/sub/x.ts"]);
    expect(jit).toContain("SUB-4");
    expect(jit).toContain("NEAR-5");
  });

  it("context.fileName: configured names in front of GEMINI.md; startup sorted by path, JIT in name order", async () => {
    const spec: TreeSpec = {
      "repo/.git": dir(),
      "repo/GEMINI.md": "ROOT-GEMINI\n",
      "repo/AGENTS.md": "ROOT-AGENTS\n",
      "repo/CONTEXT.md": "ROOT-CONTEXT\n",
      "repo/lib/AGENTS.md": "LIB-AGENTS\n",
      "repo/lib/CONTEXT.md": "LIB-CONTEXT\n",
      "repo/lib/GEMINI.md": "LIB-GEMINI\n",
      "repo/lib/x.ts": "x\n",
    };
    const fx = await fixture(spec, { cwd: "repo", fileName: ["CONTEXT.md", "AGENTS.md"] });
    expect(fx.gemini.names).toEqual(["CONTEXT.md", "AGENTS.md", "GEMINI.md"]);
    const shown = await expectShowMatches(fx);
    expect(shown.indexOf("ROOT-AGENTS")).toBeLessThan(shown.indexOf("ROOT-CONTEXT"));
    const [jit] = await expectJitMatches(fx, ["repo/lib/x.ts"]);
    expect(jit!.indexOf("LIB-CONTEXT")).toBeLessThan(jit!.indexOf("LIB-AGENTS"));
  });

  it("global ~/.gemini files under HOME, with a configured name too", async () => {
    const spec: TreeSpec = {
      "home/.gemini/GEMINI.md": "GLOBAL-GEMINI\n",
      "home/.gemini/AGENTS.md": "  GLOBAL-AGENTS  \n\n",
      "repo/.git": dir(),
      "repo/GEMINI.md": "PROJECT-1\n",
    };
    const fx = await fixture(spec, { cwd: "repo", fileName: ["AGENTS.md"] });
    const shown = await expectShowMatches(fx);
    expect(shown).toContain("<global_context>");
    expect(shown).toContain("GLOBAL-AGENTS");
  });

  it("GEMINI_CLI_HOME replaces HOME for the global files", async () => {
    const spec: TreeSpec = {
      "home/.gemini/GEMINI.md": "HOME-GLOBAL (ignored: GEMINI_CLI_HOME is set)\n",
      "alt/.gemini/GEMINI.md": "ALT-GLOBAL\n",
      "repo/.git": dir(),
    };
    const fx = await fixture(spec, { cwd: "repo", geminiCliHome: "alt" });
    const shown = await expectShowMatches(fx);
    expect(shown).toContain("ALT-GLOBAL");
    expect(shown).not.toContain("HOME-GLOBAL");
    // Global only: the system instruction gets it in Gemini's string form (FINDINGS.md).
    expect(fx.gemini.sessionMemory).toBe("");
  });

  it("sort-order trap: Apps/GEMINI.md sorts before GEMINI.md, the child before its parent", async () => {
    const spec: TreeSpec = {
      "repo/.git": dir(),
      "repo/GEMINI.md": "ROOT-1\n",
      "repo/Apps/GEMINI.md": "APPS-2\n",
      "repo/Apps/zeta/GEMINI.md": "ZETA-3\n",
    };
    const fx = await fixture(spec, { cwd: "repo/Apps/zeta" });
    const shown = await expectShowMatches(fx);
    expect(shown.indexOf("APPS-2")).toBeLessThan(shown.indexOf("ZETA-3"));
    expect(shown.indexOf("ZETA-3")).toBeLessThan(shown.indexOf("ROOT-1"));
  });

  it("hard links: one file once (same directory, parent and child, global and project); JIT skips a link to a loaded file", async () => {
    const spec: TreeSpec = {
      "home/.gemini/GEMINI.md": "GLOBAL-SHARED\n",
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT-SHARED\n",
      "repo/pkg/x.ts": "x\n",
      "repo/other/y.ts": "y\n",
    };
    const fx = await fixture(spec, { cwd: "repo", fileName: ["AGENTS.md"] }, async (tree) => {
      await link(tree.path("repo/AGENTS.md"), tree.path("repo/GEMINI.md"));
      await link(tree.path("home/.gemini/GEMINI.md"), tree.path("repo/other/GEMINI.md"));
      await link(tree.path("repo/AGENTS.md"), tree.path("repo/pkg/GEMINI.md"));
    });
    const shown = await expectShowMatches(fx);
    expect(shown.split("ROOT-SHARED")).toHaveLength(2);
    const jits = await expectJitMatches(fx, ["repo/pkg/x.ts", "repo/other/y.ts"]);
    expect(jits).toEqual(["", ""]);
  });

  it("hard link between the global file and a project file: the global tier keeps it", async () => {
    const spec: TreeSpec = {
      "home/.gemini/GEMINI.md": "SAME-FILE\n",
      "repo/.git": dir(),
      "repo/sub/GEMINI.md": "SUB-1\n",
    };
    const fx = await fixture(spec, { cwd: "repo/sub" }, async (tree) => {
      await link(tree.path("home/.gemini/GEMINI.md"), tree.path("repo/GEMINI.md"));
    });
    const shown = await expectShowMatches(fx);
    expect(shown.split("SAME-FILE")).toHaveLength(2);
  });

  it("empty and whitespace-only files are dropped; text is trimmed as JavaScript trims", async () => {
    const spec: TreeSpec = {
      "repo/.git": dir(),
      "repo/GEMINI.md": "",
      "repo/a/GEMINI.md": " \n\t\n\n",
      "repo/a/b/GEMINI.md": "\uFEFF\n\n  B-RULES \u00a0\n\n\n",
      "repo/a/b/c/GEMINI.md": "\u0085",
      "repo/a/b/c/d/GEMINI.md": "\u3000\n",
      "repo/a/b/c/d/e/GEMINI.md": "E-RULES\u0085\n",
      "repo/a/b/c/d/e/x.ts": "x\n",
      "repo/a/b/c/d/z/GEMINI.md": "\n \n",
      "repo/a/b/c/d/z/x.ts": "x\n",
      "repo/a/b/c/d/nel/GEMINI.md": "\u0085\n",
      "repo/a/b/c/d/nel/x.ts": "x\n",
      "repo/a/b/c/d/bytes/GEMINI.md": bytes(0x42, 0x59, 0xff, 0x54, 0xe2, 0x82, 0x0a, 0xc3, 0x28, 0xf0, 0x9f, 0x98, 0x0a),
      "repo/a/b/c/d/bytes/x.ts": "x\n",
    };
    const fx = await fixture(spec, { cwd: "repo/a/b/c/d" });
    const shown = await expectShowMatches(fx);
    expect(shown).toContain("B-RULES");
    const jits = await expectJitMatches(fx, ["repo/a/b/c/d/e/x.ts", "repo/a/b/c/d/z/x.ts", "repo/a/b/c/d/nel/x.ts", "repo/a/b/c/d/bytes/x.ts"]);
    expect(jits[0]).toContain("E-RULES");
    expect(jits[1]).toBe("");
    expect(jits[2]).toContain("\u0085");
    expect(jits[3]).toContain("\ufffd");
  });

  it("a directory named GEMINI.md is skipped, at startup and just in time", async () => {
    const spec: TreeSpec = {
      "repo/.git": dir(),
      "repo/GEMINI.md/notes.txt": "not instructions\n",
      "repo/sub/GEMINI.md": "SUB-1\n",
      "repo/sub/deeper/GEMINI.md": dir(),
      "repo/sub/deeper/x.ts": "x\n",
    };
    const fx = await fixture(spec, { cwd: "repo/sub" });
    const shown = await expectShowMatches(fx);
    expect(shown).toContain("SUB-1");
    await expectJitMatches(fx, ["repo/sub/deeper/x.ts", "repo/GEMINI.md/notes.txt"]);
  });

  it("imports: tree format, a cycle, a missing file, a mention, code spans, a path out of the root, trailing punctuation", async () => {
    const spec: TreeSpec = {
      "repo/.git": dir(),
      "repo/GEMINI.md": [
        "# Root",
        "Follow @./docs/a.md please.",
        "Missing: @./docs/missing.md",
        "Ask @alice about it.",
        "Inline `@./docs/b.md` stays, and so does",
        "```",
        "@./docs/b.md",
        "```",
        "Outside: @../outside.md",
        "Punctuation: @./docs/b.md.",
        "mail me@example.com",
        "",
      ].join("\n"),
      "repo/docs/a.md": "A-TEXT imports @./b.md\n",
      "repo/docs/b.md": "B-TEXT imports @./a.md (a cycle)\n",
      "outside.md": "OUTSIDE\n",
      "repo/pkg/GEMINI.md": "PKG imports @../docs/b.md and @./self.md\n",
      "repo/pkg/self.md": "SELF imports the top file back: @./GEMINI.md\n",
      "repo/pkg/x.ts": "x\n",
      "repo/odd/GEMINI.md": "\uFEFF@./odd.md after a BOM; a directory @./sub and @./odd.md/x through a file, @/etc/hostname\n",
      "repo/odd/odd.md": "\uFEFFODD (imported with its BOM)\n",
      "repo/odd/sub/x.ts": "x\n",
    };
    const fx = await fixture(spec, { cwd: "repo" });
    const shown = await expectShowMatches(fx);
    expect(shown).toContain("<!-- Imported from: ./docs/a.md -->");
    expect(shown).toContain("<!-- Import failed: ./docs/missing.md");
    const [jit, odd] = await expectJitMatches(fx, ["repo/pkg/x.ts", "repo/odd/sub/x.ts"]);
    expect(jit).toContain("B-TEXT");
    expect(odd).toContain("EISDIR");
  });

  it("imports in the global file stay inside ~/.gemini; nested imports stop at depth 5", async () => {
    const spec: TreeSpec = {
      "home/.gemini/GEMINI.md": "GLOBAL @./style.md and @../secrets.md\n",
      "home/.gemini/style.md": "STYLE\n",
      "home/secrets.md": "SECRET\n",
      "repo/.git": dir(),
      "repo/GEMINI.md": "L0 @./l1.md\n",
      "repo/l1.md": "L1 @./l2.md\n",
      "repo/l2.md": "L2 @./l3.md\n",
      "repo/l3.md": "L3 @./l4.md\n",
      "repo/l4.md": "L4 @./l5.md\n",
      "repo/l5.md": "L5 @./l6.md\n",
      "repo/l6.md": "L6\n",
    };
    const fx = await fixture(spec, { cwd: "repo" });
    const shown = await expectShowMatches(fx);
    expect(shown).toContain("STYLE");
    expect(shown).toContain("L5");
  });

  it("JIT on nested paths: root to leaf, once per session; a missing target, a directory target, a file created after startup", async () => {
    const spec: TreeSpec = {
      "repo/.git": dir(),
      "repo/GEMINI.md": "ROOT-1\n",
      "repo/pkg/GEMINI.md": "PKG-2\n",
      "repo/pkg/src/GEMINI.md": "SRC-3\n",
      "repo/pkg/src/deep/GEMINI.md": "DEEP-4\n",
      "repo/pkg/src/deep/file.ts": "x\n",
      "repo/pkg/src/other.ts": "x\n",
      "repo/new/GEMINI.md": "NEW-5\n",
      "repo/lib/GEMINI.md": "LIB-6\n",
      "repo/lib/inner/GEMINI.md": "INNER-7\n",
      "repo/node_modules/dep/GEMINI.md": "DEP-8 (no ignore rules)\n",
      "repo/node_modules/dep/index.js": "x\n",
    };
    const fx = await fixture(spec, { cwd: "repo" });
    await expectShowMatches(fx);
    const jits = await expectJitMatches(fx, [
      "repo/pkg/src/deep/file.ts",
      "repo/pkg/src/other.ts",
      "repo/new/not-yet-written.ts",
      "repo/lib",
      "repo/node_modules/dep/index.js",
    ]);
    expect(jits[0]!.indexOf("PKG-2")).toBeLessThan(jits[0]!.indexOf("DEEP-4"));
    expect(jits[1]).toBe("");
    expect(jits[2]).toContain("NEW-5");
    expect(jits[3]).toContain("LIB-6");
    expect(jits[3]).not.toContain("INNER-7");
    expect(jits[4]).toContain("DEP-8");
    // Created after startup in cwd and in a directory already visited: Gemini loads both on the next tool call.
    await writeFile(fx.tree.path("repo/pkg/src/deep/GEMINI.md"), "DEEP-4 edited (already loaded: not again)\n");
    await mkdir(fx.tree.path("repo/late"), { recursive: true });
    await writeFile(fx.tree.path("repo/late/GEMINI.md"), "LATE-9\n");
    await writeFile(fx.tree.path("repo/pkg/GEMINI.md"), "PKG-2 edited\n");
    await expectJitMatches(fx, ["repo/late/a.ts", "repo/pkg/src/deep/file.ts"]);
  });

  it("JIT only inside the workspace (cwd): a target elsewhere in the repository gets nothing", async () => {
    const spec: TreeSpec = {
      "repo/.git": dir(),
      "repo/GEMINI.md": "ROOT-1\n",
      "repo/app/GEMINI.md": "APP-2\n",
      "repo/app/src/GEMINI.md": "APP-SRC-3\n",
      "repo/app/src/a.ts": "x\n",
      "repo/other/GEMINI.md": "OTHER-4\n",
      "repo/other/b.ts": "x\n",
    };
    const fx = await fixture(spec, { cwd: "repo/app" });
    await expectShowMatches(fx);
    const jits = await expectJitMatches(fx, ["repo/other/b.ts", "repo/app/src/a.ts", "repo/other/b.ts"]);
    expect(jits[0]).toBe("");
    expect(jits[1]).toContain("APP-SRC-3");
  });

  it("symlinks are followed; a dangling one and an unreadable file are skipped", async () => {
    const spec: TreeSpec = {
      "shared/rules.md": "SHARED-RULES\n",
      "repo/.git": dir(),
      "repo/GEMINI.md": symlink("../shared/rules.md"),
      "repo/a/GEMINI.md": symlink("missing.md"),
      "repo/a/b/GEMINI.md": "B-1\n",
      "repo/a/b/c/GEMINI.md": "LOCKED\n",
      "repo/a/b/c/x.ts": "x\n",
    };
    const fx = await fixture(spec, { cwd: "repo/a/b" }, async (tree) => {
      await chmod(tree.path("repo/a/b/c/GEMINI.md"), 0o000);
    });
    try {
      const shown = await expectShowMatches(fx);
      expect(shown).toContain("SHARED-RULES");
      await expectJitMatches(fx, ["repo/a/b/c/x.ts"]);
    } finally {
      await chmod(fx.tree.path("repo/a/b/c/GEMINI.md"), 0o644);
    }
  });

  it("library helpers place the tiers as Gemini does: system instruction (global) and first user message (project)", async () => {
    const spec: TreeSpec = {
      "home/.gemini/AGENTS.md": "GLOBAL-AGENTS\n",
      "home/.gemini/GEMINI.md": "GLOBAL-GEMINI\n",
      "repo/.git": dir(),
      "repo/GEMINI.md": "PROJECT-1\n",
    };
    const fx = await fixture(spec, { cwd: "repo", fileName: ["AGENTS.md"] });
    await expectShowMatches(fx);
    const { createSession } = (await import(pathToFileURL(path.join(REPO_ROOT, "dist", "index.js")).href)) as typeof import("../../src/index.js");
    const helpers = (await import(pathToFileURL(path.join(REPO_ROOT, "dist", "presets", "gemini.js")).href)) as typeof import("../../src/presets/gemini.js");
    const session = await createSession({
      cwd: fx.tree.path("repo"),
      home: fx.tree.path("home"),
      env: {},
      preset: "gemini",
      config: { files: { names: ["AGENTS.md"] } },
    });
    try {
      const blocks = session.initialLoad!.blocks;
      expect(helpers.geminiSystemMemory(blocks, session.config.files.names)).toBe(fx.gemini.systemRendered);
      expect(helpers.geminiSessionMemory(blocks)).toBe(fx.gemini.sessionMemory);
    } finally {
      await session.close();
    }
  });

  it("memoryBoundaryMarkers: a custom marker, and [] (no root: cwd alone)", async () => {
    const spec: TreeSpec = {
      "mono/.hg": dir(),
      "mono/GEMINI.md": "MONO-1\n",
      "mono/.git": dir(),
      "mono/svc/GEMINI.md": "SVC-2\n",
      "mono/svc/api/GEMINI.md": "API-3\n",
    };
    const custom = await fixture(spec, { cwd: "mono/svc/api", markers: [".hg"] });
    expect(await expectShowMatches(custom)).toContain("MONO-1");
    const none = await fixture(spec, { cwd: "mono/svc/api", markers: [] });
    const shown = await expectShowMatches(none);
    expect(shown).toContain("API-3");
    expect(shown).not.toContain("SVC-2");
    await rm(none.state, { force: true });
  });
});
