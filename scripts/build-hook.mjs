/**
 * Bundles the hook process (src/hook/process.ts) into one file, dist/hook/agentsmd-hook.cjs,
 * as the last step of `npm run build`. A host runs `agentsmd hook <host>` once per tool call: one
 * file (no module resolution, one parse, one V8 code cache entry) instead of about 100 modules.
 * The sources stay the truth; the bundle is a build product (dist/ is not committed).
 *
 * CommonJS, so the launcher (src/hook/launch.ts) can run it through V8's code cache on a Node
 * without `module.enableCompileCache`. `import.meta.url` is the bundle's own URL: dist/hook/ sits at
 * the same depth as dist/core/, so `../../package.json` still resolves.
 *
 * Usage: node scripts/build-hook.mjs   (or import { bundleHook } for tests)
 */
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { readFileSync } from "node:fs";

export const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const HOOK_ENTRY = join(ROOT, "src/hook/process.ts");
export const HOOK_BUNDLE = join(ROOT, "dist/hook/agentsmd-hook.cjs");
/** A host's own bundle in dist/hook/: only that host's code (see `onlyHost`). */
export const hostBundle = (host) => join(ROOT, "dist/hook", `agentsmd-hook-${host}.cjs`);
/** The small executable that loads HOOK_BUNDLE through the compile cache (src/hook/bin.ts). */
export const HOOK_BIN_ENTRY = join(ROOT, "src/hook/bin.ts");
export const HOOK_BIN = join(ROOT, "dist/hook/hook.cjs");

/**
 * A hook never watches (`watch: true` is for long-lived hosts): the session's on-demand import of
 * the watcher becomes a stub, so the watcher stays out of the bundle.
 */
const noWatcher = {
  name: "agentsmd-hook-no-watcher",
  setup(build) {
    build.onResolve({ filter: /^\.\/watch\.js$/ }, (args) =>
      /src[\\/]session[\\/]session\.ts$/.test(args.importer) ? { path: "watch", namespace: "agentsmd-hook-stub" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "agentsmd-hook-stub" }, () => ({
      contents:
        'export async function watchSession() { throw new Error("watch: true is not available in the hook process (dist/hook): import agentsmd instead"); }',
      loader: "js",
    }));
  },
};

/**
 * The hook bundles never load a host's quiet stage (`hook.quiet` in its definition: the launcher
 * runs it from its own bundle, src/hook/quiet.ts): its dynamic import becomes a stub.
 */
const noQuietStage = {
  name: "agentsmd-hook-no-quiet-stage",
  setup(build) {
    build.onResolve({ filter: /^\.\/quiet\.js$/ }, (args) =>
      args.kind === "dynamic-import" && /src[\\/]integrations[\\/][^\\/]+[\\/]host\.ts$/.test(args.importer)
        ? { path: "quiet", namespace: "agentsmd-hook-stub-quiet" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "agentsmd-hook-stub-quiet" }, () => ({
      contents: 'throw new Error("a host\'s quiet stage is its own bundle (dist/hook/agentsmd-quiet-<host>.cjs), not in the hook bundle");',
      loader: "js",
    }));
  },
};

/**
 * A host's bundle holds only its own host's code: the dynamic imports in the other hosts'
 * definitions (src/integrations/<host>/host.ts: `import("./hook.js")`) become a module that
 * throws, so esbuild leaves their code out. A call loads one host's bundle
 * (src/hook/launch.ts picks it by the host in argv); the shared bundle keeps every host.
 */
