/**
 * The OpenCode plugin's tool call with one broad config `instructions` glob (`**\/*.md` over 400
 * directories) against the same tree without it, watching and not, with the fs calls per call
 * (the glob was walked at every call). CPU per call, ratio against the no-glob run of
 * the same round. Run: node bench/.build/bench/experiments/listed-glob.js [calls]
 */
import { mkdtempSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OpenCodeAgents } from "../../src/integrations/opencode/index.js";
import { countingFileSystem } from "../../src/io/file-system.js";

const calls = Number(process.argv[2] ?? 20);

function makeTree(glob: boolean): string {
  const root = mkdtempSync(join(tmpdir(), "listed-glob-"));
  const repo = join(root, "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  for (let i = 0; i < 400; i++) {
    mkdirSync(join(repo, `d${i % 20}`, `e${i}`), { recursive: true });
    writeFileSync(join(repo, `d${i % 20}`, `e${i}`, "x.ts"), "x\n");
  }
  writeFileSync(join(repo, "AGENTS.md"), "ROOT\n");
  writeFileSync(join(repo, "d0", "AGENTS.md"), "D0\n");
  if (glob) writeFileSync(join(repo, "opencode.json"), JSON.stringify({ instructions: ["**/*.md"] }));
  mkdirSync(join(root, "home"));
  mkdirSync(join(root, "state"));
  // A repository not changed in the last hour: a directory modified within 2 s is not vouched for by its mtime.
  const old = new Date(Date.now() - 3_600_000);
  const age = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) age(join(dir, entry.name));
    utimesSync(dir, old, old);
  };
  age(root);
  return root;
}

async function run(glob: boolean, watch: boolean): Promise<{ cpuMs: number; readdir: number; stat: number }> {
  const root = makeTree(glob);
  const repo = join(root, "repo");
  const { fs, counters, reset } = countingFileSystem();
  const agents = new OpenCodeAgents({ directory: repo, worktree: repo, home: join(root, "home"), env: {}, fs }, { stateDir: join(root, "state"), watch });
  const hooks = agents.hooks();
  const call = (i: number) =>
    hooks["tool.execute.after"]!(
      { tool: "read", sessionID: "s", callID: `c${i}`, args: { filePath: join(repo, `d${i % 20}`, `e${i % 400}`, "x.ts") } },
      { title: "", output: "x", metadata: {} },
    );
  await call(0);
  await call(1);
  reset();
  const start = process.cpuUsage();
  for (let i = 2; i < calls + 2; i++) await call(i);
  const cpu = process.cpuUsage(start);
  await agents.dispose();
  return { cpuMs: (cpu.user + cpu.system) / 1000 / calls, readdir: counters.readdir / calls, stat: (counters.stat + counters.lstat) / calls };
}

for (let round = 0; round < 2; round++) {
  for (const watch of [true, false]) {
    const base = await run(false, watch);
    const glob = await run(true, watch);
    console.log(
      `round ${round} watch=${watch}: no glob ${base.cpuMs.toFixed(2)} ms CPU/call; **/*.md at 400 dirs ${glob.cpuMs.toFixed(2)} ms/call ` +
        `(${glob.readdir} listings, ${glob.stat} stats per call); ratio ${(glob.cpuMs / base.cpuMs).toFixed(2)}x`,
    );
  }
}
