import type Database from "better-sqlite3";
import { fromBlob } from "../db/blobs.js";

/**
 * Up to `n` chunk vectors spread evenly over the index (the first chunk at or after each k-th id, until n),
 * for statistics such as how similar a query is to memories at random. Bounded: ≤ 2n seeks by id, n
 * vector reads — none where `decoded` gives a chunk's vector from the quantized codes in memory (past
 * the in-memory matrix: at a million chunks, 256 reads of a cold index took ~60 ms).
 */
export function sampleVectors(
  db: Database.Database,
  n: number,
  decoded?: (id: number) => Float32Array | undefined,
): Float32Array[] {
  const maxId = db.prepare(`SELECT coalesce(max(id), 0) FROM chunks`).pluck().get() as number;
  if (maxId === 0 || n <= 0) return [];
  const step = Math.max(1, Math.floor(maxId / n));
  const seek = db.prepare(`SELECT id FROM chunks WHERE id >= ? ORDER BY id LIMIT 1`).pluck();
  const ids: number[] = [];
  for (let at = step; ids.length < n && at <= maxId; at += step) {
    const id = seek.get(at) as number | undefined;
    if (id === undefined) break;
    if (id > (ids[ids.length - 1] ?? 0)) ids.push(id);
  }
  const get = db.prepare(`SELECT embedding FROM chunks_vec WHERE rowid = ?`).pluck();
  const out: Float32Array[] = [];
  for (const id of ids) {
    const v = decoded?.(id) ?? (get.get(BigInt(id)) as Buffer | undefined);
    if (v) out.push(v instanceof Float32Array ? v : fromBlob(v));
  }
  return out;
}
