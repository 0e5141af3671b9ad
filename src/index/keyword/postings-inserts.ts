/**
 * The chunk ids inserted into the postings in memory, with the version of the postings each came
 * in at: what a summary built at an earlier version (postings-impacts' top chunks of a list) must
 * score besides its own chunks to stay exact. Ids are not always above every earlier one — the
 * chunks table's rowid is max(id) + 1, so a daily log whose last chunk is rewritten gets that id
 * back — so a watermark would not do: the ids themselves are kept.
 *
 * Bounded: past MAX_ENTRIES the older half is dropped, and a summary older than what was dropped
 * is built again (`since` answers null). 8 bytes an entry: 512 KiB at most.
 */
export const MAX_ENTRIES = 65_536;

export class InsertLog {
  private ids = new Int32Array(256);
  private versions = new Int32Array(256);
  private n = 0;
  /** The latest version whose inserts may have been dropped (-1: none dropped). */
  private droppedUpTo = -1;

  constructor(private readonly max = MAX_ENTRIES) {}

  /** Records chunk `id` inserted at `version` (versions never decrease). */
  record(id: number, version: number): void {
    if (this.n === this.max) {
      const half = this.max >> 1;
      this.droppedUpTo = this.versions[half - 1]!;
      this.ids.copyWithin(0, half, this.n);
      this.versions.copyWithin(0, half, this.n);
      this.n -= half;
    }
    if (this.n === this.ids.length) {
      const cap = Math.min(this.max, this.ids.length * 2);
      const ids = new Int32Array(cap);
      ids.set(this.ids);
      const versions = new Int32Array(cap);
      versions.set(this.versions);
      [this.ids, this.versions] = [ids, versions];
    }
    this.ids[this.n] = id;
    this.versions[this.n++] = version;
  }

  /** Inserts after `version` (null when some of them were dropped). */
  countSince(version: number): number | null {
    if (version < this.droppedUpTo) return null;
    return this.n - this.firstAfter(version);
  }

  /** The ids inserted after `version`, ascending and distinct (null when some were dropped). */
  since(version: number): Int32Array | null {
    if (version < this.droppedUpTo) return null;
    const out = this.ids.slice(this.firstAfter(version), this.n).sort();
    let w = 0;
    for (let i = 0; i < out.length; i++) if (w === 0 || out[i] !== out[w - 1]) out[w++] = out[i]!;
    return out.subarray(0, w);
  }

  /** Bytes held. */
  get bytes(): number {
    return this.ids.byteLength + this.versions.byteLength;
  }

  /** The first entry whose version is above `version`. */
  private firstAfter(version: number): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.versions[mid]! <= version) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