const onlyHost = (host) => ({
  name: "agentsmd-hook-only-host",
  setup(build) {
    build.onResolve({ filter: /^\.\// }, (args) => {
      if (args.kind !== "dynamic-import") return undefined;
      const folder = /src[\\/]integrations[\\/]([^\\/]+)[\\/]host\.ts$/.exec(args.importer)?.[1];
      return folder === undefined || folder === host ? undefined : { path: folder, namespace: "agentsmd-other-host" };
    });
    build.onLoad({ filter: /.*/, namespace: "agentsmd-other-host" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`the ${args.path} hook is not in the ${host} bundle: run dist/hook/hook.cjs, which picks the bundle by host`)});`,
      loader: "js",
    }));
  },
});

/** The package's version, a constant of every bundle (host/quiet-format.ts `agentsmdVersion`). */
const VERSION = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;

/** A host's quiet bundle in dist/hook/ (src/hook/quiet.ts with the host's `quietHost`). */
export const quietBundle = (host) => join(ROOT, "dist/hook", `agentsmd-quiet-${host}.cjs`);

/**
 * The quiet bundle of a host whose definition has `hook.quiet`: src/hook/quiet.ts with the host's
 * own `src/integrations/<host>/quiet.ts`, a few KB (no zod, no session code).
 * @example await bundleQuiet("claude-code", { write: false })
 */
export function bundleQuiet(host, { outfile = quietBundle(host), write = true } = {}) {
  const source = [
    `import { quietCall } from "./src/hook/quiet.ts";`,
    `import { quietHost } from "./src/integrations/${host}/quiet.ts";`,
    `export function quiet(argv, text, env) { return quietCall(quietHost, argv, text, env, ${JSON.stringify(VERSION)}); }`,
  ].join("\n");
  return bundleHook({ outfile, write, stdin: source, host });
}

/** import.meta.url on first use: most hook calls never ask for it (a lazy require does). */
const BUNDLE_URL = 'const __agentsmdBundle={get url(){return this.u??=require("node:url").pathToFileURL(__filename).href}};';

/**
 * The bundle is one function expression: the launcher (src/hook/launch.ts) hands V8 the file's text
 * as it is, with its code cache, and calls what it evaluates to; without the wrapper it would
 * build a second copy of the text around it, 200 KB more for the first garbage collection to
 * meet. Loaded by require (Node's own compile cache, or no cache), the file calls the function
 * itself: there `module` exists.
 */
const SELF_CALLING = {
  banner: `(function(bundle){return typeof module==="object"&&module!==null?bundle(exports,require,module,__filename,__dirname):bundle})(function (exports, require, module, __filename, __dirname) {"use strict";${BUNDLE_URL}`,
  footer: "\n})",
};

/**
 * Builds the bundle (or, with `wrap: false`, the plain CommonJS launcher). `write: false` returns
 * it in memory (tests); the metafile lists every input.
 * @example const { metafile } = await bundleHook({ outfile: "/tmp/hook.cjs" })
 */
export async function bundleHook({
  outfile = HOOK_BUNDLE,
  write = true,
  entry = HOOK_ENTRY,
  wrap = true,
  host = undefined,
  stdin = undefined,
  define = {},
} = {}) {
  return build({
    ...(stdin ? { stdin: { contents: stdin, resolveDir: ROOT, sourcefile: "quiet-entry.ts", loader: "ts" } } : { entryPoints: [entry] }),
    outfile,
    write,
    bundle: true,
    platform: "node",
    format: "cjs",
    // The agents' config parsers load on demand (presets/agent-config.ts) from node_modules, so a
    // hook that never parses a config file never parses them either.
    external: ["smol-toml", "jsonc-parser"],
    target: "node20",
    minify: true,
    sourcemap: false,
    metafile: true,
    plugins: stdin ? [] : host === undefined ? [noWatcher, noQuietStage] : [noWatcher, noQuietStage, onlyHost(host)],
    legalComments: "none",
    logLevel: "warning",
    define: { "import.meta.url": "__agentsmdBundle.url", AGENTSMD_BUILD_VERSION: JSON.stringify(VERSION), ...define },
    ...(wrap ? { banner: { js: SELF_CALLING.banner }, footer: { js: SELF_CALLING.footer } } : { banner: { js: `"use strict";${BUNDLE_URL}` } }),
  });
}

/**
 * The launcher, dist/hook/hook.cjs, with the quiet hosts' gates (their definitions' `hook.quiet.gate`,
 * from the registry as tsc compiled it) as a constant: it checks a call against its host's gate
 * before it loads any bundle (src/hook/quiet-gate.ts). `entry`: the package's CommonJS bin
 * (scripts/build-bin.mjs) carries the same launcher and gates.
 * @example await bundleLauncher({ write: false })
 */
export async function bundleLauncher({ outfile = HOOK_BIN, write = true, entry = HOOK_BIN_ENTRY } = {}) {
  const { hostDefinitions } = await import(join(ROOT, "dist/integrations/registry.js"));
  const gates = Object.fromEntries(hostDefinitions().flatMap((definition) => (definition.hook?.quiet ? [[definition.id, definition.hook.quiet.gate]] : [])));
  return bundleHook({ entry, outfile, write, wrap: false, define: { AGENTSMD_QUIET_GATES: JSON.stringify(gates) } });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await bundleLauncher();
  const report = (result, file) => {
    const output = result.metafile.outputs[Object.keys(result.metafile.outputs).find((k) => k.endsWith(".cjs"))];
    console.log(`hook bundle: ${Object.keys(output.inputs).length} modules -> ${(output.bytes / 1024).toFixed(0)} KB at ${file}`);
  };
  report(await bundleHook(), HOOK_BUNDLE);
  // The hosts as tsc just compiled them (npm run build runs tsc first).
  const { HOOK_HOSTS } = await import(join(ROOT, "dist/integrations/hosts.js"));
  for (const host of Object.keys(HOOK_HOSTS)) report(await bundleHook({ outfile: hostBundle(host), host }), hostBundle(host));
  const { hostDefinitions } = await import(join(ROOT, "dist/integrations/registry.js"));
  for (const definition of hostDefinitions()) if (definition.hook?.quiet) report(await bundleQuiet(definition.id), quietBundle(definition.id));
}
