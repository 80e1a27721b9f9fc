/**
 * The plugin rows: what a host that loads agentsmd into its own process (OpenCode, Kilo Code, pi)
 * pays to import the package's entry (package.json exports `./opencode`, `./kilo`, `./pi`), and to
 * handle its first events (pi: `before_agent_start` and one `tool_result`; OpenCode, Kilo: the plugin
 * function and one `tool.execute.after` of a read), each in a child process (bench/plugin-child.ts):
 * the CPU of the whole process against `node -e 0` in alternating pairs (bench/lib/process-cpu.ts),
 * and, inside it, the wall and CPU of the `import()` and of the events (medians). Reported (INFO),
 * no target: docs/performance.md "Plugin hosts: importing agentsmd".
 *
 * AGENTSMD_BENCH_BEFORE=<another built checkout> measures its entries too, in the same pairs' run
 * (before/after of a change: main's checkout built with `npm run build`).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { alternatingPairs, traceModules, type Command, type PairResult, type ProcessRun } from "./lib/process-cpu.js";
import { BENCH_DIR } from "./generate-tree.js";

const REPO = dirname(BENCH_DIR);
const CHILD = join(dirname(fileURLToPath(import.meta.url)), "plugin-child.js");
const HOSTS = ["opencode", "kilo", "pi"] as const;

interface Cost {
  wallMs: number;
  cpuMs: number;
}

export interface PluginRow {
  host: string;
  /** "import": the entry's import() alone; "event": the import and the first events handled */
  step: "import" | "event";
  /** the checkout measured: "this" or AGENTSMD_BENCH_BEFORE's */
  build: string;
  entry: string;
  cpu?: PairResult;
  /** inside the child, medians: the import(), and with step "event" the events */
  inside?: { import: Cost; event?: Cost };
  /** JavaScript files loaded and their bytes (one traced run) */
  trace?: { modules: number; bytes: number };
  error?: string;
}

/** The ES module a package's export of `host` names (its `import` condition). */
function entryOf(root: string, host: string): string {
  const exports = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, { import: string }> }).exports;
  return join(root, exports[`./${host}`]!.import);
}

/** The tree every event runs against: the root file the host loads itself, one nested file below it. */
function writeTree(dir: string): string {
  const tree = join(dir, "tree");
  mkdirSync(join(tree, ".git"), { recursive: true });
  mkdirSync(join(tree, "pkg/src"), { recursive: true });
  writeFileSync(join(tree, "AGENTS.md"), "# root rules\n");
  writeFileSync(join(tree, "pkg/AGENTS.md"), "# nested rules\n");
  writeFileSync(join(tree, "pkg/src/a.ts"), "export {};\n");
  return tree;
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

/** Measures every plugin row; `quick`: 7 pairs, else 21. */
export function pluginRows(o: { quick: boolean; log: (s: string) => void }): PluginRow[] {
  const rows: PluginRow[] = [];
  if (!existsSync(CHILD)) {
    o.log(`  plugin         skipped: ${CHILD} missing (tsc -p bench/tsconfig.json)`);
    return rows;
  }
  const builds: Array<{ name: string; root: string }> = [{ name: "this", root: REPO }];
  const before = process.env.AGENTSMD_BENCH_BEFORE;
  if (before) builds.unshift({ name: "before", root: before });
  const dir = mkdtempSync(join(tmpdir(), "agentsmd-bench-plugin-"));
  const tree = writeTree(dir);
  const pairs = o.quick ? 7 : 21;
  let fresh = 0;
  try {
    for (const host of HOSTS) {
      for (const step of ["import", "event"] as const) {
        for (const build of builds) {
          const entry = entryOf(build.root, host);
          const row: PluginRow = { host, step, build: build.name, entry };
          rows.push(row);
          // A state directory of its own per run: every run is a host's first conversation.
          const command = (): Command => {
            const state = join(dir, `state-${fresh++}`);
            return {
              argv: [process.execPath, CHILD, host, entry, step, tree],
              env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home"), XDG_STATE_HOME: state },
              cwd: tree,
            };
          };
          const inside: Array<{ import: Cost; event?: Cost & { delivered: boolean } }> = [];
          try {
            row.cpu = alternatingPairs(pairs, command, {
              check: (run: ProcessRun) => {
                const report = JSON.parse(run.stdout) as { import: Cost; event?: Cost & { delivered: boolean } };
                if (report.event && !report.event.delivered) throw new Error(`the ${host} plugin delivered nothing: ${run.stdout.slice(0, 200)}`);
                inside.push(report);
              },
            });
            const events = inside.map((report) => report.event).filter((each): each is Cost & { delivered: boolean } => each !== undefined);
            row.inside = {
              import: { wallMs: median(inside.map((r) => r.import.wallMs)), cpuMs: median(inside.map((r) => r.import.cpuMs)) },
              ...(events.length > 0 ? { event: { wallMs: median(events.map((e) => e.wallMs)), cpuMs: median(events.map((e) => e.cpuMs)) } } : {}),
            };
            const trace = traceModules(command());
            row.trace = { modules: trace.modules, bytes: trace.bytes };
            const event = row.inside.event ? `, events ${row.inside.event.wallMs.toFixed(0)} ms wall ${row.inside.event.cpuMs.toFixed(0)} ms CPU` : "";
            o.log(
              `  plugin         ${host.padEnd(8)} ${step.padEnd(6)} ${build.name.padEnd(6)} cpu ${row.cpu.cpuMs.toFixed(0)} ms vs node -e 0 ${row.cpu.baseMs.toFixed(0)} ms = ${row.cpu.ratio.toFixed(2)}x; import() ${row.inside.import.wallMs.toFixed(0)} ms wall ${row.inside.import.cpuMs.toFixed(0)} ms CPU${event}; ${trace.modules} JS files, ${(trace.bytes / 1024).toFixed(0)} KB`,
            );
          } catch (error) {
            row.error = error instanceof Error ? error.message : String(error);
            o.log(`  plugin         ${host} ${step} ${build.name} ERROR ${row.error.split("\n")[0]}`);
          }
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
