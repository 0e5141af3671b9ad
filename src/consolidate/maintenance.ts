import type { IndexStore } from "../index/repos/store.js";
import type { MaintenanceReport } from "../rpc/protocol.js";

export type { MaintenanceReport };

/** VACUUM when more than this share of the pages are free (and at least VACUUM_MIN_FREE pages). */
export const VACUUM_FREE_RATIO = 0.25;
export const VACUUM_MIN_FREE = 256;

function timed<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const r = fn();
  return [r, Math.round(performance.now() - t0)];
}

/** FTS5 segment merging, embedding-cache pruning to its cap, WAL checkpoint, quick_check, VACUUM when fragmented. */
export async function maintain(
  store: IndexStore,
  opts: { cacheMax: number; dryRun?: boolean },
): Promise<MaintenanceReport> {
  const ftsOptimizeMs = opts.dryRun ? 0 : await store.upkeep.mergeFtsSegments();
  const [cachePruned, cachePruneMs] = opts.dryRun ? [0, 0] : timed(() => store.pruneCache(opts.cacheMax));
  const [quickCheck, quickCheckMs] = timed(() => store.upkeep.quickCheck());
  const { pages, freePages } = store.upkeep.pages();
  let vacuumed = false;
  let vacuumMs = 0;
  if (!opts.dryRun && quickCheck === "ok" && freePages >= VACUUM_MIN_FREE && freePages > pages * VACUUM_FREE_RATIO) {
    [, vacuumMs] = timed(() => store.upkeep.vacuum());
    vacuumed = true;
  }
  const [ck, walCheckpointMs] = opts.dryRun
    ? [[{ busy: 0, log: 0, checkpointed: 0 }], 0]
    : timed(() => store.upkeep.walCheckpoint());
  return {
    ftsOptimizeMs,
    cachePruned,
    cachePruneMs,
    walCheckpoint: ck[0] ?? { busy: 0, log: 0, checkpointed: 0 },
    walCheckpointMs,
    quickCheck,
    quickCheckMs,
    freePages,
    pages,
    vacuumed,
    vacuumMs,
  };
}
