import type { Logger } from "pino";

/**
 * Gives memory back after bursts of work. A large sync, a model load or a consolidation run leaves
 * tens of MB of garbage in the V8 heap and in freed buffers; an idle daemon allocates too little for
 * V8 to collect it on its own, so the daemon would sit at its peak for hours. Once the daemon has
 * been quiet for `idleMs` after at least `threshold` units of work (chunks written or embedded, or
 * a model load), one full collection runs (≈ 10–50 ms, while nothing else is happening).
 *
 * The collector is `globalThis.gc`, present when Node runs with --expose-gc (the service files,
 * `cortexd start` and `npm start` pass it, see service/units.ts); without it this does nothing.
 */
export class MemoryCompactor {
  private pending = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Completed collections, and the RSS before/after the last one (for status and tests). */
  readonly stats = { runs: 0, lastBeforeBytes: 0, lastAfterBytes: 0, lastAt: null as string | null };

  constructor(
    private readonly opts: {
      gc?: (() => void) | undefined;
      logger: Logger;
      idleMs?: number;
      threshold?: number;
    },
  ) {}

  get available(): boolean {
    return typeof this.opts.gc === "function";
  }

  /** Notes `units` of allocation-heavy work; a collection follows once the daemon is idle. */
  noteWork(units: number): void {
    if (!this.available || units <= 0) return;
    this.pending += units;
    if (this.pending < (this.opts.threshold ?? 200)) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.compact(), this.opts.idleMs ?? 3000);
    this.timer.unref();
  }

  private compact(): void {
    this.timer = undefined;
    this.pending = 0;
    const before = process.memoryUsage.rss();
    const started = performance.now();
    this.opts.gc!();
    const after = process.memoryUsage.rss();
    Object.assign(this.stats, { runs: this.stats.runs + 1, lastBeforeBytes: before, lastAfterBytes: after, lastAt: new Date().toISOString() });
    this.opts.logger.debug({ rssBeforeMb: mb(before), rssAfterMb: mb(after), ms: Math.round(performance.now() - started) }, "memory compacted after idle");
  }

  close(): void {
    clearTimeout(this.timer);
  }
}

function mb(bytes: number): number {
  return Math.round(bytes / 1048576);
}
