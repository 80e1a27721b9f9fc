/**
 * CPU of whole child processes (user + sys, as the kernel accounts it at exit), measured in
 * alternating pairs against a baseline command in the same run.
 *
 * Node reports rusage for its own process only, so each run goes through `bash -c '...; times'`:
 * bash's `times` prints getrusage(RUSAGE_CHILDREN) of the shell, which is exactly the one process
 * it waited for (bash's own start-up is not included), with millisecond resolution.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { percentile } from "./measure.js";

export interface ProcessRun {
  /** user + sys CPU of the process, ms */
  cpuMs: number;
  stdout: string;
  stderr: string;
  status: number;
}

export interface Command {
  argv: readonly string[];
  /** stdin text (default: empty) */
  input?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

const SCRIPT = 'in=$1; out=$2; shift 2; "$@" <"$in" >"$out" 2>"$out.err"; rc=$?; times; exit $rc';

function seconds(text: string): number {
  // bash prints "0m0.052s"
  const m = /^(\d+)m([\d.]+)s$/.exec(text.trim());
  if (!m) throw new Error(`cannot parse bash times field ${JSON.stringify(text)}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

let scratch: string | undefined;
function scratchDir(): string {
  return (scratch ??= mkdtempSync(join(tmpdir(), "agentsmd-bench-cpu-")));
}

/** Runs one process to completion and returns its CPU (user + sys) and output. */
export function runProcess(command: Command): ProcessRun {
  const dir = scratchDir();
  const inFile = join(dir, "in");
  const outFile = join(dir, "out");
  writeFileSync(inFile, command.input ?? "");
  const result = spawnSync("bash", ["-c", SCRIPT, "bash", inFile, outFile, ...command.argv], {
    encoding: "utf8",
    env: command.env ?? process.env,
    ...(command.cwd ? { cwd: command.cwd } : {}),
    maxBuffer: 1 << 20,
  });
  if (result.error) throw result.error;
  const lines = result.stdout.trim().split("\n");
  const children = lines[lines.length - 1]!.trim().split(/\s+/);
  if (children.length !== 2) throw new Error(`unexpected bash times output ${JSON.stringify(result.stdout)}`);
  return {
    cpuMs: (seconds(children[0]!) + seconds(children[1]!)) * 1000,
    stdout: readFileSync(outFile, "utf8"),
    stderr: readFileSync(`${outFile}.err`, "utf8"),
    status: result.status ?? -1,
  };
}

/** `node -e 0`: the floor every hook process pays. */
export const BARE_NODE: Command = { argv: [process.execPath, "-e", "0"] };

export interface PairResult {
  /** median CPU of the measured command, ms */
  cpuMs: number;
  /** median CPU of the baseline in the same pairs, ms */
  baseMs: number;
  /** median over pairs of (command / baseline) */
  ratio: number;
  p95Ms: number;
  pairs: number;
  samples: number[];
  baseSamples: number[];
  /** With `charge`: what it added per run (median, ms) and the median over pairs of (command + its charge) / baseline. */
  charged?: { cpuMs: number; ratio: number; samples: number[] };
}

/**
 * `pairs` alternating runs of `baseline` (default `node -e 0` with the command's environment) and the command (the order flips every pair so neither
 * always runs on a warmer machine). `next(i)` gives the i-th command (fresh input per sample);
 * `check` sees every run of the command and throws when it did not do its job.
 */
export function alternatingPairs(
  pairs: number,
  next: (i: number) => Command,
  o: {
    baseline?: Command;
    check?: (run: ProcessRun, i: number) => void;
    before?: (i: number) => void;
    /** CPU used so far (ms) by another process that works for the command (a server it talks to): its growth over each run is charged to that run. */
    charge?: () => number;
  } = {},
): PairResult {
  const samples: number[] = [];
  const baseSamples: number[] = [];
  const ratios: number[] = [];
  const charges: number[] = [];
  const chargedRatios: number[] = [];
  const measured = (command: Command): ProcessRun => {
    const before = o.charge?.() ?? 0;
    const run = runProcess(command);
    if (o.charge) charges.push(o.charge() - before);
    return run;
  };
  for (let i = 0; i < pairs; i++) {
    o.before?.(i);
    const command = next(i);
    // The same environment on both sides (NODE_EXTRA_CA_CERTS alone costs a bare node several ms).
    const baseline = o.baseline ?? { ...BARE_NODE, env: command.env ?? process.env };
    let base: ProcessRun;
    let run: ProcessRun;
    if (i % 2 === 0) {
      base = runProcess(baseline);
      run = measured(command);
    } else {
      run = measured(command);
      base = runProcess(baseline);
    }
    if (run.status !== 0) throw new Error(`${command.argv.join(" ")} exited ${run.status}: ${run.stderr.slice(0, 500)}`);
    o.check?.(run, i);
    samples.push(run.cpuMs);
    baseSamples.push(base.cpuMs);
    ratios.push(run.cpuMs / Math.max(1, base.cpuMs));
    if (o.charge) chargedRatios.push((run.cpuMs + charges[charges.length - 1]!) / Math.max(1, base.cpuMs));
  }
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  return {
    cpuMs: percentile(sorted(samples), 0.5),
    baseMs: percentile(sorted(baseSamples), 0.5),
    ratio: percentile(sorted(ratios), 0.5),
    p95Ms: percentile(sorted(samples), 0.95),
    pairs,
    samples,
    baseSamples,
    ...(o.charge ? { charged: { cpuMs: percentile(sorted(charges), 0.5), ratio: percentile(sorted(chargedRatios), 0.5), samples: charges } } : {}),
  };
}

/** Removes the scratch directory of runProcess. */
export function cleanupProcessScratch(): void {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
}

export interface ModuleTrace {
  /** JavaScript files loaded (ES modules and CommonJS), node_modules included */
  modules: number;
  /** their source bytes: what V8 had to parse (or load from a code cache) */
  bytes: number;
  /** built-in modules imported as ES modules (`node:*`) */
  builtins: number;
  files: Array<{ url: string; bytes: number }>;
}

/**
 * Runs the command once more with the trace preload (bench/lib/trace-modules.ts) and reports
 * what it loaded. The command's argv[0] must be node.
 */
export function traceModules(command: Command): ModuleTrace {
  const dir = scratchDir();
  const out = join(dir, `trace-${Date.now()}-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(out, "");
  const preload = new URL("./trace-modules.js", import.meta.url).href;
  const [node, ...rest] = command.argv;
  const run = runProcess({ ...command, argv: [node!, "--import", preload, ...rest], env: { ...(command.env ?? process.env), AGENTSMD_TRACE_OUT: out } });
  if (run.status !== 0) throw new Error(`traced ${command.argv.join(" ")} exited ${run.status}: ${run.stderr.slice(0, 500)}`);
  const seen = new Map<string, number>();
  let builtins = 0;
  for (const line of readFileSync(out, "utf8").split("\n")) {
    if (!line) continue;
    const entry = JSON.parse(line) as { url: string; bytes: number };
    if (entry.url === preload || entry.url.includes("/bench/.build/bench/lib/trace-")) continue;
    if (entry.url.startsWith("node:")) {
      builtins++;
      continue;
    }
    if (!seen.has(entry.url)) seen.set(entry.url, entry.bytes);
    else seen.set(entry.url, Math.max(seen.get(entry.url)!, entry.bytes));
  }
  rmSync(out, { force: true });
  const files = [...seen].map(([url, bytes]) => ({ url, bytes }));
  return { modules: files.length, bytes: files.reduce((s, f) => s + f.bytes, 0), builtins, files };
}
