/**
 * Security (docs/security.md; imports confined to the project root, real paths, for every preset; an explicit
 * allow-list for anything else) and the MCP half of row 6 (the "outside the roots" check on real
 * paths). The property: no random tree of symlinks and imports makes a file outside the root
 * reach any output.
 */
import { describe, expect, it, beforeAll, vi } from "vitest";
import fc from "fast-check";
import { link, mkdir, mkdtemp, realpath, rename, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createSession } from "../../src/index.js";
import { watchSession } from "../../src/session/watch.js";
import { RACY_MS } from "../../src/io/unchanged.js";
import { createTree, makeSymlink, openSession, runCli, type Tree } from "../helpers/tree.js";
import { BIN, ensureBuilt } from "../helpers/bin.js";

/** Every preset that can expand imports (codex never does), with imports switched on. */
const PRESETS = ["codelia", "claude", "gemini", "opencode", "hygge"];
const ON = JSON.stringify({ imports: { enabled: true } });

/** A repository whose instruction files import a secret in home, an absolute outside file and one through a symlink. */
async function attack(): Promise<Tree> {
  const tree = await createTree({
    "outside/secret.md": "OUTSIDE-SECRET\n",
    ".test-home/.ssh/id_rsa": "HOME-SECRET\n",
    "r/.git/": null,
    "r/docs/ok.md": "INSIDE-OK\n",
  });
  const body = `Rules @~/.ssh/id_rsa @${tree.path("outside/secret.md")} @../outside/secret.md @link/secret.md @docs/ok.md\n`;
  for (const name of ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]) await tree.write(`r/${name}`, body);
  for (const name of ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]) await tree.write(`r/sub/${name}`, body);
  await makeSymlink(tree, "r/link", tree.path("outside"));
  return tree;
}

function expectNoSecret(text: string, where: string): void {
  expect(text, where).not.toContain("HOME-SECRET");
  expect(text, where).not.toContain("OUTSIDE-SECRET");
}

