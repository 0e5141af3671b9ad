import type Database from "better-sqlite3";

/**
 * Statistics of the chunk index that query planning needs on every search — the stems FTS5 makes
 * of a query word, how many chunks hold each stem, the chunk count — cached until the index
 * changes, so a search does not pay for them again and again.
 *
 * "Changed" is SQLite's own bookkeeping: `PRAGMA data_version` moves when another connection
 * commits, `total_changes()` when this one writes. Stems depend only on the tokenizer and are
 * cached for good (bounded).
 */
export class TermStats {
  private readonly stmts: {
    dataVersion: Database.Statement;
    changes: Database.Statement;
    insertTerm: Database.Statement;
    stems: Database.Statement;
    clearTerms: Database.Statement;
    docFreq: Database.Statement;
    chunks: Database.Statement;
  };
  private readonly stemCache = new Map<string, string[]>();
  private dfCache = new Map<string, number>();
  private chunkCount = -1;
  private seenGeneration = "";

  constructor(private readonly db: Database.Database) {
    db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_terms USING fts5(t, tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_terms_v USING fts5vocab(temp, query_terms, 'instance');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, 'row');
    `);
    this.stmts = {
      dataVersion: db.prepare(`PRAGMA data_version`).pluck(),
      changes: db.prepare(`SELECT total_changes()`).pluck(),
      insertTerm: db.prepare(`INSERT INTO temp.query_terms(rowid, t) VALUES (?, ?)`),
      stems: db.prepare(`SELECT doc, term FROM temp.query_terms_v`),
      clearTerms: db.prepare(`DELETE FROM temp.query_terms`),
      docFreq: db.prepare(`SELECT doc FROM temp.chunks_vocab WHERE term = ?`).pluck(),
      chunks: db.prepare(`SELECT count(*) FROM chunks`).pluck(),
    };
  }

  /**
   * How many chunks contain each term (the most frequent of its stems), whether that is exact (the
   * term is one token, so FTS5 counts the same chunks for it), and the chunk count.
   */
  docFrequencies(terms: readonly string[]): { df: number[]; exact: boolean[]; chunks: number } {
    this.refresh();
    const stems = terms.map((t) => this.stemsOf(t));
    const df = stems.map((ss) => Math.max(0, ...ss.map((s) => this.stemDf(s))));
    if (this.chunkCount < 0) this.chunkCount = this.stmts.chunks.get() as number;
    return { df, exact: stems.map((ss) => ss.length === 1), chunks: this.chunkCount };
  }

  /** The FTS5 tokens (porter stems) of a query word, as the chunk index stores them. */
  stemsOf(term: string): string[] {
    let stems = this.stemCache.get(term);
    if (stems) return stems;
    stems = this.tokenize([term])[0]!;
    if (this.stemCache.size >= 20_000) this.stemCache.clear();
    this.stemCache.set(term, stems);
    return stems;
  }

  /** Runs the words through a scratch FTS5 table in the temp schema (same tokenizer as the index). */
  private tokenize(terms: readonly string[]): string[][] {
    const out = terms.map((): string[] => []);
    const before = this.generation();
    this.db.transaction(() => {
      terms.forEach((t, i) => this.stmts.insertTerm.run(i + 1, t));
      for (const r of this.stmts.stems.all() as { doc: number; term: string }[]) out[r.doc - 1]!.push(r.term);
      this.stmts.clearTerms.run();
    })();
    // Our own scratch writes are not index changes.
    if (before === this.seenGeneration) this.seenGeneration = this.generation();
    return out;
  }

  private stemDf(stem: string): number {
    let n = this.dfCache.get(stem);
    if (n === undefined) {
      n = (this.stmts.docFreq.get(stem) as number | undefined) ?? 0;
      this.dfCache.set(stem, n);
    }
    return n;
  }

  private generation(): string {
    return `${this.stmts.dataVersion.get() as number}:${this.stmts.changes.get() as number}`;
  }

  /** Drops the cached counts when the database has changed since they were read. */
  private refresh(): void {
    const generation = this.generation();
    if (generation === this.seenGeneration) return;
    this.seenGeneration = generation;
    this.dfCache = new Map();
    this.chunkCount = -1;
  }
}
