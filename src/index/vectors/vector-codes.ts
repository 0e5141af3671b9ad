/**
 * Quantized copies of the chunk vectors, held in memory for a fast approximate nearest-neighbour
 * scan of large indexes. Each vector is normalised, centred on the index's mean and stored as int8
 * per dimension (scaled by the dimension's spread); its sign bits give a 1-bit code. A query scans
 * the 1-bit codes by Hamming distance (1M × 100 dims: 16 MB, scanned in JS), rescores the best
 * few thousand with the int8 vectors, and hands the best few dozen to the caller for exact
 * rescoring against the float vectors (IndexStore.vectorSearch).
 *
 * Centring matters: embeddings of one model share a large common component (the built-in model's
 * unit vectors are ~0.93 cosine from their mean), so raw sign bits barely tell them apart.
 */
import { popcount } from "../../util/popcount.js";

/** How a vector is turned into an int8 code: fixed for the life of an index's codes. */
export interface Quantizer {
  format: "c8-v1";
  mean: number[];
  /** int8 units per unit of (centred) value, per dimension. */
  scale: number[];
}

/** Derives a quantizer from a sample of vectors: their normalised mean and a ±4σ int8 range per dimension. */
export function fitQuantizer(sample: readonly Float32Array[], dims: number): Quantizer {
  const mean = new Float64Array(dims);
  const sq = new Float64Array(dims);
  const unit = sample.map(normalised);
  for (const v of unit) for (let j = 0; j < dims; j++) mean[j]! += v[j]! / Math.max(1, unit.length);
  for (const v of unit) for (let j = 0; j < dims; j++) sq[j]! += (v[j]! - mean[j]!) ** 2 / Math.max(1, unit.length);
  const scale = Array.from(sq, (s) => 127 / (4 * Math.max(Math.sqrt(s), 1e-6)));
  return { format: "c8-v1", mean: Array.from(mean), scale };
}

function normalised(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}

/** The int8 code of a vector. */
export function quantize(v: Float32Array, q: Quantizer): Int8Array {
  const u = normalised(v);
  const out = new Int8Array(u.length);
  for (let j = 0; j < u.length; j++)
    out[j] = Math.max(-127, Math.min(127, Math.round((u[j]! - q.mean[j]!) * q.scale[j]!)));
  return out;
}

export function codeToBlob(code: Int8Array): Buffer {
  return Buffer.from(code.buffer, code.byteOffset, code.byteLength);
}

