/**
 * The CLI contract (DESIGN.md): exit codes 0/1/2, --json shapes, schema output, config errors,
 * state files (created on first use, replaced atomically, refused and left untouched when bad).
 */
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { configJsonSchema, ResolvedAgentsSchema, SessionStateSchema } from "../src/core/schema.js";
import { createTree, openSession, runCli, type Tree } from "./helpers/tree.js";

async function repo(): Promise<Tree> {
  return createTree({
    "repo/.git/": null,
    "repo/AGENTS.md": "root rules\n",
    "repo/pkg/AGENTS.md": "pkg rules\n",
    "repo/pkg/src/": null,
    "repo/lib/AGENTS.md": "LIB BODY\n",
    "repo/lib/deep/AGENTS.md": "DEEP BODY\n",
    "repo/lib/deep/x.ts": "",
  });
}

/** `agentsmd --home <tree home> --cwd <dir> ...args` */
function cli(tree: Tree, cwd: string, args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
  return runCli(["--home", tree.home, "--cwd", cwd, ...args], { cwd: options.cwd ?? tree.root, env: options.env ?? {} });
}

describe("CLI", () => {
  describe("root", () => {
    it("prints the project root and exits 0", async () => {
      const tree = await repo();
      const run = await cli(tree, tree.path("repo/pkg/src"), ["root"]);
      expect(run).toEqual({ code: 0, stdout: `${tree.path("repo")}\n`, stderr: "" });
    });

    it("--json prints {root, cwd, markers, reason}", async () => {
      const tree = await repo();
      const run = await cli(tree, tree.path("repo/pkg/src"), ["root", "--json"]);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({
        root: tree.path("repo"),
        cwd: tree.path("repo/pkg/src"),
        markers: [".codelia", ".git", ".jj"],
        reason: "marker",
      });
    });

    it("--root and --markers beat the environment", async () => {
      const tree = await repo();
      await tree.add({ "repo/pkg/.mine": "" });
      const env = { CODELIA_AGENTS_ROOT: tree.path("repo"), AGENTSMD_MARKERS: ".nothing" };
      const byEnv = JSON.parse((await cli(tree, tree.path("repo/pkg/src"), ["root", "--json"], { env })).stdout);
      expect(byEnv).toMatchObject({ root: tree.path("repo"), reason: "override" });
      const byRoot = JSON.parse((await cli(tree, tree.path("repo/pkg/src"), ["--root", tree.path("repo/pkg"), "root", "--json"], { env })).stdout);
      expect(byRoot).toMatchObject({ root: tree.path("repo/pkg"), reason: "override" });
      const byMarkers = JSON.parse(
        (await cli(tree, tree.path("repo/pkg/src"), ["--markers", ".mine", "root", "--json"], { env: { AGENTSMD_MARKERS: ".nothing" } })).stdout,
      );
      expect(byMarkers).toEqual({ root: tree.path("repo/pkg"), cwd: tree.path("repo/pkg/src"), markers: [".mine"], reason: "marker" });
    });

    it("reads the root override from the environment it is given", async () => {
      const tree = await repo();
      const run = await cli(tree, tree.path("repo/pkg/src"), ["root"], { env: { AGENTSMD_ROOT: tree.path("repo/pkg") } });
      expect(run.stdout).toBe(`${tree.path("repo/pkg")}\n`);
    });

    it("exits 1 naming the path when --root is not a directory", async () => {
      const tree = await repo();
      const run = await cli(tree, tree.path("repo"), ["--root", tree.path("repo/missing"), "root"]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(tree.path("repo/missing"));
      expect(run.stderr).toMatch(/fix: /);
    });

    it.each(["root", "list", "show", "paths"])("%s exits 1 naming --cwd when it is not an existing directory", async (command) => {
      const tree = await repo();
      for (const cwd of [tree.path("repo/missing"), tree.path("repo/AGENTS.md")]) {
        const run = await cli(tree, cwd, [command]);
        expect(run.code).toBe(1);
        expect(run.stdout).toBe("");
        expect(run.stderr).toContain(cwd);
      }
    });

    it("warns on stderr, not stdout, when the override is not an ancestor of cwd", async () => {
      const tree = await repo();
      const run = await cli(tree, tree.path("repo/pkg"), ["--root", tree.path("repo/lib"), "root"]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${tree.path("repo/lib")}\n`);
      expect(run.stderr).toContain("not an ancestor");
    });
  });

  describe("list, show, paths", () => {
    it("list --json prints {root, cwd, files:[{path, layer, mtimeMs, sizeBytes, includedBytes, truncated}]}", async () => {
      const tree = await repo();
      await tree.setMtime("repo/AGENTS.md", 1_700_000_000);
      const run = await cli(tree, tree.path("repo/pkg/src"), ["list", "--json"]);
      expect(run.code).toBe(0);
      const doc = JSON.parse(run.stdout);
      expect(doc).toEqual({
        root: tree.path("repo"),
        cwd: tree.path("repo/pkg/src"),
        files: [
          { path: tree.path("repo/AGENTS.md"), layer: "project", mtimeMs: 1_700_000_000_000, sizeBytes: 11, includedBytes: 11, truncated: false },
          { path: tree.path("repo/pkg/AGENTS.md"), layer: "project", mtimeMs: expect.any(Number), sizeBytes: 10, includedBytes: 10, truncated: false },
        ],
      });
    });

    it("list prints one line per file, and a sentence when there is none", async () => {
      const tree = await repo();
      const run = await cli(tree, tree.path("repo/pkg/src"), ["list"]);
      expect(run.code).toBe(0);
      expect(run.stdout.trim().split("\n")).toEqual([
        expect.stringContaining(tree.path("repo/AGENTS.md")),
        expect.stringContaining(tree.path("repo/pkg/AGENTS.md")),
      ]);
      const empty = await createTree({ ".git/": null });
      const none = await cli(empty, empty.root, ["list"]);
      expect(none.code).toBe(0);
      expect(none.stdout).toMatch(/^no instruction files/);
    });

    it("show prints the initial message exactly as a session holds it", async () => {
      const tree = await repo();
      const session = await openSession(tree, { cwd: tree.path("repo/pkg/src") });
      const run = await cli(tree, tree.path("repo/pkg/src"), ["show"]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(session.initialMessage);
      expect(run.stdout).toMatch(/^<agents_context scope="initial">\nInstructions from: /);
    });

    it("paths prints the absolute paths of the initial files, one per line", async () => {
      const tree = await repo();
      const run = await runCli(["--home", tree.home, "--cwd", "repo/pkg/src", "paths"], { cwd: tree.root, env: {} });
      expect(run).toEqual({ code: 0, stdout: `${tree.path("repo/AGENTS.md")}\n${tree.path("repo/pkg/AGENTS.md")}\n`, stderr: "" });
    });

    it("honours initial budgets from a config file", async () => {
      const tree = await repo();
      await tree.write("cfg.json", JSON.stringify({ initial: { maxFiles: 1 } }));
      const run = await cli(tree, tree.path("repo/pkg/src"), ["--config", tree.path("cfg.json"), "paths"]);
      expect(run.stdout).toBe(`${tree.path("repo/pkg/AGENTS.md")}\n`);
    });
  });

  describe("config errors", () => {
    it.each<[string, unknown, RegExp]>([
      ["a wrong type", { initial: { maxFiles: "many" } }, /initial\.maxFiles/],
      ["a non-positive number", { initial: { maxBytes: 0 } }, /initial\.maxBytes/],
      ["an unknown key", { root: { marker: [".git"] } }, /root.*marker/],
      ["an unknown top-level key", { intial: {} }, /intial/],
    ])("a config file with %s exits 1 naming the file and the key path", async (_name, config, keyPath) => {
      const tree = await repo();
      const file = await tree.write("bad-config.json", JSON.stringify(config));
      const run = await cli(tree, tree.path("repo"), ["--config", file, "root"]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(file);
      expect(run.stderr).toMatch(keyPath);
    });

    it("a config file that is not JSON exits 1 naming the file", async () => {
      const tree = await repo();
      const file = await tree.write("broken.json", "{ initial: ");
      const run = await cli(tree, tree.path("repo"), ["--config", file, "show"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(file);
      expect(run.stderr).toMatch(/not valid JSON/);
    });

    it("a missing config file exits 1 naming it", async () => {
      const tree = await repo();
      const run = await cli(tree, tree.path("repo"), ["--config", tree.path("nope.json"), "list"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(tree.path("nope.json"));
    });

    it("an env var that does not parse exits 1 naming the variable", async () => {
      const tree = await repo();
      const run = await cli(tree, tree.path("repo"), ["list"], { env: { CODELIA_AGENTS_INITIAL_MAX_FILES: "lots" } });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("CODELIA_AGENTS_INITIAL_MAX_FILES");
    });

    it.each<[Record<string, string>, string]>([
      [{ CODELIA_AGENTS_MARKERS: ".git,/abs/marker" }, "CODELIA_AGENTS_MARKERS"],
      [{ AGENTSMD_MARKERS: "../up" }, "AGENTSMD_MARKERS"],
      [{ CODELIA_AGENTS_INITIAL_MAX_BYTES: "0" }, "CODELIA_AGENTS_INITIAL_MAX_BYTES"],
      [{ AGENTSMD_MAX_FILES_PER_RESOLVE: "0" }, "AGENTSMD_MAX_FILES_PER_RESOLVE"],
      [{ CODELIA_AGENTS_ENABLED: "maybe" }, "CODELIA_AGENTS_ENABLED"],
    ])("an env var whose value the schema refuses exits 1 naming the variable (%o)", async (env, name) => {
      const tree = await repo();
      const run = await cli(tree, tree.path("repo"), ["root"], { env });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(name);
    });

    it("an unknown preset exits 1 listing the known ones", async () => {
      const tree = await repo();
      const run = await cli(tree, tree.path("repo"), ["--preset", "nonesuch", "show"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("nonesuch");
      expect(run.stderr).toContain("codelia");
    });
  });

  describe("usage", () => {
    it.each<[string, string[]]>([
      ["an unknown command", ["frobnicate"]],
      ["an unknown option", ["root", "--frobnicate"]],
      ["resolve without --state", ["resolve", "x.ts"]],
      ["resolve without a path", ["resolve", "--state", "s.json"]],
      ["touch without --state", ["touch", "x.ts"]],
      ["resume without --state", ["resume"]],
      ["an option without its value", ["root", "--cwd"]],
    ])("exits 2 on %s", async (_name, argv) => {
      const tree = await repo();
      const run = await runCli(["--home", tree.home, ...argv], { cwd: tree.root });
      expect(run.code).toBe(2);
      expect(run.stderr).not.toBe("");
    });

    it("exits 0 for --help and --version", async () => {
      expect((await runCli(["--help"])).code).toBe(0);
      expect((await runCli(["--version"])).stdout).toMatch(/^\d+\.\d+\.\d+/);
    });
  });

  describe("schema", () => {
    it("prints a JSON Schema generated from zod that validates configs like the zod schema does", async () => {
      const run = await runCli(["schema"]);
      expect(run.code).toBe(0);
      const schema = JSON.parse(run.stdout);
      expect(schema).toEqual(configJsonSchema());
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      const { Ajv2020 } = await import("ajv/dist/2020.js");
      const ajv = new Ajv2020({ strict: false });
      const validate = ajv.compile(schema);
      for (const good of [
        {},
        {
          enabled: true,
          root: { projectRootOverride: "/r", markers: [".git"], stopAtFsRoot: false },
          initial: { maxFiles: 2, maxBytes: 10 },
          resolver: { enabled: true, maxFilesPerResolve: 3 },
        },
      ]) {
        expect(validate(good)).toBe(true);
      }
      for (const bad of [
        { initial: { maxFiles: 0 } },
        { initial: { maxFiles: 1.5 } },
        { root: { markers: "x" } },
        { typo: 1 },
        { resolver: { outsideRoot: "sometimes" } },
      ]) {
        expect(validate(bad)).toBe(false);
      }
    });
  });

  describe("resolve --state", () => {
    it("creates the state file on first use and prints the reminder; the second time prints nothing", async () => {
      const tree = await repo();
      await tree.setMtime("repo/lib/AGENTS.md", 1_738_970_000);
      await tree.setMtime("repo/lib/deep/AGENTS.md", 1_738_971_000);
      await tree.add({ "state/": null });
      const state = tree.path("state/session.json");
      const first = await cli(tree, tree.path("repo"), ["resolve", tree.path("repo/lib/deep/x.ts"), "--state", state]);
      expect(first).toEqual({
        code: 0,
        stdout: `<system-reminder type="agents.resolve.paths">
Additional AGENTS.md may apply for this path:
- ${tree.path("repo/lib/AGENTS.md")} (mtime: 1738970000000)
- ${tree.path("repo/lib/deep/AGENTS.md")} (mtime: 1738971000000)
Read and apply these files before editing files in this scope.
</system-reminder>
`,
        stderr: "",
      });
      expect(SessionStateSchema.parse(JSON.parse(await readFile(state, "utf8"))).cwd).toBe(tree.path("repo"));
      const second = await cli(tree, tree.path("repo"), ["resolve", tree.path("repo/lib/deep/x.ts"), "--state", state]);
      expect(second).toEqual({ code: 0, stdout: "", stderr: "" });
    });

    it("--json prints a strict ResolvedAgents document, each file once across several paths", async () => {
      const tree = await repo();
      const state = tree.path("s.json");
      const run = await cli(tree, tree.path("repo"), [
        "--json",
        "resolve",
        tree.path("repo/lib/x.ts"),
        tree.path("repo/lib/deep/x.ts"),
        tree.path("repo/lib/y.ts"),
        "--state",
        state,
      ]);
      expect(run.code).toBe(0);
      const doc = ResolvedAgentsSchema.parse(JSON.parse(run.stdout));
      expect(doc.files.map((file) => file.path)).toEqual([tree.path("repo/lib/AGENTS.md"), tree.path("repo/lib/deep/AGENTS.md")]);
      expect(run.stdout).not.toMatch(/BODY/);
      expect(JSON.parse((await cli(tree, tree.path("repo"), ["--json", "resolve", tree.path("repo/lib/x.ts"), "--state", state])).stdout)).toEqual({
        files: [],
      });
    });

    it("resolves relative path arguments against the process cwd", async () => {
      const tree = await repo();
      const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "--json", "resolve", "deep/x.ts", "--state", "s.json"], {
        cwd: tree.path("repo/lib"),
        env: {},
      });
      expect(JSON.parse(run.stdout).files.map((file: { path: string }) => file.path)).toEqual([
        tree.path("repo/lib/AGENTS.md"),
        tree.path("repo/lib/deep/AGENTS.md"),
      ]);
      expect(await readdir(tree.path("repo/lib"))).toContain("s.json");
    });

    it("presents a file again after its mtime changes", async () => {
      const tree = await repo();
      const state = tree.path("s.json");
      await cli(tree, tree.path("repo"), ["resolve", tree.path("repo/lib/x.ts"), "--state", state]);
      await tree.setMtime("repo/lib/AGENTS.md", 1_800_000_000);
      const run = await cli(tree, tree.path("repo"), ["resolve", tree.path("repo/lib/x.ts"), "--state", state]);
      expect(run.stdout).toContain(`- ${tree.path("repo/lib/AGENTS.md")} (mtime: 1800000000000)`);
    });

    it("replaces the state file atomically: concurrent runs lose no update, leave no temp file, and it always parses", async () => {
      const tree = await repo();
      const spec: Record<string, string> = {};
      for (let i = 0; i < 12; i++) spec[`repo/m${i}/AGENTS.md`] = `m${i}`;
      await tree.add(spec);
      await tree.add({ "state/": null });
      const state = tree.path("state/s.json");
      await cli(tree, tree.path("repo"), ["resolve", tree.path("repo/pkg/x.ts"), "--state", state]);

      let reading = true;
      let reads = 0;
      const reader = (async () => {
        while (reading) {
          const text = await readFile(state, "utf8");
          SessionStateSchema.parse(JSON.parse(text));
          reads++;
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const runs = await Promise.all(
        Array.from({ length: 24 }, (_, i) => cli(tree, tree.path("repo"), ["--json", "resolve", tree.path(`repo/m${i % 12}/file.ts`), "--state", state])),
      );
      reading = false;
      await reader;

      expect(runs.map((run) => run.code)).toEqual(Array(24).fill(0));
      const returned = runs.flatMap((run) => ResolvedAgentsSchema.parse(JSON.parse(run.stdout)).files.map((file) => file.path));
      expect(returned.sort()).toEqual(
        Object.keys(spec)
          .map((rel) => tree.path(rel))
          .sort(),
      );
      expect(reads).toBeGreaterThan(0);
      expect(await readdir(tree.path("state"))).toEqual(["s.json"]);
      const final = SessionStateSchema.parse(JSON.parse(await readFile(state, "utf8")));
      for (const rel of Object.keys(spec)) expect(final.loaded.map((entry) => entry.path)).toContain(tree.path(rel));
    });
  });

  describe("touch --state", () => {
    it("--json prints {blocks:[{path, layer, content, truncated}]} with the bodies of newly applicable files", async () => {
      const tree = await repo();
      const run = await cli(tree, tree.path("repo"), ["--json", "touch", tree.path("repo/lib/deep/x.ts"), "--state", tree.path("s.json")]);
      expect(run.code).toBe(0);
      const doc = JSON.parse(run.stdout);
      expect(Object.keys(doc)).toEqual(["blocks"]);
      expect(doc.blocks.map((block: object) => Object.keys(block).sort())).toEqual([
        ["content", "layer", "path", "truncated"],
        ["content", "layer", "path", "truncated"],
      ]);
      expect(doc.blocks.map((block: { path: string; content: string }) => [block.path, block.content]).sort()).toEqual([
        [tree.path("repo/lib/AGENTS.md"), "LIB BODY\n"],
        [tree.path("repo/lib/deep/AGENTS.md"), "DEEP BODY\n"],
      ]);
      const again = await cli(tree, tree.path("repo"), ["--json", "touch", tree.path("repo/lib/deep/x.ts"), "--state", tree.path("s.json")]);
      expect(JSON.parse(again.stdout)).toEqual({ blocks: [] });
    });
  });

  describe("resume --state", () => {
    it("prints nothing when nothing changed, and the §11.3 diff after a cwd change", async () => {
      const tree = await repo();
      const state = tree.path("s.json");
      await cli(tree, tree.path("repo"), ["resolve", tree.path("repo/pkg/x.ts"), "--state", state]);
      const same = await cli(tree, tree.path("repo"), ["resume", "--state", state]);
      expect(same).toEqual({ code: 0, stdout: "", stderr: "" });
      const moved = await cli(tree, tree.path("repo/lib"), ["resume", "--state", state]);
      expect(moved.code).toBe(0);
      expect(moved.stdout).toBe(`<system-reminder type="session.resume.diff">
Session resumed with context changes:
- cwd: ${tree.path("repo")} -> ${tree.path("repo/lib")}
Re-check AGENTS.md for current scope:
- ${tree.path("repo/lib/AGENTS.md")} (mtime: ${Math.floor((await openSession(tree, { cwd: tree.path("repo/lib") })).initialFiles[1]!.mtimeMs)})
</system-reminder>
`);
      const json = await cli(tree, tree.path("repo/lib"), ["--json", "resume", "--state", state]);
      expect(JSON.parse(json.stdout)).toEqual({ diff: "" });
    });

    it("exits 1 when the state file does not exist", async () => {
      const tree = await repo();
      const run = await cli(tree, tree.path("repo"), ["resume", "--state", tree.path("missing.json")]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(tree.path("missing.json"));
      expect(await readdir(tree.root)).not.toContain("missing.json");
    });
  });

  describe("output contract", () => {
    it("--json prints exactly one JSON document on stdout for every command", async () => {
      const tree = await repo();
      const state = tree.path("s.json");
      const commands = [
        ["root"],
        ["list"],
        ["show"],
        ["paths"],
        ["schema"],
        ["resolve", tree.path("repo/lib/x.ts"), "--state", state],
        ["touch", tree.path("repo/pkg/src/y.ts"), "--state", state],
        ["resume", "--state", state],
      ];
      for (const command of commands) {
        const run = await cli(tree, tree.path("repo/pkg/src"), ["--json", ...command]);
        expect(run.code, command.join(" ")).toBe(0);
        expect(() => JSON.parse(run.stdout), command.join(" ")).not.toThrow();
        expect(run.stdout.endsWith("\n")).toBe(true);
      }
    });

    it("prints absolute paths when --cwd is relative", async () => {
      const tree = await repo();
      const run = await runCli(["--home", tree.home, "--cwd", "repo/pkg/src", "--json", "list"], { cwd: tree.root, env: {} });
      const doc = JSON.parse(run.stdout);
      expect(doc.cwd).toBe(tree.path("repo/pkg/src"));
      expect(doc.root).toBe(tree.path("repo"));
      for (const file of doc.files) expect(file.path.startsWith("/")).toBe(true);
      const root = await runCli(["--home", tree.home, "--cwd", "repo/pkg/../lib", "root"], { cwd: tree.root, env: {} });
      expect(root.stdout).toBe(`${tree.path("repo")}\n`);
    });
  });

  describe("state file safety", () => {
    it("replaces the state file by rename, never rewriting it in place", async () => {
      const tree = await repo();
      const state = tree.path("s.json");
      await cli(tree, tree.path("repo"), ["resolve", tree.path("repo/lib/x.ts"), "--state", state]);
      const before = await stat(state);
      await cli(tree, tree.path("repo"), ["resolve", tree.path("repo/pkg/x.ts"), "--state", state]);
      const after = await stat(state);
      expect(after.ino).not.toBe(before.ino);
    });

    it("breaks a lock left behind by a dead process", async () => {
      const tree = await repo();
      const state = tree.path("s.json");
      await writeFile(`${state}.lock`, "2147483646\n");
      const run = await cli(tree, tree.path("repo"), ["--json", "resolve", tree.path("repo/lib/x.ts"), "--state", state]);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).files).toHaveLength(1);
      expect(await readdir(tree.root)).not.toContain("s.json.lock");
    });

    it("keeps the session across runs: a file delivered by one run is not offered by the next, from another path", async () => {
      const tree = await repo();
      const state = tree.path("s.json");
      const first = await cli(tree, tree.path("repo"), ["--json", "resolve", tree.path("repo/lib/deep/x.ts"), "--state", state]);
      expect(JSON.parse(first.stdout).files).toHaveLength(2);
      const second = await cli(tree, tree.path("repo"), ["--json", "resolve", tree.path("repo/lib/other.ts"), "--state", state]);
      expect(JSON.parse(second.stdout)).toEqual({ files: [] });
    });
  });

  describe("bad state files", () => {
    const bad: Array<[string, string | Uint8Array]> = [
      ["truncated JSON", '{"version":1,"preset":"codelia","cwd":"/x"'],
      ["foreign JSON", JSON.stringify({ name: "left-pad", version: "1.3.0" })],
      ["another version", JSON.stringify({ version: 99 })],
      ["binary garbage", Uint8Array.from([0, 159, 146, 150, 255])],
      ["an empty file", ""],
    ];
    for (const [name, content] of bad) {
      for (const command of [["resolve", "x.ts"], ["touch", "x.ts"], ["resume"]]) {
        it(`${command[0]} exits 1 on ${name} and leaves the file byte-identical`, async () => {
          const tree = await repo();
          const state = tree.path("s.json");
          await writeFile(state, content);
          const before = await readFile(state);
          const run = await cli(tree, tree.path("repo"), [...command, "--state", state]);
          expect(run.code).toBe(1);
          expect(run.stdout).toBe("");
          expect(run.stderr).toContain(state);
          expect(run.stderr).toMatch(/fix: delete/);
          expect((await readFile(state)).equals(before)).toBe(true);
          expect((await readdir(tree.root)).filter((entry) => entry.startsWith("s.json"))).toEqual(["s.json"]);
        });
      }
    }
  });
});
