/** Wall time per ranking stage of one search or recall, in ms (a debug field of the responses). */
export type StageTimings = Record<string, number>;

/**
 * Laps between stages with performance.now (a few calls per query: cheap enough to run always).
 * Stage names are the code's own constants, never client strings.
 */
export class StageTimer {
  private last = performance.now();
  private readonly started = this.last;
  private readonly laps: StageTimings = {};

  /** Charges the time since the previous lap (or the start) to `stage`. */
  lap(stage: string): void {
    const now = performance.now();
    this.laps[stage] = (this.laps[stage] ?? 0) + (now - this.last);
    this.last = now;
  }

  /** Adds another timer's stages (e.g. the search inside a recall). */
  add(timings: StageTimings): void {
    for (const [k, v] of Object.entries(timings)) if (k !== "total") this.laps[k] = (this.laps[k] ?? 0) + v;
  }

  /** The stages so far plus `total`, rounded to µs. */
  result(): StageTimings {
    const out: StageTimings = {};
    for (const [k, v] of Object.entries(this.laps)) out[k] = Math.round(v * 1000) / 1000;
    out.total = Math.round((performance.now() - this.started) * 1000) / 1000;
    return out;
  }
}
