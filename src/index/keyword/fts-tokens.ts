import type Database from "better-sqlite3";

/** The tokens FTS5 makes of one text: each token's count, and how many tokens in all. */
export interface TextTokens {
  tf: Map<string, number>;
  length: number;
}

/** The tokenizers of the index's FTS5 tables (migrations.ts): chunks_fts's, and files_fts's (paths). */
export const CHUNK_TOKENIZER = "porter unicode61 remove_diacritics 2";
export const PATH_TOKENIZER = "unicode61 remove_diacritics 2";

/**
 * FTS5's own tokens of texts (as chunks_fts makes them by default, or files_fts with
 * PATH_TOKENIZER): the texts go into a scratch FTS5 table in the temp schema and come back through
 * its 'instance' vocabulary, so the tokens are exactly the ones the index stores, never a
 * re-implementation of them.
 */
export class FtsTokenizer {
  private stmts: { put: Database.Statement; read: Database.Statement; clear: Database.Statement } | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly name: string,
    private readonly tokenize: string = CHUNK_TOKENIZER,
  ) {}

  /** The tokens of each text (in the order given). */
  tokens(texts: readonly string[]): TextTokens[] {
    const out = texts.map((): TextTokens => ({ tf: new Map(), length: 0 }));
    if (texts.length === 0) return out;
    const s = this.prepare();
    this.db.transaction(() => {
      texts.forEach((t, i) => s.put.run(i + 1, t));
      for (const [doc, term] of s.read.iterate() as IterableIterator<[number, string]>) {
        const t = out[doc - 1]!;
        t.tf.set(term, (t.tf.get(term) ?? 0) + 1);
        t.length++;
      }
      s.clear.run();
    })();
    return out;
  }

  private prepare() {
    if (this.stmts) return this.stmts;
    this.db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.${this.name} USING fts5(t, tokenize = '${this.tokenize}');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.${this.name}_v USING fts5vocab(temp, ${this.name}, 'instance');
    `);
    return (this.stmts = {
      put: this.db.prepare(`INSERT INTO temp.${this.name} (rowid, t) VALUES (?, ?)`),
      read: this.db.prepare(`SELECT doc, term FROM temp.${this.name}_v`).raw(),
      clear: this.db.prepare(`DELETE FROM temp.${this.name}`),
    });
  }
}
