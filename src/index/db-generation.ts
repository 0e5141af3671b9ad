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

/**
 * "Changed by another connection since I loaded": for an in-memory copy of some tables. `PRAGMA
 * data_version` moves when another connection commits (never on this connection's own writes,
 * which the copy follows itself). mark() the version read before loading; changed() is true
 * until the first mark and whenever the version differs from the marked one.
 */
export class CommitWatch {
  private readonly dataVersion: Database.Statement;
  private marked: number | null = null;

  constructor(db: Database.Database) {
    this.dataVersion = db.prepare(`PRAGMA data_version`).pluck();
  }

  /** The data version now. */
  read(): number {
    return this.dataVersion.get() as number;
  }

  /** Whether a version was marked (the copy was loaded). */
  get loaded(): boolean {
    return this.marked !== null;
  }

  /** Whether `version` (by default: the version now) is not the one marked at the last load. */
  changed(version = this.read()): boolean {
    return version !== this.marked;
  }

  /** Records the version the copy is loaded as of (by default: now). */
  mark(version = this.read()): void {
    this.marked = version;
  }
}
