import { expect, it } from "vitest";
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
import { END, PostingsCursor } from "../src/index/keyword/postings-cursor.js";
import { mulberry32 } from "../src/util/prng.js";

/**
 * The keyword postings held compressed (index/keyword/postings-blocks): what goes in comes out —
 * ids from 0 to near 2^31 (gaps of one byte to five), counts of 1 to 65,534 — after a build, after
 * thousands of random inserts, changes and deletes (blocks growing, splitting and emptying), and
 * through a cursor's next and seek.
 */

function contents(list: Postings): [number, number][] {
  const ids = new Int32Array(MAX_BLOCK);
  const tfs = new Uint16Array(MAX_BLOCK);
  const out: [number, number][] = [];
  let n = 0;
  for (let b = 0; b < list.blocks; b++) {
    const c = decodeBlock(list, b, ids, tfs);
    expect(c).toBeGreaterThan(0);
    expect(c).toBeLessThanOrEqual(MAX_BLOCK);
    expect(ids[c - 1]).toBe(list.lasts[b]);
    for (let j = 0; j < c; j++) out.push([ids[j]!, tfs[j]!]);
    n += c;
  }
  expect(n).toBe(list.n);
  return out;
}

const sorted = (m: Map<number, number>) => [...m.entries()].sort((a, b) => a[0] - b[0]);

it("a built list decodes to its postings, large ids and counts included", () => {
  const r = mulberry32(3);
  const want = new Map<number, number>();
  const b = new PostingsBuilder();
  let id = 0;
  for (let i = 0; i < 5 * BLOCK + 17; i++) {
    id += 1 + Math.floor(r() ** 6 * 2 ** 22);
    const tf = r() < 0.7 ? 1 : 1 + Math.floor(r() ** 4 * 65_533);
    want.set(id, tf);
    b.add(id, tf);
  }
  b.add(2 ** 31 - 2, 65_534);
  want.set(2 ** 31 - 2, 65_534);
  const list = b.finish();
  expect(list.blocks).toBe(6);
  expect(contents(list)).toEqual(sorted(want));
});

it("one builder reused for list after list gives each list its own postings only (short, long, empty)", () => {
  const r = mulberry32(11);
  const b = new PostingsBuilder();
  for (const size of [3 * BLOCK + 5, 0, 1, 40 * BLOCK + 77, BLOCK, 2]) {
    const want = new Map<number, number>();
    let id = Math.floor(r() * 1000);
    for (let i = 0; i < size; i++) {
      id += 1 + Math.floor(r() ** 4 * 5000);
      const tf = r() < 0.7 ? 1 : 1 + Math.floor(r() * 300);
      want.set(id, tf);
      b.add(id, tf);
    }
    const list = b.finish();
    expect(list.n).toBe(size);
    expect(list.blocks).toBe(Math.ceil(size / BLOCK));
    if (size > 0) expect(contents(list)).toEqual(sorted(want));
  }
});

it("stays equal to a plain map through random inserts, changes and deletes, and cursors seek in it", () => {
  const r = mulberry32(7);
  const list = emptyPostings();
  const want = new Map<number, number>();
  for (let step = 0; step < 20_000; step++) {
    const x = r();
    // Mostly appends (new chunks take the highest ids), then inserts in the middle and deletes.
    const id = x < 0.5 ? 10 * step + Math.floor(r() * 9) : Math.floor(r() * 10 * step);
    if (x < 0.8) {
      const tf = r() < 0.8 ? 1 : 1 + Math.floor(r() * 300);
      insertPosting(list, id, tf);
      want.set(id, tf);
    } else {
      expect(removePosting(list, id)).toBe(want.delete(id));
    }
    if (step % 2_000 === 0) expect(contents(list)).toEqual(sorted(want));
  }
  const all = sorted(want);
  expect(contents(list)).toEqual(all);
  // Remove most, so blocks empty and go.
  for (const [id] of all)
    if (r() < 0.9) {
      removePosting(list, id);
      want.delete(id);
    }
  expect(contents(list)).toEqual(sorted(want));
  // A cursor's walk and seeks.
  const left = sorted(want);
  const c = new PostingsCursor(list);
  for (const [id, tf] of left) {
    expect([c.id, c.tf]).toEqual([id, tf]);
    c.next();
  }
  expect(c.id).toBe(END);
  const s = new PostingsCursor(list);
  let target = 0;
  while (s.id !== END) {
    target += Math.floor(r() * 400);
    s.seek(target);
    const next = left.find(([id]) => id >= target);
    expect(s.id).toBe(next ? next[0] : END);
    if (next) expect(s.tf).toBe(next[1]);
  }
});
