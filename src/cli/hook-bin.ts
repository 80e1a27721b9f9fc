/**
 * The lean hook executable, bundled with launch.ts into dist/hook/hook.cjs:
 * `node dist/hook/hook.cjs <host> [options]` is `agentsmd hook <host> [options]` without loading
 * the ES module machinery of the bin first. Installed hooks and the Claude Code plugin run it.
 */
import { launchHook } from "./launch.js";

const argv = process.argv.slice(2);
void launchHook(argv[0] === "hook" ? argv : ["hook", ...argv]).then((code) => {
  process.exitCode = code;
});
