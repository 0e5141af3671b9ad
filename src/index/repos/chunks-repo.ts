import type Database from "better-sqlite3";
import type { FileClass } from "../../ingest/types.js";
import { hexToBlob } from "../db/blobs.js";
import { ChunkMetaTable } from "./chunk-meta.js";
import { dbGeneration } from "../db/db-generation.js";
import { RowCache, stringBytes } from "./row-cache.js";
import { statements } from "../db/statements.js";
import { VEC_NONE, VEC_PENDING } from "../vectors/vec-state.js";

/** A chunk of a dated daily log, as consolidation reads it. */
export interface DailyChunkRow {
  id: number;
  hash: string;
  path: string;
  date: string;
  startLine: number;
  endLine: number;
  ts: number | null;
  text: string;
  vecState: number;
}

export interface ChunkRow {
  id: number;
  fileId: number;
  seq: number;
  path: string;
  class: FileClass;
  date: string | null;
  startLine: number;
  endLine: number;
  text: string;
  hash: string;
  ts: number | null;
  vecState: number;
}

/** What of a chunk row is not in its metadata (chunk-meta.ts). */
export type ChunkBody = Pick<ChunkRow, "text" | "hash">;

/** Chunk bodies kept in memory (row-cache.ts): texts of ~1–2 KB, so ~10,000 chunks. */
export const BODY_CACHE_BYTES = 16 * 1024 * 1024;

const CHUNK_COLUMNS = `c.id, c.file_id AS fileId, c.seq, f.path, f.class, f.date, c.start_line AS startLine,
  c.end_line AS endLine, c.text, lower(hex(c.hash)) AS hash, c.ts, c.vec_state AS vecState`;

/** Reading chunks and what the files say in aggregate (dates, transcript count, chunks by vector state). */
export class ChunksRepo {
  private readonly stmts;
  /** Every chunk's metadata in memory, kept in step with the index (chunk-meta.ts). */
  readonly meta: ChunkMetaTable;
  private daysCache: { generation: string; value: { days: number; oldest: string | null } } | undefined;
  private generation: (() => string) | undefined;
  private readonly bodies: RowCache<ChunkBody & { fileId: number }>;
  /** Per file, the count of file writes when it was last written (bodies read before that are stale). */
  private readonly fileWrites = new Map<number, number>();
  private writes = 0;

  constructor(private readonly db: Database.Database) {
    this.meta = new ChunkMetaTable(db);
    this.bodies = new RowCache(db, BODY_CACHE_BYTES);
    this.stmts = statements(db, {
      chunksOfPath: `SELECT ${CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ? ORDER BY c.seq`,
      chunksByIds: `SELECT ${CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))`,
      chunkTexts: `SELECT id, text FROM chunks WHERE id IN (SELECT value FROM json_each(?))`,
      chunkBodies: `SELECT id, file_id, text, lower(hex(hash)) FROM chunks WHERE id IN (SELECT value FROM json_each(?))`,
      transcriptFiles: `SELECT count(*) FROM files WHERE class = 'transcript'`,
      memoryDays: `SELECT count(DISTINCT date) AS days, min(date) AS oldest FROM files WHERE date IS NOT NULL`,
      memoryDates: `SELECT DISTINCT date FROM files WHERE date IS NOT NULL`,
      dailyChunks: `SELECT c.id, lower(hex(c.hash)) AS hash, f.path, f.date, c.start_line AS startLine, c.end_line AS endLine, c.ts, c.text, c.vec_state AS vecState
       FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.class = 'daily' AND f.date IS NOT NULL ORDER BY f.date, c.id`,
      dailyIdsBetween: `SELECT c.id FROM files f JOIN chunks c ON c.file_id = f.id
       WHERE f.class = 'daily' AND f.date BETWEEN ? AND ? ORDER BY f.date, c.seq LIMIT ?`,
      transcriptIdsBetween: `SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id
       WHERE c.ts >= ? AND c.ts < ? AND f.class = 'transcript' ORDER BY c.ts, c.id LIMIT ?`,
      promotableChunk: `SELECT f.path, c.start_line AS startLine, c.end_line AS endLine, c.text FROM chunks c JOIN files f ON f.id = c.file_id
     WHERE c.hash = ? AND f.class IN ('daily', 'note') ORDER BY f.date DESC LIMIT 1`,
      // Literal states (not parameters): these counts run on the partial indexes chunks_novector and chunks_pending.
      noVector: `SELECT count(*) FROM chunks WHERE vec_state = ${VEC_NONE}`,
      pending: `SELECT count(*) FROM chunks WHERE vec_state = ${VEC_PENDING}`,
    });
  }

