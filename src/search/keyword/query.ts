import { splitCjk, termPhrase } from "../../index/keyword/fts-text.js";

/** Common English words that carry no topic; dropped from keyword queries when other words remain. */
export const STOP_WORDS = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each few for from further had has have having he her here hers herself him " +
    "himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other " +
    "our ours ourselves out over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was we were what when where which while who whom why will " +
    "with would you your yours yourself yourselves tell know think did does what's it's i'm don't ever also get got like"
  ).split(/\s+/),
);

/** Words of a query: runs of letters, digits, underscore (Unicode-aware), lowercased. */
export function queryTokens(query: string): string[] {
  return (query.toLowerCase().match(/[\p{L}\p{N}_]+(?:'[\p{L}]+)?/gu) ?? [])
    .map((t) => t.replace(/'.*$/, ""))
    .filter(Boolean);
}

function quote(token: string): string {
  return `"${token.replace(/"/g, '""')}"`;
}

export interface KeywordQuery {
  /** FTS5 MATCH expression (every term quoted, so any user string is safe), or null if nothing to search. */
  match: string | null;
  /** The terms used. */
  terms: string[];
  /** Each term as the FTS5 phrase in `match` (same order). */
  phrases: string[];
}

/**
 * Builds an OR query ranked by BM25 from any user string: FTS5 operators and punctuation are never
 * interpreted, stop words are dropped when topic words remain, CJK runs become character phrases.
 * OR (not AND) so a conversational question still finds the memory that holds some of its words.
 */
export function buildKeywordQuery(
  query: string,
  opts: { keepStopWords?: boolean; maxTerms?: number } = {},
): KeywordQuery {
  const all = queryTokens(query);
  const content = all.filter((t) => !STOP_WORDS.has(t));
  const chosen = opts.keepStopWords || content.length === 0 ? all : content;
  const terms = [...new Set(chosen)].slice(0, opts.maxTerms ?? 64);
  if (terms.length === 0) return { match: null, terms: [], phrases: [] };
  const phrases = terms.map(termPhrase);
  return { match: phrases.join(" OR "), terms, phrases };
}

/** Query over file paths (filename search); `keep` may leave out terms (given quoted, and as typed). */
export function buildPathQuery(
  query: string,
  keep: (quotedTerm: string, term: string) => boolean = () => true,
): string | null {
  const terms = [...new Set(queryTokens(query).filter((t) => !STOP_WORDS.has(t)))]
    .map((t) => [quote(t), t] as const)
    .filter(([quoted, t]) => keep(quoted, t))
    .map(([quoted]) => quoted);
  return terms.length ? terms.join(" OR ") : null;
}

/** Prefix expansion of query terms (≥ 4 letters, non-CJK): `paint` also matches painting, painter. */
export function buildPrefixQuery(terms: readonly string[]): string | null {
  const parts = terms
    .filter((t) => t.length >= 4 && /^[\p{L}\p{N}_]+$/u.test(t) && splitCjk(t).length === 1)
    .map((t) => `${quote(t.slice(0, Math.max(4, t.length - 2)))}*`);
  return parts.length ? parts.join(" OR ") : null;
}
