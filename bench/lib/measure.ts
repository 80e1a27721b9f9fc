/**
 * Timing through tinybench, one task per call so every measurement is independent and
 * implementations can be interleaved case by case (ratios are measured pair by pair).
 *
 * Operations faster than the timer's useful resolution run `batch` times per sample; the sample
 * is the batch mean (tinybench `overriddenDuration`), so medians are per operation.
 */
import { Bench } from "tinybench";

export interface Timing {
  /** milliseconds per operation */
  median: number;
  p95: number;
  mean: number;
  min: number;
  opsPerSec: number;
  samples: number;
  /** operations per sample */
  batch: number;
}

export interface MeasureOptions {
  /** minimum samples (tinybench `iterations`) */
  iterations: number;
  /** time budget in ms (tinybench `time`) */
  time: number;
  warmupIterations?: number;
  warmupTime?: number;
  batch?: number;
  beforeEach?: () => unknown;
  afterEach?: () => unknown;
  beforeAll?: () => unknown;
  afterAll?: () => unknown;
}

export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function summarize(samplesMs: readonly number[], batch = 1): Timing {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  return {
    median: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    mean,
    min: sorted[0]!,
    opsPerSec: mean > 0 ? 1000 / mean : Number.POSITIVE_INFINITY,
    samples: sorted.length,
    batch,
  };
}

export async function measure(name: string, fn: () => Promise<unknown>, o: MeasureOptions): Promise<Timing> {
  const batch = o.batch ?? 1;
  const bench = new Bench({
    name,
    iterations: o.iterations,
    time: o.time,
    warmup: true,
    warmupIterations: o.warmupIterations ?? Math.max(1, Math.min(16, Math.floor(o.iterations / 4))),
    warmupTime: o.warmupTime ?? Math.min(250, o.time / 4),
    retainSamples: true,
    throws: true,
  });
  const task =
    batch === 1
      ? fn
      : async () => {
          const start = performance.now();
          for (let i = 0; i < batch; i++) await fn();
          const total = performance.now() - start;
          return { overriddenDuration: total / batch, overriddenIterationCost: total };
        };
  bench.add(name, task, {
    async: true,
    ...(o.beforeEach ? { beforeEach: async () => void (await o.beforeEach!()) } : {}),
    ...(o.afterEach ? { afterEach: async () => void (await o.afterEach!()) } : {}),
    ...(o.beforeAll ? { beforeAll: async () => void (await o.beforeAll!()) } : {}),
    ...(o.afterAll ? { afterAll: async () => void (await o.afterAll!()) } : {}),
  });
  const [done] = await bench.run();
  const result = done!.result;
  if (result.state !== "completed") {
    const error = result.state === "errored" ? result.error : new Error(`task ${name} ended ${result.state}`);
    throw error;
  }
  const samples = result.latency.samples ? [...result.latency.samples] : [];
  return summarize(samples, batch);
}
