/**
 * Seen resolve at agent pace (a pause before every call), default configuration vs watch: true,
 * with the fs calls of each call. Run: node bench/.build/bench/experiments/idle-watch.js [pauseMs] [calls]
 */
import { createSession } from "../../src/index.js";
import { countingFileSystem } from "../../src/io/file-system.js";
import { watchSession } from "../../src/session/watch.js";
import { generateTree } from "../generate-tree.js";
import { summarize } from "../lib/measure.js";

const keepAlive = setInterval(() => undefined, 1 << 30);
const tree = await generateTree();
const pause = Number(process.argv[2] ?? 70);
const calls = Number(process.argv[3] ?? 30);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
for (const watch of [false, true]) {
  const { fs, counters } = countingFileSystem();
  const session = await createSession({ cwd: tree.root, env: {}, fs });
  const watcher = watch ? await watchSession(session, {}) : undefined;
  await session.resolve(tree.deepFile);
  await watcher?.settled();
  await sleep(100);
  const times: number[] = [];
  const stats: number[] = [];
  for (let i = 0; i < calls; i++) {
    await sleep(pause);
    const before = counters.stat;
    const t = performance.now();
    await session.resolve(tree.deepFile);
    times.push(performance.now() - t);
    stats.push(counters.stat - before);
  }
  const s = summarize(times);
  console.log(
    `${watch ? "watch: true " : "default     "} after ${pause} ms pauses: median ${(s.median * 1000).toFixed(1)} µs, p95 ${(s.p95 * 1000).toFixed(1)} µs, min ${(s.min * 1000).toFixed(1)} µs; stats per call: ${[...new Set(stats)].join(",")}`,
  );
  await session.close();
}
clearInterval(keepAlive);
