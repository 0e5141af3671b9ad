import type Database from "better-sqlite3";

/**
 * A connection's `PRAGMA data_version`, read once per request. Each read outside a transaction
 * takes and drops SQLite's shared lock (~7 µs idle, ~30 µs in a busy daemon), and a recall asked
 * it eight times (each in-memory copy, each of its calls). While a request holds a pin, reads
 * answer the version read when the newest pin was taken; with no pin held, every read is fresh.
 * So the values read never go back in time (a newer pin re-reads), and a copy loaded during a
 * pin is at worst marked older than it is, which costs one reload, never a stale answer after
 * the pins are gone.
 */
export class DataVersion {
  private readonly stmt: Database.Statement;
  private pins = 0;
  private pinned = 0;

  constructor(db: Database.Database) {
    this.stmt = db.prepare(`PRAGMA data_version`).pluck();
  }

  read(): number {
    return this.pins > 0 ? this.pinned : (this.stmt.get() as number);
  }

  /** Reads the version now and answers it until the returned release (idempotent) is called. */
  pin(): () => void {
    this.pinned = this.stmt.get() as number;
    this.pins++;
    let held = true;
    return () => {
      if (held) this.pins--;
      held = false;
    };
  }
}

const versions = new WeakMap<Database.Database, DataVersion>();

/** The one DataVersion of a connection. */
export function dataVersionOf(db: Database.Database): DataVersion {
  let v = versions.get(db);
  if (!v) versions.set(db, (v = new DataVersion(db)));
  return v;
}

/**
 * A token that changes whenever the database may have changed: `PRAGMA data_version` moves when
 * another connection commits, `total_changes()` when this connection writes. Caches of values
 * derived from the index (word statistics, status counts) compare it to know when to re-read.
 */
export function dbGeneration(db: Database.Database): () => string {
  const dataVersion = dataVersionOf(db);
  const changes = db.prepare(`SELECT total_changes()`).pluck();
  return () => `${dataVersion.read()}:${changes.get() as number}`;
}

/**
 * "Changed by another connection since I loaded": for an in-memory copy of some tables. `PRAGMA
 * data_version` moves when another connection commits (never on this connection's own writes,
 * which the copy follows itself). mark() the version read before loading; changed() is true
 * until the first mark and whenever the version differs from the marked one.
 */
export class CommitWatch {
  private readonly dataVersion: DataVersion;
  private marked: number | null = null;

  constructor(db: Database.Database) {
    this.dataVersion = dataVersionOf(db);
  }

  /** The data version now (or as of the request's pin, see DataVersion). */
  read(): number {
    return this.dataVersion.read();
  }

  /** Whether a version was marked (the copy was loaded). */
  get loaded(): boolean {
    return this.marked !== null;
  }

  /** Whether `version` (by default: the version now) is not the one marked at the last load. */
  changed(version = this.read()): boolean {
    return version !== this.marked;
  }

  /** Forgets the load: the copy counts as changed until the next mark (a rollback, see copies.ts). */
  forget(): void {
    this.marked = null;
  }

  /** Records the version the copy is loaded as of (by default: now). */
  mark(version = this.read()): void {
    this.marked = version;
  }
}
