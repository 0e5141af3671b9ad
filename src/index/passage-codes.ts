/**
 * Passage vectors of one chunk, stored compactly: for each unit (line or transcript message) of
 * the chunk, in order, a float32 scale (little-endian) followed by its `dims` int8 codes,
 * code = round(v / scale) with scale = max |v| / 127 (a unit with nothing embeddable: scale 0).
 * A unit's similarity to a query q is scale × Σ q·code, off from the float vector's by at most
 * scale / 2 × Σ |q| (the bound the passage stage uses to find the units that can be the best).
 */

/** Bytes per unit. */
export function passageRecordBytes(dims: number): number {
  return 4 + dims;
}

/** Encodes one record per unit (null: nothing embeddable). */
export function encodePassageVectors(vectors: readonly (Float32Array | null)[], dims: number): Buffer {
  const rec = passageRecordBytes(dims);
  const out = Buffer.alloc(vectors.length * rec);
  const codes = new Int8Array(out.buffer, out.byteOffset, out.byteLength);
  vectors.forEach((v, u) => {
    if (v && v.length !== dims) throw new Error(`passage vector has ${v.length} dims, expected ${dims}`);
    let max = 0;
    if (v) for (let i = 0; i < dims; i++) max = Math.max(max, Math.abs(v[i]!));
    const scale = max > 0 && Number.isFinite(max) ? max / 127 : 0;
    const off = u * rec;
    out.writeFloatLE(scale, off);
    if (scale > 0) for (let i = 0; i < dims; i++) codes[off + 4 + i] = Math.round(v![i]! / scale);
  });
  return out;
}

/** Units encoded in a blob, or null when it is not a whole number of `dims` records. */
export function passageCount(blob: Buffer, dims: number): number | null {
  const rec = passageRecordBytes(dims);
  return blob.byteLength % rec === 0 ? blob.byteLength / rec : null;
}

/** Each unit's approximate similarity to `query` and the bound on its error (both 0 for a unit with nothing embeddable). */
export interface PassageEstimate {
  score: number;
  error: number;
}

/**
 * The estimated similarity of `query` to each unit of the blob, or null when the blob does not fit
 * `query`'s dimension.
 */
export function estimatePassages(blob: Buffer, query: Float32Array, queryL1: number): PassageEstimate[] | null {
  const dims = query.length;
  const n = passageCount(blob, dims);
  if (n === null) return null;
  const rec = passageRecordBytes(dims);
  const codes = new Int8Array(blob.buffer, blob.byteOffset, blob.byteLength);
  const out: PassageEstimate[] = new Array(n);
  for (let u = 0; u < n; u++) {
    const off = u * rec;
    const scale = blob.readFloatLE(off);
    if (!(scale > 0)) {
      out[u] = { score: 0, error: 0 };
      continue;
    }
    const base = off + 4;
    let dot = 0;
    for (let i = 0; i < dims; i++) dot += query[i]! * codes[base + i]!;
    // + a little for the rounding of the sums themselves.
    out[u] = { score: dot * scale, error: (scale / 2) * queryL1 + 1e-6 };
  }
  return out;
}
