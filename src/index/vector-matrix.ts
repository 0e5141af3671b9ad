import { jsScan, scanDotError, simdScan, wasmMemory, type ScanFn, type WasmMemory } from "./simd-dot.js";

/**
 * The chunk vectors held in memory as one float32 matrix (a row per vector, in WebAssembly
 * memory), for an exact k-nearest search without sqlite-vec: one SIMD pass computes every row's
 * dot product with the query (float32 sums, off by at most scanDotError); the rows whose
 * estimate lies within twice that bound of the k-th best are then scored exactly as sqlite-vec
 * scores them (vecCosineDistance), so the result is sqlite-vec's KNN: the same ids and the same
 * distances (ties: smaller id first).
 *
 * Slots are dense: a deleted row's slot takes the last row. Memory: (dims rounded up to 8) × 4
 * bytes + 16 bytes per vector.
 */
export class VectorMatrix {
  /** Floats per row (dims rounded up to a multiple of 8; the tail is zero). */
  readonly stride: number;
  private readonly memory: WasmMemory;
  private readonly scan: ScanFn | null;
  private heap: Float32Array;
  private capacity = 0;
  private n = 0;
  private ids = new Float64Array(0);
  /** 1 / |x| per slot (0 for a zero vector). */
  private inv = new Float64Array(0);
  private readonly slotOf = new Map<number, number>();
  private readonly bound: number;

  constructor(
    readonly dims: number,
    capacity = 1024,
    useSimd = true,
  ) {
    this.stride = Math.ceil(dims / 8) * 8;
    this.bound = scanDotError(this.stride);
    this.memory = wasmMemory(1);
    this.heap = new Float32Array(this.memory.buffer);
    this.scan = useSimd ? simdScan(this.memory) : null;
    this.reserve(capacity);
  }

  get size(): number {
    return this.n;
  }

  /** Bytes held (the matrix, its scratch space and the per-row arrays). */
  get bytes(): number {
    return this.memory.buffer.byteLength + this.capacity * 16;
  }

  /** True when the scan runs in WebAssembly SIMD. */
  get simd(): boolean {
    return this.scan !== null;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  /** Layout (in floats): rows [0, capacity × stride), then the query (stride floats), then the scan output (capacity floats). */
  private get queryAt(): number {
    return this.capacity * this.stride;
  }
  private get outAt(): number {
    return this.queryAt + this.stride;
  }

  private reserve(min: number): void {
    if (min <= this.capacity) return;
    const capacity = Math.max(min, Math.ceil(this.capacity * 1.5), 64);
    const need = capacity * this.stride * 4 + this.stride * 4 + capacity * 4;
    const have = this.memory.buffer.byteLength;
    if (need > have) this.memory.grow(Math.ceil((need - have) / 65536));
    this.heap = new Float32Array(this.memory.buffer);
    // Rows stay where they are (at 0); the tail of the new rows is zero already (fresh memory).
    const ids = new Float64Array(capacity);
    ids.set(this.ids.subarray(0, this.n));
    const inv = new Float64Array(capacity);
    inv.set(this.inv.subarray(0, this.n));
    this.ids = ids;
    this.inv = inv;
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
    const at = slot * this.stride;
    this.heap.set(v, at);
    let sq = 0;
    for (let j = 0; j < v.length; j++) sq += v[j]! * v[j]!;
    this.inv[slot] = sq > 0 ? 1 / Math.sqrt(sq) : 0;
  }

  delete(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    const last = --this.n;
    if (slot !== last) {
      const moved = this.ids[last]!;
      this.heap.copyWithin(slot * this.stride, last * this.stride, (last + 1) * this.stride);
      this.ids[slot] = moved;
      this.inv[slot] = this.inv[last]!;
      this.slotOf.set(moved, slot);
    }
    this.heap.fill(0, last * this.stride, (last + 1) * this.stride);
  }

  /** The k rows nearest to `query` by sqlite-vec's cosine distance (exact), nearest first, ties by id. */
  nearest(query: Float32Array, k: number): { id: number; distance: number }[] {
    const { n, stride, heap } = this;
    if (k <= 0 || n === 0 || query.length !== this.dims) return [];
    let qq = 0;
    for (let j = 0; j < query.length; j++) qq += query[j]! * query[j]!;
    const qn = Math.sqrt(qq);
    if (!(qn > 0)) return this.verify(query, Array.from(this.ids.subarray(0, n).keys()), k);
    heap.set(query, this.queryAt);
    heap.fill(0, this.queryAt + query.length, this.queryAt + stride);
    if (this.scan) this.scan(0, this.queryAt * 4, n, stride / 8, this.outAt * 4);
    else jsScan(heap, 0, this.queryAt, n, stride / 8, this.outAt);
    const out = this.outAt;
    const inv = this.inv;
    // Estimates of cos × |q|; each is within bound × |q| (relative to unit vectors) of the truth.
    let slots: number[];
    if (n <= k) slots = Array.from(this.ids.subarray(0, n).keys());
    else {
      const kth = kthLargest(heap, out, inv, n, k);
      // sqlite-vec's own float32 cosine is off from the real one by about as much again.
      const cut = kth - 4 * this.bound * qn - 1e-9;
      slots = [];
      for (let i = 0; i < n; i++) if (heap[out + i]! * inv[i]! >= cut) slots.push(i);
    }
    return this.verify(query, slots, k);
  }

  /** The exact distances of the given slots, best k, ties by id. */
  private verify(query: Float32Array, slots: number[], k: number): { id: number; distance: number }[] {
    const hits = slots.map((s) => ({
      id: this.ids[s]!,
      distance: vecCosineDistance(query, this.heap, s * this.stride),
    }));
    return hits.sort((a, b) => a.distance - b.distance || a.id - b.id).slice(0, k);
  }
}

/** The k-th largest of out[i] × inv[i] over n rows (n > k ≥ 1): a min-heap of the best k. */
function kthLargest(heap: Float32Array, out: number, inv: Float64Array, n: number, k: number): number {
  const h = new Float64Array(k);
  for (let i = 0; i < k; i++) h[i] = heap[out + i]! * inv[i]!;
  for (let i = (k >>> 1) - 1; i >= 0; i--) siftDown(h, i, k);
  for (let i = k; i < n; i++) {
    const s = heap[out + i]! * inv[i]!;
    if (s > h[0]!) {
      h[0] = s;
      siftDown(h, 0, k);
    }
  }
  return h[0]!;
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
