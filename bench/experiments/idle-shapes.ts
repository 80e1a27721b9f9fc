/**
 * Cost after a pause of the shapes a hot path can take (getter vs field, Map vs Set, async vs
 * Promise.resolve), interleaved round-robin. Run: node bench/.build/bench/experiments/idle-shapes.js [pauseMs] [rounds]
 */
import { printMedians, timeAfterPauses } from "../lib/after-pause.js";

const keepAlive = setInterval(() => undefined, 1 << 30);
const pause = Number(process.argv[2] ?? 70);
const rounds = Number(process.argv[3] ?? 60);

class Counter {
  #g = 3;
  pub = 3;
  get g(): number {
    return this.#g;
  }
}
const SHARED = Promise.resolve(Object.freeze({ files: [] as string[] }));
class Owner {
  readonly #cache = new Counter();
  readonly #ledger = new Counter();
  readonly #hot = new Map<string, { generation: number; revision: number }>();
  readonly #set = new Set<string>();
  constructor(target: string) {
    this.#hot.set(target, { generation: 3, revision: 3 });
    this.#set.add(target);
  }
  getters(target: string): Promise<{ files: string[] }> {
    const hot = this.#hot.get(target);
    if (hot !== undefined && hot.generation === this.#cache.g && hot.revision === this.#ledger.g) return Promise.resolve({ files: [] });
    throw new Error("miss");
  }
  fields(target: string): Promise<{ files: string[] }> {
    const hot = this.#hot.get(target);
    if (hot !== undefined && hot.generation === this.#cache.pub && hot.revision === this.#ledger.pub) return Promise.resolve({ files: [] });
    throw new Error("miss");
  }
  set(target: string): Promise<{ files: string[] }> {
    if (this.#set.has(target)) return Promise.resolve({ files: [] });
    throw new Error("miss");
  }
  shared(target: string): Promise<{ files: string[] }> {
    if (this.#set.has(target)) return SHARED;
    throw new Error("miss");
  }
  setOnly(target: string): boolean {
    return this.#set.has(target);
  }
  async asyncGetters(target: string): Promise<{ files: string[] }> {
    const hot = this.#hot.get(target);
    if (hot !== undefined && hot.generation === this.#cache.g && hot.revision === this.#ledger.g) return { files: [] };
    throw new Error("miss");
  }
}
const target = "/tmp/some/deep/path/to/a/file/in/the/tree/index.ts";
const owner = new Owner(target);
const noop = async () => undefined;
const CONST = { files: [] };
const literal = async () => ({ files: [] });
const variants: Record<string, () => unknown> = {
  "await noop()": () => noop(),
  "getters + Promise.resolve": () => owner.getters(target),
  "fields + Promise.resolve": () => owner.fields(target),
  "Set.has + Promise.resolve": () => owner.set(target),
  "Set.has + shared promise": () => owner.shared(target),
  "Set.has, sync": () => owner.setOnly(target),
  "Promise.resolve({})": () => Promise.resolve({ files: [] }),
  "Promise.resolve(CONST)": () => Promise.resolve(CONST),
  "({ files: [] }) sync": () => ({ files: [] }),
  "async () => ({ files: [] })": () => literal(),
  "async getters": () => owner.asyncGetters(target),
};
printMedians(await timeAfterPauses(variants, rounds, pause), 28);
clearInterval(keepAlive);
