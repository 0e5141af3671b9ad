import { statSync } from "node:fs";
import { join } from "node:path";
import type { Indexer } from "../indexer/sync.js";

/**
 * Whether a memory file holds git conflict markers, as its index knows it, without reading it: the
 * indexer records what each read of a markdown file found (ConflictRegistry), so while the file is
 * as the index last saw it (same size and mtime) that answer is current. Undefined when the file
 * changed since (someone else wrote it) or was never indexed: then the file's content decides.
 * A save checks this before each append, so its cost does not grow with the day's log.
 */
export function indexedConflict(indexer: Indexer, root: string, key: string): boolean | undefined {
  const row = indexer.store.getFile(key);
  if (!row) return undefined;
  const st = statSync(join(root, key), { throwIfNoEntry: false });
  if (!st?.isFile() || st.size !== row.size || Math.floor(st.mtimeMs) !== Math.floor(row.mtimeMs)) return undefined;
  return indexer.conflicts.has(key);
}
