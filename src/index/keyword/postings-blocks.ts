/**
 * One token's postings, compressed: blocks of up to BLOCK postings (chunk ids ascending), each
 * encoded on its own as varints — the first id whole, then the gap to the one before; a count of 1
 * (most postings) rides in the gap's low bit, a larger count follows as its own varint. A common
 * word's gaps are small, so most of its postings take one byte (against 6 as Int32 id + Uint16
 * count). Per block, its last id, byte offset and posting count are kept apart (skip data: a seek
 * jumps over whole blocks without decoding them; MaxScore's block maxima are per block).
 *
 * A block decodes independently of the others, so a change rewrites one block only: a new chunk
 * (the highest id) is appended to the last block, a delete or a change in the middle re-encodes the
 * block it falls in and moves the bytes after it.
 */

/** Postings per block when built (a block may later grow to 2 × BLOCK by inserts, then splits). */
export const BLOCK = 128;
export const MAX_BLOCK = 2 * BLOCK;

export interface Postings {
  /** Postings in the list. */
  n: number;
  /** Blocks in the list. */
  blocks: number;
  /** Per block: its last (largest) id. */
  lasts: Int32Array;
  /** Per block: its first byte in `data`; offs[blocks] is the end of the last block. */
  offs: Uint32Array;
  /** Per block: its postings. */
  counts: Uint16Array;
  data: Uint8Array;
}

/** Bytes the list holds (its typed arrays' capacity). */
export function postingsBytes(list: Postings): number {
  return list.lasts.byteLength + list.offs.byteLength + list.counts.byteLength + list.data.byteLength;
}

export function emptyPostings(): Postings {
  return {
    n: 0,
    blocks: 0,
    lasts: new Int32Array(1),
    offs: new Uint32Array(2),
    counts: new Uint16Array(1),
    data: new Uint8Array(8),
  };
}

/** Writes `v` (0 ≤ v < 2^32) as a varint at `p`; returns the position after it. */
function putVarint(buf: Uint8Array, p: number, v: number): number {
  while (v >= 0x80) {
    buf[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[p++] = v;
  return p;
}

/** Encodes postings ids[0..n) / tfs[0..n) as one block at `p` of `buf` (room for 10 bytes each). */
function encodeBlock(buf: Uint8Array, p: number, ids: Int32Array, tfs: Uint16Array, n: number): number {
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const gap = ids[i]! - prev;
    prev = ids[i]!;
    const tf = tfs[i]!;
    // gap < 2^31: gap·2 + 1 < 2^32.
    if (tf === 1) p = putVarint(buf, p, gap * 2 + 1);
    else p = putVarint(buf, putVarint(buf, p, gap * 2), tf);
  }
  return p;
}

/** Decodes block `b` of `list` into ids / tfs (room for MAX_BLOCK); returns its postings. */
export function decodeBlock(list: Postings, b: number, ids: Int32Array, tfs: Uint16Array): number {
  const data = list.data;
  const n = list.counts[b]!;
  let p = list.offs[b]!;
  let id = -1;
  for (let i = 0; i < n; i++) {
    let v = data[p++]!;
    if (v >= 0x80) {
      v &= 0x7f;
      let shift = 7;
      let x: number;
      do {
        x = data[p++]!;
        v += (x & 0x7f) * 2 ** shift;
        shift += 7;
      } while (x >= 0x80);
    }
    if (v & 1) {
      id += (v - 1) / 2;
      tfs[i] = 1;
    } else {
      id += v / 2;
      let tf = data[p++]!;
      if (tf >= 0x80) {
        tf &= 0x7f;
        let shift = 7;
        let x: number;
        do {
          x = data[p++]!;
          tf += (x & 0x7f) << shift;
          shift += 7;
        } while (x >= 0x80);
      }
      tfs[i] = tf;
    }
    ids[i] = id;
  }
  return n;
}

/** Scratch for encoding one block (10 bytes a posting at most). */
const encodeBuf = new Uint8Array(MAX_BLOCK * 10);

/**
 * Builds a list from postings given in id order (the load): blocks of BLOCK, encoded into a
 * growing scratch, copied out at their exact size by finish(), which leaves the builder empty for
 * the next list. The load builds every list with one builder: its scratch grows to the longest
 * list once, instead of a scratch grown and dropped per token, whose freed buffers between the
 * kept lists stayed in the daemon's RSS.
 */
export class PostingsBuilder {
  private ids = new Int32Array(BLOCK);
  private tfs = new Uint16Array(BLOCK);
  private k = 0;
  private bytes = new Uint8Array(4096);
  private used = 0;
  private lasts: number[] = [];
  private offs: number[] = [];
  private n = 0;

  add(id: number, tf: number): void {
    this.ids[this.k] = id;
    this.tfs[this.k++] = tf;
    if (this.k === BLOCK) this.flush();
  }

  private flush(): void {
    if (this.k === 0) return;
    if (this.used + this.k * 10 > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.used + this.k * 10, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.used));
      this.bytes = grown;
    }
    this.offs.push(this.used);
    this.lasts.push(this.ids[this.k - 1]!);
    this.used = encodeBlock(this.bytes, this.used, this.ids, this.tfs, this.k);
    this.n += this.k;
    this.k = 0;
  }

  finish(): Postings {
    this.flush();
    const blocks = this.lasts.length;
    const counts = new Uint16Array(Math.max(1, blocks));
    for (let b = 0; b < blocks; b++) counts[b] = b < blocks - 1 ? BLOCK : this.n - BLOCK * (blocks - 1);
    const offs = new Uint32Array(blocks + 1);
    offs.set(this.offs);
    offs[blocks] = this.used;
    const list = {
      n: this.n,
      blocks,
      lasts: Int32Array.from(blocks > 0 ? this.lasts : [0]),
      offs,
      counts,
      data: this.bytes.slice(0, Math.max(1, this.used)),
    };
    this.used = 0;
    this.n = 0;
    this.lasts.length = 0;
    this.offs.length = 0;
    return list;
  }
}

