/**
 * Adapter around Gemini CLI's loaders (`@google/gemini-cli-core`, pinned in bench/peers, installed
 * with `npm ci --prefix bench/peers`; never a dependency of agentsmd).
 *
 * What the JIT loader needs (v0.61.0, `dist/src/utils/memoryDiscovery.js`):
 *   loadJitSubdirectoryMemory(targetPath, trustedRoots, alreadyLoadedPaths, alreadyLoadedIdentities, boundaryMarkers)
 *   -> { files: [{ path, content }], fileIdentities: ["dev:ino", ...] }
 * - no Config object, no file discovery service, no workspace context: plain arguments;
 * - `trustedRoots`: the workspace directories (in the CLI: cwd plus include dirs; the folder must be
 *   trusted, which the CLI checks before calling); the deepest root containing the target wins;
 * - `boundaryMarkers` (CLI default `[".git"]`): the ceiling is the nearest ancestor of the trusted
 *   root holding a marker, else the trusted root itself;
 * - the two `alreadyLoaded*` sets are the session state; the caller adds the returned paths and
 *   identities after each call (what `MemoryContextManager.discoverContext` does);
 * - file names are module state in `tools/memoryTool.js`: `resetGeminiMdFilename(["AGENTS.md"])`
 *   makes it probe only AGENTS.md (the CLI's `context.fileName: "AGENTS.md"` would probe
 *   AGENTS.md and GEMINI.md: twice the probes; we use the cheaper setting so the comparison is
 *   conservative).
 * The startup scan is `getEnvironmentMemoryPaths([cwd], markers)` followed by what
 * `MemoryContextManager.loadMemoryContents` does: identity dedupe, then `readGeminiMdFiles`.
 *
 * `debugLogger.debug` is replaced by a no-op (the CLI does not print debug output either; the
 * message strings are still built at the call sites, as in the CLI).
 *
 * @example
 * const gemini = await createGeminiLoader();
 * await gemini.initial(root, root);
 * const files = await gemini.resolve(root, `${root}/pkg/src/a.ts`); // [{ path, bytes }]
 */
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_DIR } from "./generate-tree.js";
import type { Implementation, Loader, LoadedFile } from "./lib/loader.js";
import { patchFsPromises, type FsCounts } from "./lib/fs-count.js";

const GEMINI_VERSION = "0.61.0";
const PACKAGE_DIR = join(BENCH_DIR, "peers", "node_modules", "@google", "gemini-cli-core");

interface JitResult {
  files: Array<{ path: string; content: string }>;
  fileIdentities: string[];
}
interface MemoryDiscovery {
  loadJitSubdirectoryMemory(
    targetPath: string,
    trustedRoots: string[],
    alreadyLoadedPaths: Set<string>,
    alreadyLoadedIdentities: Set<string> | undefined,
    boundaryMarkers?: string[],
  ): Promise<JitResult>;
  getEnvironmentMemoryPaths(trustedRoots: string[], boundaryMarkers?: string[]): Promise<string[]>;
  deduplicatePathsByFileIdentity(paths: string[]): Promise<{ paths: string[]; identityMap: Map<string, string> }>;
  readGeminiMdFiles(paths: string[], importFormat?: "tree" | "flat", boundaryMarkers?: string[]): Promise<Array<{ filePath: string; content: string | null }>>;
}

/** Whether the peer package is installed; the reason when it is not. */
export function geminiAvailability(): { ok: true; version: string } | { ok: false; reason: string } {
  const manifest = join(PACKAGE_DIR, "package.json");
  if (!existsSync(manifest)) return { ok: false, reason: "not installed: run `npm ci --prefix bench/peers`" };
  const version = (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
  if (version !== GEMINI_VERSION) return { ok: false, reason: `bench/peers has ${version}, expected ${GEMINI_VERSION}: run \`npm ci --prefix bench/peers\`` };
  return { ok: true, version };
}

const load = (rel: string): Promise<unknown> => import(pathToFileURL(join(PACKAGE_DIR, "dist", "src", rel)).href);

export interface GeminiOptions {
  names?: string[];
  boundaryMarkers?: string[];
}

export async function createGeminiLoader(options: GeminiOptions = {}): Promise<Loader> {
  const available = geminiAvailability();
  if (!available.ok) throw new Error(`@google/gemini-cli-core ${available.reason}`);
  const names = options.names ?? ["AGENTS.md"];
  const markers = options.boundaryMarkers ?? [".git"];
  const [discovery, memoryTool, debug] = (await Promise.all([load("utils/memoryDiscovery.js"), load("tools/memoryTool.js"), load("utils/debugLogger.js")])) as [
    MemoryDiscovery,
    { resetGeminiMdFilename(n: string | string[]): void; getAllGeminiMdFilenames(): string[] },
    { debugLogger: { debug: (...a: unknown[]) => void } },
  ];
  debug.debugLogger.debug = () => undefined;
  memoryTool.resetGeminiMdFilename(names);
  const actual = memoryTool.getAllGeminiMdFilenames();
  if (actual.join() !== names.join()) throw new Error(`gemini file names are ${actual.join()}, wanted ${names.join()}`);

  const loadedPaths = new Set<string>();
  const loadedIdentities = new Set<string>();
  const toLoaded = (path: string, content: string): LoadedFile => ({ path, bytes: Buffer.byteLength(content) });

  return {
    name: "gemini",
    async initial(_root, cwd) {
      loadedPaths.clear();
      loadedIdentities.clear();
      const project = await discovery.getEnvironmentMemoryPaths([cwd], markers);
      const { paths, identityMap } = await discovery.deduplicatePathsByFileIdentity(project);
      const contents = await discovery.readGeminiMdFiles(paths, "tree", markers);
      const out: LoadedFile[] = [];
      for (const { filePath, content } of contents) {
        if (content === null) continue;
        loadedPaths.add(filePath);
        const identity = identityMap.get(filePath);
        if (identity) loadedIdentities.add(identity);
        out.push(toLoaded(filePath, content));
      }
      return out;
    },
    async resolve(root, targetPath) {
      const result = await discovery.loadJitSubdirectoryMemory(targetPath, [root], loadedPaths, loadedIdentities, markers);
      for (const file of result.files) loadedPaths.add(file.path);
      for (const identity of result.fileIdentities) loadedIdentities.add(identity);
      return result.files.map((f) => toLoaded(f.path, f.content));
    },
    reset() {
      loadedPaths.clear();
      loadedIdentities.clear();
    },
    close: async () => undefined,
  };
}

/** Wraps every call of `loader` in a `node:fs/promises` patch counting into `counts`. */
function counted(loader: Loader, counts: FsCounts): Loader {
  const around = async <T>(fn: () => Promise<T>): Promise<T> => {
    const restore = patchFsPromises(counts);
    try {
      return await fn();
    } finally {
      restore();
    }
  };
  return {
    name: loader.name,
    initial: (root, cwd) => around(() => loader.initial(root, cwd)),
    resolve: (root, target) => around(() => loader.resolve(root, target)),
    reset: () => loader.reset(),
    close: () => loader.close(),
  };
}

/** The Gemini CLI row of the benchmark (JIT loader per path, startup scan for the initial load). */
export const geminiImplementation: Implementation = {
  name: "gemini",
  family: "gemini",
  delivers: "bodies",
  async create(counts) {
    const loader = await createGeminiLoader();
    return counts ? counted(loader, counts) : loader;
  },
};
