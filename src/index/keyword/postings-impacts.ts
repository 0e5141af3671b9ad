import { K1, type KeywordHit } from "./bm25.js";
import type { PostingsView } from "./keyword-postings.js";
import { decodeBlock, MAX_BLOCK, type Postings } from "./postings-blocks.js";
import { exactScore, termsOf } from "./postings-terms.js";
import { TopKHeap } from "./topk-heap.js";
import { lengthNorm, shortLengths } from "./postings-lengths.js";

/**
 * The top k for a query whose words are all common (every list at least LONG_LIST postings: "the
 * and", "was in of", a frequent topic word with them), exactly, without reading the lists whole.
 *
 * Per long list, its TOP chunks by the token's part (tf · (k1 + 1)) / (tf + norm) are kept (cached
 * until the postings change, like the block bounds), with the TOP-th largest part: the "floor" no
 * other chunk of the list exceeds. A word in more than half the chunks (FTS5 floors its idf at
 * 1e-6) gets no top set: its part is bounded by k1 + 1, which at that weight moves the bound by
 * ~2e-6 — so a query of topic words with stop words among them is served too. A query of such
 * words only ("then so", "we they is": MaxScore steps through lists of nearly every chunk there,
 * since their block bounds barely prune) is served from their own top chunks, bounded likewise.
 * The candidates are the union of the other words' top chunks, each
 * scored exactly (its counts found by seeks, its parts added in query order as FTS5 adds them). A
 * chunk outside every top set gets at most Σ weight × floor; when the k-th candidate's score is
 * strictly above that (widened by a relative 1e-9, as postings-maxscore widens its bounds), no
 * other chunk can enter or tie the top k, so the result is FTS5's. Otherwise the answer is null
 * and MaxScore ranks (the cost is then a few thousand seeks more).
 *
 * Why it helps: with common words, MaxScore's block bounds barely prune (nearly every block of 128
 * holds a short chunk that uses the word), so it steps through most postings; the top parts of a
 * common word, though, sit far above its typical part, so the union of a few thousand usually holds
 * the top k with room to spare.
 */

/**
 * Lists shorter than this are left to MaxScore (its bounds prune them well), and chunks kept per
 * long list; `flooredTop` for a query of floored words only, whose parts are close together (a
 * stop word's part depends on little but the chunk's length): at 398,887 chunks (load ~0.5, k 40 /
 * 120) 2,048 proved the top k for 2 / 1 of 16 such queries (the union scored for nothing, then
 * MaxScore: p50 29 ms, p95 45 ms, MaxScore alone p50 22 ms), 16,384 for all 16 (p50 10.6 / 13.4 ms,
 * p95 16.7 / 19.1 ms). Other queries of common words go to MaxScore (`flooredOnly`): there, for the
 * 70 others whose lists all hold ≥ 16,384 postings, MaxScore alone took p50 0.96 ms, p95 5.8 ms
 * (k 40) against 1.79 / 11.1 ms for their 2,048 top chunks with MaxScore after a failed bound.
 */
export const IMPACT_PLAN: ImpactPlan = { longList: 16_384, top: 2048, flooredTop: 16_384, flooredOnly: true };

export interface ImpactPlan {
  longList: number;
  top: number;
  /** Chunks kept per list for a query of floored words only (default `top`). */
  flooredTop?: number;
  /** Only for a query of floored words only (others go to MaxScore). */
  flooredOnly?: boolean;
}
const MARGIN = 1 + 1e-9;

interface Impacts {
  /** The list's TOP chunks by part, ids ascending. */
  ids: Int32Array;
  /** No chunk outside `ids` gets a larger part from the token. */
  floor: number;
}

const cache = new WeakMap<Postings, { version: number; n: number; top: number; impacts: Impacts }>();

