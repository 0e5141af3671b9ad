import { jsScan, queryRange, scanDotError, simdScan, wasmMemory, type ScanFn, type WasmMemory } from "./simd-dot.js";

/**
 * The chunk vectors held in memory, for an exact k-nearest search without sqlite-vec. Each vector
 * x is kept as float32 (for exact scoring) and as an int8 code of its offset from the vectors'
 * mean μ (x − μ ≈ s·c, a scale s per vector, with the residual's length ‖x − μ − s·c‖ kept as
 * its error). One WebAssembly SIMD pass computes every code's exact integer dot product with the
 * int16-quantized query, which bounds each vector's q·x/|x| from below and above; the vectors
 * whose upper bound reaches the k-th best lower bound (less sqlite-vec's own float32 rounding)
 * are scored exactly as sqlite-vec scores them (vecCosineDistance). The result is sqlite-vec's
 * KNN: the same ids and the same distances (ties: smaller id first).
 *
 * Slots are dense: a deleted row's slot takes the last row. Memory per vector: matrixBytesPerVector.
 */
/**
 * What one vector costs held here: dims × 4 bytes (float32), its code (dims rounded up to 8), its
 * id and three per-row numbers (8 bytes each) and its int32 sum — as `bytes` counts them.
 */
export function matrixBytesPerVector(dims: number): number {
  return dims * 4 + Math.ceil(dims / 8) * 8 + 36;
}

export class VectorMatrix {
  /** Codes per row (dims rounded up to a multiple of 8; the tail is zero). */
  readonly stride: number;
  private readonly memory: WasmMemory;
  private readonly scan: ScanFn | null;
  private capacity = 0;
  private n = 0;
  private ids = new Float64Array(0);
  private floats = new Float32Array(0);
  /**
   * Per slot, interleaved (one stream for the bounds pass): s / |x|, 1 / |x| (0 for a zero
   * vector) and ‖x − μ − s·c‖ / |x| (rounded up), s being the code's scale.
   */
  private params = new Float64Array(0);
  private readonly slotOf = new Map<number, number>();
  /** Slots whose code is not written yet (set since the last search). */
  private readonly stale = new Set<number>();
  /** The mean the codes are offsets from: fitted on the vectors present at the first search (again once they doubled). */
  private mean: Float64Array | null = null;
  private fittedOn = 0;
  private readonly sqliteError: number;

  constructor(
    readonly dims: number,
    capacity = 1024,
    useSimd = true,
  ) {
    this.stride = Math.ceil(dims / 8) * 8;
    this.sqliteError = scanDotError(dims);
    this.memory = wasmMemory(1);
    this.scan = useSimd ? simdScan(this.memory, this.stride / 8) : null;
    this.reserve(capacity);
  }

  get size(): number {
    return this.n;
  }

  /** Bytes held (codes and scratch space in WebAssembly memory, the floats, the per-row arrays). */
  get bytes(): number {
    return this.memory.buffer.byteLength + this.capacity * (this.dims * 4 + 32);
  }

  /** True when the scan runs in WebAssembly SIMD. */
  get simd(): boolean {
    return this.scan !== null;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  /** WebAssembly memory layout (bytes): codes [0, capacity × stride), the int16 query, the int32 sums. */
  private get queryAt(): number {
    return Math.ceil((this.capacity * this.stride) / 16) * 16;
  }
  private get outAt(): number {
    return this.queryAt + this.stride * 2;
  }

  private reserve(min: number): void {
    if (min <= this.capacity) return;
    const capacity = Math.max(min, Math.ceil(this.capacity * 1.5), 64);
    const need = Math.ceil((capacity * this.stride) / 16) * 16 + this.stride * 2 + capacity * 4;
    const have = this.memory.buffer.byteLength;
    if (need > have) this.memory.grow(Math.ceil((need - have) / 65536));
    const grow = <T extends Float64Array | Float32Array>(a: T, make: (n: number) => T, per = 1): T => {
      const b = make(capacity * per);
      b.set(a.subarray(0, this.n * per));
      return b;
    };
    this.ids = grow(this.ids, (k) => new Float64Array(k));
    this.params = grow(this.params, (k) => new Float64Array(k), 3);
    this.floats = grow(this.floats, (k) => new Float32Array(k), this.dims);
    this.capacity = capacity;
  }

  /** Adds or replaces the vector of an id. */
  set(id: number, v: Float32Array): void {
    if (v.length !== this.dims) throw new Error(`vector has ${v.length} dims, matrix holds ${this.dims}`);
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      this.reserve(this.n + 1);
      slot = this.n++;
      this.slotOf.set(id, slot);
      this.ids[slot] = id;
    }
    this.floats.set(v, slot * this.dims);
    this.stale.add(slot);
  }

