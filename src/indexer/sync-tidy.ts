import type { IndexStore } from "../index/repos/store.js";
import type { SyncReport } from "./sync-report.js";

/** Sync, last phase: FTS segment merging after a large write, and the keyword postings in memory. */

/** Chunks written or removed by one sync from which its FTS segments are merged at the end. */
const MERGE_AFTER_CHUNKS = 1000;

/** Phase 6. */
export async function tidyKeywordIndex(store: IndexStore, report: SyncReport): Promise<void> {
  // A large write left many FTS segments behind: merge them now rather than at the nightly run.
  if (report.chunksWritten + report.chunksRemoved >= MERGE_AFTER_CHUNKS) await store.upkeep.mergeFtsSegments();
  // The postings in memory (the daemon's) take this sync's chunks in now, off a query's time (or
  // load now, if a load gave way to this sync's writes).
  store.text.postings.settled();
  await store.text.postings.catchUp();
}
