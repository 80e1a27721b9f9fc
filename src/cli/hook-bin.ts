/**
 * The lean hook executable, bundled with launch.ts into dist/hook/hook.cjs:
 * `node dist/hook/hook.cjs <host> [options]` is `agentsmd hook <host> [options]` without loading
 * the ES module machinery of the bin first. Installed hooks and the Claude Code plugin run it.
 */
import { launchHook, launchHookServer } from "./launch.js";
import { SERVE_FLAG } from "./hook-wire.js";

const argv = process.argv.slice(2);
// A CommonJS bundle: its own directory (dist/hook/, the bundle's too) and `require`, so the launcher loads no node:module.
const place = { hookDir: __dirname, require };
if (argv[0] === SERVE_FLAG && argv[1] !== undefined) void launchHookServer(argv[1], process.env, place);
else
  void launchHook(argv[0] === "hook" ? argv : ["hook", ...argv], process.env, place).then((code) => {
    process.exitCode = code;
  });
