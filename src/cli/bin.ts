#!/usr/bin/env node
// The shim: `agentsmd hook ...` runs the lean hook bundle; every other command the full CLI.
import { commandOf } from "./argv.js";
import { enableCompileCache, launchHook } from "./launch.js";

const argv = process.argv.slice(2);
if (commandOf(argv) === "hook") process.exitCode = await launchHook(argv);
else {
  enableCompileCache();
  const [{ main }, { processIo }] = await Promise.all([import("./main.js"), import("./io.js")]);
  process.exitCode = await main(argv, processIo());
}
