import type Database from "better-sqlite3";

/**
 * BM25 as SQLite FTS5's bm25() computes it, for the code that reproduces or bounds its scores
 * (keyword lists, exact top-k pruning, rescoring chunk texts): k1 = 1.2, b = 0.75, and an idf that
 * FTS5 floors at 1e-6 for words in half of the rows or more.
 */
export const K1 = 1.2;
export const B = 0.75;

/**
 * The idf FTS5's bm25() gives a term in `df` of `chunks` rows, with `ln` the natural log as SQLite
 * computes it (sqliteLn): V8's Math.log differs from it in the last bit now and then, and then so
 * would the scores.
 */
export function fts5Idf(df: number, chunks: number, ln: (x: number) => number): number {
  const idf = ln((chunks - df + 0.5) / (df + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/** SQLite's ln() on this connection, memoised (a few thousand arguments at most are kept). */
export function sqliteLn(db: Database.Database): (x: number) => number {
  const stmt = db.prepare(`SELECT ln(?)`).pluck();
  const cache = new Map<number, number>();
  return (x) => {
    let y = cache.get(x);
    if (y === undefined) {
      if (cache.size >= 4_096) cache.clear();
      cache.set(x, (y = stmt.get(x) as number));
    }
    return y;
  };
}

/** A chunk found by an FTS5 keyword query. */
export interface KeywordHit {
  id: number;
  /** FTS5 bm25() (or a score computed as it does): negative, lower is better; 0 for unranked reads. */
  rank: number;
}
