/**
 * `agentsmd setup pi` against the fixture's HOME, then one real pi turn without `-e`: the
 * extension setup wrote in pi's user extensions directory (which pi loads without trusting the
 * project) brings the nested AGENTS.md to the model.
 *
 * Needs `npm run build` and the pinned pi (`npm ci --prefix e2e/pi`, done on first use).
 */
import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { REPO_ROOT } from "../lib/install.js";
import { messageText, toolResults } from "../lib/openai-chat-server.js";
import { setupPluginHost } from "../lib/setup-plugin.js";
import { createPiFixture, requirePi, type PiFixture } from "./harness.js";

let fixture: PiFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

beforeAll(async () => {
  await access(join(REPO_ROOT, "dist", "cli", "bin.js"));
  await requirePi();
}, 15 * 60_000);

describe("agentsmd setup pi, then pi", () => {
  test("setup writes ~/.pi/agent/extensions/agentsmd.js; a read below pkg/ brings pkg/AGENTS.md", async () => {
    fixture = await createPiFixture({ files: { "AGENTS.md": "ROOT-RULE\n", "pkg/AGENTS.md": "PKG-RULE\n", "pkg/src/a.ts": "export const a = 1;\n" } });
    const agent = await setupPluginHost("pi", {
      HOME: fixture.home,
      PI_CODING_AGENT_DIR: fixture.agentDir,
      XDG_STATE_HOME: join(fixture.home, ".local", "state"),
    });
    expect(agent.changes[0]!.file).toBe(join(fixture.agentDir, "extensions", "agentsmd.js"));
    expect(await readFile(agent.changes[0]!.file, "utf8")).toContain(`from ${JSON.stringify(join(REPO_ROOT, "dist", "plugin", "pi.js"))}`);
    const run = await fixture.run({
      prompt: "work",
      timeoutMs: 120_000,
      script: [{ toolCalls: [{ tool: "read", args: { path: "pkg/src/a.ts" } }] }, { text: "done" }],
    });
    expect(run.timedOut).toBe(false);
    expect(run.exitCode, run.stderr.slice(-4000)).toBe(0);
    const final = run.mainRequests.at(-1)!.body!;
    const [afterRead] = toolResults(final);
    expect(afterRead?.content).toContain("PKG-RULE");
    const all = final.messages.map((message) => messageText(message)).join("\n");
    expect(all.split("PKG-RULE").length - 1).toBe(1);
  }, 300_000);
});
