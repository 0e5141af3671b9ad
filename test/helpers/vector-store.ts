import { openDatabase } from "../../src/index/db/db.js";
import { IndexStore, type StoredChunkInput } from "../../src/index/repos/store.js";

/**
 * A store (SQLite at `path`, ":memory:" too) whose vectors are `dims`-dim, from a test model;
 * `matrixMaxBytes` bounds its in-memory matrix (1: past it at once, as a large index is).
 */
export function openVectorStore(path: string, dims: number, matrixMaxBytes?: number): IndexStore {
  const store = new IndexStore(openDatabase(path), "t", Date.now, matrixMaxBytes);
  store.useVectorIdentity({ identity: "test-identity", dims, model: "test" });
  return store;
}

/** Chunks of one file carrying the given vectors, numbered from `from` (line, hash and text by number). */
export function chunksFor(
  vs: Float32Array[],
  from: number,
  text: (n: number, i: number) => string = (n) => `chunk ${n}`,
): StoredChunkInput[] {
  return vs.map((vector, i) => ({
    text: text(from + i, i),
    startLine: i + 1,
    endLine: i + 1,
    hash: (from + i).toString(16).padStart(64, "0"),
    vector,
  }));
}
