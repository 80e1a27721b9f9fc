/**
 * Reliability (docs/reliability.md), config: unknown keys, zero or negative budgets, markers and file names that would leave
 * a directory, overrides that do not exist. Every source (config file, env, flags, library
 * options) fails before any instruction file is read, with a message naming the key or variable.
 * A few basics (wrong type, maxBytes 0, an unknown key) are in test/cli.test.ts.
 */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/core/errors.js";
import { createTree, openSession, runCli, type Tree } from "../helpers/tree.js";
import { injectFs } from "../helpers/faults.js";

async function repo(): Promise<Tree> {
  return createTree({ "repo/.git/": null, "repo/AGENTS.md": "root", "repo/pkg/AGENTS.md": "pkg" });
}

async function withConfigFile(config: unknown, argv: string[] = ["paths"]) {
  const tree = await repo();
  const file = await tree.write("cfg.json", JSON.stringify(config));
  return { file, run: await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "--config", file, ...argv], { cwd: tree.root }) };
}

describe("a config file", () => {
  it.each<[string, unknown, string]>([
    ["an unknown key in files", { files: { name: ["AGENTS.md"] } }, 'files: Unrecognized key: "name"'],
    ["an unknown key in lazy", { lazy: { maxFile: 3 } }, 'lazy: Unrecognized key: "maxFile"'],
    ["an unknown key in cache", { cache: { ttl: 5 } }, 'cache: Unrecognized key: "ttl"'],
    ["an unknown key in imports", { imports: { outside: true } }, 'imports: Unrecognized key: "outside"'],
    ["initial.maxFiles 0", { initial: { maxFiles: 0 } }, "initial.maxFiles: Too small"],
    ["initial.maxFiles -1", { initial: { maxFiles: -1 } }, "initial.maxFiles: Too small"],
    ["initial.maxBytes -32768", { initial: { maxBytes: -32768 } }, "initial.maxBytes: Too small"],
    ["initial.maxBytes 1.5", { initial: { maxBytes: 1.5 } }, "initial.maxBytes: Invalid input: expected int"],
    ["resolver.maxFilesPerResolve 0", { resolver: { maxFilesPerResolve: 0 } }, "resolver.maxFilesPerResolve: Too small"],
    ["lazy.maxFiles 0", { lazy: { maxFiles: 0 } }, "lazy.maxFiles: Too small"],
    ["lazy.maxBytes -1", { lazy: { maxBytes: -1 } }, "lazy.maxBytes: Too small"],
    ["cache.revalidateMs -1", { cache: { revalidateMs: -1 } }, "cache.revalidateMs: Too small"],
    ["codex.project_doc_max_bytes -1", { codex: { project_doc_max_bytes: -1 } }, "codex.project_doc_max_bytes: Too small"],
    ["an absolute marker", { root: { markers: ["/etc"] } }, "root.markers.0: a marker is a name looked up in each ancestor, not an absolute path"],
    ["a marker with ..", { root: { markers: [".git", "../elsewhere"] } }, "root.markers.1: a marker cannot contain '..'"],
    ["a marker with .. inside", { root: { markers: ["a/../../b"] } }, "root.markers.0: a marker cannot contain '..'"],
    ["an empty marker", { root: { markers: [""] } }, "root.markers.0: a marker cannot be empty"],
    ["a file name with ..", { files: { names: ["../../../etc/hostname"] } }, "files.names.0: a file name cannot contain '..'"],
    ["a file name with .. in the middle", { files: { names: ["docs/../../x.md"] } }, "files.names.0: a file name cannot contain '..'"],
    ["an absolute file name", { files: { names: ["/etc/hostname"] } }, "files.names.0: a relative file name is expected"],
    ["no file names", { files: { names: [] } }, "files.names: Too small"],
    ["an empty override", { root: { projectRootOverride: "" } }, "root.projectRootOverride: Too small"],
  ])("with %s exits 1 naming the file and the key", async (_name, config, message) => {
    const { file, run } = await withConfigFile(config);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`invalid config in ${file}:`);
    expect(run.stderr).toContain(message);
  });

  it("accepts a file name in a subdirectory (.agents/AGENTS.md), which stays inside the directory", async () => {
    const { run } = await withConfigFile({ files: { names: [".agents/AGENTS.md", "AGENTS.md"] } });
    expect(run.code).toBe(0);
  });

  it("with an override that does not exist exits 1 naming the key and the path", async () => {
    const { run } = await withConfigFile({ root: { projectRootOverride: "/nonexistent/agentsmd-root" } });
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "agentsmd: root.projectRootOverride: /nonexistent/agentsmd-root is not an existing directory\nfix: point root.projectRootOverride (or CODELIA_AGENTS_ROOT / AGENTSMD_ROOT / --root) at an existing directory\n",
    });
  });

  it("with an override that is a regular file exits 1 the same way", async () => {
    const tree = await repo();
    const file = await tree.write("cfg.json", JSON.stringify({ root: { projectRootOverride: tree.path("repo/AGENTS.md") } }));
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "--config", file, "paths"], { cwd: tree.root });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`root.projectRootOverride: ${tree.path("repo/AGENTS.md")} is not an existing directory`);
  });
});

