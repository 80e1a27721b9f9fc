/** `agentsmd audit` through the built CLI: the text report, --json, --min-coverage, --last, bad input. */
import { mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, runBin } from "../helpers/bin.js";
import { materialise } from "./fixtures.js";

beforeAll(ensureBuilt, 300_000);

describe("agentsmd audit (CLI)", () => {
  it("the text report: per directory and path, each file's verdict and who delivers it, the summary, the fix", async () => {
    const fx = materialise("claude-code", "without-agentsmd");
    const run = await runBin(["audit", fx.log, "--agent", "claude-code"], { cwd: fx.repo, env: { HOME: fx.home } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      "pkg/\n  a.ts (edited: Read, Edit)\n    ok   CLAUDE.md  seen before (Claude Code loads it)\n    MISS AGENTS.md  never seen (agentsmd delivers it)",
    );
    expect(run.stdout).toContain("coverage: 0% of edited paths had all their instructions before the first edit (0 of 2)");
    expect(run.stdout).toContain("fix: agentsmd install claude-code");
  });

  it("--json for tools; --min-coverage exits 1 below the threshold naming the fix, 0 at or above it", async () => {
    const fx = materialise("codex", "without-agentsmd");
    const env = { HOME: fx.home };
    const json = await runBin(["audit", fx.log, "--agent", "codex", "--json"], { cwd: fx.repo, env });
    expect(JSON.parse(json.stdout).summary).toMatchObject({ editedPaths: 2, coverage: 0 });
    const low = await runBin(["audit", fx.log, "--agent", "codex", "--min-coverage", "50"], { cwd: fx.repo, env });
    expect(low.code).toBe(1);
    expect(low.stderr).toContain("coverage 0% is below --min-coverage 50");
    expect(low.stderr).toContain("fix: agentsmd install codex --trust");
    const ok = await runBin(["audit", fx.log, "--agent", "codex", "--min-coverage", "0"], { cwd: fx.repo, env });
    expect(ok.code).toBe(0);
    const bad = await runBin(["audit", fx.log, "--agent", "codex", "--min-coverage", "lots"], { cwd: fx.repo, env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("pass a number from 0 to 100");
  });

  it("--last finds the newest log where the agent keeps it (and tells the agent by the place without --agent)", async () => {
    const fx = materialise("codex", "with-agentsmd");
    const dir = join(fx.home, ".codex", "sessions", "2026", "11", "27");
    mkdirSync(dir, { recursive: true });
    const log = join(dir, "rollout-2026-11-27T23-30-18-x.jsonl");
    renameSync(fx.log, log);
    const last = await runBin(["audit", "--last", "--agent", "codex", "--json"], { cwd: fx.repo, env: { HOME: fx.home } });
    expect(last.code, last.stderr).toBe(0);
    expect(JSON.parse(last.stdout)[0]).toMatchObject({ log, summary: { coverage: 100 } });
    const placed = await runBin(["audit", log], { cwd: fx.repo, env: { HOME: fx.home } });
    expect(placed.stdout).toContain("Codex session");
  });

  it("bad input: an unknown agent, no log, no agent", async () => {
    const fx = materialise("codex", "with-agentsmd");
    const unknown = await runBin(["audit", fx.log, "--agent", "nope"], { cwd: fx.repo, env: { HOME: fx.home } });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/use one of claude-code, codex/);
    const none = await runBin(["audit", "--last", "--agent", "claude-code"], { cwd: fx.repo, env: { HOME: fx.home } });
    expect(none.stderr).toContain("no Claude Code session log found");
    const who = await runBin(["audit", fx.log], { cwd: fx.repo, env: { HOME: fx.home } });
    expect(who.stderr).toContain("pass --agent");
  });
});
