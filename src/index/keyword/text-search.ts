import type Database from "better-sqlite3";
import type { KeywordHit } from "./bm25.js";
import { KeywordPostings, type PostingsView } from "./keyword-postings.js";
import { statements } from "../db/statements.js";
import { TermStats, type TermLookup } from "./term-stats.js";

/** Full-text search over chunk text and file paths (FTS5), the word statistics, and the chunk postings in memory. */
export class TextSearch {
  private readonly stmts;
  private termCounts: TermStats | undefined;
  /** The chunk index's postings in memory (off unless the daemon keeps them: see keyword-postings). */
  readonly postings: KeywordPostings;

  constructor(private readonly db: Database.Database) {
    this.postings = new KeywordPostings(db);
    this.stmts = statements(db, {
      pathMatches: `SELECT count(*) AS n FROM (SELECT rowid FROM files_fts WHERE files_fts MATCH ? LIMIT ?)`,
      keywordRecent: `SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC LIMIT ?`,
      keywordRank: `SELECT rowid AS id, bm25(chunks_fts) AS rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank, rowid LIMIT ?`,
      pathSearch: `SELECT rowid AS fileId, path, bm25(files_fts) AS rank FROM files_fts WHERE files_fts MATCH ? ORDER BY rank LIMIT ?`,
    });
  }

  private get counts(): TermStats {
    return (this.termCounts ??= new TermStats(this.db));
  }

  /**
   * Per query term: the stems FTS5 indexes for it and how many chunks hold it (df), plus the chunk
   * count and the mean chunk length; cached until the index changes, df read from the postings
   * when they are in memory (see term-stats).
   */
  termStats(terms: readonly string[]): TermLookup {
    return this.counts.lookup(terms, this.postings.current());
  }

  /** A transaction failed (index/db/copies.ts): the word statistics read inside it are dropped. */
  rolledBack(): void {
    this.termCounts?.rolledBack();
  }

  /** The postings in memory, in step with the index; null when they are off or not ready (then FTS5 answers). */
  keywordPostings(): PostingsView | null {
    return this.postings.current();
  }

  /** Per query word quoted as a phrase: its one FTS5 token, or null (see term-stats). */
  phraseTokens(words: readonly string[]): (string | null)[] {
    return this.counts.phraseTokens(words);
  }

  /**
   * How many chunks hold this query word quoted as a phrase, from the postings in memory (its one
   * FTS5 token's list length: the count the phrase's FTS5 match would find); null when they cannot
   * say (the word makes several tokens or none, the postings are off or behind the index).
   */
  wordChunkCount(word: string): number | null {
    const postings = this.postings.current();
    if (!postings) return null;
    const [token] = this.counts.phraseTokens([word]);
    return token == null ? null : (postings.lists.get(token)?.n ?? 0);
  }

  /**
   * Files whose path matches `match` (the FTS5 phrase of a word), counted up to limit + 1 by FTS5
   * (bounded, cached), for the words the path index in memory cannot count (see path-index).
   */
  pathMatchCount(match: string, limit: number): number {
    return this.counts.memo(
      `paths ${limit} ${match}`,
      () => (this.stmts.pathMatches.get(match, limit + 1) as { n: number }).n,
    );
  }

  /** Rows and tokens in the chunk FTS index, from FTS5's averages record (no table scan). */
  ftsTotals(): { rows: number; tokens: number } {
    return this.counts.totals();
  }

  /**
   * FTS5 over chunk text. `match` must be a valid FTS5 query (see search/keyword/query).
   * rank: best BM25 first, ties by id (scores every match); recent: newest chunks first, no scoring (stops early).
   */
  keywordSearch(match: string, limit: number, order: "rank" | "recent" = "rank"): KeywordHit[] {
    if (order === "recent") {
      return (this.stmts.keywordRecent.all(match, limit) as { id: number }[]).map((r) => ({ id: r.id, rank: 0 }));
    }
    return this.stmts.keywordRank.all(match, limit) as KeywordHit[];
  }

  /** Files whose path matches (FTS5 over paths). */
  pathSearch(match: string, limit: number): { fileId: number; path: string; rank: number }[] {
    return this.stmts.pathSearch.all(match, limit) as { fileId: number; path: string; rank: number }[];
  }
}
