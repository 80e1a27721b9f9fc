/**
 * Bundles the plugin entries the hosts import into their own process (OpenCode, Kilo Code, pi, Amp) into
 * one ES module each, dist/plugin/<host>.js, as a step of `npm run build` (after tsc). Imported as
 * tsc leaves it, an entry is about 180 modules (zod/mini's index alone pulls every zod locale), each
 * resolved, read and linked by Node's ES module loader; one bundled file is one module, with only
 * the zod it uses. The package exports `./opencode`, `./server`, `./kilo`, `./pi` point here (their
 * types stay tsc's, dist/integrations/<host>/index.d.ts). The sources stay the truth; the bundles are
 * build products (dist/ is not committed).
 *
 * A bundle holds its own copy of the modules it shares with the `agentsmd` entry (docs/api.md,
 * "Module identity"). `import.meta.url` in it is the bundle's URL: dist/plugin/ sits at the same depth
 * as dist/core/, so `../../package.json` still resolves, and the lazily required parsers (yaml,
 * picomatch, smol-toml, jsonc-parser: io/require.ts) resolve from the package's node_modules.
 *
 * Usage: node scripts/build-plugins.mjs   (or import { bundlePlugin } for tests)
 */
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
/** The hosts whose plugin entry is bundled, and what each leaves out. */
export const PLUGIN_HOSTS = {
  // OpenCode and Kilo keep sessions for the life of the host's process: `watch: true` by default.
  // OpenCode has no shell tool, so the shell reader (plugin-family.ts loads it on a shell call) stays out.
  opencode: { watcher: true, shell: false },
  kilo: { watcher: true, shell: true },
  // pi's extension runs each event through the conversation engine with no watcher.
  pi: { watcher: false, shell: true },
  // Amp's plugin (run by Amp in Bun) likewise; it loads the shell reader on its first Bash call.
  amp: { watcher: false, shell: true },
};
export const pluginEntry = (host) => join(ROOT, "src/integrations", host, "index.ts");
export const pluginBundle = (host) => join(ROOT, "dist/plugin", `${host}.js`);

/** A dynamic import this bundle never runs becomes a module that throws, so its code stays out. */
const leaveOut = (host, { watcher, shell }) => ({
  name: "agentsmd-plugin-leave-out",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind !== "dynamic-import") return undefined;
      const watch = !watcher && args.path === "./watch.js" && /src[\\/]session[\\/]session\.ts$/.test(args.importer);
      const reader =
        !shell && /^\.\.\/host\/shell-(paths|targets)\.js$/.test(args.path) && /src[\\/]integrations[\\/]host[\\/]plugin-family\.ts$/.test(args.importer);
      return watch || reader ? { path: args.path, namespace: "agentsmd-plugin-left-out" } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: "agentsmd-plugin-left-out" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not in the ${host} plugin bundle (dist/plugin/${host}.js): import agentsmd for it`)});`,
      loader: "js",
    }));
  },
});

/**
 * Builds one host's bundle. `write: false` returns it in memory (tests); the metafile lists every input.
 * @example const { metafile } = await bundlePlugin({ host: "pi", write: false })
 */
export async function bundlePlugin({ host, outfile = pluginBundle(host), write = true }) {
  const leave = PLUGIN_HOSTS[host];
  if (leave === undefined) throw new Error(`no plugin bundle for ${host}: one of ${Object.keys(PLUGIN_HOSTS).join(", ")}`);
  return build({
    entryPoints: [pluginEntry(host)],
    outfile,
    write,
    bundle: true,
    platform: "node",
    format: "esm",
    // Loaded on demand through io/require.ts (never statically imported); kept out all the same.
    external: ["smol-toml", "jsonc-parser", "yaml", "picomatch", "@opencode-ai/plugin"],
    target: "node20",
    minify: true,
    sourcemap: false,
    metafile: true,
    plugins: [leaveOut(host, leave)],
    legalComments: "none",
    logLevel: "warning",
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const host of Object.keys(PLUGIN_HOSTS)) {
    const result = await bundlePlugin({ host });
    const output = Object.values(result.metafile.outputs)[0];
    console.log(`plugin bundle: ${Object.keys(output.inputs).length} modules -> ${(output.bytes / 1024).toFixed(0)} KB at ${pluginBundle(host)}`);
  }
}
