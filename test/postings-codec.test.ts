import { expect, it } from "vitest";
import { decodeBlockAt, encodeBlock, maxBlockBytes, PAD } from "../src/index/keyword/postings-codec.js";
import {
  BLOCK,
  decodeBlock,
  emptyPostings,
  insertPosting,
  MAX_BLOCK,
  PostingsBuilder,
  removePosting,
  type Postings,
} from "../src/index/keyword/postings-blocks.js";
import { mulberry32 } from "../src/util/prng.js";

/**
 * One block's bit-packed format (index/keyword/postings-codec): every block of 1 to 256 postings
 * comes back as it went in — consecutive ids and counts of 1 (width 0), gaps and counts needing
 * exceptions, gaps up to 2^31 − 2 and counts up to 65,535 — decoded from a buffer holding only the
 * block and PAD bytes after it, at any offset; and a list's writes (appends re-encoding the last
 * block, inserts splitting a full block, removes emptying one) keep what a build of the same
 * postings holds.
 */

type Block = { ids: Int32Array; tfs: Uint16Array };

/** Encodes the block after `at` bytes of noise into a buffer of exactly its bytes + PAD; decodes it back. */
function roundTrip({ ids, tfs }: Block, at = 0): Block & { bytes: number } {
  const n = ids.length;
  const scratch = new Uint8Array(at + maxBlockBytes(n)).fill(0xa5);
  const end = encodeBlock(scratch, at, ids, tfs, n);
  expect(end - at).toBeLessThanOrEqual(maxBlockBytes(n));
  const exact = new Uint8Array(end + PAD).fill(0xff);
  exact.set(scratch.subarray(0, end));
  const out = { ids: new Int32Array(MAX_BLOCK).fill(-7), tfs: new Uint16Array(MAX_BLOCK).fill(7) };
  decodeBlockAt(new DataView(exact.buffer), at, n, out.ids, out.tfs);
  return { ids: out.ids.slice(0, n), tfs: out.tfs.slice(0, n), bytes: end - at };
}

/** A block of n postings: ids from `first` with gaps from gap(), counts from tf(). */
function block(n: number, first: number, gap: (i: number) => number, tf: (i: number) => number): Block {
  const ids = new Int32Array(n);
  const tfs = new Uint16Array(n);
  for (let i = 0, id = first; i < n; i++, id += gap(i)) [ids[i], tfs[i]] = [id, tf(i)];
  return { ids, tfs };
}

it("a block of consecutive ids, each counted once, takes its header only and comes back", () => {
  for (const n of [1, 2, 128, 256]) {
    const b = block(
      n,
      1_000_000,
      () => 1,
      () => 1,
    );
    const got = roundTrip(b);
    expect([got.ids, got.tfs]).toEqual([b.ids, b.tfs]);
    // The first id (3 varint bytes) and the two width bytes, both 0.
    expect(got.bytes).toBe(5);
  }
});

it("every block size from 1 to 256 round-trips, at any offset, with small, outlying and huge gaps and counts", () => {
  const r = mulberry32(5);
  for (let n = 1; n <= MAX_BLOCK; n++) {
    // Mostly small gaps and counts, a few outliers (exceptions), now and then the widest possible.
    const gap = () => (r() < 0.9 ? 1 + Math.floor(r() * 12) : r() < 0.8 ? 1 + Math.floor(r() * 70_000) : 2 ** 22);
    const tf = () => (r() < 0.6 ? 1 : r() < 0.95 ? 1 + Math.floor(r() * 9) : 1 + Math.floor(r() * 65_535));
    const b = block(n, Math.floor(r() * 1000), gap, tf);
    const got = roundTrip(b, n % 7);
    expect(got.ids).toEqual(b.ids);
    expect(got.tfs).toEqual(b.tfs);
  }
});

