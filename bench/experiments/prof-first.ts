/**
 * Where the first resolve of a depth-20 path goes (session started at the root), under a CPU
 * profile: run with node --cpu-prof bench/.build/bench/experiments/prof-first.js
 */
import { createSession } from "../../src/index.js";
import { generateTree } from "../generate-tree.js";

const tree = await generateTree();
const times: number[] = [];
for (let i = 0; i < 3000; i++) {
  const session = await createSession({ cwd: tree.root, env: {} });
  const start = performance.now();
  await session.resolve(tree.deepFile);
  times.push(performance.now() - start);
  await session.close();
}
times.sort((a, b) => a - b);
console.log(`first resolve median ${(times[times.length >> 1]! * 1000).toFixed(0)} µs`);
