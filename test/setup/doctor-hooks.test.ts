/**
 * doctor's check of installed agentsmd hooks: a user-scope hook is run as its agent would run it
 * (setup's verification) and reported when it names a missing program (`hook-command-missing`) or
 * does not answer (`hook-not-answering`); a project's hook command is only looked at, never run.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { createTree, runCli } from "../helpers/tree.js";
import { ensureBuilt } from "../helpers/bin.js";
import type { DoctorReport } from "../../src/inspect/doctor.js";

beforeAll(ensureBuilt, 180_000);

const PATH = `${dirname(process.execPath)}:/usr/bin:/bin`;

async function doctorHooks(args: string[], env: Record<string, string>) {
  const run = await runCli(["--json", ...args, "doctor"], { env });
  const report = JSON.parse(run.stdout) as DoctorReport;
  return { code: run.code, findings: report.findings.filter((f) => f.code.startsWith("hook-command") || f.code === "hook-not-answering") };
}

describe("doctor: installed hooks that do not answer", () => {
  it("user scope: a working hook passes; a missing script and a silent command are errors (exit 1) with the fix", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "# repo\n" });
    const env = { PATH, HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const base = ["--home", tree.home, "--cwd", tree.path("repo")];
    expect((await runCli([...base, "install", "qwen"], { env })).code).toBe(0);
    expect(await doctorHooks(base, env)).toEqual({ code: 0, findings: [] });

    expect((await runCli([...base, "install", "claude-code", "--command", "node /gone/agentsmd/dist/hook/hook.cjs"], { env })).code).toBe(0);
    expect((await runCli([...base, "install", "codex", "--command", "/bin/true"], { env })).code).toBe(0);
    const { code, findings } = await doctorHooks(base, env);
    expect(code).toBe(1);
    expect(findings.map((f) => [f.code, f.severity, f.agents])).toEqual([
      ["hook-command-missing", "error", ["claude-code"]],
      ["hook-not-answering", "error", ["codex"]],
    ]);
    expect(findings[0]!.message).toContain("/gone/agentsmd/dist/hook/hook.cjs does not exist");
    expect(findings[0]!.fix).toContain("agentsmd setup claude-code");
    expect(findings[1]!.message).toContain("no hookSpecificOutput.additionalContext in its output (empty)");
    // The text report carries them too.
    const text = await runCli([...base, "doctor"], { env });
    expect(text.stdout).toContain("hook-not-answering");
  }, 60_000);

  it("project scope: a command naming what is not there is a warning, and it is never run", async () => {
    const tree = await createTree({
      "repo/.git/": null,
      "repo/tool.cjs": "require('node:fs').writeFileSync(require('node:path').join(__dirname, 'RAN'), 'x')\n",
      "repo/.claude/settings.json": JSON.stringify({ hooks: { PostToolUse: [{ hooks: [{ type: "command", command: "node tool.cjs hook claude-code" }] }] } }),
      "repo/.qwen/settings.json": JSON.stringify({
        hooks: { PostToolUse: [{ hooks: [{ type: "command", command: '"$QWEN_PROJECT_DIR"/node_modules/.bin/agentsmd hook qwen' }] }] },
      }),
      "repo/.gemini/settings.json": JSON.stringify({ hooks: { AfterTool: [{ hooks: [{ type: "command", command: "agentsmd hook gemini" }] }] } }),
    });
    const env = { PATH, HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const { findings } = await doctorHooks(["--home", tree.home, "--cwd", tree.path("repo")], env);
    expect(findings.map((f) => [f.code, f.severity, f.agents![0]])).toEqual([
      ["hook-command-missing", "warning", "gemini"],
      ["hook-command-missing", "warning", "qwen"],
    ]);
    expect(findings[0]!.message).toContain("agentsmd is not on PATH");
    expect(findings[1]!.message).toContain(`${tree.path("repo/node_modules/.bin/agentsmd")} does not exist`);
    expect(findings[1]!.fix).toContain("npm install");
    expect(existsSync(tree.path("repo/RAN"))).toBe(false);
  }, 60_000);
});
