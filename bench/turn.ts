/**
 * What a real agent turn costs with and without agentsmd, per host (`npm run bench:turn`; not run by
 * CI or `npm test`: it needs the pinned agents of e2e/<host>/). For each host, the same scripted
 * one-tool turn (bench/turn-hosts.ts) in a fresh project + HOME per run, three configurations in
 * rotating order: (a) nothing installed, (b) a no-op in exactly agentsmd's slots, (c) agentsmd as the
 * README installs it. Wall time of the agent process and CPU of its process tree (GNU time's wait4
 * rusage, through e2e/lib/exec.ts `observeRuns`), medians over `--runs`; hook calls counted by the
 * no-op. Hosts run one after another. Prints a table and writes bench/results/turn.json.
 *
 * Usage: npm run bench:turn -- [--runs 7] [--only claude-code,qwen] [--out bench/results/turn.json]
 */
import { execFileSync } from "node:child_process";
import { chmod, cp, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { mkdtempSync } from "node:fs";
import { runAgentsmd } from "../e2e/lib/agentsmd.js";
import { observeRuns, type ObservedRun } from "../e2e/lib/exec.js";
import { REPO_ROOT } from "../e2e/lib/install.js";
import { hostFigures, roundOrder, turnTable, type HostFigures, type TableRow, type TurnConfig, type TurnSample } from "./lib/turn-stats.js";
import { noopHookSource, noopMcpServerSource, noopPluginModule, noopPluginText, slotDifferences, type InstalledFiles } from "./lib/turn-slots.js";
import { TURN_HOSTS, type HostFixture, type TurnHost } from "./turn-hosts.js";

interface Options {
  runs: number;
  only: string[] | null;
  out: string;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { runs: 7, only: null, out: path.join(REPO_ROOT, "bench", "results", "turn.json") };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === "--runs") {
      options.runs = Number(value());
      if (!Number.isInteger(options.runs) || options.runs < 1) throw new Error(`--runs takes a whole number >= 1, got ${argv[i]}`);
    } else if (arg === "--only") options.only = value().split(",");
    else if (arg === "--out") options.out = path.resolve(value());
    else throw new Error(`unknown argument ${arg}: use --runs N, --only host,host, --out FILE`);
  }
  const known = TURN_HOSTS.map((host) => host.id);
  const unknown = (options.only ?? []).filter((id) => !known.includes(id));
  if (unknown.length > 0) throw new Error(`--only: unknown host ${unknown.join(", ")}; hosts: ${known.join(", ")}`);
  return options;
}

/** agentsmd's user-scope hook command prefix (host/hook-command.ts `userHookPrefix`) for this checkout. */
const AGENTSMD_COMMAND = `node ${path.join(REPO_ROOT, "dist", "hook", "hook.cjs")}`;
/** Small text files under `base` (no .git, no node_modules): what an install may have written. */
async function snapshot(base: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== ".git" && entry.name !== "node_modules") await walk(full);
      } else if (entry.isFile() && (await stat(full)).size <= 256 * 1024) {
        files.set(path.relative(base, full), await readFile(full, "utf8"));
      }
    }
  };
  await walk(base);
  return files;
}