describe("imports stay inside the project root", () => {
  for (const preset of PRESETS) {
    it(`preset ${preset}: show and touch import nothing from home, absolute paths or through a symlink`, async () => {
      const tree = await attack();
      const config = await tree.write("config.json", ON);
      const base = ["--home", tree.home, "--cwd", tree.path("r"), "--preset", preset, "--config", config];
      const show = await runCli([...base, "show"]);
      expectNoSecret(show.stdout, `show --preset ${preset}`);
      const touch = await runCli([...base, "touch", tree.path("r/sub/x.ts"), "--state", tree.path("s.json")]);
      expectNoSecret(touch.stdout, `touch --preset ${preset}`);
      // The inside import still works where the preset expands at all.
      expect(show.stdout + touch.stdout).toContain("INSIDE-OK");
    });
  }

  it("preset claude (root /) confines to the git root above cwd, and to cwd without one", async () => {
    const tree = await attack();
    const show = await runCli(["--home", tree.home, "--cwd", tree.path("r/sub"), "--preset", "claude", "show"]);
    expectNoSecret(show.stdout, "claude from r/sub");
    expect(show.stdout).toContain("INSIDE-OK");
    expect(show.stderr).toContain("import-outside-root".length > 0 ? "outside" : "");
    await rm(tree.path("r/.git"), { recursive: true });
    const noGit = await runCli(["--home", tree.home, "--cwd", tree.path("r"), "--preset", "claude", "show"]);
    expectNoSecret(noGit.stdout, "claude without .git");
  });

  it("the Claude Code hook delivers no outside file", async () => {
    const tree = await attack();
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const base = { session_id: "s1", transcript_path: tree.path("t.jsonl"), cwd: tree.path("r") };
    let all = "";
    for (const event of [
      { hook_event_name: "SessionStart", source: "startup" },
      { hook_event_name: "PostToolUse", tool_name: "Read", tool_input: { file_path: tree.path("r/sub/x.ts") }, tool_response: {}, tool_use_id: "t" },
    ]) {
      const run = await runCli(["--preset", "claude", "hook", "claude-code"], { stdin: JSON.stringify({ ...base, ...event }), env, cwd: tree.path("r") });
      all += run.stdout;
    }
    expectNoSecret(all, "hook");
  });

  it("imports.allow lists what may be imported from outside; nothing else opens", async () => {
    const tree = await attack();
    const config = await tree.write("config.json", JSON.stringify({ imports: { allow: [tree.path("outside")] } }));
    const show = await runCli(["--home", tree.home, "--cwd", tree.path("r"), "--preset", "claude", "--config", config, "show"]);
    expect(show.stdout).toContain("OUTSIDE-SECRET");
    expect(show.stdout).not.toContain("HOME-SECRET");
    const bad = await tree.write("bad.json", JSON.stringify({ imports: { allow: ["relative/dir"] } }));
    const refused = await runCli(["--home", tree.home, "--cwd", tree.path("r"), "--config", bad, "show"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("imports.allow.0");
  });

  it("property: no random tree of symlinks and imports makes a file outside the root reach any output", async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), "agentsmd-confine-")));
    try {
      let round = 0;
      const names = ["a", "b", "c"];
      const target = fc.oneof(
        fc.constantFrom("~/secret.md", "../../out/s.md", "../out/s.md", "/OUT/s.md", "/HOME/secret.md", "l1/s.md", "l2/s.md", "l1/AGENTS.md"),
        fc.tuple(fc.constantFrom(...names), fc.constantFrom("AGENTS.md", "x.md", "CLAUDE.md", "GEMINI.md")).map(([dir, file]) => `${dir}/${file}`),
      );
      const link = fc.constantFrom("/OUT", "/OUT/s.md", "/HOME", "..", "../..", "../../out", ".", "a", "b/x.md");
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.tuple(fc.constantFrom("", ...names), fc.constantFrom("AGENTS.md", "x.md", "CLAUDE.md", "GEMINI.md"), fc.array(target, { maxLength: 4 })),
            {
              minLength: 1,
              maxLength: 6,
            },
          ),
          fc.array(fc.tuple(fc.constantFrom("", ...names), fc.constantFrom("l1", "l2", "AGENTS.md", "x.md"), link), { maxLength: 4 }),
          fc.constantFrom(...PRESETS),
          async (files, links, preset) => {
            const dir = join(base, String(round++));
            const root = join(dir, "root");
            const out = join(dir, "out");
            const home = join(dir, "home");
            for (const each of [root, out, home, join(root, ".git")]) await mkdir(each, { recursive: true });
            await writeFile(join(out, "s.md"), "SECRET-OUT\n");
            await writeFile(join(home, "secret.md"), "SECRET-HOME\n");
            await writeFile(join(dir, "s.md"), "SECRET-PARENT\n");
            const swap = (text: string) => text.replace("/OUT", out).replace("/HOME", home);
            for (const [sub, name, imports] of files) {
              const path = join(root, sub, name);
              await mkdir(dirname(path), { recursive: true });
              await writeFile(path, `body ${imports.map((each) => `@${swap(each)}`).join(" ")}\n`).catch(() => undefined);
            }
            for (const [sub, name, to] of links) {
              await mkdir(join(root, sub), { recursive: true });
              await symlink(swap(to), join(root, sub, name)).catch(() => undefined);
            }
            const session = await createSession({ cwd: root, home, env: {}, preset, config: { imports: { enabled: true }, lazy: { maxFiles: 100 } } });
            try {
              let text = session.initialMessage;
              for (const sub of names) text += session.renderInline(await session.touch([join(root, sub, "x.ts")]));
              expect(text).not.toMatch(/SECRET-/);
            } finally {
              await session.close();
            }
          },
        ),
        { numRuns: Number(process.env.FUZZ_RUNS ?? 40) },
      );
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("the MCP server answers on real paths", () => {
  beforeAll(ensureBuilt, 120_000);

  async function mcp(tree: Tree, preset = "codelia") {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "--preset", preset, "--home", tree.home, "--cwd", tree.path("r"), "mcp"],
      env: { PATH: process.env.PATH ?? "" },
      stderr: "pipe",
    });
    const client = new Client({ name: "t", version: "1" });
    await client.connect(transport);
    return {
      call: async (name: string, path: string) => {
        const result = (await client.callTool({ name, arguments: { path } })) as { isError?: boolean; content: Array<{ text: string }> };
        return { isError: result.isError === true, text: result.content.map((part) => part.text).join("\n") };
      },
      close: () => client.close(),
    };
  }

  it("a symlinked directory inside the root that leads outside is outside: no outside AGENTS.md", async () => {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "ROOT\n", "other/AGENTS.md": "OTHER-SECRET\n", "other/x.ts": "x" });
    await makeSymlink(tree, "r/link", tree.path("other"));
    const server = await mcp(tree);
    try {
      for (const tool of ["agents_context", "agents_resolve"]) {
        const answer = await server.call(tool, tree.path("r/link/x.ts"));
        expect(answer.isError, tool).toBe(true);
        expect(answer.text).toContain("outside the workspace roots");
        expect(answer.text).not.toContain("OTHER-SECRET");
        expect(answer.text).not.toContain(`"path":"${tree.path("other/AGENTS.md")}"`);
      }
    } finally {
      await server.close();
    }
  });

  it("loop -> . delivers a file once, whichever spelling is asked", async () => {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "ROOT\n", "r/pkg/AGENTS.md": "PKG-ONCE\n", "r/pkg/x.ts": "x" });
    await makeSymlink(tree, "r/loop", ".");
    const server = await mcp(tree);
    try {
      let text = "";
      let spelled = "r";
      for (let depth = 0; depth < 12; depth++) {
        text += (await server.call("agents_context", tree.path(`${spelled}/pkg/x.ts`))).text;
        spelled += "/loop";
      }
      expect(text.split("PKG-ONCE").length - 1).toBe(1);
      let listed = "";
      spelled = "r";
      const fresh = await mcp(tree);
      try {
        for (let depth = 0; depth < 12; depth++) {
          listed += (await fresh.call("agents_resolve", tree.path(`${spelled}/pkg/x.ts`))).text;
          spelled += "/loop";
        }
      } finally {
        await fresh.close();
      }
      expect(listed.split("pkg/AGENTS.md").length - 1).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("a path longer than PATH_MAX or holding NUL is a clear tool error", async () => {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "ROOT\n" });
    const server = await mcp(tree);
    try {
      const long = await server.call("agents_resolve", `${tree.path("r")}/${"a/".repeat(100_000)}x.ts`);
      expect(long.isError).toBe(true);
      expect(long.text).toContain("at most 4095 bytes");
      const nul = await server.call("agents_context", `${tree.path("r")}/a\u0000b`);
      expect(nul.isError).toBe(true);
      expect(nul.text).toContain("NUL");
    } finally {
      await server.close();
    }
  });
});

