#!/usr/bin/env node
// The shim: `agentsmd hook ...` runs the lean hook bundle; every other command the full CLI.
import { commandOf } from "./argv.js";
import { createRequire } from "node:module";
import { enableCompileCache, launchHook } from "./launch.js";

const argv = process.argv.slice(2);
if (commandOf(argv) === "hook") process.exitCode = await launchHook(argv);
else {
  enableCompileCache(process.env, createRequire(import.meta.url));
  const [{ main }, { processIo }] = await Promise.all([import("./main.js"), import("./io.js")]);
  process.exitCode = await main(argv, processIo());
}
