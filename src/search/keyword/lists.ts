import { fts5Idf, K1, type KeywordHit } from "../../index/bm25.js";
import { termPhrase } from "../../index/fts-text.js";
import type { TermListHead } from "../../index/term-lists.js";
import type { TermStat } from "../../index/term-stats.js";

/**
 * Top-k BM25 over common words in a large index from impact-ordered lists (index/term-lists), in
 * the manner of the threshold algorithms (Fagin's NRA, MaxScore):
 *
 * Each query word is a source of score: the rare words together (FTS5 bm25 over them: exact for
 * the best `rareLimit`, the last of those bounds the rest); each common word with a list (the
 * head: exact idf × g per chunk, the head's last g bounds every other chunk); a common word
 * without a list (no candidates of its own; its bound is 2.2 × idf, as in MaxScore). Each candidate
 * has a lower bound (its known parts) and an upper bound (plus every unknown part's bound).
 * Candidates are scored exactly on their text in order of upper bound until the k-th best score
 * beats every remaining upper bound and the bound of a chunk seen in no source; then the top k is
 * BM25's exact top k (as far as the text scorer reproduces FTS5: the same stems, idf and length
 * normalisation). Chunks written since the lists were last folded are scored too.
 */

export interface ListSearchDeps {
  /** Best chunks for an FTS5 MATCH by bm25 (rank negative, lower is better). */
  keywordSearch(match: string, limit: number): KeywordHit[];
  chunkTexts(ids: readonly number[]): Map<number, string>;
  /** A stem's list head, or null when it has none. */
  listHead(stem: string, limit: number): TermListHead | null;
  /** Chunks not yet in the lists. */
  listPending(limit: number): { ids: number[]; total: number };
}

export interface ListSearchInput {
  /** Every word scored (with stems and df). */
  terms: readonly TermStat[];
  /** The rare words (FTS5 scores them; may be empty). */
  rare: readonly string[];
  chunks: number;
  k: number;
  /** BM25 of a chunk's text over every word (FTS5-style rank: negative, lower is better). */
  rank(text: string): number;
}

export interface ListSearchResult {
  hits: KeywordHit[];
  /** True when the bounds prove the top min(k, PROVE_K) exact. */
  exact: boolean;
  /** Chunk texts scored. */
  scored: number;
}

/** List entries read per common word. */
export const LIST_HEAD = 2_000;
/** Most chunk texts scored per query. */
export const MAX_SCORED = 120;
/** Chunks not yet folded into the lists that a query scores (newest first). */
export const MAX_PENDING = 200;
const BATCH = 40;
/** Results the bounds must prove (the rest of the k are the best of what was scored). */
export const PROVE_K = 10;
/** Share of a candidate's unknown bound that orders the scoring (1: by upper bound). */
const OPTIMISM = 0.3;

