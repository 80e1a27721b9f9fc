/**
 * Security (docs/security.md): `tree` and `doctor` on deep and wide trees. Work is counted (calls per
 * directory, in process) and memory is bounded (the built CLI in a child process with a 256 MB
 * heap); never timed here: docs/reliability.md and `bench/` hold the timings. Before: tree at depth
 * 2,000 ran out of memory (4 GB at depth 1,000); then, with listings, each preset's session still
 * probed every candidate name in every directory of the chain (10-12 s, 250 MB); a file at every
 * level of a 500-deep chain took 108 s and 1.9 GB (one session per level, each reading its chain).
 * With a file at every level, `doctor`'s reach sessions then walked the whole chain once per
 * touched directory (2,000 levels: over 240 s and 2 GB), and every session asked realpath(3) per
 * file, each reading every prefix (`show` at 1,000 levels: 37 s, at 2,000 over 240 s).
 */
import { afterAll, describe, expect, it, beforeAll } from "vitest";
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createTree } from "../helpers/tree.js";
import { BIN, ensureBuilt } from "../helpers/bin.js";
import { countingFileSystem, nodeFileSystem, type FileSystem } from "../../src/io/file-system.js";
import { createSession } from "../../src/session/session.js";
import { chainTotals, knownInstructionNames, memoFileSystem, PROBE_NAME, startupLoads, SURVEY_CHAIN_LIMIT } from "../../src/inspect/survey.js";
import { scanTree } from "../../src/inspect/scan.js";
import { buildScopeTree } from "../../src/inspect/tree.js";
import { doctor } from "../../src/inspect/doctor.js";
import { DEFAULT_EXCLUDES } from "../../src/presets/preset.js";
import { presetNames } from "../../src/presets/table.js";

