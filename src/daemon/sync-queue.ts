import type { Logger } from "pino";
import type { Engine, WorkspaceEngine } from "../engine/engine.js";
import { ReadOnlyIndexError, readOnlyMessage } from "../index/db/open-read-only.js";
import type { SyncOptions, SyncReport } from "../indexer/sync.js";
import { describeWriteError } from "../index/db/write-errors.js";
import { dirname } from "node:path";
import { missingRootProblem } from "../workspace/resolve.js";

interface Lane {
  tail: Promise<unknown>;
  /** Paths waiting in queued targeted syncs. */
  dirty: Set<string>;
  lastSync: number | null;
  lastError: string | null;
  /** Consecutive failed syncs, and the timer of the full-sync retry they scheduled. */
  failures: number;
  retry: NodeJS.Timeout | null;
}

export interface SyncRetryOptions {
  /** First retry after this long; doubles per failure (default 1000 ms). */
  baseMs?: number;
  /** Longest wait between retries (default 60 000 ms). */
  maxMs?: number;
}

/**
 * Serialises index writes per workspace: watcher batches, reconciles, RPC index.sync and backfills
 * run one after another, never concurrently on the same index. A failed sync (a full disk, a
 * read-only data dir) schedules a full sync of the workspace with backoff, so the changes it could
 * not write are indexed once the fault is gone, without waiting for the next event or heartbeat.
 */
export class SyncQueue {
  private readonly lanes = new Map<string, Lane>();
  private closed = false;
  private readonly stopping = new AbortController();

  /**
   * `onSynced` is told of every finished sync (the daemon gives memory back after bursts of work);
   * `access` (the engine) refuses a sync while the data dir is read-only and reopens the index once it is not.
   */
  constructor(
    private readonly logger: Logger,
    private readonly retry: SyncRetryOptions = {},
    private readonly onSynced?: () => void,
    private readonly access?: Pick<Engine, "ensureWritable" | "noteWriteFailure"> &
      Partial<Pick<Engine, "recoverCorruption">>,
  ) {}

  private lane(name: string): Lane {
    let l = this.lanes.get(name);
    if (!l)
      this.lanes.set(
        name,
        (l = { tail: Promise.resolve(), dirty: new Set(), lastSync: null, lastError: null, failures: 0, retry: null }),
      );
    return l;
  }

  private scheduleRetry(ws: WorkspaceEngine, lane: Lane): void {
    if (this.closed || lane.retry) return;
    const delay = Math.min(
      this.retry.maxMs ?? 60_000,
      (this.retry.baseMs ?? 1000) * 2 ** Math.min(lane.failures - 1, 16),
    );
    lane.retry = setTimeout(() => {
      lane.retry = null;
      void this.sync(ws).catch(() => {});
    }, delay);
    lane.retry.unref();
  }

  /** No more retries (the daemon is stopping). */
  close(): void {
    this.closed = true;
    for (const l of this.lanes.values()) if (l.retry) clearTimeout(l.retry);
  }

  /** Queues a sync of a workspace (optionally of some paths only); resolves with its report. */
  sync(ws: WorkspaceEngine, opts: SyncOptions = {}): Promise<SyncReport> {
    const lane = this.lane(ws.name);
    for (const p of opts.paths ?? []) lane.dirty.add(p);
    const run = lane.tail.then(async () => {
      for (const p of opts.paths ?? []) lane.dirty.delete(p);
      const missing = missingRootProblem(ws.root);
      if (missing) {
        // Said once (when it goes missing), not at every retry or reconcile; status shows it meanwhile.
        if (lane.lastError !== missing) this.logger.warn({ workspace: ws.name, root: ws.root }, missing);
        lane.lastError = missing;
        lane.failures++;
        this.scheduleRetry(ws, lane);
        throw new Error(missing);
      }
      try {
        this.access?.ensureWritable(ws);
        const report = await ws.indexer.sync({ ...opts, signal: this.stopping.signal });
        lane.lastSync = Date.now();
        if (lane.failures) this.logger.warn({ workspace: ws.name, after: lane.failures }, "indexing works again");
        lane.lastError = null;
        lane.failures = 0;
        this.onSynced?.();
        this.logger.debug(
          { workspace: ws.name, added: report.added, changed: report.changed, removed: report.removed, ms: report.ms },
          "synced",
        );
        return report;
      } catch (e) {
        if (this.damaged(ws, e)) throw e;
        const readOnly = this.access?.noteWriteFailure(ws, e) ?? null;
        const message = readOnly ? readOnlyMessage(readOnly) : describeWriteError(e, dirname(ws.dbPath));
        lane.failures++;
        // The same failure again (a retry, a reconcile) is logged at debug: one line per new problem.
        const level = message === lane.lastError ? "debug" : "error";
        lane.lastError = message;
        this.logger[level]({ workspace: ws.name, err: message, failures: lane.failures }, "sync failed");
        // The paths of this sync were taken off the dirty set: a full sync later finds them again.
        this.scheduleRetry(ws, lane);
        throw readOnly && !(e instanceof ReadOnlyIndexError) ? new ReadOnlyIndexError(readOnly) : e;
      }
    });
    lane.tail = run.catch(() => {});
    return run;
  }

  /**
   * When `e` says the index is damaged (any statement, sync or search): it is moved aside and a fresh
   * one swapped in (engine.recoverCorruption), the workspace shows the error in status at once, and a
   * full sync rebuilds it from the memory files now, without a restart. True when that happened.
   */
  damaged(ws: WorkspaceEngine, e: unknown): boolean {
    const recovered = this.access?.recoverCorruption?.(ws, e) ?? null;
    if (!recovered) return false;
    const lane = this.lane(ws.name);
    lane.lastError = `index damaged while running (${recovered.reason}); moved aside to ${recovered.movedTo}, rebuilding`;
    this.logger.error({ workspace: ws.name, err: lane.lastError }, "index damaged");
    if (!this.closed) setImmediate(() => void this.sync(ws).catch(() => {}));
    return true;
  }

  state(name: string): { dirty: number; lastSync: string | null; lastError: string | null } {
    const l = this.lane(name);
    return {
      dirty: l.dirty.size,
      lastSync: l.lastSync ? new Date(l.lastSync).toISOString() : null,
      lastError: l.lastError,
    };
  }

  /** Makes running and queued syncs stop early (at the next file batch): for shutdown. */
  abort(): void {
    this.stopping.abort();
  }

  /** Resolves when every queued sync has finished. */
  async drain(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((l) => l.tail));
  }
}
