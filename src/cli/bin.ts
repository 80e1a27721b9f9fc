#!/usr/bin/env node
// The shim. It loads as little as each command needs, since a CLI's start-up is most of a small
// command's cost: `--version` reads package.json and nothing else; `hook` and `show` run from the
// pre-bundled dist/hook/agentsmd-hook.cjs (one file, V8's code cache); every other command loads
// the full CLI (commander and that command's module).
import { commandOf, isVersionCall } from "./argv.js";

const argv = process.argv.slice(2);
const command = commandOf(argv);
if (isVersionCall(argv)) {
  const { readFileSync, writeSync } = await import("node:fs");
  const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  writeSync(1, `${version}\n`);
} else if (command === "hook" || command === "show") {
  process.exitCode = await (await import("../hook/launch.js")).launchHook(argv);
} else {
  // Node's compile cache exists from 22.1 on; asking launch.ts on an older Node would only load it.
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 1)) {
    const [{ enableCompileCache }, { createRequire }] = await Promise.all([import("../hook/launch.js"), import("node:module")]);
    enableCompileCache(process.env, createRequire(import.meta.url));
  }
  const [{ main }, { processIo }] = await Promise.all([import("./main.js"), import("./io.js")]);
  process.exitCode = await main(argv, processIo());
}
