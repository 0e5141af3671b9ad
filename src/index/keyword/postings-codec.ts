/**
 * The byte format of one block of postings (ids ascending, each with its count, the token's tf),
 * patched frame of reference: the first id whole (varint), then the n − 1 gaps less one bit-packed
 * at one width, then the n counts less one bit-packed at another. Each width is the block's
 * cheapest: a value wider than it is an exception, its low bits packed like the rest and its high
 * bits kept apart (its position, then the high bits as a varint).
 *
 * Why this and not varints: at 1M chunks (94.6M postings, nearly all in common tokens) 36% of gaps
 * are 1 and 90% of gaps less one fit 6 bits, 62% of counts are 1 and 97% of counts less one fit 3
 * bits, so a varint's whole byte per gap (plus one per count above 1) wasted most of its bits: 1.50
 * bytes a posting against ~0.9 packed. A block whose ids are consecutive and counts all 1 packs
 * both at width 0: its header only.
 *
 * Layout: varint first id · gaps · counts, each as: width byte (its 0x80 bit set when there are
 * exceptions, then their number as a byte) · exceptions · packed values, a little-endian bit string
 * ending on a byte. The exceptions come first so a decode has them in hand while it unpacks, in one
 * pass with the sum of the gaps into ids.
 */

/**
 * The widest packed width: a decode reads each value as the 32 bits from the byte holding its
 * first bit (at a bit offset ≤ 7), so 25 bits at most; a wider value is an exception.
 */
const MAX_WIDTH = 25;
/**
 * Bytes after a list's last block: the 32-bit read of its last value may pass its last byte by 3,
 * and a run of width 0 is read at its end (its values are all 0, but the loop reads anyway).
 */
export const PAD = 4;
const HAS_EXCEPTIONS = 0x80;

/** Bytes a block of `n` postings takes at most (a generous bound for scratch buffers). */
export function maxBlockBytes(n: number): number {
  return 16 + n * 10;
}

