/**
 * The int8 quantizer of the chunk vectors past the in-memory matrix (vector-codes.ts holds the codes
 * in memory): fitted once on a sample of the index's vectors, then every vector's code is written
 * beside it (`chunk_codes`, migration 5).
 */
import type Database from "better-sqlite3";
import { fromBlob } from "../db/blobs.js";

/** How a vector is turned into an int8 code: fixed for the life of an index's codes. */
export interface Quantizer {
  format: "c8-v1";
  mean: number[];
  /** int8 units per unit of (centred) value, per dimension. */
  scale: number[];
}

/** Derives a quantizer from a sample of vectors: their normalised mean and a ±4σ int8 range per dimension. */
export function fitQuantizer(sample: readonly Float32Array[], dims: number): Quantizer {
  const mean = new Float64Array(dims);
  const sq = new Float64Array(dims);
  const unit = sample.map(normalised);
  for (const v of unit) for (let j = 0; j < dims; j++) mean[j]! += v[j]! / Math.max(1, unit.length);
  for (const v of unit) for (let j = 0; j < dims; j++) sq[j]! += (v[j]! - mean[j]!) ** 2 / Math.max(1, unit.length);
  const scale = Array.from(sq, (s) => 127 / (4 * Math.max(Math.sqrt(s), 1e-6)));
  return { format: "c8-v1", mean: Array.from(mean), scale };
}

/** The vector at unit length (a zero vector as it is). */
export function normalised(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}

/** The int8 code of a vector. */
export function quantize(v: Float32Array, q: Quantizer): Int8Array {
  const u = normalised(v);
  const out = new Int8Array(u.length);
  for (let j = 0; j < u.length; j++)
    out[j] = Math.max(-127, Math.min(127, Math.round((u[j]! - q.mean[j]!) * q.scale[j]!)));
  return out;
}

export function codeToBlob(code: Int8Array): Buffer {
  return Buffer.from(code.buffer, code.byteOffset, code.byteLength);
}

export function blobToCode(b: Buffer): Int8Array {
  return new Int8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** The statements of the code table (vector-repo.ts's). */
interface CodeTableStatements {
  vecSample: Database.Statement;
  vecAll: Database.Statement;
  codesClear: Database.Statement;
  codePut: Database.Statement;
}

/** Fits a quantizer on the sample statement's vectors and writes every vector's code, with `saved` (its meta) in the same transaction. */
export function writeCodeTable(
  db: Database.Database,
  stmts: CodeTableStatements,
  dims: number,
  saved: (q: Quantizer) => void,
): Quantizer {
  const sample = (stmts.vecSample.raw().all() as [Buffer][]).map(([b]) => fromBlob(b));
  const q = fitQuantizer(sample, dims);
  const rows: [number, Buffer][] = [];
  for (const [id, embedding] of stmts.vecAll.raw().iterate() as IterableIterator<[number | bigint, Buffer]>) {
    rows.push([Number(id), Buffer.from(codeToBlob(quantize(fromBlob(embedding), q)))]);
  }
  db.transaction(() => {
    stmts.codesClear.run();
    for (const [id, code] of rows) stmts.codePut.run(id, code);
    saved(q);
  })();
  return q;
}