function run(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ["--max-old-space-size=256", BIN, ...args], { env: { PATH: process.env.PATH ?? "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 110_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every call counted by method, `knownEntries` passed through (a survey's listings stay visible). */
function counted(inner: FileSystem) {
  const calls: Record<string, number> = {};
  const fs = Object.fromEntries(
    Object.entries(inner).map(([name, method]) => [
      name,
      (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1;
        return (method as (...a: unknown[]) => unknown).apply(inner, args);
      },
    ]),
  ) as unknown as FileSystem;
  return { fs, calls };
}

async function deepTree(depth: number, everyLevel: boolean) {
  const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "root\n" });
  const segments = Array.from({ length: depth }, () => "a");
  await mkdir(join(tree.path("r"), ...segments), { recursive: true });
  if (everyLevel) for (let level = 1; level <= depth; level++) await writeFile(join(tree.path("r"), ...segments.slice(0, level), "AGENTS.md"), `${level}\n`);
  else await writeFile(join(tree.path("r"), ...segments, "AGENTS.md"), "deep\n");
  const dirs = Array.from({ length: depth + 1 }, (_, level) => join(tree.path("r"), ...segments.slice(0, level)));
  return { tree, deepest: join(tree.path("r"), ...segments), dirs };
}

// Two 2,000-level trees for the suite (a file at the bottom; a file at every level): removing
// one takes seconds on a loaded machine.
let deep2000: Awaited<ReturnType<typeof deepTree>>;
let every2000: Awaited<ReturnType<typeof deepTree>>;
beforeAll(async () => {
  deep2000 = await deepTree(2000, false);
  every2000 = await deepTree(2000, true);
}, 240_000);
afterAll(() => Promise.all([deep2000?.tree.cleanup(), every2000?.tree.cleanup()]), 240_000);

describe("the survey's work is linear in the directories", () => {
  it("a session at depth 2,000 asks the survey one listing per directory, and stats only files that exist (every preset)", async () => {
    const { tree, deepest } = deep2000;
    const disk = counted(nodeFileSystem);
    const survey = memoFileSystem(disk.fs);
    const scan = await scanTree({ fs: survey, root: tree.path("r"), names: knownInstructionNames(), exclude: DEFAULT_EXCLUDES });
    expect(scan.dirs).toBe(2001);
    for (const preset of presetNames()) {
      const asked = counted(survey);
      const loads = await startupLoads({ fs: asked.fs, home: tree.home, env: {} }, [preset], [deepest]);
      // Gemini CLI reads GEMINI.md only (by default), Auggie the workspace root's files only: every
      // other preset loads the deep AGENTS.md.
      if (preset !== "gemini" && preset !== "auggie")
        expect(
          loads
            .get(preset)!
            .get(deepest)!
            .files.map((file) => file.path),
        ).toContain(join(deepest, "AGENTS.md"));
      const total = Object.values(asked.calls).reduce((sum, count) => sum + count, 0);
      expect(total, `${preset}: ${JSON.stringify(asked.calls)}`).toBeLessThanOrEqual(8 * 2001);
      // The chain's probes and root markers read the listings: no stat per absent candidate name
      // (before: each name in each of the 2,001 directories, every one hashing a 4 KB path).
      if (preset === "codex") expect(asked.calls.stat ?? 0).toBeLessThan(40);
    }
    // The disk: each directory listed once, for all presets together; a realpath from the listings.
    expect(disk.calls.readdir).toBe(2001);
    expect(disk.calls.stat ?? 0).toBeLessThan(200);
    expect(disk.calls.realpath ?? 0).toBeLessThan(20);
  }, 60_000);

  it("a session at depth 2,000 with a file at every level: one realpath for the chain, not one per file (show)", async () => {
    const { tree, deepest } = every2000;
    const disk = countingFileSystem(nodeFileSystem);
    const session = await createSession({
      cwd: deepest,
      preset: "codex",
      home: tree.home,
      env: {},
      fs: disk.fs,
      config: { initial: { maxFiles: 5000, maxBytes: 1 << 20 } },
    });
    try {
      expect(session.initialFiles).toHaveLength(2001);
    } finally {
      await session.close();
    }
    // Before: realpath(3) per file (2,001), each reading every prefix of its path; then an lstat
    // per level and per file (8,012 stats, 4,001 lstats). Now the root's realpath and one of the
    // deepest directory, which vouches for every level; an lstat per candidate name (codex: two),
    // which is its stat and says it is no symlink; a stat per directory (two names) and the markers.
    expect(disk.counters.realpath).toBe(2);
    expect(disk.counters.lstat).toBeLessThanOrEqual(2 * 2001);
    expect(disk.counters.stat).toBeLessThanOrEqual(2 * 2001 + 10);
  }, 120_000);

  it("one touch of every directory of a 2,000-deep chain with a file at every level walks each directory once (doctor's reach)", async () => {
    const { tree, dirs } = every2000;
    for (const preset of ["codex", "gemini"]) {
      const disk = countingFileSystem(nodeFileSystem);
      const session = await createSession({
        cwd: tree.path("r"),
        preset,
        home: tree.home,
        env: {},
        fs: disk.fs,
        config: { lazy: { maxFiles: 5000, maxBytes: 1 << 20 } },
      });
      try {
        let walked = 0;
        session.onScan((chain) => (walked += chain.length));
        const blocks = await session.touch(
          dirs.map((dir) => join(dir, PROBE_NAME)),
          { admit: false },
        );
        // Gemini CLI reads GEMINI.md only (its walk is the identity-dedupe one).
        if (preset !== "gemini") expect(blocks.length, preset).toBeGreaterThanOrEqual(2000);
        // Before: the whole chain per target, 2,001 · 2,002 / 2 directories.
        expect(walked, preset).toBeLessThanOrEqual(2001);
        // One level at a time: an lstat per level, never a realpath per level (each would read every
        // prefix of its path: cubic in the kernel). The root's realpath only.
        expect(disk.counters.realpath, preset).toBeLessThanOrEqual(2);
        expect(disk.counters.lstat, preset).toBeLessThanOrEqual(3 * 2001 + 5);
      } finally {
        await session.close();
      }
    }
  }, 120_000);

  it("tree on a file at every level runs sessions only where the chain holds at most the limit, and says so for the rest", async () => {
    const { tree } = await deepTree(150, true);
    const disk = counted(nodeFileSystem);
    const shown = await buildScopeTree({ root: tree.path("r"), fs: disk.fs, session: { home: tree.home, env: {} } });
    expect(shown.files).toHaveLength(151);
    const skipped = shown.files.filter((file) => file.startupSkipped);
    expect(skipped).toHaveLength(151 - SURVEY_CHAIN_LIMIT);
    expect(skipped.every((file) => file.startup.length === 0 && file.startupSkipped!.chainFiles > SURVEY_CHAIN_LIMIT)).toBe(true);
    expect(shown.files.filter((file) => !file.startupSkipped).every((file) => file.startup.includes("codex"))).toBe(true);
    expect(disk.calls.readdir).toBe(151);
    expect(disk.calls.realpath ?? 0).toBeLessThan(20);
  }, 60_000);

  it("doctor checks no budget where a chain holds over the limit, and says so once", async () => {
    const { tree } = await deepTree(SURVEY_CHAIN_LIMIT + 5, true);
    const report = await doctor({ root: tree.path("r"), session: { home: tree.home, env: {} } });
    const unchecked = report.findings.filter((finding) => finding.code === "budget-unchecked");
    expect(unchecked).toHaveLength(1);
    expect(unchecked[0]!.message).toContain("6 directories"); // root + levels 1..69: levels 64..69 hold over 64
    expect(unchecked[0]!.path).toBe(join(tree.path("r"), ...Array.from({ length: SURVEY_CHAIN_LIMIT }, () => "a")));
  }, 60_000);

  it("chain totals: each directory once, siblings that sort between a directory and its children kept apart", () => {
    const perScope = new Map([
      ["/r", { bytes: 1, files: 1 }],
      ["/r/a-b", { bytes: 10, files: 1 }],
      ["/r/a", { bytes: 100, files: 1 }],
      ["/r/a/x/y", { bytes: 1000, files: 1 }],
      ["/s", { bytes: 5, files: 1 }],
    ]);
    const totals = chainTotals(perScope);
    expect(totals.get("/r/a/x/y")).toEqual({ bytes: 1101, files: 3 });
    expect(totals.get("/r/a-b")).toEqual({ bytes: 11, files: 2 });
    expect(totals.get("/s")).toEqual({ bytes: 5, files: 1 });
    const deep = new Map<string, { bytes: number; files: number }>();
    let path = "/r";
    for (let level = 0; level < 5000; level++, path += "/a") deep.set(path, { bytes: 1, files: 1 });
    expect(chainTotals(deep).get(path.slice(0, -2))).toEqual({ bytes: 5000, files: 5000 });
  });
});

describe("tree and doctor stay within a 256 MB heap", () => {
  beforeAll(ensureBuilt, 120_000);

  it("at depth 2,000", async () => {
    const { tree } = deep2000;
    const shown = await run(["--json", "tree", tree.path("r")]);
    expect(shown.code, shown.stderr.slice(0, 300)).toBe(0);
    expect((JSON.parse(shown.stdout) as { files: unknown[]; dirs: number }).files).toHaveLength(2);
    const doctor = await run(["--json", "doctor", tree.path("r")]);
    expect(doctor.stderr).not.toMatch(/heap out of memory/);
    expect(JSON.parse(doctor.stdout)).toHaveProperty("findings");
  }, 120_000);

  it("tree, doctor and show with an instruction file at every level of 2,000", async () => {
    const { tree, deepest } = every2000;
    const shown = await run(["--json", "tree", tree.path("r")]);
    expect(shown.code, shown.stderr.slice(0, 300)).toBe(0);
    const files = (JSON.parse(shown.stdout) as { files: Array<{ startup: string[]; startupSkipped?: unknown }> }).files;
    expect(files).toHaveLength(2001);
    expect(files.filter((file) => file.startupSkipped)).toHaveLength(2001 - SURVEY_CHAIN_LIMIT);
    // Before: over 240 s and 2 GB (the reach sessions walked the chain once per directory).
    const doctor = await run(["--json", "doctor", tree.path("r")]);
    expect(doctor.code, doctor.stderr.slice(0, 300)).toBe(0);
    const report = JSON.parse(doctor.stdout) as { findings: Array<{ code: string }>; scanned: { files: number } };
    expect(report.scanned.files).toBe(2001);
    expect(report.findings.filter((finding) => finding.code === "budget-unchecked")).toHaveLength(1);
    // Before: over 240 s (a realpath(3) per file, each reading every prefix).
    const show = await run(["--home", tree.home, "--cwd", deepest, "show"]);
    expect(show.code, show.stderr.slice(0, 300)).toBe(0);
    expect(show.stdout).toMatch(/\n2000\n<\/agents_context>$/);
  }, 240_000);

  it("on 20,000 files in 100 directories", async () => {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "root\n" });
    for (let d = 0; d < 100; d++) {
      const dir = tree.path(`r/d${d}`);
      await mkdir(dir, { recursive: true });
      if (d % 10 === 0) await writeFile(join(dir, "AGENTS.md"), `d${d}\n`);
      await Promise.all(Array.from({ length: 200 }, (_, f) => writeFile(join(dir, `f${f}.ts`), "")));
    }
    const shown = await run(["--json", "tree", tree.path("r")]);
    expect(shown.code, shown.stderr.slice(0, 300)).toBe(0);
    expect((JSON.parse(shown.stdout) as { files: unknown[] }).files).toHaveLength(11);
    const doctor = await run(["--json", "doctor", tree.path("r")]);
    expect(doctor.stderr).not.toMatch(/heap out of memory/);
    expect(JSON.parse(doctor.stdout)).toHaveProperty("findings");
  }, 120_000);
});
