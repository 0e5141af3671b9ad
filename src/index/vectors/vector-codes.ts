/**
 * Quantized copies of the chunk vectors, held in memory for a fast approximate nearest-neighbour
 * scan of large indexes. Each vector is normalised, centred on the index's mean and stored as int8
 * per dimension (scaled by the dimension's spread); its sign bits give a 1-bit code. A query scans
 * the 1-bit codes by Hamming distance (1M × 100 dims: 16 MB, in WebAssembly SIMD: simd-hamming.ts),
 * rescores the best few thousand with the int8 vectors, and hands the best few dozen to the caller
 * for exact rescoring against the float vectors (IndexStore.vectorSearch).
 *
 * Centring matters: embeddings of one model share a large common component (the built-in model's
 * unit vectors are ~0.93 cosine from their mean), so raw sign bits barely tell them apart.
 */
import { jsHamming, simdHamming, type HammingFn } from "./simd-hamming.js";
import { jsGather, queryRange, simdGather, type GatherFn } from "./simd-dot.js";
import { wasmMemory, type WasmMemory } from "./wasm-assemble.js";
import { topByScore } from "./top-by-score.js";
import { normalised, type Quantizer } from "./quantizer.js";

/**
 * The sign codes of `capacity` rows in one WebAssembly memory, laid out for the Hamming kernel:
 * the query's code, the histogram, the distances (uint16 per row) and the rows (`groups` × 16
 * bytes each; bits past the dimension are zero).
 */
class SignTable {
  readonly memory: WasmMemory;
  readonly queryAt = 0;
  readonly histAt: number;
  readonly distAt: number;
  readonly rowsAt: number;
  /** The rows' 32-bit words (a view of the memory). */
  readonly words: Uint32Array;
  private readonly kernel: HammingFn | null;

  constructor(
    readonly groups: number,
    readonly capacity: number,
    useSimd: boolean,
  ) {
    const align = (n: number) => Math.ceil(n / 16) * 16;
    this.histAt = 16 * groups;
    this.distAt = align(this.histAt + 4 * (128 * groups + 2));
    this.rowsAt = align(this.distAt + 2 * capacity);
    const bytes = this.rowsAt + 16 * groups * capacity;
    this.memory = wasmMemory(Math.max(1, Math.ceil(bytes / 65536)));
    this.words = new Uint32Array(this.memory.buffer, this.rowsAt, 4 * groups * capacity);
    this.kernel = useSimd ? simdHamming(this.memory, groups) : null;
  }

  /**
   * The Hamming distance of each of the first `n` rows to `query` (uint16 per row, a view valid
   * until the next scan) and how many rows have each distance.
   */
  scan(query: Uint32Array, n: number): { dist: Uint16Array; hist: Uint32Array } {
    const { memory, groups } = this;
    new Uint32Array(memory.buffer, this.queryAt, 4 * groups).set(query);
    const hist = new Uint32Array(memory.buffer, this.histAt, 128 * groups + 2);
    hist.fill(0);
    if (this.kernel) this.kernel(this.rowsAt, this.queryAt, n, this.distAt, this.histAt);
    else jsHamming(memory, groups, this.rowsAt, this.queryAt, n, this.distAt, this.histAt);
    return { dist: new Uint16Array(memory.buffer, this.distAt, n), hist };
  }
}

/**
 * The int8 codes of `capacity` rows in one WebAssembly memory, for the gather kernel: the int16
 * query, then the rows (`stride` bytes each: the dimensions rounded up to 8, the tail zero), then
 * room for the slots to score and their sums (grown on demand).
 */
class Int8Table {
  readonly memory: WasmMemory;
  readonly stride: number;
  readonly queryAt = 0;
  readonly rowsAt: number;
  /** The rows' codes (a view of the memory, made again when the memory grows). */
  codes: Int8Array;
  private readonly kernel: GatherFn | null;

  constructor(
    readonly dims: number,
    readonly capacity: number,
    useSimd: boolean,
  ) {
    this.stride = Math.ceil(dims / 8) * 8;
    this.rowsAt = Math.ceil((2 * this.stride) / 16) * 16;
    this.memory = wasmMemory(Math.max(1, Math.ceil((this.rowsAt + this.stride * capacity) / 65536)));
    this.codes = new Int8Array(this.memory.buffer, this.rowsAt, this.stride * capacity);
    this.kernel = useSimd ? simdGather(this.memory, this.stride / 8) : null;
  }

  /** Where the scratch (slots, then sums) starts: past the rows. */
  private get scratchAt(): number {
    return Math.ceil((this.rowsAt + this.stride * this.capacity) / 16) * 16;
  }

  /** A view of room for `n` slot numbers, valid until the next call. */
  slots(n: number): Int32Array {
    const need = this.scratchAt + 8 * n;
    const have = this.memory.buffer.byteLength;
    if (need > have) {
      this.memory.grow(Math.ceil((need - have) / 65536));
      this.codes = new Int8Array(this.memory.buffer, this.rowsAt, this.stride * this.capacity);
    }
    return new Int32Array(this.memory.buffer, this.scratchAt, n);
  }

