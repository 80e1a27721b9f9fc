/**
 * The lean hook executable, bundled with launch.ts into dist/hook/hook.cjs:
 * `node dist/hook/hook.cjs <host> [options]` is `agentsmd hook <host> [options]` without loading
 * the ES module machinery of the bin first. Installed hooks and the Claude Code plugin run it.
 */
import { launchHook } from "./launch.js";

const argv = process.argv.slice(2);
// A CommonJS bundle: its own directory (dist/hook/, the bundle's too) and `require`, so the launcher loads no node:module.
void launchHook(argv[0] === "hook" ? argv : ["hook", ...argv], process.env, { hookDir: __dirname, require }).then((code) => {
  process.exitCode = code;
});
