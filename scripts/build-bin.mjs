/**
 * Bundles the package's CommonJS bin (src/cli/bin-cjs.ts) into dist/cli/agentsmd.cjs, with the
 * hook launcher and the quiet hosts' gates, the way scripts/build-hook.mjs bundles dist/hook/hook.cjs
 * (run after it by `npm run build`).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleLauncher } from "./build-hook.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const CLI_BIN = join(ROOT, "dist/cli/agentsmd.cjs");

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await bundleLauncher({ entry: join(ROOT, "src/cli/bin-cjs.ts"), outfile: CLI_BIN });
  const output = Object.values(result.metafile.outputs)[0];
  console.log(`cli bin: ${Object.keys(output.inputs).length} modules -> ${(output.bytes / 1024).toFixed(1)} KB at ${CLI_BIN}`);
}
