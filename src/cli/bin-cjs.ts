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
import { commandOf, isVersionCall } from "./argv.js";

const argv = process.argv.slice(2);
const command = commandOf(argv);
if (isVersionCall(argv)) {
  const { version } = JSON.parse(readFileSync(join(__dirname, "../../package.json"), "utf8")) as { version: string };
  writeSync(1, `${version}\n`);
} else if (command === "hook" || command === "show") {
  void launchHook(argv, process.env, { hookDir: join(__dirname, "../hook"), require }).then((code) => {
    process.exitCode = code;
  });
} else void import(pathToFileURL(join(__dirname, "bin.js")).href);
