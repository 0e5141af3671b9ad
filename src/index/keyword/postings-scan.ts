import { K1, fts5Idf, type KeywordHit } from "./bm25.js";
import type { PostingsView } from "./keyword-postings.js";
import { decodeBlock } from "./postings-blocks.js";
import { TopKHeap } from "./topk-heap.js";
import { lengthNorm, shortLengths } from "./postings-lengths.js";

/**
 * The exhaustive plan of postings-topk, for queries whose lists are short: each distinct word's
 * list is decoded whole, then the lists are merged by chunk id (document at a time), so every
 * chunk's parts are added at once, in query order as FTS5 adds them (a repeated word again), and
 * the chunk is offered to a top-k heap. No accumulator indexed by chunk id: at 400k chunks its
 * random reads and writes (twice per chunk, over 3 MB) cost more than the merge of a few lists.
 */
export function scanTopK(view: PostingsView, tokens: readonly string[], k: number, norm: Float64Array): KeywordHit[] {
  // The distinct tokens with postings, decoded into one scratch; per phrase in order, its list or -1.
  const slot = new Map<string, number>();
  const starts: number[] = [];
  const ends: number[] = [];
  const idfs: number[] = [];
  const order: number[] = [];
  let total = 0;
  for (const token of tokens) {
    const known = slot.get(token);
    if (known !== undefined) {
      order.push(known);
      continue;
    }
    const list = view.lists.get(token);
    if (!list || list.n === 0) {
      order.push(-1);
      continue;
    }
    slot.set(token, starts.length);
    order.push(starts.length);
    starts.push(total);
    total += list.n;
    ends.push(total);
    idfs.push(fts5Idf(list.n, view.rows, view.ln));
  }
  const m = starts.length;
  if (m === 0 || k <= 0) return [];
  const { ids, tfs } = scratch(total);
  for (const [token, j] of slot) {
    const list = view.lists.get(token)!;
    let at = starts[j]!;
    for (let b = 0; b < list.blocks; b++) at += decodeBlock(list, b, ids.subarray(at), tfs.subarray(at));
  }
  const pos = Int32Array.from(starts);
  const end = Int32Array.from(ends);
  const has = new Uint16Array(m); // the current chunk's count of each list's token (0: absent)
  const idf = Float64Array.from(idfs);
  const phrases = Int32Array.from(order);
  const heap = new TopKHeap(k);
  const short = shortLengths(view);
  const avgdl = view.tokens / view.rows;
  for (;;) {
    let d = 0x7fffffff;
    for (let j = 0; j < m; j++) if (pos[j]! < end[j]! && ids[pos[j]!]! < d) d = ids[pos[j]!]!;
    if (d === 0x7fffffff) break;
    for (let j = 0; j < m; j++) {
      if (pos[j]! < end[j]! && ids[pos[j]!] === d) has[j] = tfs[pos[j]!++]!;
      else has[j] = 0;
    }
    const nd = short ? lengthNorm(short[d]!, avgdl) : norm[d]!;
    let s = 0;
    for (let p = 0; p < phrases.length; p++) {
      const j = phrases[p]!;
      if (j < 0) continue;
      const tf = has[j]!;
      if (tf > 0) s += idf[j]! * ((tf * (K1 + 1.0)) / (tf + nd));
    }
    heap.offer(d, s);
  }
  return heap.hits();
}

/** The decoded lists of one query, reused across queries (grown as needed). */
let shared: { ids: Int32Array; tfs: Uint16Array } | null = null;

function scratch(size: number): { ids: Int32Array; tfs: Uint16Array } {
  // decodeBlock may write up to a whole block past a list's end: room for one more block.
  const need = size + 512;
  if (!shared || shared.ids.length < need) {
    const n = Math.max(need, Math.ceil((shared?.ids.length ?? 0) * 1.5));
    shared = { ids: new Int32Array(n), tfs: new Uint16Array(n) };
  }
  return shared;
}
