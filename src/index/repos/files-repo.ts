import type Database from "better-sqlite3";
import type { Chunk, FileClass } from "../../ingest/types.js";
import { hexToBlob } from "../db/blobs.js";
import { prepareFtsText } from "../keyword/fts-text.js";
import { statements } from "../db/statements.js";
import type { KeywordPostings } from "../keyword/keyword-postings.js";
import { CopyRegistry } from "../db/copies.js";
import { VEC_NONE, VEC_PENDING, VEC_STORED } from "../vectors/vec-state.js";
import type { VectorRepo } from "../vectors/vector-repo.js";
import type { ResumePoint } from "../../ingest/markdown-resume.js";
import type { ChunkerStart } from "../../ingest/types.js";

export interface FileMeta {
  path: string;
  class: FileClass;
  date?: string | undefined;
  size: number;
  mtimeMs: number;
  sha256: string;
  indexedBytes?: number;
  indexedLines?: number;
  malformed?: number;
  /** Chained-hash resume point (see util/chained-hash). */
  hashOffset?: number;
  hashState?: Buffer | null;
  /** Transcripts and markdown logs: where re-chunking resumes after an append. */
  resume?: ResumePoint | null;
}

export type { ResumePoint };

export interface FileRow {
  id: number;
  path: string;
  class: FileClass;
  date: string | null;
  size: number;
  mtimeMs: number;
  sha256: string;
  indexedBytes: number;
  indexedLines: number;
  malformed: number;
  hashOffset: number;
  hashState: Buffer | null;
  resumeOffset: number | null;
  resumeLine: number | null;
  resumeSeq: number | null;
  resumeMalformed: number | null;
  /** JSON of ResumePoint.chunker (markdown logs). */
  resumeChunker: string | null;
  indexedAt: number;
}

/** The fields of an indexed file that a sync compares with the disk. */
export interface FileStamp {
  id: number;
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string;
}

/** A chunk ready to store. vector: a vector, null (nothing embeddable), or undefined (not embedded yet). */
export interface StoredChunkInput extends Chunk {
  hash: string;
  vector?: Float32Array | null;
  /** Its units' vectors (static models; see passage-codes.ts), stored with the vector. */
  passages?: Buffer;
}

const FILE_COLUMNS = `id, path, class, date, size, mtime_ms AS mtimeMs, sha256, indexed_bytes AS indexedBytes,
  indexed_lines AS indexedLines, malformed, indexed_at AS indexedAt, hash_offset AS hashOffset, hash_state AS hashState,
  resume_offset AS resumeOffset, resume_line AS resumeLine, resume_seq AS resumeSeq, resume_malformed AS resumeMalformed, resume_chunker AS resumeChunker`;

/**
 * The indexed files and their chunks: the files and chunks tables with the FTS5 rows (chunks_fts)
 * and term-list marks that follow each chunk, and each chunk's vector through the VectorRepo.
 * Every mutating method is one transaction.
 */
export class FilesRepo {
  private readonly stmts;

