import type Database from "better-sqlite3";
import { dataVersionOf, type DataVersion } from "./db-generation.js";

/**
 * One read request's view of the index (a search, a recall): what the index was when the request
 * started. The in-memory copies are validated once, at the open (one `PRAGMA data_version`; the
 * registry hears a commit then and pushes it to every copy), and answer the snapshot's version
 * while the request's code runs (`enter()` after each await): no SQL per use, and no other code
 * sees the request's version. A request is one state of the index when, between its open and its
 * end, no other connection committed (the data version) and no other code of this connection
 * wrote (`total_changes()` moved while the request was awaiting, not by its own lazy writes of
 * derived rows); when either did, its reads may mix two states and it runs again on a new
 * snapshot (`readConsistently`). Optimistic, because a read transaction held across the request's
 * awaits would take in this connection's own writes (the indexer's, between the awaits) and hold
 * SQLite's snapshot against the daemon's checkpoints.
 */
export class ReadSnapshot {
  readonly version: number;
  /** total_changes() when the request's code last stopped running (its await began). */
  private seen: number;
  private othersWrote = false;
  /** What the request read once and asks again (keep): the snapshot's state of the index, so never stale within it. */
  private readonly kept = new Map<string, unknown>();

  constructor(
    private readonly dataVersion: DataVersion,
    private readonly changes: () => number,
  ) {
    this.version = dataVersion.fresh();
    this.seen = changes();
    this.enterStretch();
  }

  /** Called when the request's code resumes after an await: the copies answer the snapshot's version again. */
  enter(): void {
    if (this.changes() !== this.seen) this.othersWrote = true;
    this.enterStretch();
  }

  /** Whether the index changed under the request: another connection committed, or other code of this one wrote. */
  moved(): boolean {
    return this.othersWrote || this.changes() !== this.seen || this.dataVersion.fresh() !== this.version;
  }

  /**
   * A value the request reads from the index more than once (one prompt's entities: the search's
   * entity leg, then recall's order), read the first time and kept for this snapshot only: a request
   * that runs again (the index moved) opens a new snapshot and reads it again.
   */
  keep<T>(key: string, read: () => T): T {
    if (this.kept.has(key)) return this.kept.get(key) as T;
    const value = read();
    this.kept.set(key, value);
    return value;
  }

  private enterStretch(): void {
    this.dataVersion.enterFor(this.version);
    queueMicrotask(() => (this.seen = this.changes())); // the stretch's own writes are the request's
  }
}

/** The snapshots of one connection. */
export function snapshotsOf(db: Database.Database): () => ReadSnapshot {
  const dataVersion = dataVersionOf(db);
  const changes = db.prepare(`SELECT total_changes()`).pluck();
  return () => new ReadSnapshot(dataVersion, () => changes.get() as number);
}

/** Runs of a request at most: past them, the last run's answer stands (the index kept changing under it). */
export const SNAPSHOT_RUNS = 3;

/**
 * Runs a read request on a snapshot, again on a new one when the index changed under it (at most
 * SNAPSHOT_RUNS runs): its answer is read from one state of the index.
 */
export async function readConsistently<T>(
  open: () => ReadSnapshot,
  run: (snap: ReadSnapshot) => Promise<T>,
): Promise<T> {
  for (let n = 1; ; n++) {
    const snap = open();
    const out = await run(snap);
    if (n >= SNAPSHOT_RUNS || !snap.moved()) return out;
  }
}
