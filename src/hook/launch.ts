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
 *
 * Every module it loads costs each hook call: builtins come through the caller's `require`
 * (dist/hook/hook.cjs passes its own), so node:module, which loads some twenty internal modules
 * in a CommonJS process, is loaded only on a Node that has `enableCompileCache`.
 */
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import type { CliIo } from "../cli/io.js";
import type { HookProcessIo } from "./process.js";
import { ownDirectoryProblem } from "../io/own-directory.js";
import { MAX_STDIN, readDescriptorSync, type StdinRead } from "../io/descriptors.js";
import type { QuietGate } from "../integrations/host/quiet-format.js";
import type { quietGateOpen } from "./quiet-gate.js";

type Env = Readonly<Record<string, string | undefined>>;

/** A CommonJS `require`: for builtins, and the bundle's own (it resolves next to the bundle). */
export type Require = (id: string) => unknown;

/** What the hook bundle exports (src/hook/process.ts). */
interface HookBundle {
  hookProcessIo(stdin?: StdinRead): HookProcessIo;
  runHookProcess(argv: readonly string[], io: CliIo, fullCli: (argv: readonly string[], io: CliIo) => Promise<number>): Promise<number>;
}

/** The file name of the shared bundle in dist/hook/ (every host, and the lean `show`). */
export const HOOK_BUNDLE_NAME = "agentsmd-hook.cjs";

/**
 * The bundle a call loads: `agentsmd-hook-<host>.cjs`, only that host's code (scripts/build-hook.mjs),
 * for `hook <host>`; the shared bundle for anything else. A host name is a plain word, never a path.
 */
export function hookBundleName(argv: readonly string[]): string {
  const at = argv.indexOf("hook");
  const host = at < 0 ? undefined : argv[at + 1];
  return host !== undefined && /^[a-z][a-z0-9-]{0,39}$/.test(host) ? `agentsmd-hook-${host}.cjs` : HOOK_BUNDLE_NAME;
}

/** What a host's quiet bundle exports (scripts/build-hook.mjs around src/hook/quiet.ts). */
interface QuietBundle {
  quiet(argv: readonly string[], text: string, env: Env): boolean;
}

/**
 * The quiet bundle of a plain `hook <host>` (no options: they change what the full path does):
 * `agentsmd-quiet-<host>.cjs` (src/hook/quiet.ts); undefined for any other argv.
 */
export function quietBundleName(argv: readonly string[]): string | undefined {
  return argv.length === 2 && argv[0] === "hook" && /^[a-z][a-z0-9-]{0,39}$/.test(argv[1]!) ? `agentsmd-quiet-${argv[1]}.cjs` : undefined;
}

/**
 * The quiet stage (src/hook/quiet.ts): stdin read here, then the host's quiet bundle, when there is
 * one, answers a certified quiet tool event (true: nothing to print, the call is over). Otherwise
 * what was read goes on to the full path. `AGENTSMD_QUIET=0` turns the stage off. In the built
 * launcher (`place.quiet`, from bin.ts) the host's gate (hook/quiet-gate.ts) decides first whether
 * the bundle is worth loading: a host without one never reads stdin here; a call the gate turns
 * away loads no quiet bundle. From the compiled modules (dist/cli/bin.js) the bundle decides alone,
 * and the gate's modules never load.
 */
function quietStage(argv: readonly string[], env: Env, place: LaunchPlace): { answered: boolean; stdin?: StdinRead } {
  const name = quietBundleName(argv);
  if (name === undefined || env.AGENTSMD_QUIET === "0") return { answered: false };
  const gates = place.quiet?.gates;
  const gate = gates === undefined ? undefined : Object.hasOwn(gates, argv[1]!) ? gates[argv[1]!] : null;
  if (gate === null) return { answered: false };
  if (gate !== undefined) {
    let stdin: StdinRead;
    try {
      stdin = readDescriptorSync(0, MAX_STDIN);
    } catch (error) {
      return { answered: false, stdin: { error } };
    }
    const text = stdin.complete ? stdin.bytes.toString("utf8") : undefined;
    return {
      answered: text !== undefined && place.quiet!.open(argv[1]!, gate, text, env) && quietAnswer(join(place.hookDir, name), argv, text, env, place.require),
      stdin,
    };
  }
  let bundle: QuietBundle;
  try {
    bundle = loadBundle(join(place.hookDir, name), env, place.require) as unknown as QuietBundle;
  } catch {
    return { answered: false }; // no quiet stage for this host (or an older build)
  }
  let stdin: StdinRead;
  try {
    stdin = readDescriptorSync(0, MAX_STDIN);
  } catch (error) {
    return { answered: false, stdin: { error } };
  }
  return { answered: stdin.complete && bundle.quiet(argv, stdin.bytes.toString("utf8"), env), stdin };
}

