/**
 * Process start-up of the bin: Node's compile cache, and the hook bundle.
 *
 * A hook runs once per tool call, so its process start is most of its cost. `agentsmd hook` runs
 * `dist/hook/agentsmd-hook.cjs`, one pre-bundled file (scripts/build-hook.mjs; the sources stay the
 * truth), and keeps V8's compiled code of it between calls:
 * - Node >= 22.1: `module.enableCompileCache(dir)`, which also serves every other command;
 * - older Node: the same V8 code cache by hand (`vm.Script` `cachedData`), for the bundle only.
 * The cache directory is the user's own (`$XDG_CACHE_HOME/agentsmd/compile-cache`, else
 * `~/.cache/...`), created 0700 and used only when it is a real directory owned by this user that
 * nobody else can write: code read from it runs. `AGENTSMD_COMPILE_CACHE=0` or
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Like io/file-system.ts, this module imports node:fs:
 * it runs before any other module loads and touches only the bundle and the cache.
 */
import { lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as nodeModule from "node:module";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import type { CliIo } from "./io.js";

type Env = Readonly<Record<string, string | undefined>>;

/** What the hook bundle exports (src/cli/hook-process.ts). */
interface HookBundle {
  hookProcessIo(): CliIo;
  runHookProcess(argv: readonly string[], io: CliIo, fullCli: (argv: readonly string[], io: CliIo) => Promise<number>): Promise<number>;
}

/** The bundle, next to the compiled CLI (dist/cli/launch.js -> dist/hook/agentsmd-hook.cjs). */
export const HOOK_BUNDLE = fileURLToPath(new URL("../hook/agentsmd-hook.cjs", import.meta.url));

function privateDir(path: string): boolean {
  const info = lstatSync(path);
  const uid = process.getuid?.();
  return info.isDirectory() && !info.isSymbolicLink() && (uid === undefined || info.uid === uid) && (info.mode & 0o022) === 0;
}

/**
 * The compile cache directory, created if needed; undefined when turned off or not safe to use.
 * @example compileCacheDir({ XDG_CACHE_HOME: "/home/me/.cache" }) // "/home/me/.cache/agentsmd/compile-cache"
 */
export function compileCacheDir(env: Env = process.env): string | undefined {
  if (env.AGENTSMD_COMPILE_CACHE === "0" || env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const xdg = env.XDG_CACHE_HOME;
    const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".cache");
    const dir = join(base, "agentsmd", "compile-cache");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return privateDir(dirname(dir)) && privateDir(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}

type EnableCompileCache = (dir: string) => unknown;
const enable = (nodeModule as { enableCompileCache?: EnableCompileCache }).enableCompileCache;

/**
 * Turns on Node's compile cache for the modules loaded after this call (Node >= 22.1; false elsewhere).
 * @example enableCompileCache(process.env)
 */
export function enableCompileCache(env: Env = process.env, dir = enable ? compileCacheDir(env) : undefined): boolean {
  if (!enable || dir === undefined) return false;
  try {
    enable(dir);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a CommonJS file through V8 with a code cache kept in `dir` (the fallback for a Node without
 * `module.enableCompileCache`). A stale or foreign cache is rejected by V8 (it checks the source
 * and the V8 version) and rewritten when the process exits.
 */
function requireWithCodeCache(file: string, dir: string): unknown {
  const source = readFileSync(file, "utf8");
  const info = statSync(file);
  const prefix = "agentsmd-hook-";
  const cacheFile = join(dir, `${prefix}${process.version}-${process.arch}-${info.size}-${Math.trunc(info.mtimeMs)}.v8`);
  let cached: Buffer | undefined;
  try {
    cached = readFileSync(cacheFile);
  } catch {
    cached = undefined;
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cached ? { cachedData: cached } : {}),
  });
  const module = { exports: {} as unknown };
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  fn.call(module.exports, module.exports, nodeModule.createRequire(file), module, file, dirname(file));
  if (!cached || script.cachedDataRejected) {
    // After the run the cache holds every function the hook compiled, not only the top level.
    process.once("exit", () => {
      try {
        const temp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
        renameSync(temp, cacheFile);
        for (const name of readdirSync(dir)) if (name.startsWith(prefix) && join(dir, name) !== cacheFile) rmSync(join(dir, name), { force: true });
      } catch {
        // a cache is an optimisation: never fail the hook for it
      }
    });
  }
  return module.exports;
}

function loadBundle(file: string, env: Env): HookBundle {
  const dir = compileCacheDir(env);
  if (dir !== undefined && enableCompileCache(env, dir)) return nodeModule.createRequire(import.meta.url)(file) as HookBundle;
  if (dir !== undefined) return requireWithCodeCache(file, dir) as HookBundle;
  return nodeModule.createRequire(import.meta.url)(file) as HookBundle;
}

// By URL, not by name: this module is also bundled into dist/hook/hook.cjs, which sits at the same
// depth as dist/cli/, so the URLs below resolve to the compiled CLI from both places.
const MAIN = new URL("../cli/main.js", import.meta.url).href;
const HOOK_PROCESS = new URL("../cli/hook-process.js", import.meta.url).href;
const fullCli = async (argv: readonly string[], io: CliIo): Promise<number> => ((await import(MAIN)) as typeof import("./main.js")).main(argv, io);

/**
 * Runs `agentsmd hook ...` from the bundle (or, in a build without it, from the compiled modules).
 * @example process.exitCode = await launchHook(process.argv.slice(2))
 */
export async function launchHook(argv: readonly string[], env: Env = process.env): Promise<number> {
  let bundle: HookBundle;
  try {
    statSync(HOOK_BUNDLE);
    bundle = loadBundle(HOOK_BUNDLE, env);
  } catch {
    bundle = (await import(HOOK_PROCESS)) as typeof import("./hook-process.js");
  }
  return bundle.runHookProcess(argv, bundle.hookProcessIo(), fullCli);
}
