import type Database from "better-sqlite3";

/**
 * Merges the chunk FTS5 index's segments, a few hundred pages per step, yielding to the event loop
 * between steps so searches are not held up by one long 'optimize'. Stops when a step changes
 * nothing. Every batch of writes adds a segment; a query reads every segment's posting lists, so
 * after a cold index keyword search is markedly slower until they are merged (docs/performance.md).
 * Returns the time taken in ms.
 */
export async function mergeFtsSegments(db: Database.Database): Promise<number> {
  const t0 = performance.now();
  // A negative page count merges every segment into one (like 'optimize', but in steps); a positive
  // one only merges levels that have filled up ('usermerge'), which left 7 of 10 segments here.
  const step = db.prepare(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('merge', -200)`);
  const changes = db.prepare(`SELECT total_changes()`).pluck();
  for (let i = 0; i < 10_000; i++) {
    const before = changes.get() as number;
    step.run();
    if ((changes.get() as number) - before < 2) break; // a merge step that did no work changes at most its own row
    await new Promise<void>((r) => setImmediate(r));
  }
  // The old segments' pages are now free: give them back to the filesystem (a no-op in an index
  // created before auto_vacuum = INCREMENTAL was set; SQLite then reuses them for later writes).
  db.pragma("incremental_vacuum");
  return Math.round(performance.now() - t0);
}