/** First block whose last id is ≥ `id` (list.blocks when none). */
export function blockOf(list: Postings, id: number, from = 0): number {
  let lo = from;
  let hi = list.blocks;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list.lasts[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const scratchIds = new Int32Array(MAX_BLOCK + 1);
const scratchTfs = new Uint16Array(MAX_BLOCK + 1);

/** Sets chunk `id`'s count in the list (adds the posting if absent). */
export function insertPosting(list: Postings, id: number, tf: number): void {
  if (list.blocks === 0 || id > list.lasts[list.blocks - 1]!) {
    appendPosting(list, id, tf);
    return;
  }
  const b = blockOf(list, id);
  const n = decodeBlock(list, b, scratchIds, scratchTfs);
  let at = 0;
  while (at < n && scratchIds[at]! < id) at++;
  if (at < n && scratchIds[at] === id) {
    scratchTfs[at] = tf;
    rewriteBlock(list, b, n);
    return;
  }
  scratchIds.copyWithin(at + 1, at, n);
  scratchTfs.copyWithin(at + 1, at, n);
  scratchIds[at] = id;
  scratchTfs[at] = tf;
  list.n++;
  if (n + 1 <= MAX_BLOCK) {
    rewriteBlock(list, b, n + 1);
    return;
  }
  // Split the block in two halves.
  const half = (n + 1) >> 1;
  rewriteBlock(list, b, half);
  insertBlockAfter(list, b, scratchIds.subarray(half, n + 1), scratchTfs.subarray(half, n + 1), n + 1 - half);
}

/** Removes chunk `id` from the list; false if it was not there. */
export function removePosting(list: Postings, id: number): boolean {
  const b = blockOf(list, id);
  if (b >= list.blocks) return false;
  const n = decodeBlock(list, b, scratchIds, scratchTfs);
  let at = 0;
  while (at < n && scratchIds[at]! < id) at++;
  if (at >= n || scratchIds[at] !== id) return false;
  scratchIds.copyWithin(at, at + 1, n);
  scratchTfs.copyWithin(at, at + 1, n);
  list.n--;
  if (n - 1 > 0) rewriteBlock(list, b, n - 1);
  else dropBlock(list, b);
  return true;
}

function appendPosting(list: Postings, id: number, tf: number): void {
  const last = list.blocks - 1;
  if (last >= 0 && list.counts[last]! < BLOCK) {
    // The last block's bytes end the data: the posting's gap is written after them (no re-encoding).
    const end = list.offs[list.blocks]!;
    if (end + 10 > list.data.length) {
      const grown = new Uint8Array(Math.ceil((end + 10) * 1.25) + 16);
      grown.set(list.data.subarray(0, end));
      list.data = grown;
    }
    const gap = id - list.lasts[last]!;
    const p =
      tf === 1 ? putVarint(list.data, end, gap * 2 + 1) : putVarint(list.data, putVarint(list.data, end, gap * 2), tf);
    list.offs[list.blocks] = p;
    list.counts[last]!++;
    list.lasts[last] = id;
    list.n++;
    return;
  }
  const ids = Int32Array.of(id);
  const tfs = Uint16Array.of(tf);
  list.n++;
  insertBlockAfter(list, last, ids, tfs, 1);
}

/** Re-encodes block `b` from scratchIds / scratchTfs[0..n), moving the bytes after it. */
function rewriteBlock(list: Postings, b: number, n: number): void {
  const end = encodeBlock(encodeBuf, 0, scratchIds, scratchTfs, n);
  replaceBytes(list, b, end);
  list.counts[b] = n;
  list.lasts[b] = scratchIds[n - 1]!;
}

/** Puts encodeBuf[0..len) in place of block b's bytes. */
function replaceBytes(list: Postings, b: number, len: number): void {
  const start = list.offs[b]!;
  const oldEnd = list.offs[b + 1]!;
  const total = list.offs[list.blocks]!;
  const delta = len - (oldEnd - start);
  if (total + delta > list.data.length) {
    const grown = new Uint8Array(Math.ceil((total + delta) * 1.25) + 16);
    grown.set(list.data.subarray(0, total));
    list.data = grown;
  }
  if (delta !== 0) list.data.copyWithin(oldEnd + delta, oldEnd, total);
  list.data.set(encodeBuf.subarray(0, len), start);
  for (let j = b + 1; j <= list.blocks; j++) list.offs[j] = list.offs[j]! + delta;
}

/** Inserts a new block after block `b` (b = -1: first) holding ids / tfs[0..n). */
function insertBlockAfter(list: Postings, b: number, ids: Int32Array, tfs: Uint16Array, n: number): void {
  const at = b + 1;
  if (list.blocks + 1 > list.lasts.length) {
    const cap = Math.ceil((list.blocks + 1) * 1.5) + 1;
    const lasts = new Int32Array(cap);
    lasts.set(list.lasts.subarray(0, list.blocks));
    const counts = new Uint16Array(cap);
    counts.set(list.counts.subarray(0, list.blocks));
    const offs = new Uint32Array(cap + 1);
    offs.set(list.offs.subarray(0, list.blocks + 1));
    Object.assign(list, { lasts, counts, offs });
  }
  // An empty block at `at` (its bytes start where block `at` started), then filled.
  list.lasts.copyWithin(at + 1, at, list.blocks);
  list.counts.copyWithin(at + 1, at, list.blocks);
  list.offs.copyWithin(at + 1, at, list.blocks + 1);
  list.blocks++;
  const copyIds = Int32Array.from(ids.subarray(0, n));
  const copyTfs = Uint16Array.from(tfs.subarray(0, n));
  scratchIds.set(copyIds);
  scratchTfs.set(copyTfs);
  rewriteBlock(list, at, n);
}

function dropBlock(list: Postings, b: number): void {
  replaceBytes(list, b, 0);
  list.lasts.copyWithin(b, b + 1, list.blocks);
  list.counts.copyWithin(b, b + 1, list.blocks);
  list.offs.copyWithin(b, b + 1, list.blocks + 1);
  list.blocks--;
}
