import type Database from "better-sqlite3";
import { dbGeneration } from "../db/db-generation.js";
import { termPhrase } from "./fts-text.js";
import { ftsTotalsReader } from "./fts-totals.js";
import { CHUNK_TOKENIZER } from "./fts-tokens.js";
import type { PostingsView } from "./keyword-postings.js";

/**
 * Statistics of the chunk index that a search may need (the relevance decision, the path stage) — the stems FTS5 makes
 * of a query word, how many chunks hold it (df), the chunk count and mean length — cached until
 * the index changes, so a search does not pay for them again and again.
 *
 * df is counted exactly up to EXACT_UP_TO matches. Above that it is estimated from how densely the
 * oldest and the newest matches are spread over the chunk ids (FTS5 reads a posting list from
 * either end and stops early), so a word found in 300,000 chunks costs as little as a rare one;
 * an estimate under EXACT_RECOUNT is then recounted exactly with fts5vocab (cheap at that size).
 *
 * "Changed" is SQLite's own bookkeeping (index/db-generation). Stems depend only on the
 * tokenizer and are cached for good (bounded).
 */

/** Matches counted one by one before df is estimated. */
const EXACT_UP_TO = 2_000;
/** Estimated df below this is recounted exactly (fts5vocab reads the whole posting list). */
const EXACT_RECOUNT = 20_000;

/** One query word's statistics in the chunk index. */
export interface TermStat {
  /** The query word. */
  term: string;
  /** The tokens FTS5 indexes for the term (porter stems): usually one; none for punctuation. */
  stems: string[];
  /** Chunks holding the term. */
  df: number;
  /** Whether df is an exact count (else an estimate). */
  exact: boolean;
}

export interface TermLookup {
  stats: TermStat[];
  /** Chunks in the index. */
  chunks: number;
  /** Mean tokens per chunk. */
  avgTokens: number;
}

export class TermStats {
  private readonly stmts: {
    insertTerm: Database.Statement;
    stems: Database.Statement;
    clearTerms: Database.Statement;
    vocabDf: Database.Statement;
    idRange: Database.Statement;
    oldest: Database.Statement;
    newest: Database.Statement;
  };
  /** Per query word: its distinct stems and how many tokens FTS5 makes of it. */
  private readonly stemCache = new Map<string, { stems: string[]; tokens: number }>();
  private dfCache = new Map<string, { df: number; exact: boolean }>();
  private totalsCache: { rows: number; tokens: number } | null = null;
  private memos = new Map<string, unknown>();
  private seenGeneration = "";
  private readonly generation: () => string;
  private readonly readTotals: () => { rows: number; tokens: number };