export function topImpacts(view: PostingsView, list: Postings, norm: Float64Array, top: number): Impacts {
  const known = cache.get(list);
  if (known && known.version === view.version && known.n === list.n && known.top === top) return known.impacts;
  const n = list.n;
  let parts = scratch;
  if (parts.length < n) parts = scratch = new Float64Array(Math.max(n, scratch.length * 2));
  if (idScratch.length < n) idScratch = new Int32Array(Math.max(n, idScratch.length * 2));
  const ids = idScratch;
  for (let b = 0, o = 0; b < list.blocks; b++) {
    const c = decodeBlock(list, b, blockIds, blockTfs);
    for (let j = 0; j < c; j++, o++) {
      const tf = blockTfs[j]!;
      ids[o] = blockIds[j]!;
      parts[o] = (tf * (K1 + 1.0)) / (tf + norm[blockIds[j]!]!);
    }
  }
  let floor = 0;
  let kept: Int32Array = ids.slice(0, n);
  if (n > top) {
    // The top-th largest part, found in a copy (quickselect reorders it); then, in id order, the
    // chunks at or above it (ties may keep a few more than `top`; every other part is below).
    const sel = parts.slice(0, n);
    floor = kthLargest(sel, top);
    const out: number[] = [];
    for (let j = 0; j < n; j++) if (parts[j]! >= floor) out.push(ids[j]!);
    kept = Int32Array.from(out);
  }
  const impacts = { ids: kept, floor };
  cache.set(list, { version: view.version, n: list.n, top, impacts });
  return impacts;
}

/** Reused for the parts and ids of the list being summarised, and for one block. */
let scratch = new Float64Array(0);
let idScratch = new Int32Array(0);
const blockIds = new Int32Array(MAX_BLOCK);
const blockTfs = new Uint16Array(MAX_BLOCK);

/** The k-th largest value of `a` (1-based; reorders `a`): iterative quickselect, median of three. */
function kthLargest(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  const want = k - 1; // index in descending order
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = a[lo]!;
    const y = a[mid]!;
    const z = a[hi]!;
    const pivot = x > y ? (y > z ? y : x > z ? z : x) : x > z ? x : y > z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! > pivot) i++;
      while (a[j]! < pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    if (want <= j) hi = j;
    else if (want >= i) lo = i;
    else return a[want]!;
  }
  return a[want]!;
}

/** The exact top k when every word of the query is common and the bound proves it; else null. */
export function impactTopK(
  view: PostingsView,
  tokens: readonly string[],
  k: number,
  norm: Float64Array,
  plan: ImpactPlan = IMPACT_PLAN,
): KeywordHit[] | null {
  const { terms, order } = termsOf(view, tokens);
  if (terms.some((t) => t.list.n < plan.longList)) return null;
  // Stop words only (every idf floored): their own top chunks bound them (else k1 + 1 does).
  const allFloored = terms.every((t) => t.floored);
  if (plan.flooredOnly && !allFloored) return null;
  const top = allFloored ? (plan.flooredTop ?? plan.top) : plan.top;
  let bound = 0;
  const sets: Int32Array[] = [];
  for (const t of terms) {
    if (t.floored && !allFloored) {
      bound += t.weight * (K1 + 1.0); // tf / (tf + norm) < 1
      continue;
    }
    const imp = topImpacts(view, t.list, norm, top);
    bound += t.weight * imp.floor;
    sets.push(imp.ids);
  }
  const candidates = unionSorted(sets);
  const heap = new TopKHeap(k);
  const short = shortLengths(view);
  const avgdl = view.tokens / view.rows;
  for (let c = 0; c < candidates.length; c++) {
    const d = candidates[c]!;
    for (const t of terms) {
      t.cur.seek(d);
      t.tf = t.cur.id === d ? t.cur.tf : 0;
    }
    heap.offer(d, exactScore(order, short ? lengthNorm(short[d]!, avgdl) : norm[d]!));
  }
  if (!heap.full || !(heap.worstScore > bound * MARGIN)) return null;
  return heap.hits();
}

/** The distinct ids of ascending arrays, ascending. */
function unionSorted(sets: readonly Int32Array[]): Int32Array {
  if (sets.length === 1) return sets[0]!;
  let n = 0;
  for (const s of sets) n += s.length;
  const all = new Int32Array(n);
  let o = 0;
  for (const s of sets) {
    all.set(s, o);
    o += s.length;
  }
  all.sort();
  let w = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[w - 1]) all[w++] = all[i]!;
  return all.subarray(0, w);
}
