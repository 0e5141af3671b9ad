import { decodeBlockAt, encodeBlock, maxBlockBytes, PAD } from "./postings-codec.js";

/**
 * One token's postings, compressed: blocks of up to BLOCK postings (chunk ids ascending), each
 * encoded on its own (postings-codec: the first id whole, then the gaps and the counts bit-packed at
 * the block's own widths — most of a common word's postings take under one byte, against 6 as
 * Int32 id + Uint16 count). Per block, its last id, byte offset and posting count are kept apart
 * (skip data: a seek jumps over whole blocks without decoding them; MaxScore's block maxima are per
 * block).
 *
 * A block decodes independently of the others, so a change rewrites one block only: a new chunk
 * (the highest id) re-encodes the last block with it, a delete or a change in the middle
 * re-encodes the block it falls in and moves the bytes after it.
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
  /** The blocks' bytes, then at least PAD more (postings-codec reads up to 4 bytes past a block). */
  data: DataView;
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
    data: new DataView(new ArrayBuffer(8)),
  };
}

/** Decodes block `b` of `list` into ids / tfs (room for MAX_BLOCK); returns its postings. */
export function decodeBlock(list: Postings, b: number, ids: Int32Array, tfs: Uint16Array): number {
  const n = list.counts[b]!;
  decodeBlockAt(list.data, list.offs[b]!, n, ids, tfs);
  return n;
}

/** Scratch for encoding one block. */
const encodeBuf = new Uint8Array(maxBlockBytes(MAX_BLOCK));

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
    const room = this.used + maxBlockBytes(this.k);
    if (room > this.bytes.length) {
      const grown = new Uint8Array(Math.max(room, this.bytes.length * 2));
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
      data: new DataView(this.bytes.slice(0, this.used + PAD).buffer),
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
  list.n++;
  if (last >= 0 && list.counts[last]! < BLOCK) {
    // Packed at one width, the last block is encoded again with the posting (≤ BLOCK postings).
    const n = decodeBlock(list, last, scratchIds, scratchTfs);
    scratchIds[n] = id;
    scratchTfs[n] = tf;
    rewriteBlock(list, last, n + 1);
    return;
  }
  insertBlockAfter(list, last, Int32Array.of(id), Uint16Array.of(tf), 1);
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
  let bytes = new Uint8Array(list.data.buffer);
  if (total + delta + PAD > bytes.length) {
    const grown = new Uint8Array(Math.ceil((total + delta) * 1.25) + 16);
    grown.set(bytes.subarray(0, total));
    bytes = grown;
    list.data = new DataView(grown.buffer);
  }
  if (delta !== 0) bytes.copyWithin(oldEnd + delta, oldEnd, total);
  bytes.set(encodeBuf.subarray(0, len), start);
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