  constructor(private readonly db: Database.Database) {
    db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_terms USING fts5(t, tokenize = '${CHUNK_TOKENIZER}');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_terms_v USING fts5vocab(temp, query_terms, 'instance');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, 'row');
    `);
    this.generation = dbGeneration(db);
    this.readTotals = ftsTotalsReader(db, "chunks_fts");
    this.stmts = {
      insertTerm: db.prepare(`INSERT INTO temp.query_terms(rowid, t) VALUES (?, ?)`),
      stems: db.prepare(`SELECT doc, term FROM temp.query_terms_v`),
      clearTerms: db.prepare(`DELETE FROM temp.query_terms`),
      vocabDf: db.prepare(`SELECT doc FROM temp.chunks_vocab WHERE term = ?`).pluck(),
      idRange: db.prepare(`SELECT (SELECT min(id) FROM chunks) AS lo, (SELECT max(id) FROM chunks) AS hi`),
      oldest: db.prepare(`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid LIMIT ?`).pluck(),
      newest: db.prepare(`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC LIMIT ?`).pluck(),
    };
  }

  /**
   * `postings`: the chunk index's postings in memory when they are in step (keyword-postings):
   * a one-token word's df is then its postings' length, exact and without a statement.
   */
  lookup(terms: readonly string[], postings: PostingsView | null = null): TermLookup {
    this.refresh();
    const totals = this.totals();
    this.tokenizeUnknown(terms);
    const stats = terms.map((term): TermStat => {
      const stems = this.stemsOf(term);
      if (stems.length === 0) return { term, stems, df: 0, exact: true };
      if (postings && stems.length === 1)
        return { term, stems, df: postings.lists.get(stems[0]!)?.n ?? 0, exact: true };
      return { term, stems, ...this.docFrequency(term, stems, totals.rows) };
    });
    return { stats, chunks: totals.rows, avgTokens: totals.rows > 0 ? totals.tokens / totals.rows : 0 };
  }

  /** Any other per-query statistic of the index (e.g. how many paths a word matches), cached the same way. */
  memo<T>(key: string, compute: () => T): T {
    this.refresh();
    if (this.memos.has(key)) return this.memos.get(key) as T;
    if (this.memos.size >= 10_000) this.memos.clear();
    const value = compute();
    this.memos.set(key, value);
    return value;
  }

  /** Rows and tokens in the chunk FTS index, from FTS5's averages record (no table scan). */
  totals(): { rows: number; tokens: number } {
    this.refresh();
    if (this.totalsCache) return this.totalsCache;
    return (this.totalsCache = this.readTotals());
  }

  /** The FTS5 tokens (porter stems) of a query word, as the chunk index stores them. */
  stemsOf(term: string): string[] {
    return this.known([term])[0]!.stems;
  }

  /**
   * Per query word quoted as a phrase: its one FTS5 token, or null when FTS5 makes more or fewer
   * tokens of it (a phrase of several tokens, or none).
   */
  phraseTokens(terms: readonly string[]): (string | null)[] {
    return this.known(terms).map((t) => (t.tokens === 1 ? t.stems[0]! : null));
  }

  /** The words' tokens, cached (bounded); the words not seen before are tokenized together (FTS5 costs per call). */
  private known(terms: readonly string[]): { stems: string[]; tokens: number }[] {
    const unknown = [...new Set(terms.filter((t) => !this.stemCache.has(t)))];
    if (unknown.length > 0) {
      if (this.stemCache.size + unknown.length > 20_000) this.stemCache.clear();
      this.tokenize(unknown).forEach((t, i) => this.stemCache.set(unknown[i]!, t));
    }
    return terms.map((t) => this.stemCache.get(t)!);
  }

  /** Tokenizes the terms whose stems are not cached yet, together (one scratch transaction, not one per term). */
  private tokenizeUnknown(terms: readonly string[]): void {
    const unknown = [...new Set(terms.filter((t) => !this.stemCache.has(t)))];
    if (unknown.length < 2) return;
    if (this.stemCache.size + unknown.length > 20_000) this.stemCache.clear();
    this.tokenize(unknown).forEach((stems, i) => this.stemCache.set(unknown[i]!, stems));
  }

  private docFrequency(term: string, stems: readonly string[], rows: number): { df: number; exact: boolean } {
    let found = this.dfCache.get(term);
    if (found) return found;
    const match = termPhrase(term);
    const oldest = this.stmts.oldest.all(match, EXACT_UP_TO + 1) as number[];
    if (oldest.length <= EXACT_UP_TO) found = { df: oldest.length, exact: true };
    else {
      // Density of matches at both ends of the ids: one end alone is biased where the corpus
      // changes over time (e.g. transcripts after notes).
      const { lo, hi } = this.stmts.idRange.get() as { lo: number; hi: number };
      const newest = this.stmts.newest.all(match, EXACT_UP_TO) as number[];
      const dOld = EXACT_UP_TO / (oldest[EXACT_UP_TO - 1]! - lo + 1);
      const dNew = EXACT_UP_TO / (hi - newest[EXACT_UP_TO - 1]! + 1);
      const estimate = Math.min(rows, Math.round(((dOld + dNew) / 2) * (hi - lo + 1)));
      found =
        stems.length === 1 && estimate <= EXACT_RECOUNT
          ? { df: (this.stmts.vocabDf.get(stems[0]) as number | undefined) ?? 0, exact: true }
          : { df: estimate, exact: false };
    }
    this.dfCache.set(term, found);
    return found;
  }

  /** Runs the words through a scratch FTS5 table in the temp schema (same tokenizer as the index). */
  private tokenize(terms: readonly string[]): { stems: string[]; tokens: number }[] {
    const out = terms.map(() => ({ stems: [] as string[], tokens: 0 }));
    const before = this.generation();
    this.db.transaction(() => {
      terms.forEach((t, i) => this.stmts.insertTerm.run(i + 1, t));
      for (const r of this.stmts.stems.all() as { doc: number; term: string }[]) {
        const t = out[r.doc - 1]!;
        t.tokens++;
        if (!t.stems.includes(r.term)) t.stems.push(r.term);
      }
      this.stmts.clearTerms.run();
    })();
    // Our own scratch writes are not index changes.
    if (before === this.seenGeneration) this.seenGeneration = this.generation();
    return out;
  }

  /** A transaction failed (index/db/copies.ts): counts read inside it may be gone. */
  rolledBack(): void {
    this.seenGeneration = "";
  }

  /** Drops the cached counts when the database has changed since they were read. */
  private refresh(): void {
    const generation = this.generation();
    if (generation === this.seenGeneration) return;
    this.seenGeneration = generation;
    this.dfCache = new Map();
    this.totalsCache = null;
    this.memos = new Map();
  }
}
