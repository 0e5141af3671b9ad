/** Latency percentiles (nearest rank) over the most recent calls. */
export class LatencyWindow {
  private readonly samples: number[] = [];
  private total = 0;

  /** `onRecord` is told of every call (the daemon counts searches as work for MemoryCompactor). */
  constructor(
    private readonly size = 100,
    private readonly onRecord?: () => void,
  ) {}

  record(ms: number): void {
    this.onRecord?.();
    this.samples.push(ms);
    if (this.samples.length > this.size) this.samples.shift();
    this.total++;
  }

  summary(): { count: number; p50: number; p95: number; p99: number } {
    const s = [...this.samples].sort((a, b) => a - b);
    const at = (p: number) => (s.length ? round(s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)]!) : 0);
    return { count: this.total, p50: at(50), p95: at(95), p99: at(99) };
  }
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
