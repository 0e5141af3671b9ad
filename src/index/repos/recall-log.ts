import type Database from "better-sqlite3";
import { hexToBlob } from "../db/blobs.js";
import { statements } from "../db/statements.js";

type RecalledChunk = { hash: string; path: string; startLine: number; endLine: number };

/**
 * How long a queued recall waits for others to be written with (one transaction for all), and how
 * many may wait: a recall every turn then costs the turn no write, and a stream of recalls one
 * write every quarter of a second.
 */
const FLUSH_AFTER_MS = 250;
const MAX_PENDING = 256;

/** The recall log (recalls): which chunk texts were recalled, for which query, when. */
export class RecallLog {
  private readonly stmts;
  /** Recalls queued by recordLater, written together once the answer has gone (see flush). */
  private pending: { queryHash: string; hits: readonly RecalledChunk[]; at: number }[] = [];
  private timer: NodeJS.Timeout | null = null;

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
  recordRecalls(queryHash: string, hits: readonly RecalledChunk[]): void {
    if (hits.length === 0) return;
    this.write([{ queryHash, hits, at: this.clock() }]);
  }

  /**
   * recordRecalls off the caller's path: queued with the time of the recall and written together
   * with the others queued within FLUSH_AFTER_MS (long after a daemon has sent its answer; at once
   * from MAX_PENDING on), or before any read of the log and when the index closes
   * (IndexStore.close), whichever comes first. A write that fails (a full or read-only disk) is
   * dropped, as are the entries of a process killed before they were written: the log only feeds
   * promotion.
   */
  recordLater(queryHash: string, hits: readonly RecalledChunk[]): void {
    if (hits.length === 0) return;
    this.pending.push({ queryHash, hits, at: this.clock() });
    if (this.pending.length >= MAX_PENDING) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.flush(), 0);
    } else this.timer ??= setTimeout(() => this.flush(), FLUSH_AFTER_MS);
    this.timer.unref();
  }

  /** Writes the queued recalls now (one transaction). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    if (!this.db.open) return;
    try {
      this.write(batch);
    } catch {
      // See recordLater: the agent has its answer; promotion loses these few entries.
    }
  }

  private write(batch: readonly { queryHash: string; hits: readonly RecalledChunk[]; at: number }[]): void {
    const stmt = this.stmts.insertRecall;
    this.db.transaction(() => {
      for (const { queryHash, hits, at } of batch)
        for (const h of hits) stmt.run(hexToBlob(h.hash), h.path, h.startLine, h.endLine, hexToBlob(queryHash), at);
    })();
  }

  /** Recall counts per chunk text: total recalls, distinct queries, last time. */
  recallStats(hash: string): { recalls: number; queries: number; lastAt: number | null } {
    this.flush();
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
    this.flush();
    return this.stmts.frequentRecalls.all(since, minRecalls, minQueries) as {
      hash: string;
      recalls: number;
      queries: number;
      lastAt: number;
    }[];
  }
}