/**
 * A seen chain swapped after the first look. The stat cache keeps what it saw of the chain (which
 * entries are no symlink) while a stat of each directory shows no change since (io/unchanged.ts):
 * a directory or file replaced by a symlink to outside must be seen as outside on the next
 * resolve. The first look is made with the wall clock set ahead so the tree, just written, counts
 * as old (its real paths are kept); the swap comes after it, as an attacker's would.
 */
describe("a deep chain: one realpath of its deepest directory vouches for every level (io/real-path.ts)", () => {
  // r/l1/.../l8 with instruction files at levels 2, 6 and 8; one level is a symlink to a directory
  // outside the root holding the rest of the chain. Deep enough under the temp directory that the
  // realpath is asked (the levels below the root are over half the path's depth).
  for (const level of [1, 4, 8])
    it(`a symlinked directory at level ${level} of 8 leading outside: nothing below it loads (initial load, resolve, touch; every preset)`, async () => {
      const spec: Record<string, string | null> = { "r/.git/": null, "out/": null };
      let dir = "r";
      for (let at = 1; at <= 8; at++) {
        dir += `/l${at}`;
        spec[`${dir}/`] = null;
        if (at === 2 || at === 6 || at === 8) for (const name of ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]) spec[`${dir}/${name}`] = `LEVEL-${at}\n`;
      }
      spec[`${dir}/x.ts`] = "x";
      const tree = await createTree(spec);
      const linked = tree.path(
        dir
          .split("/")
          .slice(0, level + 1)
          .join("/"),
      );
      await rename(linked, tree.path("out/moved"));
      await symlink(tree.path("out/moved"), linked);
      const deepest = tree.path(dir);
      const inside = (at: number) => at < level;
      for (const preset of ["codex", "opencode", "gemini", "claude", "hygge"]) {
        const atStart = await createSession({ cwd: deepest, home: tree.home, env: {}, preset });
        const fromRoot = await createSession({ cwd: tree.path("r"), home: tree.home, env: {}, preset, config: { lazy: { maxFiles: 100 } } });
        try {
          const texts = {
            initial: atStart.initialMessage,
            resolve: (await fromRoot.resolve(join(deepest, "x.ts"), { admit: false })).files.map((file) => file.path).join("\n"),
            touch: fromRoot.renderInline(await fromRoot.touch([join(deepest, "x.ts")])),
          };
          // hygge's project root is cwd itself when started there: what is in it is the project's.
          if (atStart.root === deepest) texts.initial = "";
          for (const [where, text] of Object.entries(texts))
            for (const at of [2, 6, 8]) if (!inside(at)) expect(text, `${preset} ${where}`).not.toMatch(new RegExp(`LEVEL-${at}|/l${at}/[A-Z]+\\.md`));
          // The control: what lies above the link is still found.
          if (inside(2)) expect(texts.resolve + texts.touch, preset).toMatch(/LEVEL-2|\/l2\/[A-Z]+\.md/);
        } finally {
          await atStart.close();
          await fromRoot.close();
        }
      }
    });
});