  /** The chunks of one file in order. */
  chunksOfFile(path: string): ChunkRow[] {
    return this.stmts.chunksOfPath.all(path) as ChunkRow[];
  }

  chunksByIds(ids: readonly number[]): Map<number, ChunkRow> {
    const out = new Map<number, ChunkRow>();
    if (ids.length === 0) return out;
    for (const row of this.stmts.chunksByIds.all(JSON.stringify(ids)) as ChunkRow[]) out.set(row.id, row);
    return out;
  }

  /**
   * The chunks dated in a span of days, oldest first, at most `limit` of each kind: daily logs by
   * their file's date (files_date index), transcript chunks by their first message's time (ms,
   * [fromMs, toMs), on the chunks_ts index).
   */
  datedBetween(
    days: { from: string; to: string },
    ms: { from: number; to: number },
    limit: number,
  ): { daily: number[]; transcript: number[] } {
    return {
      daily: this.stmts.dailyIdsBetween.pluck().all(days.from, days.to, limit) as number[],
      transcript: this.stmts.transcriptIdsBetween.pluck().all(ms.from, ms.to, limit) as number[],
    };
  }

  /** The text of each chunk id (missing ids are left out). */
  chunkTexts(ids: readonly number[]): Map<number, string> {
    const out = new Map<number, string>();
    if (ids.length === 0) return out;
    for (const [id, text] of this.stmts.chunkTexts.raw().all(JSON.stringify(ids)) as [number, string][])
      out.set(id, text);
    return out;
  }

  /**
   * The text and content hash of each chunk id (missing ids are left out): the rest is in `meta`.
   * Bodies read recently come from memory (row-cache.ts): a chunk's body changes only with its file,
   * whose every write this connection tells `fileChanged`.
   */
  chunkBodies(ids: readonly number[]): Map<number, ChunkBody> {
    const { hits: out, missing } = this.bodies.take(ids, (b, stamp) => (this.fileWrites.get(b.fileId) ?? 0) <= stamp);
    if (missing.length === 0) return out;
    const stamp = this.writes;
    for (const [id, fileId, text, hash] of this.stmts.chunkBodies.raw().all(JSON.stringify(missing)) as [
      number,
      number,
      string,
      string,
    ][]) {
      const body = { text, hash, fileId };
      out.set(id, body);
      this.bodies.put(id, body, stringBytes(text) + 160, stamp);
    }
    return out;
  }

  /** Called by the store inside a transaction that writes a file's row or chunks: its bodies read before are stale. */
  fileChanged(fileId: number): void {
    this.fileWrites.set(fileId, ++this.writes);
  }

  /** A transaction failed (index/db/copies.ts): the dates read inside it may be gone (bodies read in one are never kept). */
  rolledBack(): void {
    this.daysCache = undefined;
  }

  /** Transcript files (on the files_class index). */
  countTranscriptFiles(): number {
    return this.stmts.transcriptFiles.pluck().get() as number;
  }

  /** Distinct dates of dated files and the oldest (on the files_date index: cheap even at 30,000 days). */
  memoryDays(): { days: number; oldest: string | null } {
    // Kept until the database changes (status is polled; the count is the slowest part of it).
    const generation = (this.generation ??= dbGeneration(this.db))();
    if (this.daysCache?.generation === generation) return this.daysCache.value;
    const r = this.stmts.memoryDays.get() as { days: number; oldest: string | null };
    this.daysCache = { generation, value: { days: r.days, oldest: r.oldest } };
    return this.daysCache.value;
  }

  /** Every distinct date of a dated file. */
  memoryDates(): string[] {
    return this.stmts.memoryDates.pluck().all() as string[];
  }

  /** Chunks with nothing to embed (on the partial index chunks_novector). */
  countNoVector(): number {
    return this.stmts.noVector.pluck().get() as number;
  }

  /** Chunks not embedded yet (on the partial index chunks_pending). */
  countPending(): number {
    return this.stmts.pending.pluck().get() as number;
  }

  /** Every chunk of a dated daily log, oldest date first. */
  dailyChunks(): DailyChunkRow[] {
    return this.stmts.dailyChunks.all() as DailyChunkRow[];
  }

  /** The newest chunk of a daily log or note with this text (a promotion's source), if any. */
  promotableChunk(hash: string): { path: string; startLine: number; endLine: number; text: string } | undefined {
    return this.stmts.promotableChunk.get(hexToBlob(hash)) as
      { path: string; startLine: number; endLine: number; text: string } | undefined;
  }
}
