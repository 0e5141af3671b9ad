import type { KeywordHit } from "./bm25.js";
import { lengthNorm } from "./postings-lengths.js";
import type { PostingsView } from "./keyword-postings.js";
import { IMPACT_PLAN, impactTopK, type ImpactPlan } from "./postings-impacts.js";
import { maxScoreTopK } from "./postings-maxscore.js";
import { scanTopK } from "./postings-scan.js";

/**
 * The best `k` chunks for an OR query of single-token phrases by BM25, from the postings in memory
 * (index/keyword-postings), equal to FTS5's `MATCH … ORDER BY bm25(chunks_fts), rowid`: the same
 * idf per phrase (floored at 1e-6), k1, b, mean length (total tokens / rows, column weight 1), and
 * the same arithmetic in the same order — each chunk's score is the sum of its phrases' parts taken
 * in query order (a phrase a chunk lacks adds exactly 0 in FTS5) — so the scores are bit-identical
 * and ties fall to the lower id as there.
 *
 * `tokens`: each phrase's one FTS5 token, in query order (a phrase may repeat a token: it counts
 * again, as in FTS5). The top k is found by MaxScore over blocks of postings (postings-maxscore),
 * so a common word's postings are mostly skipped once k good chunks are known; a query whose
 * lists are short scores them all (postings-scan), which costs less there; a query of stop words
 * only (all in more than half the chunks, idf floored) is first tried on each word's top chunks
 * (postings-impacts), exact when its bound holds.
 */
export function postingsTopK(
  view: PostingsView,
  tokens: readonly string[],
  k: number,
  plan: ImpactPlan = IMPACT_PLAN,
  trace?: TopKTrace,
): KeywordHit[] {
  if (k <= 0 || view.rows === 0) return [];
  let postings = 0;
  for (const token of tokens) postings += view.lists.get(token)?.n ?? 0;
  const norm = lengthNorms(view);
  if (postings <= SCAN_BELOW) {
    if (trace) trace.plan = "scan";
    return scanTopK(view, tokens, k, norm);
  }
  // Stop-word-only queries: the union of each word's top chunks, when its bound proves the top k.
  const hits = impactTopK(view, tokens, k, norm, plan, trace);
  if (trace) trace.plan = hits ? "impacts" : "maxscore";
  return hits ?? maxScoreTopK(view, tokens, k, norm, trace);
}

/** How postingsTopK answered a query (diagnostics and tests). */
export interface TopKTrace {
  plan?: "scan" | "impacts" | "maxscore";
  /** Top-chunk sets (postings-impacts) the query had to build itself, each a read of a whole list. */
  setsBuilt?: number;
  /** Lists whose block bounds (postings-bounds) the query had to compute, each a read of a whole list. */
  boundsBuilt?: number;
}

/** Postings of a query's words up to which scoring them all is cheaper than MaxScore (same result). */
export const SCAN_BELOW = 32_768;

/**
 * Each chunk's k1 · (1 − b + b · length / mean length), as FTS5 computes it per row: kept per
 * postings until they change (a write moves the mean and the lengths).
 */
const norms = new WeakMap<PostingsView, { version: number; norm: Float64Array }>();

export function lengthNorms(view: PostingsView): Float64Array {
  const known = norms.get(view);
  if (known && known.version === view.version) return known.norm;
  const avgdl = view.tokens / view.rows;
  const lengths = view.lengths;
  const norm = known && known.norm.length === lengths.length ? known.norm : new Float64Array(lengths.length);
  for (let id = 0; id < lengths.length; id++) norm[id] = lengthNorm(lengths[id]!, avgdl);
  norms.set(view, { version: view.version, norm });
  return norm;
}