  delete(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    const last = --this.n;
    if (slot !== last) {
      const moved = this.ids[last]!;
      const D = this.dims;
      this.floats.copyWithin(slot * D, last * D, (last + 1) * D);
      new Int8Array(this.memory.buffer).copyWithin(slot * this.stride, last * this.stride, (last + 1) * this.stride);
      this.ids[slot] = moved;
      this.params.copyWithin(3 * slot, 3 * last, 3 * last + 3);
      this.slotOf.set(moved, slot);
      if (this.stale.delete(last)) this.stale.add(slot);
    }
    this.stale.delete(last);
  }

  /** Writes the codes of the slots set since the last search (fitting the mean the first time). */
  private encodeStale(): void {
    if (this.stale.size === 0) return;
    const D = this.dims;
    if (this.mean && this.n > 2 * this.fittedOn + 1024) {
      this.mean = null;
      for (let i = 0; i < this.n; i++) this.stale.add(i);
    }
    if (!this.mean) {
      const mean = new Float64Array(D);
      for (let i = 0; i < this.n; i++) for (let j = 0; j < D; j++) mean[j]! += this.floats[i * D + j]!;
      for (let j = 0; j < D; j++) mean[j] = mean[j]! / Math.max(1, this.n);
      this.mean = mean;
      this.fittedOn = this.n;
    }
    const mean = this.mean;
    const codes = new Int8Array(this.memory.buffer);
    const r = new Float64Array(D);
    for (const slot of this.stale) {
      let sq = 0;
      let max = 0;
      for (let j = 0; j < D; j++) {
        const x = this.floats[slot * D + j]!;
        sq += x * x;
        r[j] = x - mean[j]!;
        max = Math.max(max, Math.abs(r[j]!));
      }
      const inv = sq > 0 ? 1 / Math.sqrt(sq) : 0;
      const s = max > 0 ? max / 127 : 1;
      let e2 = 0;
      const at = slot * this.stride;
      for (let j = 0; j < D; j++) {
        const c = Math.max(-127, Math.min(127, Math.round(r[j]! / s)));
        codes[at + j] = c;
        e2 += (r[j]! - s * c) ** 2;
      }
      codes.fill(0, at + D, at + this.stride);
      this.params[3 * slot] = s * inv;
      this.params[3 * slot + 1] = inv;
      // Rounded up: covers the float64 rounding of r, of this sum and of the products.
      this.params[3 * slot + 2] = (Math.sqrt(e2) * (1 + 1e-9) + 1e-12) * inv;
    }
    this.stale.clear();
  }

  /** The k rows nearest to `query` by sqlite-vec's cosine distance (exact), nearest first, ties by id. */
  nearest(query: Float32Array, k: number): { id: number; distance: number }[] {
    const { n, dims: D } = this;
    if (k <= 0 || n === 0 || query.length !== D) return [];
    if (n <= k) return this.verify(query, Array.from(this.ids.subarray(0, n).keys()), k);
    this.encodeStale();
    const mean = this.mean!;
    // The query as int16: q = sq·d + f, |f_j| ≤ sq / 2, |d_j| ≤ queryRange(D) so that no Σd·c
    // overflows int32 (past 516 dims the range shrinks below 32,767: the bounds widen a little).
    let qMax = 0;
    let qq = 0;
    let qMean = 0;
    for (let j = 0; j < D; j++) {
      qMax = Math.max(qMax, Math.abs(query[j]!));
      qq += query[j]! * query[j]!;
      qMean += query[j]! * mean[j]!;
    }
    const qNorm = Math.sqrt(qq);
    if (!(qMax > 0)) return this.verify(query, Array.from(this.ids.subarray(0, n).keys()), k);
    const sq = qMax / queryRange(D);
    const q16 = new Int16Array(this.memory.buffer, this.queryAt, this.stride);
    q16.fill(0);
    for (let j = 0; j < D; j++) q16[j] = Math.round(query[j]! / sq);
    if (this.scan) this.scan(0, this.queryAt, n, 0, this.outAt);
    else jsScan(this.memory, 0, this.queryAt, n, this.stride / 8, this.outAt);
    const dots = new Int32Array(this.memory.buffer, this.outAt, n);
    // q·x = q·μ + s·(sq·Σd·c + Σf·c) + q·e, so with |Σf·c| ≤ sq/2 · 127 · D and |q·e| ≤ |q|·‖e‖,
    // each q·x/|x| lies within its bounds (err: + the float64 rounding here).
    const fc = (sq / 2) * 127 * D;
    const slack = 1e-9 * (Math.abs(qMean) + 1);
    // Per slot (see encodeStale): A = s/|x|, B = 1/|x|, C = ‖e‖/|x|, so that
    // lower = B·(q·μ − slack) + A·(sq·Σd·c − fc) − |q|·C, upper = B·(q·μ + slack) + A·(sq·Σd·c + fc) + |q|·C.
    const p = this.params;
    const bLo = qMean - slack;
    const bHi = qMean + slack;
    // The k-th best lower bound, from a min-heap of the best k.
    const h = new Float64Array(k);
    for (let i = 0, o = 0; i < k; i++, o += 3)
      h[i] = p[o + 1]! * bLo + p[o]! * (sq * dots[i]! - fc) - qNorm * p[o + 2]!;
    for (let i = (k >>> 1) - 1; i >= 0; i--) siftDown(h, i, k);
    let min = h[0]!;
    for (let i = k, o = 3 * k; i < n; i++, o += 3) {
      const x = p[o + 1]! * bLo + p[o]! * (sq * dots[i]! - fc) - qNorm * p[o + 2]!;
      if (x > min) {
        h[0] = x;
        siftDown(h, 0, k);
        min = h[0]!;
      }
    }
    // sqlite-vec's float32 cosine is off from the real one by up to sqliteError (× |q| here).
    const cut = min - 2 * this.sqliteError * qNorm;
    const slots: number[] = [];
    for (let i = 0, o = 0; i < n; i++, o += 3)
      if (p[o + 1]! * bHi + p[o]! * (sq * dots[i]! + fc) + qNorm * p[o + 2]! >= cut) slots.push(i);
    return this.verify(query, slots, k);
  }

