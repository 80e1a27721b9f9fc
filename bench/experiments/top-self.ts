/** Self time by function from a .cpuprofile: `node top-self.js FILE [N]`. */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const profile = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const byFn = new Map<string, number>();
let total = 0;
for (const node of profile.nodes) {
  const t = self.get(node.id) ?? 0;
  total += t;
  const f = node.callFrame;
  const key = `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(src|bench|node_modules)\//, "$1/")}:${f.lineNumber + 1}`;
  byFn.set(key, (byFn.get(key) ?? 0) + t);
}
const top = [...byFn].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 25));
for (const [k, t] of top) console.log(`${((t / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
