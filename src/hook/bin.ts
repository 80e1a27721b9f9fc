/**
 * The lean hook executable, bundled with launch.ts into dist/hook/hook.cjs:
 * `node dist/hook/hook.cjs <host> [options]` is `agentsmd hook <host> [options]` without loading
 * the ES module machinery of the bin first. Installed hooks and the Claude Code plugin run it.
 */
import { launchHook } from "./launch.js";
import { quietGateOpen } from "./quiet-gate.js";
import type { QuietGate } from "../integrations/host/quiet-format.js";

/** The quiet hosts' gates (their definitions' `hook.quiet.gate`), written in by scripts/build-hook.mjs. */
declare const AGENTSMD_QUIET_GATES: Readonly<Record<string, QuietGate>> | undefined;

const argv = process.argv.slice(2);
const quiet = typeof AGENTSMD_QUIET_GATES === "object" ? { gates: AGENTSMD_QUIET_GATES, open: quietGateOpen } : undefined;
// A CommonJS bundle: its own directory (dist/hook/, the bundle's too) and `require`, so the launcher loads no node:module.
void launchHook(argv[0] === "hook" ? argv : ["hook", ...argv], process.env, { hookDir: __dirname, require, ...(quiet ? { quiet } : {}) }).then((code) => {
  process.exitCode = code;
});