describe("a symlink swapped in after the first resolve", () => {
  async function seen() {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "ROOT\n", "r/a/b/AGENTS.md": "INSIDE\n", "r/a/b/x.ts": "x", "out/": null });
    const target = tree.path("r/a/b/x.ts");
    return { tree, target };
  }

  /** Resolves `target` once with the wall clock RACY_MS ahead, so the look vouches for the tree as it is. */
  async function firstLook<T extends { path: string }>(resolve: () => Promise<{ files: T[] }>): Promise<T[]> {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + RACY_MS);
      return (await resolve()).files;
    } finally {
      vi.useRealTimers();
    }
  }

  /** Edits `path` to a version the session has not seen (a later mtime than the one admitted). */
  async function edit(path: string, text: string): Promise<void> {
    await writeFile(path, text);
    await utimes(path, 2_000_000_000, 2_000_000_000);
  }

  it("a directory of the chain moved outside and replaced by a symlink to it: its edited AGENTS.md is outside (stat revalidation)", async () => {
    const { tree, target } = await seen();
    const session = await openSession(tree, { cwd: tree.path("r"), config: { cache: { revalidateMs: 0 } } });
    expect((await firstLook(() => session.resolve(target))).map((file) => file.path)).toEqual([tree.path("r/a/b/AGENTS.md")]);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the swap comes more than a kernel clock tick after the look
    await rename(tree.path("r/a"), tree.path("out/a"));
    await symlink(tree.path("out/a"), tree.path("r/a"));
    await edit(tree.path("out/a/b/AGENTS.md"), "OUTSIDE-SECRET\n");
    expect((await session.resolve(target)).files).toEqual([]);
    // The control: an edit inside the root is delivered by the same resolve.
    await edit(tree.path("r/AGENTS.md"), "ROOT 2\n");
    expect((await session.resolve(target)).files.map((file) => file.path)).toEqual([tree.path("r/AGENTS.md")]);
  });

  it("a proposal released, then its directory moved outside behind a symlink (the file's stat unchanged): not proposed again", async () => {
    const { tree, target } = await seen();
    const session = await openSession(tree, { cwd: tree.path("r"), config: { cache: { revalidateMs: 0 } } });
    const proposed = await firstLook(() => session.resolve(target, { admit: false }));
    expect(proposed.map((file) => file.path)).toEqual([tree.path("r/a/b/AGENTS.md")]);
    session.release(proposed);
    // The control: released, it is proposed again while it is inside.
    const again = (await session.resolve(target, { admit: false })).files;
    expect(again).toEqual(proposed);
    session.release(again);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the swap comes more than a kernel clock tick after the look
    await rename(tree.path("r/a"), tree.path("out/a"));
    await symlink(tree.path("out/a"), tree.path("r/a"));
    expect((await session.resolve(target, { admit: false })).files).toEqual([]);
  });

  it("an AGENTS.md replaced by a symlink to an outside hard link of itself (same inode, same stat), then edited: outside", async () => {
    const { tree, target } = await seen();
    const session = await openSession(tree, { cwd: tree.path("r"), config: { cache: { revalidateMs: 0 } } });
    expect((await firstLook(() => session.resolve(target))).map((file) => file.path)).toEqual([tree.path("r/a/b/AGENTS.md")]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await link(tree.path("r/a/b/AGENTS.md"), tree.path("out/secret.md"));
    await rm(tree.path("r/a/b/AGENTS.md"));
    await symlink(tree.path("out/secret.md"), tree.path("r/a/b/AGENTS.md"));
    await edit(tree.path("out/secret.md"), "OUTSIDE-SECRET\n");
    expect((await session.resolve(target)).files).toEqual([]);
  });

  it("with a watcher: a directory of the chain swapped for a symlink to outside is outside once the watcher saw it", async () => {
    const { tree, target } = await seen();
    const session = await openSession(tree, { cwd: tree.path("r") });
    const watcher = await watchSession(session, { debounceMs: 5 });
    expect((await firstLook(() => session.resolve(target))).map((file) => file.path)).toEqual([tree.path("r/a/b/AGENTS.md")]);
    await watcher.settled();
    const before = session.cache.generation;
    await rename(tree.path("r/a"), tree.path("out/a"));
    await symlink(tree.path("out/a"), tree.path("r/a"));
    await edit(tree.path("out/a/b/AGENTS.md"), "OUTSIDE-SECRET\n");
    for (const started = Date.now(); session.cache.generation === before;) {
      expect(Date.now() - started, "the watcher reports the swap").toBeLessThan(5_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await watcher.settled();
    expect((await session.resolve(target)).files).toEqual([]);
  });
});
