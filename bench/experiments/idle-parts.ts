/**
 * Where a seen resolve with `watch: true` spends its time at agent pace: variants timed one call
 * after each pause, interleaved round-robin so every variant sees the same machine.
 * Run: node bench/.build/bench/experiments/idle-parts.js [pauseMs] [rounds]
 */
import { createSession } from "../../src/index.js";
import { generateTree } from "../generate-tree.js";
import { agentsmdWatchImplementation } from "../agentsmd.js";
import { printMedians, timeAfterPauses } from "../lib/after-pause.js";

const keepAlive = setInterval(() => undefined, 1 << 30);
const tree = await generateTree();
const pause = Number(process.argv[2] ?? 70);
const rounds = Number(process.argv[3] ?? 40);

const session = await createSession({ cwd: tree.root, env: {}, watch: true });
await session.resolve(tree.deepFile);
await session.resolve(tree.deepFile);
const loader = await agentsmdWatchImplementation.create();
await loader.initial(tree.root, tree.root);
await loader.resolve(tree.root, tree.deepFile);
await loader.resolve(tree.root, tree.deepFile);
const NONE: Array<{ path: string; bytes: number }> = [];
const loaded = (r: { files: Array<{ path: string }> }) => (r.files.length === 0 ? NONE : r.files.map((f) => ({ path: f.path, bytes: 0 })));
const kept = { files: [] as string[] };
const noop = async () => kept;
const map = new Map<string, object>([[tree.deepFile, kept]]);
const weak = new WeakMap<object, number>([[kept, 1]]);

const variants: Record<string, () => Promise<unknown> | unknown> = {
  "await noop()": () => noop(),
  "sync nothing": () => undefined,
  "Map.get + WeakMap.get": () => weak.get(map.get(tree.deepFile)!),
  "session.resolve": () => session.resolve(tree.deepFile),
  "loader.resolve (bench)": () => loader.resolve(tree.root, tree.deepFile),
  "loader.call (bench)": () => loader.call!(tree.root, tree.deepFile),
  "session.resolve().then": () => session.resolve(tree.deepFile).then(loaded),
  "session.afterToolCall": () => session.afterToolCall({ tool: "read", path: tree.deepFile }),
};
printMedians(await timeAfterPauses(variants, rounds, pause));
await session.close();
await loader.close();
clearInterval(keepAlive);