  constructor(
    private readonly db: Database.Database,
    private readonly clock: () => number,
    private readonly vectors: VectorRepo,
    private readonly postings: KeywordPostings,
    /** The in-memory copies (index/db/copies.ts): told of each file a write changes, inside its transaction, and of a failed write. */
    private readonly copies: Pick<CopyRegistry, "fileWritten" | "rolledBack"> = new CopyRegistry(),
  ) {
    this.stmts = statements(db, {
      listFiles: `SELECT ${FILE_COLUMNS} FROM files ORDER BY path`,
      getFile: `SELECT ${FILE_COLUMNS} FROM files WHERE path = ?`,
      stamps: `SELECT id, path, size, mtime_ms, sha256 FROM files`,
      // A superset of the conflict copies' names (workspace/conflict-copies.ts): each holds a space or ".sync-conflict-".
      conflictCandidates: `SELECT path FROM files WHERE path LIKE '% %' OR path LIKE '%.sync-conflict-%'`,
      insertFile: `INSERT INTO files (path, class, date, size, mtime_ms, sha256, indexed_bytes, indexed_lines, malformed, indexed_at,
          hash_offset, hash_state, resume_offset, resume_line, resume_seq, resume_malformed, resume_chunker)
        VALUES (@path, @class, @date, @size, @mtimeMs, @sha256, @indexedBytes, @indexedLines, @malformed, @indexedAt,
          @hashOffset, @hashState, @resumeOffset, @resumeLine, @resumeSeq, @resumeMalformed, @resumeChunker)`,
      updateFile: `UPDATE files SET path = @path, class = @class, date = @date, size = @size, mtime_ms = @mtimeMs, sha256 = @sha256,
        indexed_bytes = @indexedBytes, indexed_lines = @indexedLines, malformed = @malformed, indexed_at = @indexedAt,
        hash_offset = @hashOffset, hash_state = @hashState, resume_offset = @resumeOffset, resume_line = @resumeLine,
        resume_seq = @resumeSeq, resume_malformed = @resumeMalformed, resume_chunker = @resumeChunker WHERE id = @id`,
      touchFile: `UPDATE files SET size = ?, mtime_ms = ? WHERE id = ?`,
      deleteFileRow: `DELETE FROM files WHERE id = ?`,
      chunksOfFile: `SELECT id, text, vec_state AS vecState FROM chunks WHERE file_id = ? AND seq >= ? ORDER BY seq`,
      chunkEnd: `SELECT coalesce(max(c.seq) + 1, 0) FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ?`,
      deleteChunkRow: `DELETE FROM chunks WHERE id = ?`,
      ftsDelete: `INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', ?, ?)`,
      ftsInsert: `INSERT INTO chunks_fts(rowid, text) VALUES (?, ?)`,
      insertChunk: `INSERT INTO chunks (file_id, seq, start_line, end_line, text, hash, ts, vec_state, visibility)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    });
  }

  listFiles(): FileRow[] {
    return this.stmts.listFiles.all() as FileRow[];
  }

  /** Just what a sync compares, for every indexed file (fast: no objects beyond these fields). */
  fileStamps(): Map<string, FileStamp> {
    const out = new Map<string, FileStamp>();
    for (const [id, path, size, mtimeMs, sha256] of this.stmts.stamps.raw().all() as [
      number,
      string,
      number,
      number,
      string,
    ][]) {
      out.set(path, { id, path, size, mtimeMs, sha256 });
    }
    return out;
  }

  /** The indexed paths that may be conflict copies of file-sync tools (a superset: conflict-copies.ts decides). */
  conflictCandidates(): string[] {
    return this.stmts.conflictCandidates.pluck().all() as string[];
  }

  getFile(path: string): FileRow | undefined {
    return this.stmts.getFile.get(path) as FileRow | undefined;
  }

  /** Replaces a file's chunks (or creates the file) in one transaction. */
  replaceFile(meta: FileMeta, chunks: readonly StoredChunkInput[]): { added: number; removed: number } {
    return this.chunkWrite(() => {
      const existing = this.getFile(meta.path);
      let fileId: number;
      let removed = 0;
      const row = this.fileParams(meta);
      if (existing) {
        removed = this.deleteChunksFrom(existing.id, 0);
        this.stmts.updateFile.run({ ...row, id: existing.id });
        fileId = existing.id;
      } else {
        fileId = Number(this.stmts.insertFile.run(row).lastInsertRowid);
      }
      this.copies.fileWritten(fileId);
      this.insertChunks(fileId, 0, chunks);
      return { added: chunks.length, removed };
    });
  }

  /**
   * Replaces the chunks of a file from sequence number `fromSeq` on (used for appended transcripts:
   * the chunks before fromSeq are unchanged) and updates the file row, in one transaction.
   */
  replaceTail(
    meta: FileMeta,
    fromSeq: number,
    chunks: readonly StoredChunkInput[],
  ): { added: number; removed: number } {
    return this.chunkWrite(() => {
      const existing = this.getFile(meta.path);
      if (!existing) throw new Error(`replaceTail: ${meta.path} is not indexed`);
      this.copies.fileWritten(existing.id);
      const removed = this.deleteChunksFrom(existing.id, fromSeq);
      this.stmts.updateFile.run({ ...this.fileParams(meta), id: existing.id });
      this.insertChunks(existing.id, fromSeq, chunks);
      return { added: chunks.length, removed };
    });
  }

  touchFile(id: number, size: number, mtimeMs: number): void {
    this.stmts.touchFile.run(size, mtimeMs, id);
  }

  /** Moves a file's index entry to a new path (a rename: chunks and vectors are kept). */
  renameFile(fromPath: string, meta: FileMeta): void {
    this.chunkWrite(() => {
      const existing = this.getFile(fromPath);
      if (!existing) throw new Error(`renameFile: ${fromPath} is not indexed`);
      this.copies.fileWritten(existing.id);
      const clash = this.getFile(meta.path);
      if (clash) this.deleteFileById(clash.id);
      this.stmts.updateFile.run({
        ...this.fileParams({
          ...meta,
          indexedBytes: existing.indexedBytes,
          indexedLines: existing.indexedLines,
          malformed: existing.malformed,
          hashOffset: existing.hashOffset,
          hashState: existing.hashState,
          resume:
            existing.resumeOffset === null
              ? null
              : {
                  offset: existing.resumeOffset,
                  line: existing.resumeLine!,
                  seq: existing.resumeSeq!,
                  malformed: existing.resumeMalformed ?? 0,
                  ...(existing.resumeChunker ? { chunker: JSON.parse(existing.resumeChunker) as ChunkerStart } : {}),
                },
        }),
        id: existing.id,
      });
    });
  }

  /** One past the highest chunk sequence number of a file (its chunk count; 0 when it has none or is not indexed). */
  chunkEnd(path: string): number {
    return this.stmts.chunkEnd.pluck().get(path) as number;
  }

  deleteFile(path: string): number {
    return this.chunkWrite(() => {
      const existing = this.getFile(path);
      return existing ? this.deleteFileById(existing.id) : 0;
    });
  }

  /** One transaction that writes chunks: when it fails (rolled back), the in-memory copies hear it. */
  private chunkWrite<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn)();
    } catch (e) {
      this.copies.rolledBack();
      throw e;
    }
  }

  private deleteFileById(id: number): number {
    this.copies.fileWritten(id);
    const n = this.deleteChunksFrom(id, 0);
    this.stmts.deleteFileRow.run(id);
    return n;
  }

  private fileParams(meta: FileMeta) {
    return {
      path: meta.path,
      class: meta.class,
      date: meta.date ?? null,
      size: meta.size,
      mtimeMs: Math.floor(meta.mtimeMs),
      sha256: meta.sha256,
      indexedBytes: meta.indexedBytes ?? meta.size,
      indexedLines: meta.indexedLines ?? 0,
      malformed: meta.malformed ?? 0,
      indexedAt: this.clock(),
      hashOffset: meta.hashOffset ?? 0,
      hashState: meta.hashState ?? null,
      resumeOffset: meta.resume?.offset ?? null,
      resumeLine: meta.resume?.line ?? null,
      resumeSeq: meta.resume?.seq ?? null,
      resumeMalformed: meta.resume?.malformed ?? null,
      resumeChunker: meta.resume?.chunker ? JSON.stringify(meta.resume.chunker) : null,
    };
  }

  private deleteChunksFrom(fileId: number, fromSeq: number): number {
    const rows = this.stmts.chunksOfFile.all(fileId, fromSeq) as { id: number; text: string; vecState: number }[];
    for (const r of rows) {
      const text = prepareFtsText(r.text);
      this.stmts.ftsDelete.run(r.id, text);
      this.postings.chunkDeleted(r.id, text);
      if (r.vecState === VEC_STORED && this.vectors.vectorDims !== null) this.vectors.deleteVector(r.id);
      this.stmts.deleteChunkRow.run(r.id);
    }
    return rows.length;
  }

  private insertChunks(fileId: number, fromSeq: number, chunks: readonly StoredChunkInput[]): void {
    chunks.forEach((c, i) => {
      const state =
        c.vector === undefined || this.vectors.vectorDims === null
          ? VEC_PENDING
          : c.vector === null
            ? VEC_NONE
            : VEC_STORED;
      const id = Number(
        this.stmts.insertChunk.run(
          fileId,
          fromSeq + i,
          c.startLine,
          c.endLine,
          c.text,
          hexToBlob(c.hash),
          c.timestamp ?? null,
          state,
          c.visibility ?? "open",
        ).lastInsertRowid,
      );
      const text = prepareFtsText(c.text);
      this.stmts.ftsInsert.run(id, text);
      this.postings.chunkInserted(id, text);
      if (state === VEC_STORED) this.vectors.insertVector(id, c.vector!, c.passages);
    });
  }
}
