/**
 * Where the time of createSession goes: phases timed separately (async nodeFileSystem vs the
 * sync-backed experiment), plus an optional CPU profile.
 * Run: node bench/.build/bench/experiments/prof-initial.js
 */
import { createSession, findProjectRoot, nodeFileSystem, resolveConfig, type FileSystem } from "../../src/index.js";
import { StatCache } from "../../src/io/cache.js";
import { syncFileSystem } from "./sync-fs.js";
import { generateTree } from "../generate-tree.js";
import { summarize } from "../lib/measure.js";
import { chain } from "../../src/core/paths.js";

const tree = await generateTree();
const cwd = tree.deepDir;
async function time(label: string, fn: () => Promise<unknown>, n = 300): Promise<void> {
  for (let i = 0; i < 30; i++) await fn();
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await fn();
    t.push(performance.now() - s);
  }
  const r = summarize(t);
  console.log(`${label.padEnd(58)} median ${(r.median * 1000).toFixed(0).padStart(5)} µs  p95 ${(r.p95 * 1000).toFixed(0).padStart(5)} µs`);
}
for (const [name, fs] of [
  ["async nodeFileSystem", nodeFileSystem],
  ["sync-backed (experiment)", syncFileSystem],
] as Array<[string, FileSystem]>) {
  console.log(`-- ${name}`);
  await time("createSession({ cwd: depth-20 dir }) total", () => createSession({ cwd, env: {}, fs }));
  await time("  resolveConfig (no file)", () => resolveConfig({ cwd, env: {} }));
  await time("  findProjectRoot: 3 markers x every ancestor", () =>
    findProjectRoot({ cwd, markers: [".codelia", ".git", ".jj"], stopAtFsRoot: true, home: "/root", fs }),
  );
  await time("  21 chain dir probes (fresh StatCache, parallel)", async () => {
    const cache = new StatCache(fs, ["AGENTS.md"], { revalidateMs: 50 });
    await Promise.all(chain(tree.root, cwd).map((d) => cache.probeDir(d)));
  });
  await time(`  ${tree.deepChainFiles.length} reads (fs.read, parallel)`, () => Promise.all(tree.deepChainFiles.map((f) => fs.read(f, 256 * 1024))));
}
