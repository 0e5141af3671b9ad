import type Database from "better-sqlite3";

/**
 * A token that changes whenever the database may have changed: `PRAGMA data_version` moves when
 * another connection commits, `total_changes()` when this connection writes. Caches of values
 * derived from the index (word statistics, status counts) compare it to know when to re-read.
 */
export function dbGeneration(db: Database.Database): () => string {
  const dataVersion = db.prepare(`PRAGMA data_version`).pluck();
  const changes = db.prepare(`SELECT total_changes()`).pluck();
  return () => `${dataVersion.get() as number}:${changes.get() as number}`;
}
