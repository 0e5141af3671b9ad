import Database from "better-sqlite3";

/** How long a step reads before it yields to the event loop (ms). */
export const READ_STEP_MS = 8;

/** What a stepped read calls between rows: resolves at once, or after a turn of the event loop once the step's time is spent. */
export type Pause = () => Promise<void> | undefined;

const yieldNow = () => new Promise<void>((r) => setImmediate(r));

/**
 * Runs `read` on one snapshot of the index file, on a second, read-only connection, so that a
 * long read (a whole table loaded into memory) can yield to the event loop between rows: `read`
 * awaits `pause()` every few rows, which returns a promise only once `stepMs` of work has run, and
 * requests, watch events and pings are served meanwhile. The main connection keeps working (a
 * statement iterated across awaits would hold it busy). Returns null, without calling `read`, when
 * there is no second connection to be had (an in-memory database, an index whose directory cannot
 * be written and which a reader cannot open): the caller reads in one go.
 *
 * The snapshot starts at the first read inside `read`: what the main connection writes after that
 * is not in it, so callers note their own writes from before they call this (see chunk-meta.ts).
 */
export async function readInSteps<T>(
  db: Database.Database,
  read: (reader: Database.Database, pause: Pause) => Promise<T>,
  stepMs = READ_STEP_MS,
): Promise<T | null> {
  if (db.memory || !db.name) return null;
  let reader: Database.Database;
  try {
    reader = new Database(db.name, { readonly: true, fileMustExist: true });
  } catch {
    return null;
  }
  try {
    reader.exec("BEGIN");
    let stepStart = performance.now();
    const pause: Pause = () => {
      if (performance.now() - stepStart < stepMs) return undefined;
      return yieldNow().then(() => {
        stepStart = performance.now();
      });
    };
    return await read(reader, pause);
  } finally {
    if (reader.inTransaction) reader.exec("ROLLBACK");
    reader.close();
  }
}
