import type { FileMeta, StoredChunkInput } from "../index/repos/files-repo.js";
import type { IndexStore } from "../index/repos/store.js";

/**
 * Chunks of one file written in one transaction at most. A file with more (a huge single line is
 * up to MAX_CHUNKS_PER_FILE pieces) is written in slices of this many, one transaction each, with a
 * turn of the event loop between them, so pings and searches are answered meanwhile (writing 2,048
 * chunks with their FTS rows and keyword postings at once held the loop for ~0.3–1 s).
 */
export const SLICE_CHUNKS = 64;

/** Yields to the event loop (pending I/O and timers run first). */
const turn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Between two slices: a turn of the loop, then the in-memory keyword postings take in the slice's
 * chunks (their texts tokenized by FTS5; left pending, a huge file's 2,048 were tokenized in one
 * piece at the next search or the end of the sync, ~0.3–1.2 s), then another turn.
 */
async function settle(store: IndexStore): Promise<void> {
  await turn();
  store.keywordPostings();
  await turn();
}

/**
 * Writes a file's chunks from `keep` on in slices. Until the last slice the file's row carries a
 * stamp that never matches the disk (size -1, no hash), so a crash in between leaves a file the next
 * sync reads and writes again, never one that looks indexed while it is half written; the last
 * slice writes the real row. Searches in between see the chunks written so far.
 */
export async function writeInSlices(
  store: IndexStore,
  meta: FileMeta,
  keep: number,
  chunks: readonly StoredChunkInput[],
  /** Chunks the file had in the index (when known): the old ones past `keep` are removed in slices first. */
  had = 0,
): Promise<{ added: number; removed: number }> {
  const partial: FileMeta = { ...meta, size: -1, sha256: "", hashOffset: 0, hashState: null, resume: null };
  let added = 0;
  let removed = 0;
  for (let from = had - SLICE_CHUNKS; from > keep; from -= SLICE_CHUNKS) {
    removed += store.transaction(() => store.replaceTail(partial, from, [])).removed;
    await settle(store);
  }
  for (let at = 0; at < chunks.length || at === 0; at += SLICE_CHUNKS) {
    const slice = chunks.slice(at, at + SLICE_CHUNKS);
    const last = at + SLICE_CHUNKS >= chunks.length;
    const rowMeta = last ? meta : partial;
    const res = store.transaction(() =>
      at === 0 && keep === 0 ? store.replaceFile(rowMeta, slice) : store.replaceTail(rowMeta, keep + at, slice),
    );
    added += res.added;
    removed += res.removed;
    await settle(store);
    if (last) break;
  }
  return { added, removed };
}

/**
 * Removes a file from the index. One of more than SLICE_CHUNKS chunks loses them from the end in
 * slices, one transaction each with a turn of the loop between (deleting a huge file's 2,048 chunks
 * with their FTS rows and keyword postings at once held the loop like writing them did); meanwhile
 * its row carries the stamp that never matches the disk, so a crash in between leaves a file the next
 * sync reads again, or removes when it is gone. The row and its last chunks go in one transaction.
 * Returns the chunks removed.
 */
export async function deleteInSlices(
  store: IndexStore,
  path: string,
  /** Inside the last transaction (e.g. the conflict list's update). */
  alsoAtEnd: () => void = () => {},
): Promise<number> {
  const row = store.getFile(path);
  if (!row) return store.transaction(() => (alsoAtEnd(), 0));
  const end = store.chunkEnd(path);
  let removed = 0;
  if (end > SLICE_CHUNKS) {
    const partial: FileMeta = {
      path,
      class: row.class,
      date: row.date ?? undefined,
      size: -1,
      mtimeMs: row.mtimeMs,
      sha256: "",
      hashOffset: 0,
      hashState: null,
      resume: null,
    };
    for (let from = end - SLICE_CHUNKS; from > 0; from -= SLICE_CHUNKS) {
      removed += store.transaction(() => store.replaceTail(partial, from, [])).removed;
      await settle(store);
    }
  }
  return (
    removed +
    store.transaction(() => {
      const n = store.deleteFile(path);
      alsoAtEnd();
      return n;
    })
  );
}
