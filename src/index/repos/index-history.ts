import type Database from "better-sqlite3";
import type { FileClass } from "../../ingest/types.js";
import { statements } from "../db/statements.js";

/** The files and chunks of one kind dated one day (UTC calendar day, or a daily log's own date). */
export interface HistoryDay {
  /** YYYY-MM-DD; null for a file time SQLite cannot show as a date. */
  day: string | null;
  class: FileClass;
  files: number;
  chunks: number;
}

/** Per-file day: a daily log's date; a transcript's first dated message; anything else its mtime (UTC). */
const FILE_DAY = `coalesce(f.date, strftime('%Y-%m-%d', coalesce(CASE WHEN f.class = 'transcript' THEN
    (SELECT c.ts FROM chunks c WHERE c.file_id = f.id AND c.ts IS NOT NULL ORDER BY c.seq LIMIT 1) END,
    f.mtime_ms) / 1000, 'unixepoch'))`;

/** The last few answers kept (per generation of the index and scope); the overview asks at each load. */
const CACHE_ENTRIES = 4;

/**
 * The index over time: how many files and chunks of each kind the memories of each day hold. One
 * pass over the chunks' (file, seq) index and the files table, grouped by day and kind in SQL, so the
 * answer has at most 4 rows per day with memories, whatever the index's size; kept until the index
 * changes.
 */
export class IndexHistory {
  private readonly stmts;
  private cache: { key: string; rows: HistoryDay[] }[] = [];

  constructor(
    db: Database.Database,
    private readonly generation: () => string,
  ) {
    this.stmts = statements(db, {
      all: `WITH per AS (SELECT file_id, count(*) AS n FROM chunks GROUP BY file_id)
        SELECT ${FILE_DAY} AS day, f.class AS class, count(*) AS files, sum(coalesce(per.n, 0)) AS chunks
        FROM files f LEFT JOIN per ON per.file_id = f.id GROUP BY 1, 2 ORDER BY 1, 2`,
      // A narrower scope: only the chunks it may see, and only the files with one of them.
      visible: `WITH per AS (SELECT file_id, count(*) AS n FROM chunks
          WHERE visibility IN (SELECT value FROM json_each(?)) GROUP BY file_id)
        SELECT ${FILE_DAY} AS day, f.class AS class, count(*) AS files, sum(per.n) AS chunks
        FROM files f JOIN per ON per.file_id = f.id GROUP BY 1, 2 ORDER BY 1, 2`,
    });
  }

  /** Files and chunks per day and kind, oldest first; `visible`: only chunks of these visibilities. */
  byDay(visible?: readonly string[]): HistoryDay[] {
    const key = `${this.generation()}|${visible ? JSON.stringify([...visible].sort()) : "*"}`;
    const hit = this.cache.find((c) => c.key === key);
    if (hit) return hit.rows;
    const rows = (visible ? this.stmts.visible.all(JSON.stringify(visible)) : this.stmts.all.all()) as HistoryDay[];
    this.cache = [{ key, rows }, ...this.cache.slice(0, CACHE_ENTRIES - 1)];
    return rows;
  }
}