  /** Σ code·query (integers) of the first `n` slots written to slots(n), for the int16 query. */
  dots(query: Int16Array, n: number): Int32Array {
    const { memory, stride } = this;
    new Int16Array(memory.buffer, this.queryAt, stride).set(query);
    const slotsAt = this.scratchAt;
    const outAt = slotsAt + 4 * n;
    if (this.kernel) this.kernel(this.rowsAt, this.queryAt, slotsAt, n, outAt);
    else jsGather(memory, stride / 8, this.rowsAt, this.queryAt, slotsAt, n, outAt);
    return new Int32Array(memory.buffer, outAt, n);
  }
}

/**
 * The codes of a set of ids. Ids are kept in ascending order (new chunk ids are almost always
 * larger than every earlier one, so adds append); an out-of-order add goes to a small side list
 * that is merged in once it grows. Removal marks the slot dead; dead slots are dropped on merge.
 */
export class QuantizedVectors {
  /** 32-bit words of a sign code (whole groups of 128 bits). */
  readonly words: number;
  private ids: Float64Array;
  private signs: SignTable;
  private i8: Int8Table;
  private n = 0;
  /** Dead slots of the sorted part. */
  private readonly deadSlots = new Set<number>();
  private side = new Map<number, Int8Array>();

  constructor(
    readonly dims: number,
    readonly quantizer: Quantizer,
    capacity = 1024,
    /** false: the JavaScript paths of the kernels (the same integers). */
    private readonly useSimd = true,
  ) {
    const groups = Math.ceil(dims / 128);
    this.words = 4 * groups;
    this.ids = new Float64Array(Math.max(16, capacity));
    this.signs = new SignTable(groups, this.ids.length, useSimd);
    this.i8 = new Int8Table(dims, this.ids.length, useSimd);
  }

  /** Live codes. */
  get size(): number {
    return this.n - this.deadSlots.size + this.side.size;
  }

  private grow(min: number): void {
    let cap = this.ids.length;
    while (cap < min) cap *= 2;
    if (cap === this.ids.length) return;
    const ids = new Float64Array(cap);
    ids.set(this.ids.subarray(0, this.n));
    const signs = new SignTable(this.signs.groups, cap, this.useSimd);
    signs.words.set(this.signs.words.subarray(0, this.n * this.words));
    const i8 = new Int8Table(this.dims, cap, this.useSimd);
    i8.codes.set(this.i8.codes.subarray(0, this.n * i8.stride));
    this.ids = ids;
    this.signs = signs;
    this.i8 = i8;
  }

