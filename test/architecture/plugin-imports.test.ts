/**
 * What importing a built plugin loads: OpenCode has no shell tool, so its plugin never loads the
 * shell reader (host/shell-paths.ts, the largest module of the host layer); Kilo and pi load it on
 * their first bash call, not at import; no plugin loads classic zod. Measured on tsc's dist/ modules
 * (what the plugin bundles, dist/plugin/, are built from: test/plugin-bundle.test.ts) in a child
 * Node whose loader reports every module it loads.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, REPO } from "../helpers/bin.js";

const run = promisify(execFile);

/** Node source run in the child: registers a load hook, imports the entry, prints the dist/ modules loaded. */
const CHILD = `
import { register } from "node:module";
import { MessageChannel } from "node:worker_threads";
const { port1, port2 } = new MessageChannel();
const seen = [];
port1.on("message", (url) => seen.push(url));
const hook = 'let port; export function initialize(d) { port = d.port } export async function load(url, context, next) { if (url.startsWith("file:")) port.postMessage(url); return next(url, context); }';
register("data:text/javascript," + encodeURIComponent(hook), { data: { port: port2 }, transferList: [port2] });
await import(process.argv[1]);
await new Promise((done) => setTimeout(done, 100));
port1.close();
console.log(JSON.stringify(seen.map((url) => url.includes("/dist/") ? url.slice(url.indexOf("/dist/") + 6) : url.slice(url.indexOf("/node_modules/") + 1))));
`;

async function loadedBy(entry: string): Promise<string[]> {
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", CHILD, join(REPO, "dist", entry)], { cwd: REPO, timeout: 60_000 });
  return JSON.parse(stdout) as string[];
}

describe("plugin imports", () => {
  beforeAll(ensureBuilt, 300_000);

  it("no plugin loads the shell reader or classic zod at import (Kilo and pi read their bash tool's command on its first call)", async () => {
    const [opencode = [], kilo = [], pi = []] = await Promise.all(
      ["integrations/opencode/index.js", "integrations/kilo/index.js", "integrations/pi/index.js"].map(loadedBy),
    );
    expect(opencode).toContain("integrations/host/plugin-family.js");
    expect(pi).toContain("integrations/pi/index.js");
    for (const loaded of [opencode, kilo, pi]) {
      expect(loaded.filter((module) => module.includes("shell-"))).toEqual([]);
      expect(loaded.filter((module) => module.includes("zod/v4/classic/"))).toEqual([]);
    }
  }, 120_000);
});