/** The quiet bundle's answer to an event the gate let through (false when the bundle does not load). */
function quietAnswer(file: string, argv: readonly string[], text: string, env: Env, require: Require): boolean {
  try {
    return (loadBundle(file, env, require) as unknown as QuietBundle).quiet(argv, text, env);
  } catch {
    return false;
  }
}

/**
 * Whether `path` is a real directory (no symlink) owned by this user (any owner on a platform
 * without uids) that nobody else may write: the compile cache's directories (code read from them
 * runs), by the one test state directories ask too (io/own-directory.ts). Throws what lstat throws.
 */
function privateDir(path: string): boolean {
  const info = lstatSync(path);
  return ownDirectoryProblem({ directory: info.isDirectory(), uid: info.uid, mode: info.mode }, process.getuid?.(), 0o022) === null;
}

/**
 * The compile cache directory, created if needed; undefined when turned off or not safe to use.
 */
export function compileCacheDir(env: Env, homedir: () => string): string | undefined {
  if (env.AGENTSMD_COMPILE_CACHE === "0" || env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const xdg = env.XDG_CACHE_HOME;
    const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".cache");
    const dir = join(base, "agentsmd", "compile-cache");
    // Checked first, created only when missing: one call per hook process in the usual case.
    try {
      return privateDir(dirname(dir)) && privateDir(dir) ? dir : undefined;
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") return undefined;
    }
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return privateDir(dirname(dir)) && privateDir(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** Node >= 22.1 has `module.enableCompileCache` (asked by version: loading node:module to look costs a hook call). */
function hasCompileCache(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 1);
}

type EnableCompileCache = (dir: string) => unknown;

/** os.homedir through `require`, loaded only when HOME is not set. */
const homedirOf = (require: Require) => () => (require("node:os") as typeof import("node:os")).homedir();

/**
 * Turns on Node's compile cache for the modules loaded after this call (Node >= 22.1; false elsewhere).
 */
export function enableCompileCache(env: Env, require: Require, dir = hasCompileCache() ? compileCacheDir(env, homedirOf(require)) : undefined): boolean {
  if (!hasCompileCache() || dir === undefined) return false;
  try {
    (require("node:module") as { enableCompileCache: EnableCompileCache }).enableCompileCache(dir);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs of the hook that add what they compiled to the code cache: V8 caches only the functions a
 * run compiled (besides what it read from the cache), so the first run alone (a SessionStart)
 * would leave every later PostToolUse compiling its own path (a Codex shell command's parser: about
 * 2 ms a call). The first runs after a build each rewrite the cache, once.
 */
export const CODE_CACHE_RUNS = 8;

/**
 * Runs a CommonJS file through V8 with a code cache kept in `dir` (the fallback for a Node without
 * `module.enableCompileCache`). A stale or foreign cache is rejected by V8 (it checks the source
 * and the V8 version) and rewritten when the process exits; so is one written by fewer than
 * CODE_CACHE_RUNS runs (its first byte counts them). One open of the bundle for its text and its
 * size and mtime (the cache's name).
 */
function requireWithCodeCache(file: string, dir: string, require: Require): unknown {
  const fd = openSync(file, "r");
  let source: string;
  let info: { size: number; mtimeMs: number };
  try {
    info = fstatSync(fd);
    // esbuild writes ASCII only (charset ascii): latin1 is the same text without a UTF-8 decode.
    source = readFileSync(fd, "latin1");
  } finally {
    closeSync(fd);
  }
  // One cache per bundle (its name, then a dot): a host's bundle never replaces another's cache.
  const prefix = `${basename(file, ".cjs")}.`;
  const cacheFile = join(dir, `${prefix}${process.version}-${process.arch}-${info.size}-${Math.trunc(info.mtimeMs)}.v8`);
  let cached: Buffer | undefined;
  try {
    cached = readFileSync(cacheFile);
  } catch {
    cached = undefined;
  }
  const runs = cached && cached.length > 1 ? cached[0]! : 0;
  const { Script } = require("node:vm") as typeof import("node:vm");
  // The file is one function expression (scripts/build-hook.mjs): its text goes to V8 as it is.
  const script = new Script(source, { filename: file, ...(runs > 0 ? { cachedData: cached!.subarray(1) } : {}) });
  const module = { exports: {} as unknown };
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  fn.call(module.exports, module.exports, require, module, file, dirname(file));
  const fresh = runs === 0 || script.cachedDataRejected === true;
  if (fresh || runs < CODE_CACHE_RUNS) {
    // After the run the cache holds every function the hook compiled, not only the top level.
    process.once("exit", () => {
      try {
        const temp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(temp, Buffer.concat([Buffer.of(fresh ? 1 : runs + 1), script.createCachedData()]), { mode: 0o600 });
        renameSync(temp, cacheFile);
        if (fresh) for (const name of readdirSync(dir)) if (name.startsWith(prefix) && join(dir, name) !== cacheFile) rmSync(join(dir, name), { force: true });
      } catch {
        // a cache is an optimisation: never fail the hook for it
      }
    });
  }
  return module.exports;
}

/** The compile cache directory, asked once per process (the quiet bundle and the host's both load through it). */
let cacheDir: { dir: string | undefined } | undefined;

function loadBundle(file: string, env: Env, require: Require): HookBundle {
  const dir = (cacheDir ??= { dir: compileCacheDir(env, homedirOf(require)) }).dir;
  if (dir !== undefined && !enableCompileCache(env, require, dir)) return requireWithCodeCache(file, dir, require) as HookBundle;
  return require(file) as HookBundle;
}

// By URL, not by name, and only when used (building URLs costs a hook call): this module is also
// bundled into dist/hook/hook.cjs, which sits at the same depth as dist/cli/, so the URLs below
// resolve to the compiled CLI from both places.
const fullCli = async (argv: readonly string[], io: CliIo): Promise<number> =>
  ((await import(new URL("../cli/main.js", import.meta.url).href)) as typeof import("../cli/main.js")).main(argv, io);

/** Where the bundle is and how to require: dist/hook/hook.cjs gives both; the ES module bin neither. */
export interface LaunchPlace {
  /** dist/hook/ */
  hookDir: string;
  require: Require;
  /** The quiet hosts' gates and their check (hook/quiet-gate.ts), which dist/hook/hook.cjs holds; without them (the compiled modules) the quiet bundle decides alone. */
  quiet?: { gates: Readonly<Record<string, QuietGate>>; open: typeof quietGateOpen };
}

async function placeOf(place: LaunchPlace | undefined): Promise<LaunchPlace> {
  if (place) return place;
  const { createRequire } = await import("node:module");
  const { fileURLToPath } = await import("node:url");
  return { hookDir: fileURLToPath(new URL("../hook/", import.meta.url)), require: createRequire(import.meta.url) };
}

/**
 * Runs `agentsmd hook ...` (or a plain `show`) from the bundle (or, in a build without it, from
 * the compiled modules), and ends the process with its exit code; returns the code only when
 * output is still draining.
 */
export async function launchHook(argv: readonly string[], env: Env = process.env, at?: LaunchPlace): Promise<number> {
  const place = await placeOf(at);
  const quiet = quietStage(argv, env, place);
  if (quiet.answered) process.exit(0);
  let bundle: HookBundle | undefined;
  // The host's own bundle, else (an older or partial build) the shared one, else the compiled modules.
  for (const name of new Set([hookBundleName(argv), HOOK_BUNDLE_NAME])) {
    try {
      bundle = loadBundle(join(place.hookDir, name), env, place.require);
      break;
    } catch {
      // the next
    }
  }
  bundle ??= (await import(new URL("./process.js", import.meta.url).href)) as typeof import("./process.js");
  const io = bundle.hookProcessIo(quiet.stdin);
  const code = await bundle.runHookProcess(argv, io, fullCli);
  // The answer is out (written to the descriptors): exit now rather than let Node run the GC tasks
  // V8 scheduled and tear the heap down, about 2 ms a call. A write still draining through a stream waits.
  if (!io.streamed) process.exit(code);
  return code;
}
