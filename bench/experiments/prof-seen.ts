/**
 * CPU profile of a resolve of an already-seen path (nothing changed, inside the revalidation window).
 * Run: node --cpu-prof --cpu-prof-dir=bench/.build/prof bench/.build/bench/experiments/prof-seen.js
 * then: node bench/.build/bench/experiments/top-self.js bench/.build/prof/<file>.cpuprofile
 */
import { createSession } from "../../src/index.js";
import { generateTree } from "../generate-tree.js";

const tree = await generateTree();
const session = await createSession({ cwd: tree.root, env: {}, config: { cache: { revalidateMs: 1e9 } } });
await session.resolve(tree.deepFile);
const n = Number(process.argv[2] ?? 300_000);
for (let round = 0; round < 3; round++) {
  const t = performance.now();
  for (let i = 0; i < n; i++) await session.resolve(tree.deepFile);
  console.log(`round ${round}: ${(((performance.now() - t) / n) * 1000).toFixed(2)} µs per seen resolve`);
}
await session.close();
