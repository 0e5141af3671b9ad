import type Database from "better-sqlite3";
import { hexToBlob } from "./blobs.js";
import { statements } from "./statements.js";

/** The recall log (recalls): which chunk texts were recalled, for which query, when. */
export class RecallLog {
  private readonly stmts;

  constructor(
    private readonly db: Database.Database,
    private readonly clock: () => number,
  ) {
    this.stmts = statements(db, {
      insertRecall: `INSERT INTO recalls (chunk_hash, path, start_line, end_line, query_hash, at) VALUES (?, ?, ?, ?, ?, ?)`,
      recallStats: `SELECT count(*) AS recalls, count(DISTINCT query_hash) AS queries, max(at) AS lastAt FROM recalls WHERE chunk_hash = ?`,
      frequentRecalls: `SELECT lower(hex(r.chunk_hash)) AS hash, count(*) AS recalls, count(DISTINCT r.query_hash) AS queries, max(r.at) AS lastAt
       FROM recalls r WHERE r.at >= ?
         AND r.chunk_hash NOT IN (SELECT chunk_hash FROM promotions)
         AND r.chunk_hash NOT IN (SELECT chunk_hash FROM supersessions)
         AND r.chunk_hash NOT IN (SELECT chunk_hash FROM dup_groups WHERE chunk_hash <> canonical_hash)
       GROUP BY r.chunk_hash HAVING recalls >= ? AND queries >= ? ORDER BY recalls DESC, lastAt DESC`,
    });
  }

  /** Records that these chunks were recalled for a query (one transaction). */
  recordRecalls(
    queryHash: string,
    hits: readonly { hash: string; path: string; startLine: number; endLine: number }[],
  ): void {
    if (hits.length === 0) return;
    const now = this.clock();
    const stmt = this.stmts.insertRecall;
    this.db.transaction(() => {
      for (const h of hits) stmt.run(hexToBlob(h.hash), h.path, h.startLine, h.endLine, hexToBlob(queryHash), now);
    })();
  }

  /** Recall counts per chunk text: total recalls, distinct queries, last time. */
  recallStats(hash: string): { recalls: number; queries: number; lastAt: number | null } {
    const r = this.stmts.recallStats.get(hexToBlob(hash)) as {
      recalls: number;
      queries: number;
      lastAt: number | null;
    };
    return r;
  }

  /**
   * Chunk texts recalled at least `minRecalls` times from `minQueries` distinct queries since
   * `since`, not promoted before, not superseded and not a non-canonical duplicate; most recalled first.
   */
  frequentRecalls(
    since: number,
    minRecalls: number,
    minQueries: number,
  ): { hash: string; recalls: number; queries: number; lastAt: number }[] {
    return this.stmts.frequentRecalls.all(since, minRecalls, minQueries) as {
      hash: string;
      recalls: number;
      queries: number;
      lastAt: number;
    }[];
  }
}
