/**
 * Watching in a real process: a plain script that awaits createSession({ watch: true }) must not
 * end mid-await (Node exits with code 13 when nothing keeps the loop alive).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { createTree } from "./helpers/tree.js";
import { REPO, ensureBuilt } from "./helpers/bin.js";

describe("watching in a plain script", () => {
  beforeAll(ensureBuilt, 180_000);

  it("createSession({ watch: true }) resolves and the script exits 0 after close()", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root", "a/": null });
    const script = `
      const { createSession } = await import(${JSON.stringify(`${REPO}/dist/index.js`)});
      const session = await createSession({ cwd: ${JSON.stringify(tree.path("a"))}, watch: true, env: {}, home: ${JSON.stringify(tree.home)} });
      console.log(session.initialFiles.length);
      await session.close();`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
    expect(stdout.trim()).toBe("1");
  });
});
