#!/usr/bin/env node
// The package's bin, as CommonJS (scripts/build-bin.mjs bundles it into dist/cli/agentsmd.cjs):
// an ES module entry makes Node load its ESM loader, fs/promises and the stream modules first,
// about a third of a plain `show`. `--version` reads package.json; `hook` and `show` go to the
// hook bundle through the launcher with this file's own `require`; every other command imports
// the ES module bin (dist/cli/bin.js), which reads the same argv.
import { readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { launchHook } from "../hook/launch.js";
import { quietGateOpen } from "../hook/quiet-gate.js";
import type { QuietGate } from "../integrations/host/quiet-format.js";
import { commandOf, isVersionCall } from "./argv.js";

/** The quiet hosts' gates, written in by scripts/build-bin.mjs (as in dist/hook/hook.cjs: src/hook/bin.ts). */
declare const AGENTSMD_QUIET_GATES: Readonly<Record<string, QuietGate>> | undefined;

const argv = process.argv.slice(2);
const command = commandOf(argv);
if (isVersionCall(argv)) {
  const { version } = JSON.parse(readFileSync(join(__dirname, "../../package.json"), "utf8")) as { version: string };
  writeSync(1, `${version}\n`);
} else if (command === "hook" || command === "show") {
  const quiet = command === "hook" && typeof AGENTSMD_QUIET_GATES === "object" ? { gates: AGENTSMD_QUIET_GATES, open: quietGateOpen } : undefined;
  void launchHook(argv, process.env, { hookDir: join(__dirname, "../hook"), require, ...(quiet ? { quiet } : {}) }).then((code) => {
    process.exitCode = code;
  });
} else void import(pathToFileURL(join(__dirname, "bin.js")).href);
