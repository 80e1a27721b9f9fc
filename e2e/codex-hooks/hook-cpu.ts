/**
 * CPU of one `agentsmd hook codex` process (user + sys, from the shell's `times` after the child
 * exits) against a bare `node -e 0`, in alternating pairs in the same run, for SessionStart and for
 * a PostToolUse on the shell tool (`cat` of a nested file; the first call delivers, later calls
 * find nothing new). Prints medians and ratios.
 *
 *   npm run build && e2e/codex/node_modules/.bin/tsx e2e/codex-hooks/hook-cpu.ts [pairs]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { writeTree } from "../lib/tree.js";
import { AGENTSMD_BIN } from "../lib/agentsmd.js";
import { FIXTURE } from "./harness.js";

const PAIRS = Number(process.argv[2] ?? 15);

/** CPU seconds (user + sys) of `command` run by bash with `input` on stdin. */
function cpu(command: string, inputFile: string, env: NodeJS.ProcessEnv): number {
  const r = spawnSync("bash", ["-c", `${command} < ${JSON.stringify(inputFile)} > /dev/null 2>&1; times`], { env, encoding: "utf8" });
  const children = (r.stdout.trim().split("\n")[1] ?? "").trim().split(/\s+/);
  const seconds = (t: string) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(t);
    return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
  };
  return seconds(children[0] ?? "") + seconds(children[1] ?? "");
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main(): Promise<void> {
  const base = mkdtempSync(path.join(tmpdir(), "agentsmd-hook-cpu-"));
  try {
    await writeTree(base, FIXTURE);
    const repo = path.join(base, "repo");
    const env = { ...process.env, HOME: path.join(base, "home"), CODEX_HOME: path.join(base, "home/.codex"), XDG_STATE_HOME: path.join(base, "state") };
    const common = { session_id: "cpu-session", transcript_path: null, cwd: repo, model: "gpt-5.5", permission_mode: "bypassPermissions" };
    const start = path.join(base, "start.json");
    const tool = path.join(base, "tool.json");
    writeFileSync(start, JSON.stringify({ ...common, hook_event_name: "SessionStart", source: "startup" }));
    writeFileSync(
      tool,
      JSON.stringify({
        ...common,
        turn_id: "t",
        hook_event_name: "PostToolUse",
        tool_name: "Bash",
        tool_input: { command: "cat pkg/src/a.ts" },
        tool_response: "x",
        tool_use_id: "c",
      }),
    );
    // the command `agentsmd install codex` writes: the lean hook entry
    const hook = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(path.dirname(AGENTSMD_BIN), "..", "hook", "hook.cjs"))} hook codex`;
    const bare = `${JSON.stringify(process.execPath)} -e 0`;
    const rows: Record<string, { hook: number[]; bare: number[] }> = { SessionStart: { hook: [], bare: [] }, "PostToolUse (seen)": { hook: [], bare: [] } };
    cpu(hook, start, env); // warm the file cache, create the conversation
    cpu(hook, tool, env); // the first tool call delivers pkg's file; later calls find nothing new
    for (let i = 0; i < PAIRS; i++) {
      for (const [name, file] of [
        ["SessionStart", start],
        ["PostToolUse (seen)", tool],
      ] as const) {
        const row = rows[name]!;
        if (i % 2 === 0) {
          row.bare.push(cpu(bare, file, env));
          row.hook.push(cpu(hook, file, env));
        } else {
          row.hook.push(cpu(hook, file, env));
          row.bare.push(cpu(bare, file, env));
        }
        if (name === "SessionStart") cpu(hook, tool, env); // keep the tool call "seen" after a restart of the conversation
      }
    }
    for (const [name, row] of Object.entries(rows)) {
      const h = median(row.hook);
      const b = median(row.bare);
      console.log(
        `${name}: hook ${(h * 1000).toFixed(1)} ms CPU, node -e 0 ${(b * 1000).toFixed(1)} ms CPU, ratio ${(h / b).toFixed(2)} (${PAIRS} alternating pairs, medians)`,
      );
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

await main();
