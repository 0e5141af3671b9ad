import { K1, fts5Idf, type KeywordHit } from "./bm25.js";
import type { Postings, PostingsView } from "./keyword-postings.js";
import { blockBounds, BLOCK_SHIFT } from "./postings-bounds.js";
import { TopKHeap } from "./topk-heap.js";

/**
 * The best `k` chunks for an OR query of single-token phrases by BM25, from the postings in memory,
 * equal to FTS5's `MATCH … ORDER BY bm25(chunks_fts), rowid` (see postings-topk for the arithmetic),
 * at a cost that does not grow with the postings of common words: a document-at-a-time MaxScore
 * with block maxima (postings-bounds: per block of 128 postings, the largest part a chunk of the
 * block can get).
 *
 * The terms are ordered by their upper bound. Once the heap holds k chunks, its worst score θ
 * makes the terms whose bounds together stay below θ "non-essential": a chunk holding only those
 * cannot enter, so candidates come from the other lists only, and each candidate's non-essential
 * parts are looked up (a galloping seek) only while its bound can still reach θ. A block of an
 * essential list whose maximum plus every other term's bound stays below θ is skipped whole.
 * Every chunk that can reach θ is scored exactly, in query order, as FTS5 sums its parts; the
 * pruning tests compare bounds widened by a relative 1e-9 (far above the rounding of a few
 * additions) and are strict, so a chunk tying θ with a lower id is still scored.
 */

const MARGIN = 1 + 1e-9;

interface Term {
  list: Postings;
  /** idf × how many times the query repeats the token. */
  weight: number;
  idf: number;
  bounds: Float64Array;
  /** Upper bound of the term's part in any chunk (weight × its largest block maximum). */
  ub: number;
  pos: number;
  /** The candidate's count of this token (0: absent), valid for the candidate being scored. */
  tf: number;
}

export function maxScoreTopK(
  view: PostingsView,
  tokens: readonly string[],
  k: number,
  norm: Float64Array,
): KeywordHit[] {
  if (k <= 0 || view.rows === 0) return [];
  const byToken = new Map<string, Term>();
  const order: (Term | null)[] = [];
  for (const token of tokens) {
    const list = view.lists.get(token);
    if (!list || list.n === 0) {
      order.push(null);
      continue;
    }
    let t = byToken.get(token);
    if (!t) {
      const idf = fts5Idf(list.n, view.rows, view.ln);
      const bounds = blockBounds(view, list, norm);
      let max = 0;
      for (let b = 0; b < bounds.length; b++) if (bounds[b]! > max) max = bounds[b]!;
      t = { list, weight: 0, idf, bounds, ub: 0, pos: 0, tf: 0 };
      byToken.set(token, t);
      t.ub = max; // scaled below, once the weight is known
    }
    t.weight += t.idf;
    order.push(t);
  }
  const terms = [...byToken.values()];
  if (terms.length === 0) return [];
  for (const t of terms) t.ub *= t.weight;
  // Ascending bounds; among equals the longer list first, so the shortest lists stay essential.
  terms.sort((a, b) => a.ub - b.ub || b.list.n - a.list.n);
  const m = terms.length;
  const prefix = new Float64Array(m + 1);
  for (let j = 0; j < m; j++) prefix[j + 1] = prefix[j]! + terms[j]!.ub;
  const total = prefix[m]!;

  const heap = new TopKHeap(k);
  let theta = -Infinity;
  let ne = 0; // terms[0..ne) are non-essential
  const part = (t: Term, tf: number, id: number) => t.weight * ((tf * (K1 + 1.0)) / (tf + norm[id]!));

  for (;;) {
    // Next candidate: the lowest id among the essential lists (skipping blocks that cannot reach θ).
    let d = 0x7fffffff;
    for (let j = ne; j < m; j++) {
      const t = terms[j]!;
      const ids = t.list.ids;
      const n = t.list.n;
      if (theta > -Infinity) {
        const others = total - t.ub;
        while (t.pos < n) {
          const b = t.pos >> BLOCK_SHIFT;
          if ((t.bounds[b]! * t.weight + others) * MARGIN >= theta) break;
          t.pos = (b + 1) << BLOCK_SHIFT;
        }
      }
      if (t.pos < n && ids[t.pos]! < d) d = ids[t.pos]!;
    }
    if (d === 0x7fffffff) break;
    let bound = prefix[ne]!;
    for (let j = ne; j < m; j++) {
      const t = terms[j]!;
      if (t.pos < t.list.n && t.list.ids[t.pos] === d) {
        t.tf = t.list.tfs[t.pos++]!;
        bound += part(t, t.tf, d);
      } else t.tf = 0;
    }
    let pruned = false;
    for (let j = ne - 1; j >= 0; j--) {
      if (bound * MARGIN < theta) {
        pruned = true;
        break;
      }
      const t = terms[j]!;
      t.pos = seek(t.list, t.pos, d);
      bound -= t.ub;
      if (t.pos < t.list.n && t.list.ids[t.pos] === d) {
        t.tf = t.list.tfs[t.pos]!;
        bound += part(t, t.tf, d);
      } else t.tf = 0;
    }
    if (pruned || bound * MARGIN < theta) continue;
    // The exact score: each phrase's part in query order, as FTS5 adds them.
    let s = 0;
    for (const t of order) {
      if (t && t.tf > 0) s += t.idf * ((t.tf * (K1 + 1.0)) / (t.tf + norm[d]!));
    }
    if (heap.offer(d, s) && heap.full) {
      theta = heap.worstScore;
      while (ne < m && prefix[ne + 1]! * MARGIN < theta) ne++;
    }
  }
  return heap.hits();
}

/** First position ≥ `from` whose id is ≥ `target` (galloping, then binary search). */
export function seek(list: Postings, from: number, target: number): number {
  const ids = list.ids;
  const n = list.n;
  if (from >= n || ids[from]! >= target) return from;
  let lo = from;
  let step = 1;
  let hi = from + 1;
  while (hi < n && ids[hi]! < target) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  if (hi > n) hi = n;
  // ids[lo] < target; the answer is in (lo, hi].
  lo++;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
