import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { WorkspaceEngine } from "../engine/engine.js";
import type { IndexStore } from "../index/repos/store.js";
import type { WorkspaceStatus } from "../rpc/protocol.js";
import { topEntities } from "../search/entity-names.js";

/**
 * The top entities `cortex.status` shows for each workspace, counted off the request path. Counting
 * them groups the whole entity table (0.4–0.6 s at 100,000 chunks), so a status call never counts:
 * it shows the latest count — from before the latest change while a recount runs — or, until the
 * first count is done, says it is counting (`topEntitiesCounting`). Counts run in a worker thread on
 * a read-only connection, one at a time per index, started after the daemon's startup sync and when a
 * status call finds the index changed, at most every 5 s; a count that took long (a large index) is
 * reused for up to 10 minutes after a change.
 */

export type TopEntity = NonNullable<WorkspaceStatus["topEntities"]>[number];
/** Counts the top n entities of a workspace's index. */
export type CountTopEntities = (ws: IndexOf, n: number) => Promise<TopEntity[]>;
/** What of a workspace the counts read: its index, and where it is. */
export type IndexOf = Pick<WorkspaceEngine, "store" | "dbPath" | "readOnly">;

const TOP_N = 5;
/** A count that took this long, where the first entity is named in this many chunks, is of a large index … */
const SLOW_MS = 50;
const LARGE_CHUNKS = 1000;
/** … and is reused, though the index changed since, for this long (they hardly move between two writes). */
const STALE_MS = 10 * 60_000;
/** Between two counts of an index that keeps changing (a cold index being built, polled by status), at least this. */
export const RECOUNT_MIN_MS = 5_000;

interface Entry {
  generation: string | null;
  rows?: TopEntity[];
  failed?: boolean;
  at: number;
  large: boolean;
  counting?: Promise<void>;
}

export class TopEntitiesKeeper {
  private readonly entries = new WeakMap<IndexStore, Entry>();
  private closed = false;

  constructor(
    private readonly count: CountTopEntities = countTopEntities,
    private readonly clock: () => number = Date.now,
    private readonly minIntervalMs = RECOUNT_MIN_MS,
  ) {}

  /** What a status shows: never waits, and starts a count when the index changed since the last one. */
  of(ws: IndexOf): Pick<WorkspaceStatus, "topEntities" | "topEntitiesCounting"> {
    const e = this.entry(ws.store);
    if (e.generation !== ws.store.generation()) void this.refresh(ws);
    if (e.rows) return e.rows.length > 0 ? { topEntities: e.rows } : {};
    return e.failed ? {} : { topEntitiesCounting: true };
  }

  /** Starts a count unless one runs, or the last was slow and is under 10 minutes old; resolves when it is done. */
  refresh(ws: IndexOf): Promise<void> {
    const store = ws.store;
    const e = this.entry(store);
    if (e.counting) return e.counting;
    const since = this.clock() - e.at;
    if (this.closed || (e.rows && ((e.large && since < STALE_MS) || since < this.minIntervalMs)))
      return Promise.resolve();
    const generation = store.generation();
    const t0 = performance.now();
    e.counting = this.count(ws, TOP_N)
      .then(
        (rows) => {
          const large = performance.now() - t0 >= SLOW_MS && (rows[0]?.chunks ?? 0) >= LARGE_CHUNKS;
          Object.assign(e, { rows, failed: false, generation, large });
        },
        // An index that cannot say (an older or unreadable one): status leaves them out, as before.
        () => Object.assign(e, { failed: true, generation, large: false }),
      )
      .then(() => {
        e.at = this.clock();
        delete e.counting;
      });
    return e.counting;
  }

  /** No counts after this (the daemon is stopping); a running one finishes on its own. */
  close(): void {
    this.closed = true;
  }

  private entry(store: IndexStore): Entry {
    let e = this.entries.get(store);
    if (!e) this.entries.set(store, (e = { generation: null, at: 0, large: false }));
    return e;
  }
}

const WORKER = new URL("./top-entities-worker.js", import.meta.url);

/**
 * Counts in a worker thread on the index file; inline (after the current request, on this thread)
 * where there is no file to open (an index searched from a copy in memory) or no compiled worker
 * (the sources run directly, as in the tests).
 */
export function countTopEntities(ws: IndexOf, n: number): Promise<TopEntity[]> {
  if (ws.readOnly?.copy || !existsSync(fileURLToPath(WORKER)) || !existsSync(ws.dbPath))
    return new Promise((done, fail) =>
      setImmediate(() => {
        try {
          done(
            topEntities(ws.store.entities, n).map(({ name, chunks, aliases }) => ({
              name,
              chunks,
              ...(aliases ? { aliases } : {}),
            })),
          );
        } catch (e) {
          fail(e as Error);
        }
      }),
    );
  return new Promise((done, fail) => {
    const worker = new Worker(WORKER, { workerData: { dbPath: ws.dbPath, n } });
    worker.unref();
    worker.once("message", (m: { rows?: TopEntity[]; error?: string }) =>
      m.rows ? done(m.rows) : fail(new Error(m.error ?? "no answer")),
    );
    worker.once("error", fail);
    worker.once("exit", (code) => fail(new Error(`the entity count stopped (exit code ${code})`)));
  });
}
