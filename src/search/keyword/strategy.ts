import type { KeywordHit } from "../../index/bm25.js";
import { splitCjk } from "../../index/fts-text.js";
import { bm25Ranker, LARGE_INDEX_CHUNKS, planKeyword } from "./budget.js";
import { rescoredCandidates } from "./candidates.js";
import { listTopK } from "./lists.js";
import { postingsTopK } from "./postings-topk.js";
import { buildKeywordQuery, type KeywordQuery } from "./query.js";
import type { KeywordStore } from "./store.js";
import { topKeywordHits } from "./topk.js";

export interface RankedKeywords {
  /** Best first, FTS5-style ranks (negative, lower is better). */
  hits: KeywordHit[];
  /** The words the ranking used (prefix expansion widens these). */
  used: string[];
  /** The words held more postings than the budget ("rare" / "recent" below). */
  overBudget: boolean;
}

/**
 * FTS5's exact ranking from the postings in memory (the daemon keeps them: index/keyword-postings),
 * when they are ready and every phrase of the query is one FTS5 token; else null (the SQL path).
 */
function servedFromMemory(store: KeywordStore, q: KeywordQuery, k: number): KeywordHit[] | null {
  const view = store.keywordPostings();
  if (!view) return null;
  const tokens: string[] = [];
  for (const term of q.terms) {
    // A CJK run is queried as a phrase of its characters (several tokens).
    const token = splitCjk(term).length === 1 ? store.phraseToken(term) : null;
    if (token === null) return null;
    tokens.push(token);
  }
  return postingsTopK(view, tokens, k);
}

/**
 * The keyword leg's strategy: BM25 top-k of the OR of the query's words, as cheaply as the index
 * allows. The daemon ranks from the postings in memory (exact, see servedFromMemory); without
 * them (one-shot processes, while they load, phrases of several tokens): FTS5's bm25() scores every chunk that holds any query word, so the cost grows with the
 * postings of the commonest word; each branch below avoids that where it would hurt.
 *
 * - small index (< LARGE_INDEX_CHUNKS chunks): one FTS5 query over every word. Postings are few,
 *   and no word statistics are needed.
 * - "full" (every useful word fits the postings budget): the exact ranking. Words in more than half
 *   of the chunks are left out when rarer words remain (FTS5 floors their idf: they weigh nothing);
 *   with several words, topk.ts proves the top k from the chunks holding a rare word (MaxScore)
 *   and scores the common words' other chunks only when that bound fails.
 * - "rare" / "recent" (the words hold more postings than the budget): the common words' impact-
 *   ordered lists give candidates with bounds (lists.ts); an index without lists for them ranks
 *   the rare words' best chunks, or the newest chunks with the words, by BM25 on their text
 *   (candidates.ts). These plans are the large-index approximation.
 */
export function rankKeywords(store: KeywordStore, q: KeywordQuery, k: number, budget?: number): RankedKeywords {
  const memory = servedFromMemory(store, q, k);
  if (memory) return { hits: memory, used: q.terms, overBudget: false };
  if (store.ftsTotals().rows < LARGE_INDEX_CHUNKS)
    return { hits: store.keywordSearch(q.match!, k), used: q.terms, overBudget: false };

  const { stats, chunks, avgTokens } = store.termStats(q.terms);
  const plan = planKeyword(stats, chunks, budget);
  if (plan.kind === "full") {
    const used = stats.filter((s) => plan.terms.includes(s.term));
    if (used.length > 1) return { hits: topKeywordHits(store, used, chunks, k), used: plan.terms, overBudget: false };
    const match =
      plan.terms.length < q.terms.length
        ? buildKeywordQuery(plan.terms.join(" "), { keepStopWords: true }).match!
        : q.match!;
    return { hits: store.keywordSearch(match, k), used: plan.terms, overBudget: false };
  }

  const rank = bm25Ranker(plan.rescore, chunks, avgTokens, (token) => store.stemsOf(token));
  const listed = listTopK(store, {
    terms: plan.rescore,
    rare: plan.kind === "rare" ? plan.terms : [],
    chunks,
    k,
    rank,
  });
  const hits = listed ? listed.hits : rescoredCandidates(store, plan, k, rank);
  return { hits, used: plan.terms, overBudget: true };
}
