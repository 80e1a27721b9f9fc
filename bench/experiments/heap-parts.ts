/**
 * What the heap retained after 10,000 resolves consists of: the StatCache, then the rest of the session.
 * Run: node --expose-gc bench/.build/bench/experiments/heap-parts.js
 */
import { createSession } from "../../src/index.js";
import { generateTree } from "../generate-tree.js";

const gc = (globalThis as { gc?: () => void }).gc!;
const heap = () => {
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
};
const tree = await generateTree();
const warm = await createSession({ cwd: tree.root, env: {} });
await warm.resolve(tree.deepFile);
await warm.close();
const h0 = heap();
const session = await createSession({ cwd: tree.root, env: {} });
for (const path of tree.touchPaths) await session.resolve(path);
const h1 = heap();
const cacheSize = session.cache.size;
session.cache.clear();
const h2 = heap();
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;
console.log(
  `session after ${tree.touchPaths.length} resolves: ${mb(h1 - h0)}; StatCache (${cacheSize} entries): ${mb(h1 - h2)}; rest of the session (chain memo, loaded, covered): ${mb(h2 - h0)}`,
);
console.log(`covered dirs ${session.coveredDirs.size}, loaded ${session.loadedVersions.size}`);
await session.close();
