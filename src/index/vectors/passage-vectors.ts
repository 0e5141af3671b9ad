import type Database from "better-sqlite3";
import type { MetaRepo } from "../repos/meta-repo.js";
import { statements } from "../db/statements.js";
import { VEC_STORED } from "./vec-state.js";
import { PASSAGE_FORMAT2_PREFIX } from "./passage-codes.js";
import { RowCache } from "../repos/row-cache.js";

/** Passage blobs kept in memory (row-cache.ts): ~1.5–2 KB a chunk, so 10,000–13,000 chunks. */
export const PASSAGE_BLOB_CACHE_BYTES = 20 * 1024 * 1024;

/** meta key: the embedding identity whose passage vectors are complete (every stored chunk vector has them). */
const COMPLETE_KEY = "passage_vectors";

/**
 * The passage vectors of the chunks (table passage_vectors, one blob per chunk: see
 * passage-codes.ts), computed at index time for static models so the passage stage reads them
 * instead of embedding lines per query. They live and die with their chunk's vector: written in
 * the transaction that stores it, deleted with it, cleared when the model changes.
 */
export class PassageVectorRepo {
  private readonly stmts;
  /** Blobs read recently; every write of the table goes through put/delete/clear, which drop them. */
  private readonly blobs: RowCache<Buffer>;

  constructor(
    private readonly db: Database.Database,
    private readonly meta: MetaRepo,
  ) {
    this.blobs = new RowCache(db, PASSAGE_BLOB_CACHE_BYTES);
    this.stmts = statements(db, {
      put: `INSERT OR REPLACE INTO passage_vectors (id, vecs) VALUES (?, ?)`,
      del: `DELETE FROM passage_vectors WHERE id = ?`,
      clear: `DELETE FROM passage_vectors`,
      byIds: `SELECT id, vecs FROM passage_vectors WHERE id IN (SELECT value FROM json_each(?))`,
      missing: `SELECT c.id, c.text FROM chunks c WHERE c.vec_state = ${VEC_STORED} AND c.id > ?
        AND NOT EXISTS (SELECT 1 FROM passage_vectors p WHERE p.id = c.id) ORDER BY c.id LIMIT ?`,
      missingIds: `SELECT c.id, c.text FROM chunks c WHERE c.vec_state = ${VEC_STORED} AND c.id > ?
        AND NOT EXISTS (SELECT 1 FROM passage_vectors p WHERE p.id = c.id AND substr(p.vecs, 1, 3) = ?)
        ORDER BY c.id LIMIT ?`,
      has: `SELECT 1 FROM chunks WHERE id = ? AND vec_state = ${VEC_STORED}`,
    });
  }

  put(id: number, vecs: Buffer): void {
    this.blobs.drop(id);
    this.stmts.put.run(id, vecs);
  }

  delete(id: number): void {
    this.blobs.drop(id);
    this.stmts.del.run(id);
  }

  /** Drops every passage vector (the model changed: they are re-done with the chunk vectors). */
  clear(): void {
    this.blobs.clear();
    this.stmts.clear.run();
    this.meta.deleteMeta(COMPLETE_KEY);
  }

  /** The blobs of the chunks that have them: from memory when read recently, the rest in one statement. */
  byIds(ids: readonly number[]): Map<number, Buffer> {
    const { hits: out, missing } = this.blobs.take(ids);
    if (missing.length === 0) return out;
    for (const [id, vecs] of this.stmts.byIds.raw().all(JSON.stringify(missing)) as [number, Buffer][]) {
      out.set(id, vecs);
      this.blobs.put(id, vecs, vecs.length + 100);
    }
    return out;
  }

  /**
   * Chunks with a stored vector but no passage vectors (an index from before them), in id order
   * after `afterId`; with `withIds`, also those whose passage vectors lack their token ids (format 1).
   */
  missing(afterId: number, limit: number, withIds = false): { id: number; text: string }[] {
    return (
      withIds
        ? this.stmts.missingIds.all(afterId, PASSAGE_FORMAT2_PREFIX, limit)
        : this.stmts.missing.all(afterId, limit)
    ) as { id: number; text: string }[];
  }

  /** Stores passage vectors for chunks that still have a stored vector (deleted meanwhile: skipped), in one transaction. */
  fill(items: readonly { id: number; vecs: Buffer }[]): void {
    this.db.transaction(() => {
      for (const it of items) if (this.stmts.has.get(it.id)) this.put(it.id, it.vecs);
    })();
  }

  /** Whether every stored chunk vector of `identity` (a model identity, plus the format: see backfillPassages) has its passage vectors. */
  completeFor(identity: string): boolean {
    return this.meta.getMeta(COMPLETE_KEY) === identity;
  }

  markComplete(identity: string): void {
    this.meta.setMeta(COMPLETE_KEY, identity);
  }
}
