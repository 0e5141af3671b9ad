import { fts5Idf, K1 } from "./bm25.js";
import type { PostingsView } from "./keyword-postings.js";
import type { Postings } from "./postings-blocks.js";
import { PostingsCursor } from "./postings-cursor.js";

/** One distinct token of a query, over its postings (the plans of postings-topk). */
export interface QueryTerm {
  list: Postings;
  /** FTS5's idf (floored at 1e-6). */
  idf: number;
  /** FTS5 floored the idf: the token is in half of the chunks or more. */
  floored: boolean;
  /** idf × how many times the query repeats the token. */
  weight: number;
  cur: PostingsCursor;
  /** The candidate's count of this token (0: absent), valid for the candidate being scored. */
  tf: number;
}

/**
 * The query's distinct tokens that have postings (`terms`), and per phrase in query order its term
 * or null (`order`: FTS5 adds each phrase's part in this order, a repeated token again).
 */
export function termsOf(
  view: PostingsView,
  tokens: readonly string[],
): { terms: QueryTerm[]; order: (QueryTerm | null)[] } {
  const byToken = new Map<string, QueryTerm>();
  const order: (QueryTerm | null)[] = [];
  for (const token of tokens) {
    const list = view.lists.get(token);
    if (!list || list.n === 0) {
      order.push(null);
      continue;
    }
    let t = byToken.get(token);
    if (!t) {
      const idf = fts5Idf(list.n, view.rows, view.ln);
      const floored = view.ln((view.rows - list.n + 0.5) / (list.n + 0.5)) <= 0;
      t = { list, idf, floored, weight: 0, cur: new PostingsCursor(list), tf: 0 };
      byToken.set(token, t);
    }
    t.weight += t.idf;
    order.push(t);
  }
  return { terms: [...byToken.values()], order };
}

/** A chunk's exact score from its terms' counts (`tf` set): each phrase's part in query order, as FTS5 adds them. */
export function exactScore(order: readonly (QueryTerm | null)[], normOfChunk: number): number {
  let s = 0;
  for (const t of order) if (t && t.tf > 0) s += t.idf * ((t.tf * (K1 + 1.0)) / (t.tf + normOfChunk));
  return s;
}
