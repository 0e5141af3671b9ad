/**
 * Passage vectors of one chunk, stored compactly: for each unit (line or transcript message) of
 * the chunk, in order, a float32 scale (little-endian) followed by its `dims` int8 codes,
 * code = round(v / scale) with scale = max |v| / 127 (a unit with nothing embeddable: scale 0).
 * A unit's similarity to a query q is scale × Σ q·code, off from the float vector's by at most
 * scale / 2 × Σ |q| (the bound the passage stage uses to find the units that can be the best).
 *
 * Format 2 (static models that expose their tokenizer) adds each unit's token ids, from which the
 * unit's exact vector is computed without tokenizing its text again:
 *   "PV2" · id width (2 or 4) · u32 n · the n records above · n × u32 end of each unit's ids
 *   (cumulative) · the ids (little-endian, `width` bytes each).
 * Format 1 is the records alone (n × (4 + dims) bytes).
 */

/** Bytes per unit. */
export function passageRecordBytes(dims: number): number {
  return 4 + dims;
}

const MAGIC = [0x50, 0x56, 0x32]; // "PV2"
/** The first bytes of a format-2 blob (as SQL sees them: substr(vecs, 1, 3)). */
export const PASSAGE_FORMAT2_PREFIX = Buffer.from(MAGIC);
const HEADER = 8;

/** A chunk's passage blob, read: its units' records (format-1 layout) and, in format 2, their token ids. */
export interface PassageRecords {
  count: number;
  records: Buffer;
  /** Whether the units' token ids are stored (format 2). */
  hasIds: boolean;
  /** Token ids of unit u (format 2), else null. */
  ids(u: number): number[] | null;
}

/** Reads a blob of either format, or null when it does not fit `dims`. */
export function passageRecords(blob: Buffer, dims: number): PassageRecords | null {
  const rec = passageRecordBytes(dims);
  const isV2 = blob.byteLength >= HEADER && MAGIC.every((b, i) => blob[i] === b) && (blob[3] === 2 || blob[3] === 4);
  if (!isV2) {
    if (blob.byteLength % rec !== 0) return null;
    return { count: blob.byteLength / rec, records: blob, hasIds: false, ids: () => null };
  }
  const width = blob[3]!;
  const count = blob.readUInt32LE(4);
  const endsAt = HEADER + count * rec;
  const idsAt = endsAt + 4 * count;
  if (idsAt > blob.byteLength) return null;
  const total = count > 0 ? blob.readUInt32LE(idsAt - 4) : 0;
  if (idsAt + total * width !== blob.byteLength) return null;
  return {
    count,
    records: blob.subarray(HEADER, endsAt),
    hasIds: true,
    ids(u) {
      const from = u > 0 ? blob.readUInt32LE(endsAt + 4 * (u - 1)) : 0;
      const to = blob.readUInt32LE(endsAt + 4 * u);
      const out = new Array<number>(to - from);
      for (let i = from, o = idsAt + from * width; i < to; i++, o += width)
        out[i - from] = width === 2 ? blob.readUInt16LE(o) : blob.readUInt32LE(o);
      return out;
    },
  };
}

/**
 * Encodes one record per unit (null: nothing embeddable); with `tokens` (each unit's token ids,
 * as the model embeds them) in format 2.
 */
export function encodePassageVectors(
  vectors: readonly (Float32Array | null)[],
  dims: number,
  tokens?: readonly (readonly number[])[],
): Buffer {
  const records = encodeRecords(vectors, dims);
  if (!tokens) return records;
  if (tokens.length !== vectors.length) throw new Error(`${tokens.length} token lists for ${vectors.length} units`);
  let total = 0;
  let max = 0;
  for (const t of tokens) {
    total += t.length;
    for (const id of t) if (id > max) max = id;
  }
  const width = max < 65536 ? 2 : 4;
  const out = Buffer.alloc(HEADER + records.byteLength + 4 * tokens.length + total * width);
  MAGIC.forEach((b, i) => (out[i] = b));
  out[3] = width;
  out.writeUInt32LE(vectors.length, 4);
  records.copy(out, HEADER);
  let end = 0;
  let at = HEADER + records.byteLength;
  let idAt = at + 4 * tokens.length;
  for (const t of tokens) {
    end += t.length;
    out.writeUInt32LE(end, at);
    at += 4;
    for (const id of t) {
      if (width === 2) out.writeUInt16LE(id, idAt);
      else out.writeUInt32LE(id, idAt);
      idAt += width;
    }
  }
  return out;
}

function encodeRecords(vectors: readonly (Float32Array | null)[], dims: number): Buffer {
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

/** Units encoded in a blob, or null when it does not fit `dims`. */
export function passageCount(blob: Buffer, dims: number): number | null {
  return passageRecords(blob, dims)?.count ?? null;
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
  const read = passageRecords(blob, query.length);
  return read ? estimateRecords(read, query, queryL1) : null;
}

/** estimatePassages() of a blob already read. */
export function estimateRecords(read: PassageRecords, query: Float32Array, queryL1: number): PassageEstimate[] {
  const dims = query.length;
  const n = read.count;
  const blob = read.records;
  const rec = passageRecordBytes(dims);
  const codes = new Int8Array(blob.buffer, blob.byteOffset, blob.byteLength);
  const out: PassageEstimate[] = new Array(n);
  // + a little for the rounding of the sums themselves.
  const estimate = (scale: number, dot: number): PassageEstimate =>
    scale > 0 ? { score: dot * scale, error: (scale / 2) * queryL1 + 1e-6 } : { score: 0, error: 0 };
  // Four units a pass: each unit's sum still adds its products in order (the same value), but four
  // independent sums overlap their latencies (a chunk has ~20 units of ~100 dims).
  let u = 0;
  for (; u + 4 <= n; u += 4) {
    const b0 = u * rec + 4;
    const b1 = b0 + rec;
    const b2 = b1 + rec;
    const b3 = b2 + rec;
    let d0 = 0, d1 = 0, d2 = 0, d3 = 0; // prettier-ignore
    for (let i = 0; i < dims; i++) {
      const q = query[i]!;
      d0 += q * codes[b0 + i]!;
      d1 += q * codes[b1 + i]!;
      d2 += q * codes[b2 + i]!;
      d3 += q * codes[b3 + i]!;
    }
    out[u] = estimate(blob.readFloatLE(b0 - 4), d0);
    out[u + 1] = estimate(blob.readFloatLE(b1 - 4), d1);
    out[u + 2] = estimate(blob.readFloatLE(b2 - 4), d2);
    out[u + 3] = estimate(blob.readFloatLE(b3 - 4), d3);
  }
  for (; u < n; u++) {
    const base = u * rec + 4;
    let dot = 0;
    for (let i = 0; i < dims; i++) dot += query[i]! * codes[base + i]!;
    out[u] = estimate(blob.readFloatLE(base - 4), dot);
  }
  return out;
}