  /** Slot of an id in the sorted part (dead or alive), or -1. */
  private slot(id: number): number {
    let lo = 0;
    let hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = Math.abs(this.ids[mid]!);
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private write(slot: number, code: Int8Array): void {
    this.i8.codes.set(code.subarray(0, this.dims), slot * this.i8.stride);
    const o = slot * this.words;
    const signs = this.signs.words;
    signs.fill(0, o, o + this.words);
    for (let j = 0; j < this.dims; j++) if (code[j]! > 0) signs[o + (j >>> 5)]! |= 1 << (j & 31);
  }

  /** Adds or replaces the code of an id (ids are ≥ 1: SQLite rowids). */
  set(id: number, code: Int8Array): void {
    const s = this.slot(id);
    if (s >= 0) {
      if (this.ids[s]! < 0) {
        this.ids[s] = id; // revived
        this.deadSlots.delete(s);
      }
      this.write(s, code);
      return;
    }
    if (this.n === 0 || id > Math.abs(this.ids[this.n - 1]!)) {
      this.grow(this.n + 1);
      this.ids[this.n] = id;
      this.write(this.n, code);
      this.n++;
      return;
    }
    this.side.set(id, Int8Array.from(code.subarray(0, this.dims)));
    if (this.side.size > 4096) this.compact();
  }

  delete(id: number): void {
    if (this.side.delete(id)) return;
    const s = this.slot(id);
    if (s >= 0 && this.ids[s]! > 0) {
      this.ids[s] = -id;
      this.deadSlots.add(s);
      if (this.deadSlots.size > 1024 && this.deadSlots.size > this.n / 4) this.compact();
    }
  }

  /** An id's int8 code (a view of the table, or its side entry), if it has a live one. */
  private codeOf(id: number): Int8Array | undefined {
    const s = this.slot(id);
    if (s < 0 || this.ids[s]! < 0) return this.side.get(id);
    return this.i8.codes.subarray(s * this.i8.stride, s * this.i8.stride + this.dims);
  }

  /** An id's vector decoded from its int8 code (mean + code / scale; unit length ± ~1%), if it has one. */
  decoded(id: number): Float32Array | undefined {
    const code = this.codeOf(id);
    const { mean, scale } = this.quantizer;
    return code && Float32Array.from(code, (c, j) => mean[j]! + c / scale[j]!);
  }

  /**
   * The cosine distances of these ids' int8 codes (decoded: mean + code / scale) to the query, for
   * those that have a code; within ~0.01 of the float vectors' (the codes are ±4σ in 255 steps).
   */
  approxDistances(query: Float32Array, ids: readonly number[]): { id: number; distance: number }[] {
    const D = this.dims;
    const { mean, scale } = this.quantizer;
    const qu = normalised(query);
    const out: { id: number; distance: number }[] = [];
    for (const id of ids) {
      const code = this.codeOf(id);
      if (!code) continue;
      let dot = 0;
      let norm = 0;
      for (let j = 0; j < D; j++) {
        const x = mean[j]! + code[j]! / scale[j]!;
        dot += qu[j]! * x;
        norm += x * x;
      }
      out.push({ id, distance: 1 - dot / (Math.sqrt(norm) || 1) });
    }
    return out;
  }

  /** Merges the side list in and drops dead slots (keeps ascending order). */
  compact(): void {
    const side = [...this.side.entries()];
    this.side.clear();
    const live: number[] = [];
    for (let i = 0; i < this.n; i++) if (this.ids[i]! > 0) live.push(i);
    const old = { ids: this.ids, i8: this.i8, n: this.n };
    const cap = Math.max(16, (live.length + side.length) * 2);
    this.ids = new Float64Array(cap);
    this.signs = new SignTable(this.signs.groups, cap, this.useSimd);
    this.i8 = new Int8Table(this.dims, cap, this.useSimd);
    this.n = 0;
    this.deadSlots.clear();
    const entries: [number, Int8Array][] = live.map((i) => [
      old.ids[i]!,
      old.i8.codes.subarray(i * old.i8.stride, i * old.i8.stride + this.dims),
    ]);
    entries.push(...side);
    entries.sort((a, b) => a[0] - b[0]);
    for (const [id, code] of entries) {
      this.ids[this.n] = id;
      this.write(this.n, code);
      this.n++;
    }
  }

  /**
   * The `m` ids whose int8 vectors score best against the query, taken from the `coarse` ids
   * nearest by Hamming distance of the sign codes. One pass computes distances and their
   * histogram, which gives the cut-off; a second pass collects: no sort of the whole set.
   */
  nearest(query: Float32Array, coarse: number, m: number): number[] {
    const { words: W, dims: D } = this;
    const qu = normalised(query);
    const qc = new Uint32Array(W);
    // Ranking by q·(x − mean) ranks as cosine does (q·mean is the same for every x): per
    // dimension q / scale, as int16 (the scale of the largest keeps every sum within int32).
    const qs = new Float64Array(D);
    let qMax = 0;
    for (let j = 0; j < D; j++) {
      const c = qu[j]! - this.quantizer.mean[j]!;
      if (c > 0) qc[j >>> 5]! |= 1 << (j & 31);
      qs[j] = qu[j]! / this.quantizer.scale[j]!;
      qMax = Math.max(qMax, Math.abs(qs[j]!));
    }
    const q16 = new Int16Array(this.i8.stride);
    const unit = qMax / queryRange(D) || 1;
    for (let j = 0; j < D; j++) q16[j] = Math.round(qs[j]! / unit);
    const maxD = W * 32;
    const { dist, hist } = this.signs.scan(qc, this.n);
    for (const s of this.deadSlots) {
      hist[dist[s]!]!--;
      dist[s] = maxD + 1;
    }
    const sideDist = new Map<number, number>();
    for (const [id, code] of this.side) {
      let d = 0;
      for (let j = 0; j < D; j++) if (code[j]! > 0 !== ((qc[j >>> 5]! >>> (j & 31)) & 1) > 0) d++;
      sideDist.set(id, d);
      hist[d]!++;
    }
    let cut = 0;
    let below = 0;
    while (cut <= maxD && below + hist[cut]! < coarse) below += hist[cut++]!;
    let tiesLeft = coarse - below;
    const want = Math.min(coarse, this.size);
    // The sorted part's candidates: every slot nearer than the cut, and the first ties at it.
    const slots = this.i8.slots(want);
    let c = 0;
    // (Dead slots lie at maxD + 1, past any cut that still has ties left.)
    for (let i = 0, n = this.n; i < n; i++) {
      const d = dist[i]!;
      if (d > cut) continue;
      if (d < cut) slots[c++] = i;
      else if (tiesLeft > 0 && d <= maxD) {
        tiesLeft--;
        slots[c++] = i;
      }
      if (c === want) break;
    }
    const dots = this.i8.dots(q16, c);
    const candIds = new Float64Array(want);
    const candScores = new Float64Array(want);
    for (let k = 0; k < c; k++) {
      candIds[k] = this.ids[slots[k]!]!;
      candScores[k] = dots[k]!;
    }
    for (const [id, code] of this.side) {
      if (c >= want) break;
      const d = sideDist.get(id)!;
      if (d < cut || (d === cut && tiesLeft-- > 0)) {
        let dot = 0;
        for (let j = 0; j < D; j++) dot += code[j]! * q16[j]!;
        candIds[c] = id;
        candScores[c++] = dot;
      }
    }
    return topByScore(candIds.subarray(0, c), candScores.subarray(0, c), m);
  }
}
