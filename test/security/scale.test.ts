/**
 * Issue 18 row 5: `tree` and `doctor` on deep and wide trees, in child processes with a heap limit
 * (never timed here: `bench/` and docs/reliability.md hold the timings). Before: tree at depth
 * 2,000 ran out of memory (4 GB at depth 1,000).
 */
import { describe, expect, it, beforeAll } from "vitest";
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createTree } from "../helpers/tree.js";
import { BIN, ensureBuilt } from "../helpers/bin.js";

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

describe("tree and doctor stay within a 256 MB heap", () => {
  beforeAll(ensureBuilt, 120_000);

  it("at depth 2,000", async () => {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "root\n" });
    const deep = join(tree.path("r"), ...Array.from({ length: 2000 }, () => "a"));
    await mkdir(deep, { recursive: true });
    await writeFile(join(deep, "AGENTS.md"), "deep\n");
    const shown = await run(["--json", "tree", tree.path("r")]);
    expect(shown.code, shown.stderr.slice(0, 300)).toBe(0);
    expect((JSON.parse(shown.stdout) as { files: unknown[]; dirs: number }).files).toHaveLength(2);
    const doctor = await run(["--json", "doctor", tree.path("r")]);
    expect(doctor.stderr).not.toMatch(/heap out of memory/);
    expect(JSON.parse(doctor.stdout)).toHaveProperty("findings");
  }, 120_000);

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
