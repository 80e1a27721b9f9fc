/**
 * The CLI rows: `agentsmd --version`, `show`, `explain` and `tree` through the package's bin
 * (dist/cli/agentsmd.cjs, a CommonJS shim in front of the ES module dist/cli/bin.js), each
 * as the CPU of its whole process (user + sys, the kernel's account) against `node -e 0` in
 * alternating pairs of the same run (bench/lib/process-cpu.ts), on the bundled example
 * (examples/monorepo). A CLI command's start-up is most of its cost: the targets are `--version`
 * within 1.5x and `show` within 2x; explain and tree are reported (INFO). One untimed warm-up call
 * per row fills V8's code cache of the bundle `show` runs from (a user's second call on).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { alternatingPairs, runProcess, traceModules, type Command, type PairResult } from "./lib/process-cpu.js";
import { BENCH_DIR } from "./generate-tree.js";

const REPO = dirname(BENCH_DIR);
/** The package's bin (package.json "bin"), what a user's `agentsmd` runs. */
const CLI_BIN = join(REPO, (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { bin: { agentsmd: string } }).bin.agentsmd);
const EXAMPLE = join(REPO, "examples/monorepo");

export interface CliRow {
  command: string;
  argv: string[];
  cpu?: PairResult;
  /** JavaScript files loaded and their bytes (one traced run) */
  trace?: { modules: number; bytes: number };
  /** the target ratio to `node -e 0`, when the row has one */
  target?: number;
  met?: boolean;
  error?: string;
}

const ROWS: ReadonlyArray<{ command: string; argv: string[]; target?: number; expect(stdout: string): boolean }> = [
  { command: "--version", argv: ["--version"], target: 1.5, expect: (out) => /^\d+\.\d+\.\d+/.test(out) },
  { command: "show", argv: ["show", "--cwd", join(EXAMPLE, "packages/api/src")], target: 2, expect: (out) => out.includes("Instructions from:") },
  { command: "explain", argv: ["explain", join(EXAMPLE, "packages/api/src/index.ts")], expect: (out) => out.includes("AGENTS.md") },
  { command: "tree", argv: ["tree", EXAMPLE], expect: (out) => out.includes("AGENTS.md") },
];

/** Measures every CLI row; `quick`: 7 pairs, else 21. */
export function cliRows(o: { quick: boolean; log: (s: string) => void }): CliRow[] {
  const rows: CliRow[] = [];
  if (!existsSync(CLI_BIN)) {
    o.log(`  cli            skipped: ${CLI_BIN} missing (npm run build)`);
    return rows;
  }
  const dir = mkdtempSync(join(tmpdir(), "agentsmd-bench-cli-"));
  // A clean environment, the same on both sides of each pair; a cache directory of its own.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home"), XDG_CACHE_HOME: join(dir, "cache") };
  const pairs = o.quick ? 7 : 21;
  try {
    for (const spec of ROWS) {
      const row: CliRow = { command: spec.command, argv: spec.argv, ...(spec.target !== undefined ? { target: spec.target } : {}) };
      rows.push(row);
      const command: Command = { argv: [process.execPath, CLI_BIN, ...spec.argv], env, cwd: REPO };
      try {
        runProcess(command); // warm-up: the code cache
        row.cpu = alternatingPairs(pairs, () => command, {
          check: (run) => {
            if (!spec.expect(run.stdout)) throw new Error(`agentsmd ${spec.command} printed ${JSON.stringify(run.stdout.slice(0, 200))}`);
          },
        });
        const trace = traceModules({ ...command, env: { ...env, AGENTSMD_COMPILE_CACHE: "0" } });
        row.trace = { modules: trace.modules, bytes: trace.bytes };
        if (spec.target !== undefined) row.met = row.cpu.ratio <= spec.target;
        o.log(
          `  cli            agentsmd ${spec.command.padEnd(10)} cpu ${row.cpu.cpuMs.toFixed(0)} ms vs node -e 0 ${row.cpu.baseMs.toFixed(0)} ms = ${row.cpu.ratio.toFixed(2)}x${spec.target !== undefined ? ` (target ${spec.target}x)` : ""}  ${trace.modules} JS files, ${(trace.bytes / 1024).toFixed(0)} KB`,
        );
      } catch (error) {
        row.error = error instanceof Error ? error.message : String(error);
        o.log(`  cli            agentsmd ${spec.command} ERROR ${row.error.split("\n")[0]}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
