/**
 * The pure half of bench/turn.ts: the order the three configurations run in, the per-host figures
 * (what agentsmd and a no-op hook add to a real agent turn) and the table.
 */

/** (a) no hooks, (b) a no-op in agentsmd's slots, (c) agentsmd as the README installs it. */
const TURN_CONFIGS = ["none", "noop", "agentsmd"] as const;
export type TurnConfig = (typeof TURN_CONFIGS)[number];

/**
 * The configurations of round `round`, rotated one step a round so none always runs first (on a
 * colder or warmer machine): none noop agentsmd, then noop agentsmd none, then agentsmd none noop.
 * @example roundOrder(1) // ["noop", "agentsmd", "none"]
 */
export function roundOrder(round: number): TurnConfig[] {
  const shift = ((round % TURN_CONFIGS.length) + TURN_CONFIGS.length) % TURN_CONFIGS.length;
  return [...TURN_CONFIGS.slice(shift), ...TURN_CONFIGS.slice(0, shift)];
}

/**
 * The median of `values` (the mean of the middle two for an even count); NaN for none.
 * @example median([3, 1, 2]) // 2
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One turn as measured. */
export interface TurnSample {
  config: TurnConfig;
  wallMs: number;
  /** CPU of the agent's process tree, ms (null when not measured). */
  cpuMs: number | null;
  /** Hook calls (or no-op plugin/server calls) counted during the turn; null where not counted. */
  hookCalls: number | null;
}

/** Medians of one configuration. */
interface ConfigFigures {
  runs: number;
  wallMs: number;
  cpuMs: number | null;
  hookCalls: number | null;
}

/** What agentsmd and the no-op add to a turn, and how they compare (target: ratio <= 1.1). */
interface Added {
  /** c - a */
  agentsmd: number;
  /** b - a */
  noop: number;
  /** (c - a) / (b - a): null when the no-op added nothing measurable (<= 0) */
  ratio: number | null;
  /** c / b */
  overNoop: number;
}

export interface HostFigures {
  none: ConfigFigures;
  noop: ConfigFigures;
  agentsmd: ConfigFigures;
  wall: Added;
  cpu: Added | null;
  /** ratio of wall time within `target` (null when either added time is not positive: noise) */
  meetsTarget: boolean | null;
}

/** The ratio the issue sets: agentsmd's added time within 1.1x of the no-op's. */
const TARGET_RATIO = 1.1;

function figuresOf(samples: readonly TurnSample[]): ConfigFigures {
  const cpu = samples.map((s) => s.cpuMs).filter((v): v is number => v !== null);
  const calls = samples.map((s) => s.hookCalls).filter((v): v is number => v !== null);
  return {
    runs: samples.length,
    wallMs: median(samples.map((s) => s.wallMs)),
    cpuMs: cpu.length === samples.length && cpu.length > 0 ? median(cpu) : null,
    hookCalls: calls.length > 0 ? median(calls) : null,
  };
}

function addedOf(a: number, b: number, c: number): Added {
  const noop = b - a;
  return { agentsmd: c - a, noop, ratio: noop > 0 ? (c - a) / noop : null, overNoop: c / b };
}

/**
 * The figures of one host from its samples; throws when a configuration has none (a host whose
 * turns all failed is reported as failed, not as a ratio of nothing).
 */
export function hostFigures(samples: readonly TurnSample[], target: number = TARGET_RATIO): HostFigures {
  const of = (config: TurnConfig): ConfigFigures => {
    const mine = samples.filter((s) => s.config === config);
    if (mine.length === 0) throw new Error(`no successful turn with configuration ${JSON.stringify(config)}`);
    return figuresOf(mine);
  };
  const none = of("none");
  const noop = of("noop");
  const agentsmd = of("agentsmd");
  const wall = addedOf(none.wallMs, noop.wallMs, agentsmd.wallMs);
  const cpu = none.cpuMs !== null && noop.cpuMs !== null && agentsmd.cpuMs !== null ? addedOf(none.cpuMs, noop.cpuMs, agentsmd.cpuMs) : null;
  // Hooks cannot make a turn faster: a negative added time is the spread of the runs, and decides nothing.
  return { none, noop, agentsmd, wall, cpu, meetsTarget: wall.ratio === null || wall.agentsmd < 0 ? null : wall.ratio <= target };
}

/** One row of the table: a host's figures, or why it has none. */
export interface TableRow {
  host: string;
  figures?: HostFigures;
  error?: string;
}

const ms = (value: number | null | undefined): string => (value === null || value === undefined || Number.isNaN(value) ? "-" : `${Math.round(value)}`);
const signedMs = (value: number | null | undefined): string => (value === null || value === undefined ? "-" : `${value >= 0 ? "+" : ""}${Math.round(value)}`);
const times = (value: number | null | undefined): string => (value === null || value === undefined || !Number.isFinite(value) ? "-" : `${value.toFixed(2)}x`);

/** The column headers of {@link turnTable}. */
export const TABLE_HEADER = [
  "host",
  "hook calls",
  "wall a/b/c ms",
  "added agentsmd",
  "added no-op",
  "ratio",
  "c/b",
  "CPU a/b/c ms",
  "CPU added agentsmd / no-op",
  "CPU ratio",
  "target",
] as const;

/**
 * A Markdown table of the rows (the same text the bench prints and docs/performance.md holds).
 * @example turnTable([{ host: "Codex", error: "timed out" }]) // "| host | ... |\n|---|...|\n| Codex | timed out ... |"
 */
export function turnTable(rows: readonly TableRow[], target: number = TARGET_RATIO): string {
  const lines = [`| ${TABLE_HEADER.join(" | ")} |`, `|${TABLE_HEADER.map(() => "---").join("|")}|`];
  for (const row of rows) {
    const f = row.figures;
    if (!f) {
      lines.push(`| ${row.host} | ${row.error ?? "not run"} |${" |".repeat(TABLE_HEADER.length - 2)}`);
      continue;
    }
    const verdict = f.meetsTarget === null ? "n/a" : f.meetsTarget ? `meets (<= ${target}x)` : "misses";
    lines.push(
      `| ${[
        row.host,
        f.noop.hookCalls === null ? "-" : `${f.noop.hookCalls}`,
        `${ms(f.none.wallMs)} / ${ms(f.noop.wallMs)} / ${ms(f.agentsmd.wallMs)}`,
        signedMs(f.wall.agentsmd),
        signedMs(f.wall.noop),
        times(f.wall.ratio),
        times(f.wall.overNoop),
        `${ms(f.none.cpuMs)} / ${ms(f.noop.cpuMs)} / ${ms(f.agentsmd.cpuMs)}`,
        f.cpu ? `${signedMs(f.cpu.agentsmd)} / ${signedMs(f.cpu.noop)}` : "-",
        times(f.cpu?.ratio),
        verdict,
      ].join(" | ")} |`,
    );
  }
  return lines.join("\n");
}
