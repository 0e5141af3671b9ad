import type Database from "better-sqlite3";

/**
 * A connection's `PRAGMA data_version`. Each read outside a transaction takes and drops SQLite's
 * shared lock (~7 µs idle, ~30 µs in a busy daemon), and a recall asked it for each in-memory copy
 * and each of its calls. A read request asks once, when its snapshot opens (read-snapshot.ts):
 * while the request's own code runs — a synchronous stretch, entered by the request and left at
 * its next await — reads answer its snapshot's version; any other code (a sync, a status call
 * between the request's awaits) reads afresh. Every fresh read that finds a new version tells the
 * listeners (the copy registry pushes it to every copy: copies.ts).
 */
export class DataVersion {
  private readonly stmt: Database.Statement;
  private entered: number | null = null;
  private heard: number | null = null;
  private readonly listeners: ((version: number) => void)[] = [];

  constructor(db: Database.Database) {
    this.stmt = db.prepare(`PRAGMA data_version`).pluck();
  }

  read(): number {
    return this.entered ?? this.fresh();
  }

  /** Reads the version now (never a snapshot's), telling the listeners when another connection committed since the last read. */
  fresh(): number {
    const v = this.stmt.get() as number;
    if (this.heard !== null && v !== this.heard) for (const f of this.listeners) f(v);
    this.heard = v;
    return v;
  }

  /** Answers `version` until the current synchronous stretch of code ends (the caller's next await). */
  enterFor(version: number): void {
    this.entered = version;
    queueMicrotask(() => {
      if (this.entered === version) this.entered = null;
    });
  }

  /** Calls `f` with each new version another connection's commit made, as a fresh read finds it. */
  onCommit(f: (version: number) => void): void {
    this.listeners.push(f);
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

  /** The data version now (or as of the running request's snapshot, see DataVersion). */
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
