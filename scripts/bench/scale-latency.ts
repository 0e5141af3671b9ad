import type { RunningDaemon } from "./daemon-proc.js";
import { fmtMs, median, percentile } from "./util.js";

/** One timed call over the socket: the query, its wall time and the daemon's stage timings. */
export interface TimedCall {
  query: string;
  ms: number;
  timings: Record<string, number>;
}

export function latencyDist(xs: readonly number[]): { p50: number; p95: number; p99: number; n: number } {
  return { p50: median([...xs]), p95: percentile([...xs], 95), p99: percentile([...xs], 99), n: xs.length };
}

/** One socket call with stage timings (search at `limit` results; recall at its defaults). */
export async function timedCall(
  r: RunningDaemon,
  method: "memory.search" | "memory.recall",
  query: string,
  limit = 10,
): Promise<TimedCall> {
  const t = performance.now();
  const res =
    method === "memory.search"
      ? await r.client.call("memory.search", { query, limit, timings: true })
      : await r.client.call("memory.recall", { query, timings: true });
  return { query, ms: performance.now() - t, timings: res.timings ?? {} };
}

/** Median per stage over all calls (ms), in the order the stages ran. */
export function stageMedians(calls: readonly TimedCall[]): string {
  const keys = [...new Set(calls.flatMap((c) => Object.keys(c.timings)))];
  return keys.map((k) => `${k} ${median(calls.map((c) => c.timings[k] ?? 0)).toFixed(2)}`).join(", ");
}

/** The `n` slowest calls with their stage timings: where a p95 comes from. */
export function printTail(label: string, calls: readonly TimedCall[], n: number): void {
  if (n <= 0) return;
  console.log(`  ${label}: stage medians (ms) ${stageMedians(calls)}`);
  console.log(`  ${label}: the ${n} slowest (wall; stage ms as the daemon measured them):`);
  for (const c of [...calls].sort((a, b) => b.ms - a.ms).slice(0, n)) {
    const parts = Object.entries(c.timings)
      .filter(([, v]) => v >= 0.05)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`);
    console.log(`    ${fmtMs(c.ms).padStart(9)} ${JSON.stringify(c.query)}: ${parts.join(", ")}`);
  }
}
