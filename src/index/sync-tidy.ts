import type { Logger } from "pino";
import type { IndexStore } from "./store.js";
import type { SyncReport } from "./sync-report.js";

/** Sync, last phase: FTS segment merging after a large write, and the common words' keyword lists. */

/** Chunks written or removed by one sync from which its FTS segments are merged at the end. */
const MERGE_AFTER_CHUNKS = 1000;

/**
 * Phase 6. `listsChecked`: whether this process has checked, once, that an index without keyword
 * lists needs none (see term-lists). Returns the new value.
 */
export async function tidyKeywordIndex(
  store: IndexStore,
  report: SyncReport,
  listsChecked: boolean,
  signal: AbortSignal | undefined,
  logger?: Logger,
): Promise<boolean> {
  // A large write left many FTS segments behind: merge them now rather than at the nightly run.
  const large = report.chunksWritten + report.chunksRemoved >= MERGE_AFTER_CHUNKS;
  if (large) await store.upkeep.mergeFtsSegments();
  // Words that became common get their impact-ordered lists (a large index only; see term-lists):
  // after the first large write (or the first sync of an index from before the lists), then when
  // the index grew by a twentieth (the vocabulary scan is costly on a large index; the nightly
  // maintenance refreshes too). Otherwise the new chunks are folded in.
  // The postings in memory (the daemon's) take this sync's chunks in now, off a query's time.
  store.keywordPostings();
  const lists = store.termLists;
  if ((!lists.active() && (large || !listsChecked)) || (large && report.chunksWritten >= store.ftsTotals().rows / 20)) {
    const r = await lists.refresh({ signal });
    if (r.built || r.dropped) logger?.info({ lists: r }, "keyword lists of common words refreshed");
    return true;
  } else if (report.chunksWritten > 0) await lists.fold(signal);
  return listsChecked;
}
