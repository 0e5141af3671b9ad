import type { Logger } from "pino";
import type { WorkspaceEngine } from "../engine/engine.js";
import type { SyncOptions, SyncReport } from "../index/sync.js";

interface Lane {
  tail: Promise<unknown>;
  /** Paths waiting in queued targeted syncs. */
  dirty: Set<string>;
  lastSync: number | null;
  lastError: string | null;
}

/**
 * Serialises index writes per workspace: watcher batches, reconciles, RPC index.sync and backfills
 * run one after another, never concurrently on the same index.
 */
export class SyncQueue {
  private readonly lanes = new Map<string, Lane>();

  /** `onSynced` is told of every finished sync (the daemon gives memory back after bursts of work). */
  constructor(
    private readonly logger: Logger,
    private readonly onSynced?: () => void,
  ) {}

  private lane(name: string): Lane {
    let l = this.lanes.get(name);
    if (!l) this.lanes.set(name, (l = { tail: Promise.resolve(), dirty: new Set(), lastSync: null, lastError: null }));
    return l;
  }

  /** Queues a sync of a workspace (optionally of some paths only); resolves with its report. */
  sync(ws: WorkspaceEngine, opts: SyncOptions = {}): Promise<SyncReport> {
    const lane = this.lane(ws.name);
    for (const p of opts.paths ?? []) lane.dirty.add(p);
    const run = lane.tail.then(async () => {
      for (const p of opts.paths ?? []) lane.dirty.delete(p);
      try {
        const report = await ws.indexer.sync(opts);
        lane.lastSync = Date.now();
        lane.lastError = null;
        this.onSynced?.();
        this.logger.debug({ workspace: ws.name, added: report.added, changed: report.changed, removed: report.removed, ms: report.ms }, "synced");
        return report;
      } catch (e) {
        lane.lastError = (e as Error).message;
        this.logger.error({ workspace: ws.name, err: (e as Error).message }, "sync failed");
        throw e;
      }
    });
    lane.tail = run.catch(() => {});
    return run;
  }

  state(name: string): { dirty: number; lastSync: string | null; lastError: string | null } {
    const l = this.lane(name);
    return { dirty: l.dirty.size, lastSync: l.lastSync ? new Date(l.lastSync).toISOString() : null, lastError: l.lastError };
  }

  /** Resolves when every queued sync has finished. */
  async drain(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((l) => l.tail));
  }
}
