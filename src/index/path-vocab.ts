import type Database from "better-sqlite3";

/**
 * The words of the indexed file paths and how many files hold each, in memory: paths are few, so
 * the path stage of a search can tell from a map whether a query word is in any path (most are in
 * none) and how many, without an FTS5 query per word. Read from files_fts's own vocabulary
 * (fts5vocab), so a word is what FTS5 would match; read again when files_fts changes (its
 * structure record, rewritten by every FTS5 write, differs; other writes such as the recall log
 * leave it alone). A workspace
 * with more distinct path words than MAX_TERMS keeps none (lookups say "unknown": ask FTS5).
 */

/** Distinct path words kept at most (a few MB). */
const MAX_TERMS = 200_000;

export class PathVocabulary {
  private readonly read: Database.Statement;
  private readonly structure: Database.Statement;
  private seen: Buffer | undefined;
  private files: Map<string, number> | null = null;

  constructor(db: Database.Database) {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.files_vocab USING fts5vocab(main, files_fts, 'row')`);
    this.read = db.prepare(`SELECT term, doc FROM temp.files_vocab LIMIT ${MAX_TERMS + 1}`).raw();
    // FTS5's structure record (id 10 of its %_data table) names the segments and counts the writes.
    this.structure = db.prepare(`SELECT block FROM files_fts_data WHERE id = 10`).pluck();
  }

  /**
   * Files whose path holds `word` (one lowercase ASCII letter/digit run: FTS5's unicode61 token of
   * it is itself), or null when the map cannot say (another kind of word, or too many path words).
   */
  filesWith(word: string): number | null {
    if (!/^[a-z0-9]+$/.test(word)) return null;
    const files = this.current();
    return files ? (files.get(word) ?? 0) : null;
  }

  private current(): Map<string, number> | null {
    const generation = this.structure.get() as Buffer | undefined;
    if (!generation || !this.seen || !generation.equals(this.seen)) {
      const rows = this.read.all() as [string, number][];
      this.files = rows.length > MAX_TERMS ? null : new Map(rows);
      this.seen = generation;
    }
    return this.files;
  }
}
