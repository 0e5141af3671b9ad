import { expect } from "vitest";
import { PathIndex } from "../../src/index/keyword/path-index.js";
import { importanceOf } from "../../src/index/repos/chunk-meta.js";
import type { ChunkRow, IndexStore } from "../../src/index/repos/store.js";
import { rawDb } from "./raw-db.js";

/** The chunk metadata must be what the chunk rows say (the SQL path), for every chunk. */
export function expectMetaInStep(store: IndexStore): void {
  const ids = rawDb(store).prepare(`SELECT id FROM chunks ORDER BY id`).pluck().all() as number[];
  const rows = store.chunksByIds(ids);
  const meta = store.chunkMeta(ids);
  expect(meta.size).toBe(rows.size);
  for (const [id, row] of rows) {
    const { text, hash: _hash, vecState: _vecState, ...rest } = row as ChunkRow;
    expect(meta.get(id)).toEqual({ ...rest, importance: importanceOf(text) });
  }
  expect(store.chunkMeta([999_999]).size).toBe(0);
}

/** A path index on the store's connection, told of its writes and rollbacks as the store's own is. */
export function toldPathIndex(store: IndexStore): PathIndex {
  const idx = new PathIndex(rawDb(store));
  store.registerCopy({
    name: "test path index",
    onRollback: () => idx.rolledBack(),
    onCommit: () => idx.rolledBack(),
    onFileWrite: (id) => idx.fileChanged(id),
  });
  return idx;
}
