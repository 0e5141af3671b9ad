import type { KeywordHit } from "../../index/keyword/bm25.js";
import { splitCjk } from "../../index/keyword/fts-text.js";
import { postingsTopK } from "../../index/keyword/postings-topk.js";
import type { KeywordQuery } from "./query.js";
import type { KeywordStore } from "./store.js";

/**
 * The keyword leg's ranking: BM25 top-k of the OR of the query's words, ties by id — FTS5's
 * `MATCH … ORDER BY bm25(), rowid`, exactly, whichever way it is computed:
 *
 * - from the postings in memory (the daemon keeps them: index/keyword-postings), when they are
 *   ready and every phrase of the query is one FTS5 token (postings-topk: a cost per posting of
 *   the query's words, no SQL);
 * - else by FTS5 itself (one-shot processes, the daemon while its postings load, phrases of
 *   several tokens such as CJK runs): bm25() over every chunk holding a query word.
 */
export function rankKeywords(store: KeywordStore, q: KeywordQuery, k: number): KeywordHit[] {
  return servedFromMemory(store, q, k) ?? store.keywordSearch(q.match!, k);
}

function servedFromMemory(store: KeywordStore, q: KeywordQuery, k: number): KeywordHit[] | null {
  const view = store.keywordPostings();
  if (!view) return null;
  // A CJK run is queried as a phrase of its characters (several tokens).
  if (q.terms.some((t) => splitCjk(t).length > 1)) return null;
  const tokens = store.phraseTokens(q.terms);
  if (tokens.some((t) => t === null)) return null;
  return postingsTopK(view, tokens as string[], k);
}
