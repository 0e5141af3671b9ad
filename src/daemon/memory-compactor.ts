import type { Logger } from "pino";

/**
 * Gives memory back after bursts of work. A large sync, a model load, a run of searches or a
 * consolidation leaves garbage in the V8 heap and in freed buffers; an idle daemon allocates too
 * little for V8 to collect it on its own, so the daemon would sit at its peak for hours. Each
 * piece of work re-arms an idle timer; when the daemon has been quiet for `idleMs` and its heap
 * (+ external buffers) has grown by `growthBytes` since the last collection, one full collection
 * runs (tens of milliseconds, while nothing else is happening).
 *
 * The collector is `globalThis.gc`, present when Node runs with --expose-gc (the service files,
 * `cortexd start` and `npm start` pass it, see service/units.ts); without it this does nothing.
 */
export class MemoryCompactor {
  private timer: NodeJS.Timeout | undefined;
  private baseline: number;
  /** Completed collections, and the RSS before/after the last one (for logs and tests). */
  readonly stats = { runs: 0, lastBeforeBytes: 0, lastAfterBytes: 0, lastAt: null as string | null };

  constructor(
    private readonly opts: {
      gc?: (() => void) | undefined;
      logger: Logger;
      idleMs?: number;
      growthBytes?: number;
      /** Heap + external bytes in use (default: process.memoryUsage()). */
      usage?: () => number;
    },
  ) {
    this.baseline = this.usage();
  }

  get available(): boolean {
    return typeof this.opts.gc === "function";
  }

  /** Notes that work happened; once the daemon is idle, a collection follows if memory grew. */
  noteWork(): void {
    if (!this.available) return;
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => this.onIdle(), this.opts.idleMs ?? 3000);
    this.timer.unref();
  }

  private onIdle(): void {
    this.timer = undefined;
    if (this.usage() - this.baseline < (this.opts.growthBytes ?? 8 * 1048576)) return;
    const before = process.memoryUsage.rss();
    const started = performance.now();
    this.opts.gc!();
    const after = process.memoryUsage.rss();
    this.baseline = this.usage();
    Object.assign(this.stats, {
      runs: this.stats.runs + 1,
      lastBeforeBytes: before,
      lastAfterBytes: after,
      lastAt: new Date().toISOString(),
    });
    this.opts.logger.debug(
      { rssBeforeMb: mb(before), rssAfterMb: mb(after), ms: Math.round(performance.now() - started) },
      "memory compacted after idle",
    );
  }

  private usage(): number {
    if (this.opts.usage) return this.opts.usage();
    const m = process.memoryUsage();
    return m.heapTotal + m.external;
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function mb(bytes: number): number {
  return Math.round(bytes / 1048576);
}
