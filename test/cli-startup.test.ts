/**
 * The CLI starts like a small tool: `--version` loads no command code, and a plain `show` runs
 * from the hook bundle (lean.ts) without commander, both through the package's CommonJS bin
 * (dist/cli/agentsmd.cjs), which loads no ES module loader for them. What loads, not how long it
 * takes: the times are `npm run bench`'s CLI rows.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, REPO } from "./helpers/bin.js";
import { isVersionCall } from "../src/cli/argv.js";
import { parseLeanArgv } from "../src/cli/lean.js";
import { createTree, runCli } from "./helpers/tree.js";

/** The package's bin: what `agentsmd` runs once installed. */
const BIN = join(REPO, (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { bin: { agentsmd: string } }).bin.agentsmd);

describe("argv fast paths", () => {
  it("isVersionCall takes only a lone --version or -V", () => {
    expect(isVersionCall(["--version"])).toBe(true);
    expect(isVersionCall(["-V"])).toBe(true);
    expect(isVersionCall([])).toBe(false);
    expect(isVersionCall(["show", "--version"])).toBe(false);
    expect(isVersionCall(["--version", "--help"])).toBe(false);
  });

  it("parseLeanArgv takes show with global options anywhere, and leaves everything else to commander", () => {
    expect(parseLeanArgv(["show"])).toEqual({ command: "show", globals: {} });
    expect(parseLeanArgv(["--cwd", "src", "show", "--json", "--no-agent-config", "--preset=claude"])).toEqual({
      command: "show",
      globals: { cwd: "src", json: true, agentConfig: false, preset: "claude" },
    });
    for (const argv of [["show", "--help"], ["show", "-h"], ["show", "x"], ["show", "--bogus"], ["show", "--cwd"], ["list"], [], ["show", "--markers", " , "]])
      expect(parseLeanArgv(argv)).toBeNull();
  });

  it("show through main() and the lean path: --cwd that is not a directory is exit 1, help still commander's", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root rules\n" });
    const missing = tree.path("repo/nope");
    const bad = await runCli(["--home", tree.home, "--cwd", missing, "show"], { cwd: tree.root, env: {} });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`--cwd ${missing} is not an existing directory`);
    const help = await runCli(["show", "--help"], { cwd: tree.root, env: {} });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("print the initial message");
  });
});

describe("what a command loads", () => {
  let dir: string;
  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), "agentsmd-startup-"));
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the bin; reports the CommonJS files it loaded (commander is one) and whether any ES module of dist/cli/commands/ loaded. */
  function loaded(argv: string[]): { status: number | null; stdout: string; files: string[]; esm: boolean } {
    const report = join(dir, "loaded.json");
    const preload = join(dir, "report.cjs");
    writeFileSync(
      preload,
      `process.on("exit", () => require("fs").writeFileSync(${JSON.stringify(report)}, JSON.stringify([...Object.keys(require.cache), ...process.moduleLoadList.filter((m) => m.includes("modules/esm/loader"))])));\n`,
    );
    const result = spawnSync(process.execPath, ["-r", preload, BIN, ...argv], {
      encoding: "utf8",
      cwd: REPO,
      env: { PATH: process.env.PATH ?? "", HOME: dir, XDG_CACHE_HOME: join(dir, "cache") },
    });
    const files = JSON.parse(readFileSync(report, "utf8")) as string[];
    return { status: result.status, stdout: result.stdout, files, esm: files.some((file) => file.includes("modules/esm/loader")) };
  }

  it("the package's bin is CommonJS with a shebang; a command other than show and hook goes on to the ES module CLI", () => {
    expect(BIN).toBe(join(REPO, "dist/cli/agentsmd.cjs"));
    expect(readFileSync(BIN, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    const run = loaded(["tree", "examples/monorepo"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("AGENTS.md");
    expect(run.esm).toBe(true);
  });

  it("--version prints package.json's version and loads no commander", () => {
    const run = loaded(["--version"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`${(JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version}\n`);
    expect(run.files.filter((file) => file.includes("node_modules/commander/"))).toEqual([]);
    expect(run.esm).toBe(false);
  });

  it("show runs from the hook bundle, without commander, and prints what the commander command printed", () => {
    const run = loaded(["show", "--cwd", "examples/monorepo/packages/api/src"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Instructions from: ${join(REPO, "examples/monorepo/AGENTS.md")}`);
    expect(run.files.filter((file) => file.includes("node_modules/commander/"))).toEqual([]);
    // No ES module loader: a third of a plain show's CPU on Node 20 (docs/performance.md).
    expect(run.esm).toBe(false);
    // through the code cache the bundle is run by vm.Script (not in require.cache); without one it is required
    const uncached = spawnSync(process.execPath, ["-r", join(dir, "report.cjs"), BIN, "show", "--cwd", "examples/monorepo"], {
      encoding: "utf8",
      cwd: REPO,
      env: { PATH: process.env.PATH ?? "", HOME: dir, AGENTSMD_COMPILE_CACHE: "0" },
    });
    expect(uncached.status).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "loaded.json"), "utf8"))).toContain(join(REPO, "dist/hook/agentsmd-hook.cjs"));
  });

  it("a command show does not take (help) still reaches commander", () => {
    const run = loaded(["show", "--help"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("Usage: agentsmd show");
  });
});
