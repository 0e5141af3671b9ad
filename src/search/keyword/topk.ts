import { fts5Idf, K1, type KeywordHit } from "../../index/bm25.js";
import { termPhrase } from "../../index/fts-text.js";
import type { TermStat } from "../../index/term-stats.js";

/**
 * Exact top-k BM25 for an OR query without scoring every chunk that holds one of its common words.
 *
 * FTS5's bm25() is a sum over the query's terms of idf(term) × g, where g — the term-frequency
 * part — is always below k1 + 1 = 2.2. So a chunk holding only the query's common words C can
 * score at most Σ 2.2 × idf(c) (the "MaxScore" bound). The plan:
 *  1. score the chunks that hold a rare word R (few, cheap), each once, with all its words:
 *     `(R₁ OR …) AND (C₁ OR …)` and `(R₁ OR …) NOT (C₁ OR …)`;
 *  2. if the k-th best of those beats the bound, no chunk without a rare word can enter the
 *     top k, and the answer is exact; otherwise the chunks with only common words are scored by
 *     `(C₁ OR …) NOT (R₁ OR …)` and merged (each chunk is still scored once).
 * Scores are FTS5's own (the same idf per word; a word a chunk lacks adds exactly 0, so the order
 * of the words does not change a sum), so results equal the plain query's.
 * Words found in most chunks are what make BM25 slow; this skips scoring them except where a
 * rare word is present.
 */

/** The rare words may hold at most this share of the chunks between them, or the plan is not worth it. */
const RARE_SHARE = 0.2;

export interface KeywordIndex {
  /** Best `limit` chunks for an FTS5 MATCH, ordered by rank then id. */
  keywordSearch(match: string, limit: number): KeywordHit[];
}

export interface TopKStats {
  /** "plain": one OR query; "pruned": the bound held; "fallback": it did not, the common-only chunks scored after. */
  plan: "plain" | "pruned" | "fallback";
}

/** A word's df where it is an exact count, else null (then it is never treated as rare or bounded). */
interface Weighted {
  phrase: string;
  df: number | null;
}

/**
 * The best `k` chunks for the OR of `terms` by BM25, equal to the plain query's (ties by id).
 * `chunks` is the number of chunks in the index.
 */
export function topKeywordHits(
  index: KeywordIndex,
  terms: readonly TermStat[],
  chunks: number,
  k: number,
  stats?: TopKStats,
): KeywordHit[] {
  const ordered: Weighted[] = terms
    .map((t) => ({ phrase: termPhrase(t.term), df: t.exact ? t.df : null }))
    .sort((a, b) => (a.df ?? Infinity) - (b.df ?? Infinity));
  const plain = () => index.keywordSearch(ordered.map((t) => t.phrase).join(" OR "), k);
  const setPlan = (plan: TopKStats["plan"]) => {
    if (stats) stats.plan = plan;
  };
  setPlan("plain");
  if (ordered.length < 2 || ordered.some((t) => t.df === null)) return plain();

  // The rarest words, up to RARE_SHARE of the chunks between them; at least one common word left.
  let rareCount = 0;
  let rareDocs = 0;
  while (rareCount < ordered.length - 1 && rareDocs + ordered[rareCount]!.df! <= chunks * RARE_SHARE)
    rareDocs += ordered[rareCount++]!.df!;
  // Fewer chunks hold a rare word than k: the bound cannot hold (k of them are needed), so one query.
  if (rareCount === 0 || rareDocs < k) return plain();
  const rare = ordered.slice(0, rareCount).map((t) => t.phrase);
  const common = ordered.slice(rareCount);
  const bound = common.reduce((sum, t) => sum + (K1 + 1) * fts5Idf(t.df!, chunks), 0);

  // Every chunk with a rare word is scored once: with common words too (AND), or without (NOT).
  const anyRare = rare.join(" OR ");
  const anyCommon = common.map((t) => t.phrase).join(" OR ");
  const best = [
    ...index.keywordSearch(`(${anyRare}) AND (${anyCommon})`, k),
    ...index.keywordSearch(`(${anyRare}) NOT (${anyCommon})`, k),
  ];
  best.sort((a, b) => a.rank - b.rank || a.id - b.id);
  const top = best.slice(0, k);
  // Strictly better than any chunk without a rare word can be (ranks are negated scores).
  if (top.length === k && -top[k - 1]!.rank > bound) {
    setPlan("pruned");
    return top;
  }
  // The bound did not hold: `top` is still the exact best k of the chunks with a rare word; the
  // chunks with only common words are scored by their own query and the two merged.
  setPlan("fallback");
  const rest = index.keywordSearch(`(${anyCommon}) NOT (${anyRare})`, k);
  return [...top, ...rest].sort((a, b) => a.rank - b.rank || a.id - b.id).slice(0, k);
}
