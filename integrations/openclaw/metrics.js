// @ts-check
/** Recall latency as the Cortex plugin reports it: percentiles (nearest rank) over the last 100 recalls. */
const WINDOW = 100;

export function createRecallMetrics() {
  /** @type {number[]} */
  const samples = [];
  let count = 0;
  const pct = (/** @type {number[]} */ sorted, /** @type {number} */ p) =>
    sorted.length ? (sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0) : 0;
  return {
    add(/** @type {number} */ ms) {
      count++;
      samples.push(Math.round(ms));
      if (samples.length > WINDOW) samples.shift();
    },
    summary() {
      const s = [...samples].sort((a, b) => a - b);
      return { count, p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99) };
    },
  };
}
