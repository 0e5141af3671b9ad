/**
 * Where each chunk id sits in a table of typed arrays (chunk-meta.ts): an open-addressing hash of
 * slots, itself a typed array (4 bytes a bucket, at most half full: 8–16 bytes a chunk), in place
 * of a Map<number, number> (~30–60 bytes an entry on V8's heap, all of it scanned by every full
 * collection). The ids live in the caller's array (`idAt(slot)`), so a bucket holds only its slot.
 * Linear probing, removal by backward shift (no tombstones: a long-lived daemon's deletes never
 * slow the lookups down).
 */
export class IdSlots {
  /** Per bucket: slot + 1, or 0 when empty. */
  private buckets = new Int32Array(16);
  private mask = 15;
  private shift = 28;
  private count = 0;

  constructor(private readonly idAt: (slot: number) => number) {}

  get size(): number {
    return this.count;
  }

  /** Bytes the buckets take. */
  get bytes(): number {
    return this.buckets.byteLength;
  }

  /** Empties the table, sized for `expected` ids. */
  reset(expected = 0): void {
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.buckets = new Int32Array(cap);
    this.mask = cap - 1;
    this.shift = 32 - Math.log2(cap);
    this.count = 0;
  }

  private home(id: number): number {
    // Fibonacci hashing: the id's bits spread over the bucket index (ids are mostly consecutive).
    return Math.imul(id, 0x9e3779b1) >>> this.shift;
  }

  /** The slot of `id`, or -1. */
  get(id: number): number {
    const b = this.buckets;
    for (let i = this.home(id); ; i = (i + 1) & this.mask) {
      const s = b[i]!;
      if (s === 0) return -1;
      if (this.idAt(s - 1) === id) return s - 1;
    }
  }

  /** Records that `idAt(slot)` is at `slot` (the id must not be held already). */
  set(slot: number): void {
    if ((this.count + 1) * 2 > this.buckets.length) this.rehash(this.buckets.length * 2);
    this.place(slot);
    this.count++;
  }

  private place(slot: number): void {
    const b = this.buckets;
    let i = this.home(this.idAt(slot));
    while (b[i] !== 0) i = (i + 1) & this.mask;
    b[i] = slot + 1;
  }

  /** Forgets `id` (nothing when it is not held). */
  delete(id: number): void {
    const b = this.buckets;
    let i = this.home(id);
    for (; ; i = (i + 1) & this.mask) {
      const s = b[i]!;
      if (s === 0) return;
      if (this.idAt(s - 1) === id) break;
    }
    // Backward shift: each later entry of the run moves into the hole if its home allows it.
    let hole = i;
    for (let j = (i + 1) & this.mask; b[j] !== 0; j = (j + 1) & this.mask) {
      const h = this.home(this.idAt(b[j]! - 1));
      // The entry at j may fill the hole when its home is not within (hole, j] (cyclically).
      if (
        (j - h + this.buckets.length) % this.buckets.length >=
        (j - hole + this.buckets.length) % this.buckets.length
      ) {
        b[hole] = b[j]!;
        hole = j;
      }
    }
    b[hole] = 0;
    this.count--;
  }

  private rehash(cap: number): void {
    const old = this.buckets;
    this.buckets = new Int32Array(cap);
    this.mask = cap - 1;
    this.shift = 32 - Math.log2(cap);
    for (const s of old) if (s !== 0) this.place(s - 1);
  }
}