it("takes the extremes: ids 0 and 2^31 − 1, every count 65,535, gaps all wider than the widest packed width", () => {
  const ends = { ids: Int32Array.of(0, 2 ** 31 - 1), tfs: Uint16Array.of(65_535, 1) };
  expect(roundTrip(ends)).toMatchObject(ends);
  // 256 counts of 65,535: no width below 16 bits would leave ≤ 255 exceptions.
  const full = block(
    MAX_BLOCK,
    5,
    () => 1,
    () => 65_535,
  );
  expect(roundTrip(full)).toMatchObject(full);
  // Every gap 2^26 + 1: all exceptions above the widest packed width.
  const wide = block(
    31,
    7,
    () => 2 ** 26 + 1,
    (i) => 1 + (i % 3),
  );
  expect(roundTrip(wide)).toMatchObject(wide);
});

it("packs a common word's block at its gaps' and counts' widths, outliers apart: under a byte a posting", () => {
  const r = mulberry32(9);
  // Gaps of 1–8 and counts of 1–4 (3 and 2 bits less one), with 3 outlying gaps and 2 outlying counts.
  const gap = (i: number) => (i % 60 === 7 ? 5_000 : 1 + Math.floor(r() * 8));
  const tf = (i: number) => (i % 70 === 3 ? 900 : 1 + Math.floor(r() * 4));
  const b = block(BLOCK, 400_000, gap, tf);
  const got = roundTrip(b);
  expect(got).toMatchObject(b);
  // First id 3 bytes; per run a width byte and an exception count; 127 gaps at 3 bits (48 bytes),
  // 128 counts at 2 bits (32); 5 exceptions of 3 bytes (position, 2 varint bytes of high bits).
  expect(got.bytes).toBe(3 + 2 + 48 + 2 + 32 + 5 * 3);
});

function contents(list: Postings): [number, number][] {
  const [ids, tfs] = [new Int32Array(MAX_BLOCK), new Uint16Array(MAX_BLOCK)];
  const out: [number, number][] = [];
  for (let b = 0; b < list.blocks; b++) {
    const n = decodeBlock(list, b, ids, tfs);
    expect(ids[n - 1]).toBe(list.lasts[b]);
    for (let j = 0; j < n; j++) out.push([ids[j]!, tfs[j]!]);
  }
  return out;
}

it("appends one by one (re-encoding the last block) to what a build of the same postings holds", () => {
  const r = mulberry32(13);
  const [list, built] = [emptyPostings(), new PostingsBuilder()];
  const want: [number, number][] = [];
  let id = 3;
  for (let i = 0; i < 5 * BLOCK + 9; i++) {
    id += r() < 0.02 ? 1 + Math.floor(r() * 2 ** 20) : 1 + Math.floor(r() * 6);
    const tf = r() < 0.6 ? 1 : 1 + Math.floor(r() * 65_535);
    insertPosting(list, id, tf);
    built.add(id, tf);
    want.push([id, tf]);
  }
  const b = built.finish();
  expect([list.n, list.blocks, Array.from(list.counts.subarray(0, list.blocks))]).toEqual([
    b.n,
    b.blocks,
    Array.from(b.counts),
  ]);
  expect(contents(list)).toEqual(want);
  expect(contents(b)).toEqual(want);
});

it("splits a block grown past 256 postings by inserts, and drops a block emptied by removes", () => {
  const b = new PostingsBuilder();
  // Ids 0, 1000, 2000, …: room for inserts between them.
  for (let i = 0; i < 3 * BLOCK; i++) b.add(i * 1000, 1 + (i % 5));
  const list = b.finish();
  const want = new Map(contents(list));
  // Fill the second block's range until it splits (128 + 129 > 256).
  for (let i = 0; i < BLOCK + 1; i++) {
    const id = BLOCK * 1000 + 1 + i * 7;
    insertPosting(list, id, 65_535 - i);
    want.set(id, 65_535 - i);
  }
  expect(list.blocks).toBe(4);
  expect(contents(list)).toEqual([...want].sort((x, y) => x[0] - y[0]));
  // Remove every posting of the first block: it goes, the rest stay.
  for (let i = 0; i < BLOCK; i++) {
    expect(removePosting(list, i * 1000)).toBe(true);
    want.delete(i * 1000);
  }
  expect(removePosting(list, 5)).toBe(false);
  expect(list.blocks).toBe(3);
  expect(contents(list)).toEqual([...want].sort((x, y) => x[0] - y[0]));
});