  /** The exact distances (as nearest gives them) of the given ids that have a row; others are left out. */
  distances(query: Float32Array, ids: readonly number[]): { id: number; distance: number }[] {
    if (query.length !== this.dims) return [];
    const held: number[] = [];
    const slots: number[] = [];
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot !== undefined) {
        held.push(id);
        slots.push(slot);
      }
    }
    const d = cosineDistancesOf(query, this.floats, slots);
    return held.map((id, j) => ({ id, distance: d[j]! }));
  }

  /** The exact distances of the given slots, best k, ties by id. */
  private verify(query: Float32Array, slots: number[], k: number): { id: number; distance: number }[] {
    const d = cosineDistancesOf(query, this.floats, slots);
    const hits = slots.map((s, j) => ({ id: this.ids[s]!, distance: d[j]! }));
    return hits.sort((a, b) => a.distance - b.distance || a.id - b.id).slice(0, k);
  }
}

function siftDown(h: Float64Array, i: number, k: number): void {
  const x = h[i]!;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= k) break;
    if (c + 1 < k && h[c + 1]! < h[c]!) c++;
    if (h[c]! >= x) break;
    h[i] = h[c]!;
    i = c;
  }
  h[i] = x;
}

const fr = Math.fround;

/**
 * sqlite-vec's cosine distance (distance_cosine_float), operation for operation: float32 sums
 * of x·y, x·x and y·y in order, then 1 − dot / (√a·√b) in double, returned as float32.
 */
export function vecCosineDistance(q: Float32Array, rows: Float32Array, off: number): number {
  let dot = 0;
  let a = 0;
  let b = 0;
  for (let i = 0; i < q.length; i++) {
    const x = q[i]!;
    const y = rows[off + i]!;
    dot = fr(dot + fr(x * y));
    a = fr(a + fr(x * x));
    b = fr(b + fr(y * y));
  }
  return fr(1 - dot / (Math.sqrt(a) * Math.sqrt(b)));
}

/**
 * vecCosineDistance of `q` with each row at `slots` (row r starts at r × q.length), four rows per
 * pass: each row's three float32 sums are still added in order, operation for operation (the same
 * values), but twelve independent sums in one loop overlap their latencies instead of waiting on
 * three.
 */
export function cosineDistancesOf(q: Float32Array, rows: Float32Array, slots: readonly number[]): Float64Array {
  const D = q.length;
  const out = new Float64Array(slots.length);
  let j = 0;
  for (; j + 4 <= slots.length; j += 4) {
    const o0 = slots[j]! * D;
    const o1 = slots[j + 1]! * D;
    const o2 = slots[j + 2]! * D;
    const o3 = slots[j + 3]! * D;
    let d0 = 0, d1 = 0, d2 = 0, d3 = 0; // prettier-ignore
    let b0 = 0, b1 = 0, b2 = 0, b3 = 0; // prettier-ignore
    let a = 0;
    for (let i = 0; i < D; i++) {
      const x = q[i]!;
      const y0 = rows[o0 + i]!;
      const y1 = rows[o1 + i]!;
      const y2 = rows[o2 + i]!;
      const y3 = rows[o3 + i]!;
      d0 = fr(d0 + fr(x * y0));
      d1 = fr(d1 + fr(x * y1));
      d2 = fr(d2 + fr(x * y2));
      d3 = fr(d3 + fr(x * y3));
      a = fr(a + fr(x * x));
      b0 = fr(b0 + fr(y0 * y0));
      b1 = fr(b1 + fr(y1 * y1));
      b2 = fr(b2 + fr(y2 * y2));
      b3 = fr(b3 + fr(y3 * y3));
    }
    const sa = Math.sqrt(a);
    out[j] = fr(1 - d0 / (sa * Math.sqrt(b0)));
    out[j + 1] = fr(1 - d1 / (sa * Math.sqrt(b1)));
    out[j + 2] = fr(1 - d2 / (sa * Math.sqrt(b2)));
    out[j + 3] = fr(1 - d3 / (sa * Math.sqrt(b3)));
  }
  for (; j < slots.length; j++) out[j] = vecCosineDistance(q, rows, slots[j]! * D);
  return out;
}