function putVarint(buf: Uint8Array, p: number, v: number): number {
  while (v >= 0x80) {
    buf[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[p++] = v;
  return p;
}

const bitsOf = (v: number) => 32 - Math.clz32(v);

/** Per bit width 0..32, how many of vals[0..n) need exactly it (scratch, reused). */
const widths = new Int32Array(33);

/** The width packing vals[0..n) in the fewest bytes, its exceptions (≤ 255 of them) included. */
function cheapestWidth(vals: Int32Array, n: number): number {
  widths.fill(0);
  let top = 0;
  for (let i = 0; i < n; i++) {
    const b = bitsOf(vals[i]!);
    widths[b]!++;
    if (b > top) top = b;
  }
  const widest = Math.min(top, MAX_WIDTH);
  let best = widest;
  let bestCost = Infinity;
  // From the widest down, so a tie keeps the wider width (fewer exceptions to patch in a decode).
  for (let w = widest; w >= 0; w--) {
    let cost = Math.ceil((n * w) / 8);
    let exceptions = 0;
    // An exception costs its position byte and its high bits' varint.
    for (let b = w + 1; b <= top; b++) {
      exceptions += widths[b]!;
      cost += widths[b]! * (1 + Math.ceil((b - w) / 7));
    }
    if (exceptions > 255) break;
    if (cost < bestCost) {
      best = w;
      bestCost = cost;
    }
  }
  return best;
}

/** Packs vals[0..n) at width `w` (their low w bits) at `p`; returns the position after. */
function pack(buf: Uint8Array, p: number, vals: Int32Array, n: number, w: number): number {
  if (w === 0) return p;
  const mask = 2 ** w - 1;
  let acc = 0;
  let have = 0;
  for (let i = 0; i < n; i++) {
    acc |= (vals[i]! & mask) << have;
    have += w;
    while (have >= 8) {
      buf[p++] = acc & 0xff;
      acc >>>= 8;
      have -= 8;
    }
  }
  if (have > 0) buf[p++] = acc;
  return p;
}

/** Writes the exceptions of vals[0..n) at width `w` (position byte, high bits as a varint). */
function putExceptions(buf: Uint8Array, p: number, vals: Int32Array, n: number, w: number): number {
  for (let i = 0; i < n; i++) {
    const high = vals[i]! >>> w;
    if (high === 0) continue;
    buf[p++] = i;
    p = putVarint(buf, p, high);
  }
  return p;
}

function countExceptions(vals: Int32Array, n: number, w: number): number {
  let e = 0;
  for (let i = 0; i < n; i++) if (vals[i]! >>> w !== 0) e++;
  return e;
}

/** Writes vals[0..n) (each < 2^31) at their cheapest width, exceptions first; returns the position after. */
function putPacked(buf: Uint8Array, p: number, vals: Int32Array, n: number): number {
  const w = cheapestWidth(vals, n);
  const e = countExceptions(vals, n, w);
  buf[p++] = e > 0 ? w | HAS_EXCEPTIONS : w;
  if (e > 0) {
    buf[p++] = e;
    p = putExceptions(buf, p, vals, n, w);
  }
  return pack(buf, p, vals, n, w);
}

/** Gaps less one, then counts less one, of the block being encoded. */
const gaps = new Int32Array(512);
const counts = new Int32Array(512);

/** Encodes postings ids[0..n) / tfs[0..n) (1 ≤ n ≤ 256) as one block at `p`; returns the position after. */
export function encodeBlock(buf: Uint8Array, p: number, ids: Int32Array, tfs: Uint16Array, n: number): number {
  for (let i = 1; i < n; i++) gaps[i - 1] = ids[i]! - ids[i - 1]! - 1;
  for (let i = 0; i < n; i++) counts[i] = tfs[i]! - 1;
  p = putVarint(buf, p, ids[0]!);
  p = putPacked(buf, p, gaps, n - 1);
  return putPacked(buf, p, counts, n);
}

function getVarint(data: DataView, p: number): number {
  let v = data.getUint8(p);
  if (v < 0x80) return v;
  v &= 0x7f;
  let shift = 7;
  let x: number;
  do {
    x = data.getUint8(++p);
    v += (x & 0x7f) * 2 ** shift;
    shift += 7;
  } while (x >= 0x80);
  return v;
}

const varintBytes = (v: number) => (v < 2 ** 7 ? 1 : v < 2 ** 14 ? 2 : v < 2 ** 21 ? 3 : v < 2 ** 28 ? 4 : 5);

/** Past any position in a run: the last exception's successor. */
const NONE = 0x7fffffff;
/** The exceptions of the run being decoded: positions (NONE after the last) and high bits, shifted in place. */
const exceptionAt = new Int32Array(257);
const exceptionHigh = new Int32Array(256);

/** Reads the exceptions of the run whose width byte is at p (into exceptionAt / exceptionHigh); returns the position after them. */
function readExceptions(data: DataView, p: number): number {
  const head = data.getUint8(p++);
  const w = head & ~HAS_EXCEPTIONS;
  const e = head & HAS_EXCEPTIONS ? data.getUint8(p++) : 0;
  for (let k = 0; k < e; k++) {
    exceptionAt[k] = data.getUint8(p++);
    // Mostly one byte (a gap or count just past the width): read inline, the rest by a call.
    let high = data.getUint8(p++);
    if (high >= 0x80) {
      high = getVarint(data, p - 1);
      p += varintBytes(high) - 1;
    }
    exceptionHigh[k] = high << w;
  }
  exceptionAt[e] = NONE;
  return p;
}

/*
 * The two unpack loops below are alike but apart, so each stays monomorphic (an Int32Array of ids
 * summed from gaps, a Uint16Array of counts). Each value is one unaligned little-endian 32-bit
 * read from the byte holding its first bit, shifted and masked, without a branch (a DataView's
 * read is a single load once optimized: measured ~25% faster than the varints it replaced, where
 * three byte reads were slower than them); an exception's high bits are added at its position.
 */

/** Unpacks n − 1 gaps at width w from p and sums them into ids[1..n) after `first`; returns the position after. */
function unpackIds(data: DataView, p: number, w: number, ids: Int32Array, n: number, first: number): number {
  const mask = (1 << w) - 1;
  let id = first;
  ids[0] = id;
  let k = 0;
  let next = exceptionAt[0]!;
  let bit = 0;
  for (let j = 0; j < n - 1; j++) {
    let gap = ((data.getUint32(p + (bit >>> 3), true) >>> (bit & 7)) & mask) + 1;
    bit += w;
    if (j === next) {
      gap += exceptionHigh[k++]!;
      next = exceptionAt[k]!;
    }
    ids[j + 1] = id += gap;
  }
  return p + ((bit + 7) >>> 3);
}

/** Unpacks n counts less one at width w from p into tfs[0..n). */
function unpackCounts(data: DataView, p: number, w: number, tfs: Uint16Array, n: number): void {
  if (w === 0 && exceptionAt[0] === NONE) {
    tfs.fill(1, 0, n);
    return;
  }
  const mask = (1 << w) - 1;
  let k = 0;
  let next = exceptionAt[0]!;
  let bit = 0;
  for (let i = 0; i < n; i++) {
    let tf = ((data.getUint32(p + (bit >>> 3), true) >>> (bit & 7)) & mask) + 1;
    bit += w;
    if (i === next) {
      tf += exceptionHigh[k++]!;
      next = exceptionAt[k]!;
    }
    tfs[i] = tf;
  }
}

/** Decodes the block of n postings at byte p of `data` into ids / tfs[0..n). */
export function decodeBlockAt(data: DataView, p: number, n: number, ids: Int32Array, tfs: Uint16Array): void {
  const first = getVarint(data, p);
  p += varintBytes(first);
  const gapWidth = data.getUint8(p) & ~HAS_EXCEPTIONS;
  p = unpackIds(data, readExceptions(data, p), gapWidth, ids, n, first);
  const countWidth = data.getUint8(p) & ~HAS_EXCEPTIONS;
  unpackCounts(data, readExceptions(data, p), countWidth, tfs, n);
}
