/**
 * Issue 18 rows 6-8: patterns a repository or a model supplies match in linear time, and a
 * deadline bounds every hook event.
 * - row 6: a Codex shell command `ls *a*a*a…` against a 60-character file name (Codex expands the
 *   glob; pi and Kilo read the same command without expanding it);
 * - row 7: a Continue rule `regex: "^(a+)+$"` and a 35-byte file `aaa…a!`;
 * - row 8: a Cursor rule `globs: *a*a*a…` and a 34-character root file name.
 * Each worst input runs in a child process (the built CLI, a `--require` that reports the
 * process's CPU time at exit) and is held to a CPU budget, not a wall time; a spawn timeout is only
 * the safety net. The plugins (pi, Kilo) run in this process, their CPU time measured around the call.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN, ensureBuilt } from "../helpers/bin.js";
import { createTree, type Tree } from "../helpers/tree.js";
import { HOOK_EVENTS, hostCases } from "./host-table.js";
import { Deadline, DeadlineExceeded, deadlineMsOf, DEFAULT_DEADLINE_MS } from "../../src/core/deadline.js";
import { handleClaudeCodeHook } from "../../src/integrations/claude-code/index.js";

/** CPU time one whole hook process (Node's start included) may take on the worst input. */
const CPU_BUDGET_US = 1_500_000;
/** Only if the budget is blown by far: the child is killed and the test fails. */
const SAFETY_MS = 60_000;

const PRELOAD = join(tmpdir(), `agentsmd-cpu-${process.pid}.cjs`);

interface CpuRun {
  cpuUs: number;
  stdout: string;
  stderr: string;
  status: number | null;
}

/** The built CLI with `argv`, its own CPU time (user + system) reported at exit. */
function cpuRun(argv: readonly string[], options: { stdin?: string; env: Record<string, string>; cwd: string }): CpuRun {
  const run = spawnSync(process.execPath, ["--require", PRELOAD, BIN, ...argv], {
    input: options.stdin ?? "",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...options.env },
    cwd: options.cwd,
    encoding: "utf8",
    timeout: SAFETY_MS,
  });
  const reported = /\nCPU_US=(\d+)\n/.exec(run.stderr);
  return {
    cpuUs: reported ? Number(reported[1]) : Infinity,
    stdout: run.stdout,
    stderr: run.stderr.replace(/\nCPU_US=\d+\n/, ""),
    status: run.status,
  };
}

