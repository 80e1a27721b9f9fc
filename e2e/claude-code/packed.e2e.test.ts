/**
 * The route a user takes, from the packed tarball: `npm pack` of the dist `npm run test:e2e` built
 * (`--ignore-scripts`: prepack's build would empty dist under the suites running beside this one), a
 * global install into a throw-away prefix (no install-time scripts, no warnings), `agentsmd
 * --version` and `show` from that prefix's bin, then `agentsmd setup claude-code` (user scope,
 * a throw-away HOME) and one real turn of the pinned Claude Code against the scripted model: the
 * hooks that were installed are the packed package's, and the model gets the root AGENTS.md once.
 *
 * Needs `npm ci --prefix e2e/claude-code` and the npm registry (or npm's cache) for the package's
 * dependencies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startAnthropicServer, type RecordedRequest } from "../lib/anthropic-server.js";
import { locateText } from "../lib/anthropic-request-text.js";
import { cleanEnv, run } from "../lib/exec.js";
import { REPO_ROOT } from "../lib/install.js";
import { createClaudeFixture, describeRun, ensureClaudeCodeInstalled, pinnedClaudeCodeVersion, runClaude, type ClaudeFixture } from "./harness.js";

const FILES: Record<string, string> = {
  "AGENTS.md": "# Root\nToken PK-ROOT-1.\n",
  "pkg/a/AGENTS.md": "# A\nToken PK-A-2.\n",
  "pkg/a/src/x.ts": "export const x = 1;\n",
};

const VERSION = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;

/** Occurrences of `token` the model was told (not inside its own tool_use inputs). */
function delivered(request: RecordedRequest, token: string): number {
  return locateText(request.body, token).filter((hit) => hit.blockType !== "tool_use").length;
}

const text = (buffer: Buffer) => buffer.toString("utf8");

describe(`the packed package, installed globally, with Claude Code ${pinnedClaudeCodeVersion()}`, () => {
  let base: string;
  let prefix: string;
  let agentsmd: string;
  let fx: ClaudeFixture | undefined;
  /** npm's own environment: the caller's, less the variables a test runner sets (npm config of the caller stays). */
  const npmEnv = () => cleanEnv({ npm_config_prefix: undefined, NODE_OPTIONS: undefined });

  beforeAll(async () => {
    await ensureClaudeCodeInstalled();
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "agentsmd-e2e-packed-")));
    prefix = path.join(base, "prefix");
    const pack = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", base], { cwd: REPO_ROOT, env: npmEnv(), timeoutMs: 300_000 });
    expect(pack.code, text(pack.stderr)).toBe(0);
    const tarball = path.join(base, (JSON.parse(text(pack.stdout)) as Array<{ filename: string }>)[0]!.filename);
    const install = await run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", tarball], {
      cwd: base,
      env: npmEnv(),
      timeoutMs: 300_000,
    });
    expect(install.code, text(install.stderr)).toBe(0);
    // publish-ready: nothing to warn about at install (no scripts, every engines range met)
    expect(
      text(install.stderr)
        .split("\n")
        .filter((line) => /\bwarn\b/i.test(line)),
    ).toEqual([]);
    agentsmd = path.join(prefix, "bin", "agentsmd");
    expect(fs.existsSync(agentsmd)).toBe(true);
  }, 15 * 60_000);

  afterAll(async () => {
    await fx?.cleanup();
    if (base && process.env.AGENTSMD_E2E_KEEP !== "1") fs.rmSync(base, { recursive: true, force: true });
  });

  it("--version and show answer from the prefix's bin", async () => {
    const version = await run(agentsmd, ["--version"], { env: cleanEnv({ HOME: base }) });
    expect(version.code, text(version.stderr)).toBe(0);
    expect(text(version.stdout)).toBe(`${VERSION}\n`);
    const show = await run(agentsmd, ["show", "--cwd", "examples/monorepo/packages/api/src"], { cwd: REPO_ROOT, env: cleanEnv({ HOME: base }) });
    expect(show.code, text(show.stderr)).toBe(0);
    expect(text(show.stdout)).toContain(`Instructions from: ${path.join(REPO_ROOT, "examples/monorepo/AGENTS.md")}`);
    expect(text(show.stderr)).toBe("");
  });

  it("setup claude-code installs and checks the installed package's hook, and a real turn gets the root AGENTS.md once", async () => {
    fx = await createClaudeFixture({ files: FILES, prefix: "agentsmd-e2e-packed-cc-" });
    const server = await startAnthropicServer({ script: [] });
    try {
      const env = cleanEnv({ HOME: fx.home, XDG_STATE_HOME: path.join(fx.home, ".local", "state"), XDG_CONFIG_HOME: path.join(fx.home, ".config") });
      // what a new user runs: setup installs, then runs the hook as Claude Code would and shows its answer
      const install = await run(agentsmd, ["setup", "claude-code"], { cwd: fx.repo, env });
      expect(install.code, `${text(install.stdout)}\n${text(install.stderr)}`).toBe(0);
      const settings = JSON.parse(fs.readFileSync(path.join(fx.home, ".claude", "settings.json"), "utf8")) as {
        hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
      };
      const commands = new Set(Object.values(settings.hooks).flatMap((groups) => groups.flatMap((group) => group.hooks.map((hook) => hook.command))));
      expect(commands.size, [...commands].join("\n")).toBe(1);
      // the hook runs from the installed package, not from this checkout
      const installed = fs.realpathSync(path.join(prefix, "lib", "node_modules", "agentsmd"));
      expect([...commands][0]).toContain(installed);

      server.setScript([{ toolUses: [{ name: "Read", input: { file_path: fx.path("pkg/a/src/x.ts") } }] }, { text: "Read it." }]);
      const turn = await runClaude({ fixture: fx, server, prompt: "Read pkg/a/src/x.ts." });
      expect(turn.exitCode, describeRun(turn)).toBe(0);
      expect(turn.result?.result, describeRun(turn)).toBe("Read it.");
      expect(server.unexpected).toEqual([]);
      const main = turn.requests.filter((request) => request.kind === "main");
      const last = main[main.length - 1]!;
      expect(delivered(last, "PK-ROOT-1"), `root AGENTS.md in the last request\n${describeRun(turn)}`).toBe(1);
      expect(delivered(last, "PK-A-2"), `nested AGENTS.md after the Read\n${describeRun(turn)}`).toBe(1);
      // the hooks ran quietly: nothing of theirs in the conversation as an error
      expect(JSON.stringify(last.body)).not.toMatch(/hook (error|failed)/i);
    } finally {
      await server.close();
    }
  });
});
