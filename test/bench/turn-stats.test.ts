/**
 * bench/lib/turn-stats.ts: the pure half of bench/turn.ts (the rotating order, medians, what
 * agentsmd and the no-op add, the table).
 */
import { describe, expect, it } from "vitest";
import { hostFigures, median, roundOrder, TABLE_HEADER, turnTable, type TurnConfig, type TurnSample } from "../../bench/lib/turn-stats.js";

const sample = (config: TurnConfig, wallMs: number, cpuMs: number | null = null, hookCalls: number | null = null): TurnSample => ({
  config,
  wallMs,
  cpuMs,
  hookCalls,
});

describe("roundOrder", () => {
  it("rotates the three configurations a step a round, so each runs first, second and third equally often", () => {
    expect(roundOrder(0)).toEqual(["none", "noop", "agentsmd"]);
    expect(roundOrder(1)).toEqual(["noop", "agentsmd", "none"]);
    expect(roundOrder(2)).toEqual(["agentsmd", "none", "noop"]);
    expect(roundOrder(3)).toEqual(roundOrder(0));
    const firsts = [0, 1, 2, 3, 4, 5].map((round) => roundOrder(round)[0]);
    expect(firsts.filter((c) => c === "none")).toHaveLength(2);
    expect(firsts.filter((c) => c === "agentsmd")).toHaveLength(2);
  });
});

describe("median", () => {
  it("is the middle value, the mean of the middle two for an even count, NaN for none; the input is not reordered", () => {
    const values = [5, 1, 3];
    expect(median(values)).toBe(3);
    expect(values).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe("hostFigures", () => {
  it("added(agentsmd) = c - a, added(no-op) = b - a, their ratio and c/b, on medians; the target is ratio <= 1.1", () => {
    const figures = hostFigures([
      sample("none", 1000, 500),
      sample("none", 1100, 520),
      sample("none", 900, 480),
      sample("noop", 1200, 600, 3),
      sample("noop", 1250, 610, 3),
      sample("noop", 1150, 590, 3),
      sample("agentsmd", 1300, 700),
      sample("agentsmd", 1350, 720),
      sample("agentsmd", 1250, 680),
    ]);
    expect(figures.none).toEqual({ runs: 3, wallMs: 1000, cpuMs: 500, hookCalls: null });
    expect(figures.noop.hookCalls).toBe(3);
    expect(figures.wall).toEqual({ agentsmd: 300, noop: 200, ratio: 1.5, overNoop: 1300 / 1200 });
    expect(figures.cpu).toEqual({ agentsmd: 200, noop: 100, ratio: 2, overNoop: 700 / 600 });
    expect(figures.meetsTarget).toBe(false);
    expect(hostFigures([sample("none", 1000), sample("noop", 1200), sample("agentsmd", 1210)]).meetsTarget).toBe(true);
  });

  it("has no ratio when the no-op added nothing measurable, and no CPU figures when a run lacks them", () => {
    const figures = hostFigures([sample("none", 1000, 10), sample("noop", 990, null), sample("agentsmd", 1010, 12)]);
    expect(figures.wall.ratio).toBeNull();
    expect(figures.meetsTarget).toBeNull();
    expect(figures.cpu).toBeNull();
    const faster = hostFigures([sample("none", 1000), sample("noop", 1100), sample("agentsmd", 990)]);
    expect(faster.wall.ratio).toBeCloseTo(-0.1);
    expect(faster.meetsTarget).toBeNull();
  });

  it("refuses a host with no successful turn in a configuration, naming it", () => {
    expect(() => hostFigures([sample("none", 1), sample("noop", 2)])).toThrow(/no successful turn with configuration "agentsmd"/);
  });
});

describe("turnTable", () => {
  it("a Markdown row per host: calls, the three medians, what each adds, the ratios and the verdict; a failed host says why", () => {
    const figures = hostFigures([sample("none", 1000, 500), sample("noop", 1200, 600, 4), sample("agentsmd", 1210, 640)]);
    const lines = turnTable([
      { host: "Qwen Code", figures },
      { host: "Cline", error: "3 failed turns" },
    ]).split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(`| ${TABLE_HEADER.join(" | ")} |`);
    expect(lines[2]).toBe("| Qwen Code | 4 | 1000 / 1200 / 1210 | +210 | +200 | 1.05x | 1.01x | 500 / 600 / 640 | +140 / +100 | 1.40x | meets (<= 1.1x) |");
    expect(lines[3]!.startsWith("| Cline | 3 failed turns |")).toBe(true);
    expect(lines[3]!.split("|")).toHaveLength(lines[2]!.split("|").length);
  });
});