export function blobToCode(b: Buffer): Int8Array {
  return new Int8Array(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * The codes of a set of ids. Ids are kept in ascending order (new chunk ids are almost always
 * larger than every earlier one, so adds append); an out-of-order add goes to a small side list
 * that is merged in once it grows. Removal marks the slot dead; dead slots are dropped on merge.
 */
export class QuantizedVectors {
  /** 32-bit words of a sign code. */
  readonly words: number;
  private ids: Float64Array;
  private signs: Uint32Array;
  private i8: Int8Array;
  private n = 0;
  private dead = 0;
  private side = new Map<number, Int8Array>();

  constructor(
    readonly dims: number,
    readonly quantizer: Quantizer,
    capacity = 1024,
  ) {
    this.words = Math.ceil(dims / 32);
    this.ids = new Float64Array(Math.max(16, capacity));
    this.signs = new Uint32Array(this.ids.length * this.words);
    this.i8 = new Int8Array(this.ids.length * dims);
  }

  /** Live codes. */
  get size(): number {
    return this.n - this.dead + this.side.size;
  }

  private grow(min: number): void {
    let cap = this.ids.length;
    while (cap < min) cap *= 2;
    if (cap === this.ids.length) return;
    const ids = new Float64Array(cap);
    ids.set(this.ids.subarray(0, this.n));
    const signs = new Uint32Array(cap * this.words);
    signs.set(this.signs.subarray(0, this.n * this.words));
    const i8 = new Int8Array(cap * this.dims);
    i8.set(this.i8.subarray(0, this.n * this.dims));
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
    this.i8.set(code.subarray(0, this.dims), slot * this.dims);
    const o = slot * this.words;
    this.signs.fill(0, o, o + this.words);
    for (let j = 0; j < this.dims; j++) if (code[j]! > 0) this.signs[o + (j >>> 5)]! |= 1 << (j & 31);
  }

  /** Adds or replaces the code of an id (ids are ≥ 1: SQLite rowids). */
  set(id: number, code: Int8Array): void {
    const s = this.slot(id);
    if (s >= 0) {
      if (this.ids[s]! < 0) {
        this.ids[s] = id; // revived
        this.dead--;
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
      this.dead++;
      if (this.dead > 1024 && this.dead > this.n / 4) this.compact();
    }
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
    this.signs = new Uint32Array(cap * this.words);
    this.i8 = new Int8Array(cap * this.dims);
    this.n = 0;
    this.dead = 0;
    const entries: [number, Int8Array][] = live.map((i) => [
      old.ids[i]!,
      old.i8.subarray(i * this.dims, (i + 1) * this.dims),
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
   * nearest by Hamming distance of the sign codes. One pass computes distances, a histogram finds
   * the cut-off, a second pass collects: no sort of the whole set.
   */
  nearest(query: Float32Array, coarse: number, m: number): number[] {
    const { words: W, dims: D } = this;
    const qu = normalised(query);
    const qc = new Uint32Array(W);
    const qs = new Float64Array(D);
    for (let j = 0; j < D; j++) {
      const c = qu[j]! - this.quantizer.mean[j]!;
      if (c > 0) qc[j >>> 5]! |= 1 << (j & 31);
      // Ranking by q·(x − mean) ranks as cosine does (q·mean is the same for every x).
      qs[j] = qu[j]! / this.quantizer.scale[j]!;
    }
    const maxD = W * 32;
    const dist = new Uint16Array(this.n);
    const hist = new Uint32Array(maxD + 2);
    const { signs, ids } = this;
    for (let i = 0, o = 0; i < this.n; i++, o += W) {
      if (ids[i]! < 0) {
        dist[i] = maxD + 1;
        continue;
      }
      let d = 0;
      for (let w = 0; w < W; w++) d += popcount(signs[o + w]! ^ qc[w]!);
      dist[i] = d;
      hist[d]!++;
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
    const candIds = new Float64Array(Math.min(coarse, this.size));
    const candScores = new Float64Array(candIds.length);
    let c = 0;
    const score = (code: Int8Array, off: number) => {
      let s = 0;
      for (let j = 0; j < D; j++) s += code[off + j]! * qs[j]!;
      return s;
    };
    for (let i = 0; i < this.n && c < candIds.length; i++) {
      const d = dist[i]!;
      if (d > maxD) continue; // dead slot
      if (d < cut || (d === cut && tiesLeft-- > 0)) {
        candIds[c] = ids[i]!;
        candScores[c++] = score(this.i8, i * D);
      }
    }
    for (const [id, code] of this.side) {
      if (c >= candIds.length) break;
      const d = sideDist.get(id)!;
      if (d < cut || (d === cut && tiesLeft-- > 0)) {
        candIds[c] = id;
        candScores[c++] = score(code, 0);
      }
    }
    return topByScore(candIds.subarray(0, c), candScores.subarray(0, c), m);
  }
}

/**
 * The `m` ids with the highest scores (ties: smaller id first), best first, without sorting every
 * candidate: a native numeric sort of the scores finds the m-th best, and only those at or above it
 * are ordered.
 */
export function topByScore(ids: Float64Array, scores: Float64Array, m: number): number[] {
  if (m <= 0 || ids.length === 0) return [];
  let picked: number[];
  if (m >= ids.length) picked = Array.from(ids.keys());
  else {
    const threshold = Float64Array.from(scores).sort()[scores.length - m]!;
    picked = [];
    for (let i = 0; i < ids.length; i++) if (scores[i]! >= threshold) picked.push(i);
  }
  picked.sort((a, b) => scores[b]! - scores[a]! || ids[a]! - ids[b]!);
  return picked.slice(0, m).map((i) => ids[i]!);
}