function changed(before: Map<string, string>, after: Map<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  // agentsmd's record of its own install (state/agentsmd/install/) is no slot of the host's.
  for (const [name, text] of after) if (before.get(name) !== text && !/(^|\/)agentsmd\/install\//.test(name)) out[name] = text;
  return out;
}

interface Prepared {
  fixture: HostFixture;
  /** Where the no-op logs its calls (none for (a) and (c)). */
  callLog: string | null;
  /** What the install wrote, for the slot check. */
  installed: InstalledFiles | null;
}

async function agentsmd(args: string[], fx: HostFixture): Promise<string> {
  const result = await runAgentsmd(args, { env: fx.installEnv, cwd: fx.repo, timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`agentsmd ${args.join(" ")} failed (exit ${result.code}):\n${result.stdout.toString()}\n${result.stderr.toString()}`);
  return result.stdout.toString();
}

/** A fresh fixture of `host` in configuration `config`. */
async function prepare(host: TurnHost, config: TurnConfig): Promise<Prepared> {
  const fixture = await host.fixture();
  if (config === "none") return { fixture, callLog: null, installed: null };
  const installation = host.installation;
  // The no-op hook and MCP server count their calls; a no-op plugin module is called in-process, uncounted.
  const callLog = config === "noop" && installation.kind !== "plugin" ? path.join(fixture.base, "noop-calls.log") : null;
  const noop = path.join(fixture.base, installation.kind === "plugin" ? "noop-module.js" : installation.kind === "mcp" ? "noop-mcp.cjs" : "noop-hook.cjs");
  if (config === "noop") {
    const source =
      installation.kind === "plugin"
        ? noopPluginModule(installation.noop)
        : installation.kind === "mcp"
          ? noopMcpServerSource(callLog!)
          : noopHookSource(callLog!);
    await writeFile(noop, source);
  }
  const before = await snapshot(fixture.base);
  let command: string;
  if (installation.kind === "plugin") {
    const report = JSON.parse(await agentsmd(["--json", "setup", host.id], fixture)) as { agents: Array<{ id: string; changes: Array<{ file: string }> }> };
    const file = report.agents.find((agent) => agent.id === host.id)?.changes[0]?.file;
    if (!file) throw new Error(`agentsmd setup ${host.id} wrote no module`);
    if (config === "noop") {
      const module = installation.module.startsWith("file://") ? `file://${noop}` : noop;
      await writeFile(file, noopPluginText(await readFile(file, "utf8"), installation.module, module));
      command = module;
    } else command = installation.module;
  } else {
    const args = ["install", host.id, ...((installation.kind === "hook" ? await installation.args?.() : undefined) ?? [])];
    if (config === "noop") args.push("--command", `node ${noop}`);
    await agentsmd(args, fixture);
    // A hook entry holds the command line; an MCP entry `node` and the script as its first argument.
    const mcp = installation.kind === "mcp";
    command = config === "noop" ? (mcp ? noop : `node ${noop}`) : mcp ? path.join(REPO_ROOT, "dist", "cli", "bin.js") : AGENTSMD_COMMAND;
  }
  const files = changed(before, await snapshot(fixture.base));
  return { fixture, callLog, installed: { base: fixture.base, command, files } };
}

async function countLines(file: string | null): Promise<number | null> {
  if (file === null) return null;
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line !== "").length;
}

interface HostResult {
  id: string;
  name: string;
  samples: TurnSample[];
  failures: Array<{ config: TurnConfig; detail: string }>;
  slotCheck: string[] | null;
  figures?: HostFigures;
  error?: string;
}

const MAX_FAILURES = 3;

/** agentsmd's compile cache in a fixture's HOME (hook/launch.ts: `$XDG_CACHE_HOME` is `~/.cache` in every harness but Copilot's, which shares one). */
const compileCache = (home: string) => path.join(home, ".cache", "agentsmd", "compile-cache");

/**
 * A user's hooks run with agentsmd's compile cache warm after their first call; a fresh HOME per run
 * would make every measured turn a first one. The warm-up round's cache is kept and put in each
 * later agentsmd fixture (0700, as the launcher requires); the warm-up round shows the cold cost.
 */
async function keepCache(home: string, kept: string): Promise<boolean> {
  const from = compileCache(home);
  if (!(await stat(from).catch(() => null))?.isDirectory()) return false;
  await cp(from, kept, { recursive: true });
  return true;
}

async function seedCache(home: string, kept: string): Promise<void> {
  const to = compileCache(home);
  await mkdir(path.dirname(to), { recursive: true, mode: 0o700 });
  await cp(kept, to, { recursive: true });
  for (const dir of [path.dirname(path.dirname(to)), path.dirname(to), to]) await chmod(dir, 0o700);
}

async function measureHost(host: TurnHost, runs: number): Promise<HostResult> {
  const result: HostResult = { id: host.id, name: host.name, samples: [], failures: [], slotCheck: null };
  await host.ready();
  const seen: ObservedRun[] = [];
  const stop = observeRuns((run) => seen.push(run));
  const firstInstall: Partial<Record<TurnConfig, InstalledFiles>> = {};
  const keptCache = path.join(mkdtempSync(path.join(tmpdir(), "agentsmd-turn-cache-")), "compile-cache");
  let cacheKept = false;
  try {
    // One untimed turn per configuration first: caches of the agent and of Node (compile cache) warm.
    for (let round = -1; round < runs; round++) {
      for (const config of roundOrder(round < 0 ? 0 : round)) {
        const prepared = await prepare(host, config);
        try {
          if (prepared.installed && !firstInstall[config]) firstInstall[config] = prepared.installed;
          if (config === "agentsmd" && cacheKept) await seedCache(prepared.fixture.home, keptCache);
          seen.length = 0;
          const outcome = await prepared.fixture.turn();
          if (config === "agentsmd" && !cacheKept && outcome.ok) {
            cacheKept = await keepCache(prepared.fixture.home, keptCache);
            if (cacheKept) process.stderr.write(`  ${host.id}: agentsmd's compile cache kept for the later turns\n`);
          }
          const agentRun = seen.at(-1);
          if (!outcome.ok || !agentRun) {
            result.failures.push({ config, detail: outcome.detail || "no agent run observed" });
            process.stderr.write(`  ${host.id} ${config}: turn failed\n${outcome.detail.slice(-1500)}\n`);
            if (result.failures.length >= MAX_FAILURES) throw new Error(`${MAX_FAILURES} failed turns; the last: ${outcome.detail.slice(-600)}`);
            continue;
          }
          if (round < 0) continue;
          const sample: TurnSample = { config, wallMs: agentRun.wallMs, cpuMs: agentRun.cpuMs, hookCalls: await countLines(prepared.callLog) };
          result.samples.push(sample);
          process.stderr.write(
            `  ${host.id} round ${round + 1}/${runs} ${config}: ${Math.round(sample.wallMs)} ms wall, ${sample.cpuMs ?? "-"} ms CPU${sample.hookCalls === null ? "" : `, ${sample.hookCalls} calls`}\n`,
          );
        } finally {
          await prepared.fixture.cleanup().catch(() => undefined);
        }
      }
      if (round === -1 && firstInstall.agentsmd && firstInstall.noop) {
        result.slotCheck = slotDifferences(firstInstall.agentsmd, firstInstall.noop);
        if (result.slotCheck.length > 0) throw new Error(`the no-op is not in agentsmd's slots: ${result.slotCheck.join("; ")}`);
      }
    }
    result.figures = hostFigures(result.samples);
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  } finally {
    stop();
    await rm(path.dirname(keptCache), { recursive: true, force: true });
  }
  return result;
}

type StoredHost = HostResult & { load: { before: number[]; after: number[] } };

async function previousHosts(file: string): Promise<StoredHost[]> {
  const text = await readFile(file, "utf8").catch(() => null);
  if (text === null) return [];
  try {
    const hosts = (JSON.parse(text) as { hosts?: unknown }).hosts;
    return Array.isArray(hosts) ? (hosts as StoredHost[]) : [];
  } catch {
    throw new Error(`${file} is not the JSON bench:turn writes: remove it or pass --out another file`);
  }
}

function commitOf(): { commit: string; dirty: boolean } {
  const git = (args: string[]) => execFileSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" }).trim();
  return { commit: git(["rev-parse", "--short", "HEAD"]), dirty: git(["status", "--porcelain", "--", "src", "bench", "e2e"]) !== "" };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  // Codex's harness hands the agent the caller's environment: keep agentsmd's state out of the real HOME.
  const state = (process.env.XDG_STATE_HOME = mkdtempSync(path.join(tmpdir(), "agentsmd-turn-state-")));
  const hosts = TURN_HOSTS.filter((host) => options.only === null || options.only.includes(host.id));
  const started = new Date();
  const results: StoredHost[] = [];
  for (const host of hosts) {
    process.stderr.write(
      `${host.name}: ${options.runs} rounds of (none, no-op, agentsmd), load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}\n`,
    );
    const before = loadavg();
    const result = await measureHost(host, options.runs);
    results.push({ ...result, load: { before, after: loadavg() } });
    if (result.error) process.stderr.write(`  ${host.name}: ${result.error}\n`);
  }
  // A run of some hosts (--only) keeps the other hosts' results of the file it updates.
  const earlier = options.only === null ? [] : await previousHosts(options.out);
  const all = [...earlier.filter((e) => !results.some((r) => r.id === e.id)), ...results].sort(
    (x, y) => TURN_HOSTS.findIndex((h) => h.id === x.id) - TURN_HOSTS.findIndex((h) => h.id === y.id),
  );
  const rows: TableRow[] = all.map((r) => ({
    host: r.name,
    ...(r.figures ? { figures: r.figures } : {}),
    ...(r.error ? { error: r.error.split("\n")[0]!.slice(0, 160) } : {}),
  }));
  const table = turnTable(rows);
  const machine = { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, node: process.version, platform: `${process.platform} ${process.arch}` };
  const loads = all.map((r) => `${r.id} ${r.load.before[0]!.toFixed(2)}->${r.load.after[0]!.toFixed(2)}`);
  process.stdout.write(`\n${table}\n\nN = ${options.runs} per configuration; load (1 min) per host: ${loads.join(", ")}\n`);
  await mkdir(path.dirname(options.out), { recursive: true });
  const document = {
    date: started.toISOString(),
    ...commitOf(),
    machine,
    runs: options.runs,
    method:
      "per host: the same scripted one-tool turn (read pkg/sub/x.ts, then answer) in a fresh project + HOME per run; (a) nothing installed, (b) a no-op (`node` reading stdin, printing nothing; a no-op module for plugin hosts; a no-op MCP server for Continue) in agentsmd's slots, (c) agentsmd installed; rotating order per round after one untimed round; wall time of the agent process and CPU (user+sys) of its process tree from GNU time (wait4 rusage); medians",
    table,
    hosts: all,
  };
  await writeFile(options.out, `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), options.out)}\n`);
  await rm(state, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