describe("environment variables", () => {
  it.each<[Record<string, string>, string]>([
    [{ CODELIA_AGENTS_MARKERS: "/abs" }, 'CODELIA_AGENTS_MARKERS="/abs": a marker is a name looked up in each ancestor'],
    [{ AGENTSMD_MARKERS: ".git,../up" }, "AGENTSMD_MARKERS=\".git,../up\": a marker cannot contain '..'"],
    [{ CODELIA_AGENTS_INITIAL_MAX_BYTES: "0" }, 'CODELIA_AGENTS_INITIAL_MAX_BYTES="0": Too small'],
    [{ CODELIA_AGENTS_INITIAL_MAX_FILES: "-3" }, 'CODELIA_AGENTS_INITIAL_MAX_FILES="-3" is not a positive integer'],
    [{ AGENTSMD_MAX_FILES_PER_RESOLVE: "0" }, 'AGENTSMD_MAX_FILES_PER_RESOLVE="0": Too small'],
    [{ AGENTSMD_INITIAL_MAX_BYTES: "1e3" }, 'AGENTSMD_INITIAL_MAX_BYTES="1e3" is not a positive integer'],
  ])("%o exits 1 naming the variable", async (env, message) => {
    const tree = await repo();
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "paths"], { cwd: tree.root, env });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(message);
  });

  it("CODELIA_AGENTS_ROOT pointing nowhere exits 1 naming the path and the variable in the fix", async () => {
    const tree = await repo();
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "paths"], { cwd: tree.root, env: { CODELIA_AGENTS_ROOT: tree.path("nope") } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`root.projectRootOverride: ${tree.path("nope")} is not an existing directory`);
    expect(run.stderr).toContain("CODELIA_AGENTS_ROOT");
  });
});

describe("flags", () => {
  it.each<[string[], string]>([
    [["--markers", "/abs"], "root.markers.0: a marker is a name looked up in each ancestor, not an absolute path"],
    [["--markers", ".git,.."], "root.markers.1: a marker cannot contain '..'"],
  ])("%o exits 1 naming the key", async (flags, message) => {
    const tree = await repo();
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), ...flags, "paths"], { cwd: tree.root });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
  });

  it("--root pointing nowhere exits 1 naming the path", async () => {
    const tree = await repo();
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "--root", tree.path("nope"), "paths"], { cwd: tree.root });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${tree.path("nope")} is not an existing directory`);
  });
});

describe("library options", () => {
  it("fail with a ConfigError naming the key before any instruction file is read", async () => {
    const tree = await repo();
    const reads: string[] = [];
    const fs = injectFs({ read: ([path, max], next) => (reads.push(path), next(path, max)) });
    for (const config of [{ initial: { maxBytes: -1 } }, { files: { names: ["../x"] } }, { root: { markers: ["/"] } }, { resolver: { typo: true } }]) {
      const error = await openSession(tree, { cwd: tree.path("repo"), fs, config: config as never }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toMatch(/^invalid config in options:\n(initial\.maxBytes|files\.names\.0|root\.markers\.0|resolver): /);
    }
    expect(reads).toEqual([]);
  });
});
