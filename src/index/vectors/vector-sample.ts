import type Database from "better-sqlite3";
import { fromBlob } from "../db/blobs.js";

/**
 * Up to `n` chunk vectors spread evenly over the index (every k-th chunk id), for statistics such
 * as how similar a query is to memories at random. Bounded: at most n point lookups.
 */
export function sampleVectors(db: Database.Database, n: number): Float32Array[] {
  const { total, maxId } = db.prepare(`SELECT count(*) AS total, coalesce(max(id), 0) AS maxId FROM chunks`).get() as {
    total: number;
    maxId: number;
  };
  if (total === 0 || n <= 0) return [];
  const step = Math.max(1, Math.floor(maxId / n));
  const ids = db.prepare(`SELECT id FROM chunks WHERE id % ? = 0 LIMIT ?`).pluck().all(step, n) as number[];
  const get = db.prepare(`SELECT embedding FROM chunks_vec WHERE rowid = ?`).pluck();
  const out: Float32Array[] = [];
  for (const id of ids) {
    const b = get.get(BigInt(id)) as Buffer | undefined;
    if (b) out.push(fromBlob(b));
  }
  return out;
}
