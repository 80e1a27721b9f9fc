/**
 * CPU profile of resolves over many distinct paths with watch: true (per-path cost growth).
 * Run: node --cpu-prof --cpu-prof-dir=bench/.build/prof bench/.build/bench/experiments/prof-watch.js [paths]
 */
import { createSession } from "../../src/index.js";
import { watchSession } from "../../src/session/watch.js";
import { generateTree } from "../generate-tree.js";

const keepAlive = setInterval(() => undefined, 1 << 30);
const tree = await generateTree();
const n = Number(process.argv[2] ?? 1500);
const session = await createSession({ cwd: tree.root, env: {} });
const watcher = await watchSession(session, {});
let t = performance.now();
for (let i = 0; i < n; i++) {
  await session.resolve(tree.touchPaths[i]!);
  if ((i + 1) % 500 === 0) {
    await watcher.settled();
    const now = performance.now();
    console.log(`paths ${i - 498}-${i + 1}: ${((now - t) / 500).toFixed(2)} ms per path, ${watcher.watchedDirs().length} dirs watched`);
    t = now;
  }
}
await session.close();
clearInterval(keepAlive);
