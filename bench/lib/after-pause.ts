/**
 * Times variants of a call after a pause each (the bench's agent pace), interleaved round by round
 * so none runs on a warmer machine, and prints each one's median and minimum. For the experiments
 * that take a seen resolve at agent pace apart (bench/experiments/idle-*.ts).
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds per call of each variant, `rounds` samples each, every call after `pauseMs`. */
export async function timeAfterPauses(variants: Record<string, () => unknown>, rounds: number, pauseMs: number): Promise<Record<string, number[]>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (let i = 0; i < rounds; i++) {
    for (const [name, fn] of Object.entries(variants)) {
      await sleep(pauseMs);
      const started = performance.now();
      await fn();
      times[name]!.push(performance.now() - started);
    }
  }
  return times;
}

/** One line per variant: its median and minimum in µs. */
export function printMedians(times: Record<string, number[]>, width = 24): void {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [name, xs] of Object.entries(times))
    console.log(`${name.padEnd(width)} median ${(median(xs) * 1000).toFixed(1).padStart(6)} µs  min ${(Math.min(...xs) * 1000).toFixed(1)} µs`);
}
