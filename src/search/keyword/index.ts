/**
 * The keyword leg of search: BM25 over chunk text with an OR query of the question's topic words
 * (query.ts), ranked as FTS5's bm25 ranks it (strategy.ts: from the postings in memory or by FTS5), then turned
 * into scores in [0, 1], with prefix expansion when the exact words find too little.
 */
import { bm25ToScore } from "../stages.js";
import { buildKeywordQuery, buildPrefixQuery } from "./query.js";
import type { KeywordStore } from "./store.js";
import { rankKeywords } from "./strategy.js";

export { STOP_WORDS, buildPathQuery, queryTokens } from "./query.js";
export type { KeywordStore } from "./store.js";

export interface KeywordLegHit {
  id: number;
  /** The chunk's keyword score in [0, 1] (the better of the exact words' and the expansion's). */
  score: number;
  /** The exact words' score (`explain.keyword`), when they found the chunk. */
  keyword?: number;
  /** The prefix expansion's score (`explain.keywordExpanded`), when it beat the exact words'. */
  expanded?: number;
}

export interface KeywordLegResult {
  /** False when the query has no searchable word. */
  ran: boolean;
  /** In the order found (best exact matches first, then expansion-only ones). */
  hits: KeywordLegHit[];
}

export interface KeywordLegOptions {
  /** Score of a BM25 rank of this magnitude: 0.5 (config search.keywordHalfScore). */
  keywordHalfScore: number;
}

export function keywordLeg(store: KeywordStore, query: string, k: number, opts: KeywordLegOptions): KeywordLegResult {
  const q = buildKeywordQuery(query);
  if (!q.match) return { ran: false, hits: [] };
  const hits = rankKeywords(store, q, k);
  const found = new Map<number, KeywordLegHit>();
  // FTS5 floors the IDF of words found in most chunks at 1e-6, so in a small workspace every raw
  // score can collapse towards 0 while their order stays right: then score relative to the best.
  const best = hits.length ? Math.min(...hits.map((h) => h.rank)) : 0;
  const degenerate = best < 0 && best > -1e-3;
  for (const h of hits) {
    const score = degenerate ? h.rank / best : bm25ToScore(h.rank, opts.keywordHalfScore);
    found.set(h.id, { id: h.id, score, keyword: score });
  }
  // Expansion: when the exact words find too little, match their prefixes (plural, tense, …).
  if (hits.length < Math.min(k, 8)) {
    const prefix = buildPrefixQuery(q.terms);
    if (prefix) {
      for (const h of store.keywordSearch(prefix, k)) {
        const s = 0.8 * bm25ToScore(h.rank, opts.keywordHalfScore);
        const hit = found.get(h.id);
        if (!hit) found.set(h.id, s > 0 ? { id: h.id, score: s, expanded: s } : { id: h.id, score: 0 });
        else if (s > hit.score) {
          hit.score = s;
          hit.expanded = s;
        }
      }
    }
  }
  return { ran: true, hits: [...found.values()] };
}
