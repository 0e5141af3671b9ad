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
    });
  }

  /** Records that these chunks were recalled for a query (one transaction). */
  recordRecalls(queryHash: string, hits: readonly { hash: string; path: string; startLine: number; endLine: number }[]): void {
    if (hits.length === 0) return;
    const now = this.clock();
    const stmt = this.stmts.insertRecall;
    this.db.transaction(() => {
      for (const h of hits) stmt.run(hexToBlob(h.hash), h.path, h.startLine, h.endLine, hexToBlob(queryHash), now);
    })();
  }

  /** Recall counts per chunk text: total recalls, distinct queries, last time. */
  recallStats(hash: string): { recalls: number; queries: number; lastAt: number | null } {
    const r = this.stmts.recallStats.get(hexToBlob(hash)) as { recalls: number; queries: number; lastAt: number | null };
    return r;
  }
}
