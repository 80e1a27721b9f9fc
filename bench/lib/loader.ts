/**
 * The one shape every implementation under benchmark is adapted to, so cases
 * run the same code against agentsmd, the naive reference and Gemini CLI.
 */

/** One instruction file an implementation delivered (or, for agentsmd resolve, announced). */
export interface LoadedFile {
  path: string;
  /** Bytes of content delivered; 0 when only metadata is returned. */
  bytes: number;
}

export interface Loader {
  readonly name: string;
  /**
   * Session start: the chain root -> cwd, as the implementation loads it at startup.
   * Starts a fresh session (forgets what an earlier session loaded).
   */
  initial(root: string, cwd: string): Promise<LoadedFile[]>;
  /**
   * The uniform per-path call `(root, targetPath) => Promise<result>`: the instruction files newly
   * applicable to `targetPath` within the current session (or all of them, for implementations
   * without session state).
   */
  resolve(root: string, targetPath: string): Promise<LoadedFile[]>;
  /**
   * The implementation's own per-path call, its answer not converted to `LoadedFile[]`: what a row
   * timed against a floor (a no-op awaited) measures, so the adapter's own promise hops and arrays
   * are not in the time. Counted as `resolve` is. Default: `resolve`.
   */
  call?(root: string, targetPath: string): Promise<unknown>;
  /** Forget session state without touching disk. */
  reset(): void;
  /** Release watchers, caches. Idempotent. */
  close(): Promise<void>;
}

/** One row of the benchmark: makes fresh loaders, plain or counting every fs call into `counts`. */
export interface Implementation {
  /** row label, e.g. "agentsmd", "agentsmd touch", "naive", "gemini" */
  readonly name: string;
  /** "agentsmd" rows are compared against the others */
  readonly family: "agentsmd" | "naive" | "gemini";
  /** what a resolve delivers: "metadata" (paths, mtimes, sizes) or "bodies" (file contents) */
  readonly delivers: "metadata" | "bodies";
  /** At most this many paths in the multi-path cases (touch, heap); default: all. */
  readonly maxPaths?: number;
  /** Same, in `--quick` runs. */
  readonly quickMaxPaths?: number;
  /** Case ids this row takes part in (default: all). */
  readonly cases?: readonly string[];
  /** A fresh loader; with `counts`, every fs call it makes is added there. */
  create(counts?: import("./fs-count.js").FsCounts): Promise<Loader>;
}
