import type Database from "better-sqlite3";
import { fromBlob, hexToBlob, toBlob } from "../db/blobs.js";
import { statements } from "../db/statements.js";

/** The embedding cache (embed_cache): a vector per (model identity, content hash), pruned least-recently-used first. */
export class EmbedCacheRepo {
  private readonly stmts;

  constructor(
    private readonly db: Database.Database,
    private readonly clock: () => number,
  ) {
    this.stmts = statements(db, {
      cacheGet: `SELECT vector FROM embed_cache WHERE identity = ? AND hash = ?`,
      cacheTouch: `UPDATE embed_cache SET last_used = ? WHERE identity = ? AND hash = ?`,
      cachePut: `INSERT INTO embed_cache (identity, hash, vector, last_used) VALUES (?, ?, ?, ?)
        ON CONFLICT (identity, hash) DO UPDATE SET vector = excluded.vector, last_used = excluded.last_used`,
      cacheCount: `SELECT count(*) AS n FROM embed_cache`,
      cachePrune: `DELETE FROM embed_cache WHERE (identity, hash) IN (SELECT identity, hash FROM embed_cache ORDER BY last_used LIMIT ?)`,
    });
  }

  /** Looks up cached vectors; a hit with a null vector means "nothing embeddable". */
  cacheGet(identity: string, hashes: readonly string[]): Map<string, Float32Array | null> {
    const out = new Map<string, Float32Array | null>();
    const now = this.clock();
    this.db.transaction(() => {
      for (const h of hashes) {
        if (out.has(h)) continue;
        const row = this.stmts.cacheGet.get(identity, hexToBlob(h)) as { vector: Buffer | null } | undefined;
        if (!row) continue;
        out.set(h, row.vector ? fromBlob(row.vector) : null);
        this.stmts.cacheTouch.run(now, identity, hexToBlob(h));
      }
    })();
    return out;
  }

  cachePut(identity: string, entries: readonly { hash: string; vector: Float32Array | null }[]): void {
    const now = this.clock();
    this.db.transaction(() => {
      for (const e of entries)
        this.stmts.cachePut.run(identity, hexToBlob(e.hash), e.vector ? toBlob(e.vector) : null, now);
    })();
  }

  /** Drops least-recently-used cache entries beyond `max`. Returns how many were removed. */
  pruneCache(max: number): number {
    const n = (this.stmts.cacheCount.get() as { n: number }).n;
    if (n <= max) return 0;
    const excess = n - max;
    return this.stmts.cachePrune.run(excess).changes;
  }
}
