/**
 * The keyword leg in a large index. FTS5's bm25() visits every chunk that holds a query word (and
 * counts each word's whole posting list once): a cost per matching chunk, so one word found in a
 * third of 1M chunks costs hundreds of milliseconds (docs/performance.md). Words that common carry almost no BM25 weight, so a large
 * index spends a budget of postings on the rarest words and scores the rest itself:
 *
 * - "full": every word fits the budget: FTS5 bm25 over the whole query (the exact ranking).
 * - "rare": the rarest words that fit find the candidates with FTS5 bm25; the candidates are then
 *   rescored with BM25 over all the words (the common ones' term frequencies read from the text).
 * - "recent": even the rarest word is over budget: the newest chunks holding all the words, then
 *   any of them (FTS5 walks its posting lists backwards and stops early, no bm25()), are scored
 *   with BM25 here.
 *   Older chunks that hold only very common words are then left to the vector leg.
 *
 * Where the index keeps impact-ordered lists of its common words (index/term-lists, built once a
 * stem is in 5,000+ chunks), "rare" and "recent" take their candidates from those lists instead
 * and rank by BM25 with bounds (keyword/lists); the candidates above are the fallback.
 */

import { B, fts5Idf, K1 } from "../../index/bm25.js";
import type { TermStat } from "../../index/term-stats.js";

/** Postings that FTS5 bm25 may score per query (a bounded cost; docs/performance.md). */
export const KEYWORD_POSTINGS_BUDGET = 10_000;
/** Below this many chunks every query runs in full (cheap there, and the ranking stays exact). */
export const LARGE_INDEX_CHUNKS = 2_000;
/** Newest matching chunks scored in the "recent" plan. */
export const RECENT_WINDOW = 200;

export type KeywordPlan =
  | { kind: "full"; terms: string[] }
  | { kind: "rare"; terms: string[]; rescore: TermStat[] }
  | { kind: "recent"; terms: string[]; rescore: TermStat[] };

export function planKeyword(stats: readonly TermStat[], chunks: number, budget = KEYWORD_POSTINGS_BUDGET): KeywordPlan {
  const all = stats.map((s) => s.term);
  if (chunks < LARGE_INDEX_CHUNKS) return { kind: "full", terms: all };
  // Words in more than half of the chunks have an IDF floored to ~0: never worth scoring.
  const useful = stats.filter((s) => s.df <= chunks / 2);
  const considered = useful.length > 0 ? useful : [...stats];
  const total = considered.reduce((n, s) => n + s.df, 0);
  if (total <= budget) return { kind: "full", terms: considered.map((s) => s.term) };
  const byDf = [...considered].sort((a, b) => a.df - b.df);
  const rare: string[] = [];
  let spent = 0;
  for (const s of byDf) {
    if (spent + s.df > budget) break;
    rare.push(s.term);
    spent += s.df;
  }
  if (rare.length > 0) return { kind: "rare", terms: rare, rescore: considered };
  return { kind: "recent", terms: considered.map((s) => s.term), rescore: considered };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** unicode61 tokens of a lowercased text: runs of letters and digits (an ASCII fast path). */
function countTokens(lower: string): number {
  let n = 0;
  let inToken = false;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if (c >= 128) return (lower.match(/[\p{L}\p{N}]+/gu) ?? []).length;
    const word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
    if (word && !inToken) n++;
    inToken = word;
  }
  return n;
}

/**
 * A BM25 scorer for chunk texts and the given words, as FTS5 computes it (IDF floored at 1e-6),
 * with term frequencies counted on the text's unicode61 tokens (matched to the words by `stemsOf`,
 * FTS5's own stemming). It returns an FTS5-style rank
 * (negative: lower is better) so it maps to a score as bm25() does. One regular expression finds
 * the tokens that start like a stem; each distinct token is matched against the stems once.
 */
export function bm25Ranker(
  terms: readonly TermStat[],
  chunks: number,
  avgTokens: number,
  stemsOf: (token: string) => string[],
): (text: string) => number {
  const idf = terms.map((t) => fts5Idf(t.df, chunks));
  const prefixes = new Set<string>();
  for (const t of terms) for (const s of t.stems) prefixes.add(s.length > 1 && s.endsWith("i") ? s.slice(0, -1) : s);
  const alternatives = [...prefixes]
    .filter(Boolean)
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp);
  const find = alternatives.length
    ? new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join("|")})[\\p{L}\\p{N}]*`, "gu")
    : null;
  const memo = new Map<string, number>(); // token → bitmask of the terms it stands for
  const maskOf = (tok: string): number => {
    let m = memo.get(tok);
    if (m === undefined) {
      m = 0;
      // The tokenizer's own stems (FTS5's porter), so the count is exact.
      const stems = stemsOf(tok);
      terms.forEach((t, i) => {
        if (i >= 31) return;
        if (t.stems.some((s) => stems.includes(s))) m! |= 1 << i;
      });
      memo.set(tok, m);
    }
    return m;
  };
  const tf = new Float64Array(terms.length);
  return (text: string): number => {
    let lower = text.toLowerCase();
    // eslint-disable-next-line no-control-regex
    if (/[^\x00-\x7f]/.test(lower)) lower = lower.normalize("NFKD").replace(/\p{M}/gu, "");
    tf.fill(0);
    if (find) {
      for (const match of lower.matchAll(find)) {
        const m = maskOf(match[0]);
        if (m === 0) continue;
        for (let i = 0; i < terms.length && i < 31; i++) if (m & (1 << i)) tf[i]!++;
      }
    }
    const norm = K1 * (1 - B + (B * countTokens(lower)) / Math.max(1, avgTokens));
    let score = 0;
    for (let i = 0; i < terms.length; i++) if (tf[i]! > 0) score += (idf[i]! * tf[i]! * (K1 + 1)) / (tf[i]! + norm);
    return -score;
  };
}