/** Returns null when no common word has a list (the caller keeps its own plan). */
export function listTopK(deps: ListSearchDeps, q: ListSearchInput): ListSearchResult | null {
  const rareSet = new Set(q.rare);
  const common = q.terms.filter((t) => !rareSet.has(t.term));
  const heads = common.map((t) => (t.stems.length === 1 ? deps.listHead(t.stems[0]!, LIST_HEAD) : null));
  if (!heads.some(Boolean)) return null;

  let exact = true;
  // Sources: 0 = the rare words, then one per common word.
  const bounds: number[] = [];
  // Per candidate chunk (by slot): the sum of its known parts and a bitmask of the sources they came from.
  const slotOf = new Map<number, number>();
  const capacity = heads.reduce((n, h) => n + (h?.ids.length ?? 0), 0) + Math.max(4 * q.k, 100);
  const slotId = new Int32Array(capacity);
  const lb = new Float64Array(capacity);
  const seen = new Int32Array(capacity);
  const note = (id: number, source: number, part: number) => {
    let slot = slotOf.get(id);
    if (slot === undefined) {
      slot = slotOf.size;
      slotOf.set(id, slot);
      slotId[slot] = id;
    }
    if (seen[slot]! & (1 << source)) return; // a chunk entered twice (folded again): the first, larger g
    seen[slot]! |= 1 << source;
    lb[slot]! += part;
  };
  const mustScore = new Set<number>();

  if (q.rare.length > 0) {
    const limit = Math.max(4 * q.k, 100);
    const hits = deps.keywordSearch(q.rare.map(termPhrase).join(" OR "), limit);
    for (const h of hits) note(h.id, 0, -h.rank);
    bounds.push(hits.length < limit ? 0 : -hits[hits.length - 1]!.rank);
  } else bounds.push(0);

  common.forEach((t, i) => {
    const source = i + 1;
    const w = fts5Idf(t.df, q.chunks);
    const head = heads[i];
    if (head) {
      for (let j = 0; j < head.ids.length; j++) note(head.ids[j]!, source, w * head.gs[j]!);
      bounds.push(w * head.bound);
    } else {
      // No list (a word in so many chunks that it weighs little, or one not listed yet): it finds no
      // candidates of its own, only its bound, as in MaxScore; the candidates' texts count it.
      bounds.push(w * (K1 + 1));
    }
  });

  const pending = deps.listPending(MAX_PENDING);
  for (const id of pending.ids) mustScore.add(id);
  if (pending.total > pending.ids.length) exact = false;

  const unseenBound = bounds.reduce((a, b) => a + b, 0);
  const n = slotOf.size;
  const ubs = new Float64Array(n);
  for (let c = 0; c < n; c++) {
    let u = lb[c]!;
    for (let s = 0; s < bounds.length; s++) if (!(seen[c]! & (1 << s))) u += bounds[s]!;
    ubs[c] = u;
  }
  const proveK = Math.min(q.k, PROVE_K);
  // The PROVE_K-th best lower bound is a floor for the PROVE_K-th best score: a candidate whose
  // upper bound is below it cannot reach the top PROVE_K and is not worth ordering (most of them).
  const floor = n >= proveK ? [...lb.subarray(0, n)].sort((a, b) => b - a)[proveK - 1]! * (1 - 1e-9) : -Infinity;
  // Scored in order of a guess between the bounds (a chunk missing from a word's head usually
  // holds the word once or not at all, far below the bound); the bounds decide when to stop.
  const alpha = OPTIMISM;
  const order: { id: number; ub: number; guess: number }[] = [...mustScore].map((id) => ({
    id,
    ub: Infinity,
    guess: Infinity,
  }));
  for (let c = 0; c < n; c++) {
    if (ubs[c]! < floor || mustScore.has(slotId[c]!)) continue;
    order.push({ id: slotId[c]!, ub: ubs[c]!, guess: lb[c]! + alpha * (ubs[c]! - lb[c]!) });
  }
  order.sort((a, b) => b.guess - a.guess || a.id - b.id);
  // The stop test needs the highest upper bound among the candidates not scored yet.
  const suffixMaxUb = new Float64Array(order.length + 1);
  for (let j = order.length - 1; j >= 0; j--) suffixMaxUb[j] = Math.max(suffixMaxUb[j + 1]!, order[j]!.ub);

  const top: KeywordHit[] = [];
  // The stop test (and the exactness claim) covers the first PROVE_K results.
  const kth = () => (top.length >= proveK ? -top[proveK - 1]!.rank : -Infinity);
  let scored = 0;
  let i = 0;
  let stoppedByBound = false;
  while (i < order.length) {
    if (suffixMaxUb[i]! <= kth()) {
      stoppedByBound = true;
      break;
    }
    if (scored >= MAX_SCORED + mustScore.size) break;
    const batch = order.slice(i, i + BATCH);
    i += batch.length;
    const texts = deps.chunkTexts(batch.map((c) => c.id));
    for (const c of batch) {
      const text = texts.get(c.id);
      if (text === undefined) continue; // deleted since it was listed
      scored++;
      const rank = q.rank(text);
      if (rank < 0) top.push({ id: c.id, rank });
    }
    top.sort((a, b) => a.rank - b.rank || a.id - b.id);
    if (top.length > q.k) top.length = q.k;
  }
  if (i >= order.length) stoppedByBound = true; // every candidate scored
  exact = exact && stoppedByBound && kth() >= unseenBound;
  return { hits: top, exact, scored };
}
