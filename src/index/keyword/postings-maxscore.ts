import { K1, type KeywordHit } from "./bm25.js";
import type { PostingsView } from "./keyword-postings.js";
import { blockBounds } from "./postings-bounds.js";
import { END } from "./postings-cursor.js";
import { exactScore, termsOf, type QueryTerm } from "./postings-terms.js";
import { TopKHeap } from "./topk-heap.js";
import { lengthNorm, shortLengths } from "./postings-lengths.js";

/**
 * The best `k` chunks for an OR query of single-token phrases by BM25, from the postings in memory,
 * equal to FTS5's `MATCH … ORDER BY bm25(chunks_fts), rowid` (see postings-topk for the arithmetic),
 * at a cost that does not grow with the postings of common words: a document-at-a-time MaxScore
 * with block maxima (postings-bounds: per block of the compressed postings, postings-blocks, the
 * largest part a chunk of the block can get).
 *
 * The terms are ordered by their upper bound. Once the heap holds k chunks, its worst score θ
 * makes the terms whose bounds together stay below θ "non-essential": a chunk holding only those
 * cannot enter, so candidates come from the other lists only, and each candidate's non-essential
 * parts are looked up (a seek over the blocks' last ids) only while its bound can still reach θ. A block of an
 * essential list whose maximum plus every other term's bound stays below θ is skipped whole.
 * Every chunk that can reach θ is scored exactly, in query order, as FTS5 sums its parts; the
 * pruning tests compare bounds widened by a relative 1e-9 (far above the rounding of a few
 * additions) and are strict, so a chunk tying θ with a lower id is still scored.
 */

const MARGIN = 1 + 1e-9;

interface Term extends QueryTerm {
  bounds: Float64Array;
  /** Upper bound of the term's part in any chunk (weight × its largest block maximum). */
  ub: number;
}

export function maxScoreTopK(
  view: PostingsView,
  tokens: readonly string[],
  k: number,
  norm: Float64Array,
  trace?: { boundsBuilt?: number },
): KeywordHit[] {
  if (k <= 0 || view.rows === 0) return [];
  const { terms: found, order } = termsOf(view, tokens);
  if (found.length === 0) return [];
  const terms: Term[] = found.map((t) => {
    const bounds = blockBounds(view, t.list, norm, trace);
    let max = 0;
    for (let b = 0; b < bounds.length; b++) if (bounds[b]! > max) max = bounds[b]!;
    return Object.assign(t, { bounds, ub: max * t.weight });
  });
  // Ascending bounds; among equals the longer list first, so the shortest lists stay essential.
  terms.sort((a, b) => a.ub - b.ub || b.list.n - a.list.n);
  const m = terms.length;
  const prefix = new Float64Array(m + 1);
  for (let j = 0; j < m; j++) prefix[j + 1] = prefix[j]! + terms[j]!.ub;
  const total = prefix[m]!;

  const heap = new TopKHeap(k);
  let theta = -Infinity;
  let ne = 0; // terms[0..ne) are non-essential
  const part = (t: Term, tf: number, nd: number) => t.weight * ((tf * (K1 + 1.0)) / (tf + nd));
  // Each candidate's length norm from the 16-bit lengths (the same value: see postings-lengths).
  const short = shortLengths(view);
  const avgdl = view.tokens / view.rows;

  for (;;) {
    // Next candidate: the lowest id among the essential lists (skipping blocks that cannot reach θ).
    let d = END;
    for (let j = ne; j < m; j++) {
      const t = terms[j]!;
      const cur = t.cur;
      if (theta > -Infinity) {
        const others = total - t.ub;
        let b = cur.block;
        while (b < t.list.blocks && (t.bounds[b]! * t.weight + others) * MARGIN < theta) b++;
        if (b !== cur.block) cur.load(b); // the skipped blocks are not decoded
      }
      if (cur.id < d) d = cur.id;
    }
    if (d === END) break;
    const nd = short ? lengthNorm(short[d]!, avgdl) : norm[d]!;
    let bound = prefix[ne]!;
    for (let j = ne; j < m; j++) {
      const t = terms[j]!;
      if (t.cur.id === d) {
        t.tf = t.cur.tf;
        t.cur.next();
        bound += part(t, t.tf, nd);
      } else t.tf = 0;
    }
    let pruned = false;
    for (let j = ne - 1; j >= 0; j--) {
      if (bound * MARGIN < theta) {
        pruned = true;
        break;
      }
      const t = terms[j]!;
      t.cur.seek(d);
      bound -= t.ub;
      if (t.cur.id === d) {
        t.tf = t.cur.tf;
        bound += part(t, t.tf, nd);
      } else t.tf = 0;
    }
    if (pruned || bound * MARGIN < theta) continue;
    // The exact score: each phrase's part in query order, as FTS5 adds them.
    const s = exactScore(order, nd);
    if (heap.offer(d, s) && heap.full) {
      theta = heap.worstScore;
      while (ne < m && prefix[ne + 1]! * MARGIN < theta) ne++;
    }
  }
  return heap.hits();
}
