/**
 * The naive reference loader the benchmarks compare against, written for the benchmark.
 *
 * No cache and no session state: for a path it walks every ancestor from the path's directory up
 * to the root (inclusive), probes every candidate name (AGENTS.md, CLAUDE.md, CONTEXT.md) in each
 * one, one `stat` after the other, and reads every file it finds. That is OpenCode V1's per-step
 * behaviour (instruction files re-read on every model call; peers.md section 3.1), applied to
 * both the initial chain and each touched path.
 *
 * @example
 * const naive = createNaiveLoader();
 * const files = await naive.resolve(root, `${root}/a/b/file.ts`); // [{ path, bytes }], root first
 */
import { stat, readFile } from "node:fs/promises";
import { dirname, sep } from "node:path";
import type { Implementation, Loader, LoadedFile } from "./lib/loader.js";
import type { FsCounts } from "./lib/fs-count.js";

const NAIVE_NAMES = ["AGENTS.md", "CLAUDE.md", "CONTEXT.md"] as const;

/** The two calls the naive loader makes. */
export interface NaiveFs {
  /** true when a regular file is there */
  isFile(path: string): Promise<boolean>;
  readFile(path: string): Promise<string>;
}

const plainNaiveFs: NaiveFs = {
  isFile: (path) =>
    stat(path).then(
      (s) => s.isFile(),
      () => false,
    ),
  readFile: (path) => readFile(path, "utf8"),
};

/** A `NaiveFs` that adds every call to `counts`. */
export function countingNaiveFs(counts: FsCounts, inner: NaiveFs = plainNaiveFs): NaiveFs {
  return {
    isFile: (path) => (counts.probes++, inner.isFile(path)),
    readFile: async (path) => {
      counts.opens++;
      const text = await inner.readFile(path);
      counts.bytesRead += Buffer.byteLength(text);
      return text;
    },
  };
}

export interface NaiveOptions {
  fs?: NaiveFs;
  names?: readonly string[];
}

export function createNaiveLoader(options: NaiveOptions = {}): Loader {
  const fs = options.fs ?? plainNaiveFs;
  const names = options.names ?? NAIVE_NAMES;

  async function collect(root: string, startDir: string): Promise<LoadedFile[]> {
    const found: LoadedFile[] = [];
    let dir = startDir;
    // Only directories inside root (root included) are visited.
    while (dir === root || dir.startsWith(root + sep)) {
      const here: LoadedFile[] = [];
      for (const name of names) {
        const path = `${dir}${sep}${name}`;
        if (!(await fs.isFile(path))) continue;
        const text = await fs.readFile(path);
        here.push({ path, bytes: Buffer.byteLength(text) });
      }
      found.unshift(...here);
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
    return found;
  }

  return {
    name: "naive",
    initial: (root, cwd) => collect(root, cwd),
    // The target is taken to be a file (what agents touch): start at its directory.
    resolve: (root, targetPath) => collect(root, dirname(targetPath)),
    reset: () => undefined,
    close: async () => undefined,
  };
}

/** The naive row of the benchmark. */
export const naiveImplementation: Implementation = {
  name: "naive",
  family: "naive",
  delivers: "bodies",
  create: async (counts) => createNaiveLoader(counts ? { fs: countingNaiveFs(counts) } : {}),
};
