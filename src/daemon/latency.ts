/** Which call a latency sample is of (the console plots them apart). */
export type LatencyKind = "search" | "recall";

/** p50/p95 of the calls in one time bucket. */
export interface LatencyBucket {
  /** Start of the bucket (ms since the epoch). */
  at: number;
  count: number;
  p50: number;
  p95: number;
}

/** Samples kept for the plots: the last day, at most this many (older ones dropped first). */
const SERIES_MAX = 20_000;
const DAY_MS = 24 * 3600_000;

/** Latency percentiles (nearest rank) over the most recent calls, and timed samples of the last day. */
export class LatencyWindow {
  private readonly samples: number[] = [];
  private total = 0;
  /** [at, ms, kind] of the last day's calls, oldest first. */
  private readonly timed: { at: number; ms: number; kind: LatencyKind }[] = [];

  /** `onRecord` is told of every call (the daemon counts searches as work for MemoryCompactor). */
  constructor(
    private readonly size = 100,
    private readonly onRecord?: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  record(ms: number, kind: LatencyKind = "search"): void {
    this.onRecord?.();
    this.samples.push(ms);
    if (this.samples.length > this.size) this.samples.shift();
    this.total++;
    const at = this.now();
    this.timed.push({ at, ms, kind });
    let drop = 0;
    while (drop < this.timed.length && (this.timed.length - drop > SERIES_MAX || this.timed[drop]!.at < at - DAY_MS))
      drop++;
    if (drop) this.timed.splice(0, drop);
  }

  summary(): { count: number; p50: number; p95: number; p99: number } {
    const s = [...this.samples].sort((a, b) => a - b);
    return { count: this.total, p50: rank(s, 50), p95: rank(s, 95), p99: rank(s, 99) };
  }

  /** p50/p95 per bucket of `bucketMs` over the last `spanMs`, for one kind of call (empty buckets left out). */
  series(kind: LatencyKind, spanMs: number, bucketMs: number): LatencyBucket[] {
    const end = this.now();
    const start = end - Math.min(spanMs, DAY_MS);
    const buckets = new Map<number, number[]>();
    for (const t of this.timed) {
      if (t.kind !== kind || t.at < start) continue;
      const key = start + Math.floor((t.at - start) / bucketMs) * bucketMs;
      const list = buckets.get(key);
      if (list) list.push(t.ms);
      else buckets.set(key, [t.ms]);
    }
    return [...buckets.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([at, ms]) => {
        const s = ms.sort((a, b) => a - b);
        return { at, count: s.length, p50: rank(s, 50), p95: rank(s, 95) };
      });
  }
}

function rank(sorted: number[], p: number): number {
  return sorted.length ? round(sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!) : 0;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
