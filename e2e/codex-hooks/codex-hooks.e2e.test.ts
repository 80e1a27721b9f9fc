/**
 * agentsmd's Codex hooks with the real codex-cli 0.169.0 against a scripted Responses server.
 * Hooks are installed and trusted by `agentsmd install codex --trust` (through `codex app-server`),
 * and no run passes `--dangerously-bypass-hook-trust`: if install or trust were wrong, no hook
 * would run and the nested files would be missing.
 *
 * Every assertion counts unique marker words (one per AGENTS.md) in the model-visible input of the
 * last request of a run: each applicable file exactly once, the override rule applied, nothing
 * Codex loaded itself repeated, a sibling directory's file never.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { codexEntry, CODEX_VERSION } from "../codex/oracle.js";
import { addFilePatch, buildFixture, counts, developerTexts, MARK, scriptedRun, type HooksFixture } from "./harness.js";

const cat = (cmd: string) => ({ calls: [{ name: "exec_command", args: { cmd } }] });
const patch = (text: string) => ({ calls: [{ custom: true as const, name: "apply_patch", input: text }] });

describe(`agentsmd hook codex with codex-cli ${CODEX_VERSION}`, () => {
  let fixture: HooksFixture | undefined;

  beforeAll(async () => {
    await codexEntry();
    await assertAgentsmdBuilt();
  }, 15 * 60_000);

  afterEach(async () => {
    await fixture?.cleanup();
    fixture = undefined;
  });

  it("install --trust trusts exactly agentsmd's three hooks as Codex's own hooks/list computes them; doctor agrees; uninstall restores config.toml byte for byte", async () => {
    const f = (fixture = await buildFixture({ install: false }));
    const env = cleanEnv({ CODEX_HOME: f.codexHome, HOME: f.home });
    const configBefore = await readFile(path.join(f.codexHome, "config.toml"), "utf8");
    const untrusted = await runAgentsmd(["install", "codex"], { cwd: f.repo, env });
    expect(untrusted.code).toBe(0);
    expect(untrusted.stdout.toString()).toContain("/hooks");
    const doctor1 = await runAgentsmd(["doctor", f.repo], { cwd: f.repo, env });
    expect(doctor1.stdout.toString()).toContain("codex-hook-untrusted");

    const install = await runAgentsmd(["install", "codex", "--trust", "--codex-bin", await codexEntry()], { cwd: f.repo, env, timeoutMs: 60_000 });
    expect(install.code, install.stderr.toString()).toBe(0);
    const out = install.stdout.toString();
    expect(out).toMatch(/trusted 3 hooks .*codex app-server hooks\/list, confirmed trusted by it/);
    expect(out).not.toContain("note: Codex computed another hash"); // agentsmd's own hash agrees with Codex's
    const doctor2 = await runAgentsmd(["doctor", f.repo], { cwd: f.repo, env });
    expect(doctor2.stdout.toString()).not.toContain("codex-hook-");

    const uninstall = await runAgentsmd(["uninstall", "codex"], { cwd: f.repo, env });
    expect(uninstall.code, uninstall.stderr.toString()).toBe(0);
    expect(await readFile(path.join(f.codexHome, "config.toml"), "utf8")).toBe(configBefore);
    await expect(readFile(path.join(f.codexHome, "hooks.json"))).rejects.toThrow();
  });

  it("from the repo root: cat of a nested file and apply_patch into a new directory deliver each applicable file once; a resumed turn after an edit delivers it again once", async () => {
    const f = (fixture = await buildFixture({ install: true }));
    expect(f.install?.code, f.install?.stderr.toString()).toBe(0);
    const first = await scriptedRun(f, [cat("cat pkg/src/a.ts"), patch(addFilePatch("lib/newdir/b.ts", "export const b = 1;")), { text: "E2E DONE" }], {
      cwd: f.repo,
    });
    expect(first.result.code, first.result.stderr.toString()).toBe(0);
    expect(first.requests).toHaveLength(3);
    const last = first.requests[2];
    expect(counts(last)).toEqual({ global: 1, root: 1, pkgPlain: 0, pkgOverride: 1, pkgSub: 0, lib: 1, libEdited: 0, sibling: 0 });
    // the nested files came from the hook, as developer messages, not from a tool's output
    const dev = developerTexts(last).join("\n");
    expect(dev).toContain(MARK.pkgOverride);
    expect(dev).toContain(MARK.lib);
    // after the cat, before the patch: only the pkg file
    expect(counts(first.requests[1])).toMatchObject({ pkgOverride: 1, lib: 0 });

    await writeFile(path.join(f.repo, "lib/AGENTS.md"), `# lib, edited\n${MARK.libEdited}\n`);
    const second = await scriptedRun(f, [{ text: "E2E DONE 2" }], { cwd: f.repo, prompt: "continue", resume: true });
    expect(second.result.code, second.result.stderr.toString()).toBe(0);
    const resumed = second.requests[second.requests.length - 1];
    // history keeps the first turn's deliveries; the edited file arrives once more, nothing else repeats
    expect(counts(resumed)).toEqual({ global: 1, root: 1, pkgPlain: 0, pkgOverride: 1, pkgSub: 0, lib: 1, libEdited: 1, sibling: 0 });
  });

  it("from a subdirectory: Codex's own chain is not repeated; deeper and other-branch files arrive once", async () => {
    const f = (fixture = await buildFixture({ install: true }));
    const cwd = path.join(f.repo, "pkg");
    const run = await scriptedRun(
      f,
      [cat("cat sub/x.ts"), cat("sed -n '1,5p' ../lib/old.ts"), patch(addFilePatch("newdir/deep/n.ts", "export const n = 1;")), { text: "E2E DONE" }],
      {
        cwd,
      },
    );
    expect(run.result.code, run.result.stderr.toString()).toBe(0);
    const last = run.requests[run.requests.length - 1];
    expect(counts(last)).toEqual({ global: 1, root: 1, pkgPlain: 0, pkgOverride: 1, pkgSub: 1, lib: 1, libEdited: 0, sibling: 0 });
  });

  it("after compaction the nested files in force are restored once", async () => {
    const f = (fixture = await buildFixture({ install: true, extraConfig: "model_auto_compact_token_limit = 50\n" }));
    const run = await scriptedRun(f, [cat("cat pkg/src/a.ts"), { text: "SUMMARY OF WORK" }, { text: "E2E DONE" }], { cwd: f.repo });
    expect(run.result.code, run.result.stderr.toString()).toBe(0);
    const compactRequest = run.requests.findIndex((q) => JSON.stringify(q.body?.input ?? []).includes("CONTEXT CHECKPOINT COMPACTION"));
    expect(compactRequest, "Codex did not compact").toBeGreaterThanOrEqual(0);
    const after = run.requests[run.requests.length - 1];
    expect(run.requests.length).toBeGreaterThan(compactRequest + 1);
    expect(JSON.stringify(after?.body?.input)).toContain("SUMMARY OF WORK");
    expect(counts(after)).toEqual({ global: 1, root: 1, pkgPlain: 0, pkgOverride: 1, pkgSub: 0, lib: 0, libEdited: 0, sibling: 0 });
  });

  it("without agentsmd, Codex alone never shows the nested files (the baseline the suite improves on)", async () => {
    const f = (fixture = await buildFixture({ install: false }));
    const run = await scriptedRun(f, [cat("cat pkg/src/a.ts"), patch(addFilePatch("lib/newdir/b.ts", "x")), { text: "E2E DONE" }], { cwd: f.repo });
    expect(run.result.code, run.result.stderr.toString()).toBe(0);
    expect(counts(run.requests[2])).toEqual({ global: 1, root: 1, pkgPlain: 0, pkgOverride: 0, pkgSub: 0, lib: 0, libEdited: 0, sibling: 0 });
  });
});