function envOf(tree: Tree): Record<string, string> {
  return { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
}

function contextOf(stdout: string): string {
  if (stdout.trim() === "") return "";
  return (JSON.parse(stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? "";
}

beforeAll(async () => {
  writeFileSync(
    PRELOAD,
    `process.on("exit", () => { const u = process.cpuUsage(); require("node:fs").writeSync(2, "\\nCPU_US=" + (u.user + u.system) + "\\n"); });\n`,
  );
  await ensureBuilt();
}, 300_000);

const STARS = `ls ${"*a".repeat(12)}`;
const LONG_NAME = `${"a".repeat(59)}b`;

describe("row 6: a shell glob of the model's against the repository's file names", () => {
  it("Codex: `ls *a*a*a*a*a*a*a*a*a*a*a*a` against a 60-character name is settled within the CPU budget", async () => {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "ROOT\n", [`r/${LONG_NAME}`]: "x\n", "r/sub/AGENTS.md": "SUB\n" });
    const cwd = tree.path("r");
    const event = HOOK_EVENTS.codex!.shell!(cwd, "s6", STARS);
    const run = cpuRun(["hook", "codex"], { stdin: JSON.stringify(event), env: envOf(tree), cwd });
    expect(run.status, run.stderr).toBe(0);
    expect(run.cpuUs, `CPU ${run.cpuUs} µs`).toBeLessThan(CPU_BUDGET_US);
    // The same command with a glob that does match still names the file.
    const matching = cpuRun(["hook", "codex"], { stdin: JSON.stringify(HOOK_EVENTS.codex!.shell!(cwd, "s6b", "ls s*b/AGENTS.md")), env: envOf(tree), cwd });
    expect(contextOf(matching.stdout)).toContain("SUB");
  }, 120_000);

  for (const name of ["pi", "kilo"]) {
    it(`${name}: the same command read by its shell tool stays within the CPU budget`, async () => {
      const tree = await createTree({
        "r/.git/": null,
        "r/AGENTS.md": "ROOT\n",
        [`r/${LONG_NAME}`]: "x\n",
        "r/.cursor/rules/r.mdc": `---\nglobs: ${"*a".repeat(10)}\n---\nCURSOR\n`,
      });
      const host = hostCases().find((each) => each.name === name)!;
      const conversation = host.open({ cwd: tree.path("r"), home: tree.home, env: envOf(tree), id: "s6" }, tree.path("state"));
      await conversation.start();
      const start = process.cpuUsage();
      await conversation.shell!(`${STARS} ${LONG_NAME}`);
      const used = process.cpuUsage(start);
      expect(used.user + used.system).toBeLessThan(CPU_BUDGET_US);
    }, 120_000);
  }
});

describe("row 7: a Continue rule's regex against the touched file's content", () => {
  async function tree7(): Promise<Tree> {
    return createTree({
      "r/.git/": null,
      "r/.continue/rules/r.md": `---\nname: r\nregex: "^(a+)+$"\n---\nCONTINUE-RULE\n`,
      "r/f.txt": `${"a".repeat(34)}!`,
      "r/g.txt": "a".repeat(35),
    });
  }

  it("Claude Code hook: `^(a+)+$` against `aaa…a!` (35 bytes) is answered within the CPU budget", async () => {
    const tree = await tree7();
    const cwd = tree.path("r");
    const read = (id: string, file: string) =>
      cpuRun(["hook", "claude-code"], { stdin: JSON.stringify(HOOK_EVENTS["claude-code"]!.read(cwd, id, tree.path(file))), env: envOf(tree), cwd });
    const worst = read("s7", "r/f.txt");
    expect(worst.status, worst.stderr).toBe(0);
    expect(worst.cpuUs, `CPU ${worst.cpuUs} µs`).toBeLessThan(CPU_BUDGET_US);
    expect(contextOf(worst.stdout)).not.toContain("CONTINUE-RULE");
    // A file the pattern does match gets the rule: the semantics stay.
    expect(contextOf(read("s7b", "r/g.txt").stdout)).toContain("CONTINUE-RULE");
  }, 120_000);

  it("explain: the same file within the CPU budget", async () => {
    const tree = await tree7();
    const run = cpuRun(["explain", tree.path("r/f.txt")], { env: envOf(tree), cwd: tree.path("r") });
    expect(run.status, run.stderr).toBe(0);
    expect(run.cpuUs, `CPU ${run.cpuUs} µs`).toBeLessThan(CPU_BUDGET_US);
    expect(run.stdout).not.toContain(".continue/rules/r.md");
    expect(cpuRun(["explain", tree.path("r/g.txt")], { env: envOf(tree), cwd: tree.path("r") }).stdout).toContain(".continue/rules/r.md");
  }, 120_000);

  it("a pattern that needs backtracking (backreference, lookaround) is refused with a diagnostic naming the rule file and the fix", async () => {
    const tree = await createTree({ "r/.git/": null, "r/.continue/rules/b.md": `---\nname: b\nregex: "(a)\\\\1"\n---\nBACKREF\n`, "r/f.txt": "aa\n" });
    const run = cpuRun(["doctor", tree.path("r")], { env: envOf(tree), cwd: tree.path("r") });
    expect(run.stdout + run.stderr).toContain(".continue/rules/b.md");
    expect(run.stdout + run.stderr).toMatch(/backreference[^\n]*needs backtracking[^\n]*rewrite it without backreferences or lookaround/);
  }, 120_000);
});

describe("row 8: a Cursor rule's glob against the repository's file names", () => {
  const GLOB = "*a".repeat(10);
  const NAME = `${"a".repeat(33)}b`;
  async function tree8(): Promise<Tree> {
    return createTree({
      "r/.git/": null,
      "r/.cursor/rules/r.mdc": `---\nglobs: ${GLOB}\n---\nCURSOR-RULE\n`,
      [`r/${NAME}`]: "x\n",
      [`r/${"a".repeat(20)}`]: "y\n",
    });
  }

  it("Claude Code hook: `*a*a*a*a*a*a*a*a*a*a` against a 34-character root file name is answered within the CPU budget", async () => {
    const tree = await tree8();
    const cwd = tree.path("r");
    const read = (id: string, file: string) =>
      cpuRun(["hook", "claude-code"], { stdin: JSON.stringify(HOOK_EVENTS["claude-code"]!.read(cwd, id, tree.path(file))), env: envOf(tree), cwd });
    const worst = read("s8", `r/${NAME}`);
    expect(worst.status, worst.stderr).toBe(0);
    expect(worst.cpuUs, `CPU ${worst.cpuUs} µs`).toBeLessThan(CPU_BUDGET_US);
    expect(contextOf(worst.stdout)).not.toContain("CURSOR-RULE");
    expect(contextOf(read("s8b", `r/${"a".repeat(20)}`).stdout)).toContain("CURSOR-RULE");
  }, 120_000);

  it("explain: the same name within the CPU budget", async () => {
    const tree = await tree8();
    const run = cpuRun(["explain", tree.path(`r/${NAME}`)], { env: envOf(tree), cwd: tree.path("r") });
    expect(run.status, run.stderr).toBe(0);
    expect(run.cpuUs, `CPU ${run.cpuUs} µs`).toBeLessThan(CPU_BUDGET_US);
    expect(run.stdout).not.toContain(".cursor/rules/r.mdc");
  }, 120_000);
});

describe("a deadline per hook event", () => {
  it("defaults to DEFAULT_DEADLINE_MS, AGENTSMD_DEADLINE_MS sets it, 0 turns it off", () => {
    expect(DEFAULT_DEADLINE_MS).toBe(5000);
    expect(deadlineMsOf({})).toBe(5000);
    expect(deadlineMsOf({ AGENTSMD_DEADLINE_MS: "250" })).toBe(250);
    expect(deadlineMsOf({ AGENTSMD_DEADLINE_MS: "0" })).toBe(Infinity);
    expect(deadlineMsOf({ AGENTSMD_DEADLINE_MS: "soon" })).toBe(5000);
    let now = 0;
    const deadline = new Deadline(10, () => now);
    deadline.check();
    now = 10;
    expect(() => deadline.check()).toThrow(DeadlineExceeded);
  });

  it("an event past its deadline answers nothing and admits nothing: the next event delivers it all", async () => {
    const files: Record<string, string | null> = { "r/.git/": null, "r/CLAUDE.md": "C\n", "r/AGENTS.md": "ROOT\n" };
    for (let i = 0; i < 8; i++) Object.assign(files, { [`r/d${i}/AGENTS.md`]: `NESTED-${i}\n`, [`r/d${i}/x.ts`]: "x\n" });
    const tree = await createTree(files);
    const cwd = tree.path("r");
    const options = { env: envOf(tree), home: tree.home, stateDir: tree.path("state"), agentsMd: "inject" as const };
    const event = HOOK_EVENTS["claude-code"]!.read(cwd, "dl", tree.path("r/d3/x.ts"));
    // A clock that moves 1 ms per look: the deadline passes in the middle of the walk.
    let now = 0;
    const delivered: unknown[] = [];
    await expect(
      handleClaudeCodeHook(event, { ...options, deadline: new Deadline(20, () => now++), deliver: (output) => void delivered.push(output) }),
    ).rejects.toThrow(DeadlineExceeded);
    expect(delivered.filter((output) => output !== null)).toEqual([]);
    const again = await handleClaudeCodeHook(event, options);
    expect(again?.hookSpecificOutput.additionalContext).toContain("NESTED-3");
  });

  it("the hook process: past AGENTSMD_DEADLINE_MS, no answer and one line on stderr; the next call delivers", async () => {
    const files: Record<string, string | null> = { "r/.git/": null, "r/CLAUDE.md": "C\n", "r/AGENTS.md": "ROOT\n" };
    for (let i = 0; i < 20; i++) Object.assign(files, { [`r/d${i}/e/AGENTS.md`]: `NESTED-${i}\n`, [`r/d${i}/e/x.ts`]: "x\n" });
    const tree = await createTree(files);
    const cwd = tree.path("r");
    const stdin = JSON.stringify(HOOK_EVENTS["claude-code"]!.read(cwd, "dlp", tree.path("r/d7/e/x.ts")));
    const late = cpuRun(["hook", "claude-code", "--agents-md", "inject"], { stdin, env: { ...envOf(tree), AGENTSMD_DEADLINE_MS: "1" }, cwd });
    expect(late.status).toBe(0);
    expect(late.stdout).toBe("");
    expect(late.stderr).toMatch(/deadline \(AGENTSMD_DEADLINE_MS\): nothing was marked delivered/);
    const next = cpuRun(["hook", "claude-code", "--agents-md", "inject"], { stdin, env: envOf(tree), cwd });
    expect(contextOf(next.stdout)).toContain("NESTED-7");
  }, 120_000);
});

describe("a deadline per plugin call", () => {
  for (const name of ["pi", "kilo", "opencode"]) {
    it(`${name}: a call past AGENTSMD_DEADLINE_MS gives nothing and admits nothing; the next call with time delivers`, async () => {
      const files: Record<string, string | null> = { "r/.git/": null, "r/AGENTS.md": "ROOT\n" };
      for (let i = 0; i < 20; i++) Object.assign(files, { [`r/d${i}/e/AGENTS.md`]: `NESTED-${i}\n`, [`r/d${i}/e/x.ts`]: "x\n" });
      const tree = await createTree(files);
      const host = hostCases().find((each) => each.name === name)!;
      const setup = { cwd: tree.path("r"), home: tree.home, id: "dl" };
      // 1 ms: the call's first reads are past it.
      const late = host.open({ ...setup, env: { ...envOf(tree), AGENTSMD_DEADLINE_MS: "1" } }, tree.path("state"));
      expect(await late.read(tree.path("r/d7/e/x.ts"))).not.toContain("NESTED-7");
      const next = host.open({ ...setup, env: envOf(tree) }, tree.path("state"));
      expect(await next.read(tree.path("r/d7/e/x.ts"))).toContain("NESTED-7");
    }, 60_000);
  }
});
