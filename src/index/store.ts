import type Database from "better-sqlite3";
import { fromBlob, toBlob } from "./vector-blob.js";
import { sampleVectors } from "./vector-sample.js";
import type { Chunk, FileClass } from "../ingest/types.js";
import { closeDatabase, type OpenedDb } from "./db.js";
import { prepareFtsText } from "./fts-text.js";
import { ftsTotalsReader } from "./fts-totals.js";
import { dbGeneration } from "./db-generation.js";
import { TermLists, type TermListHead } from "./term-lists.js";
import { TermStats, type TermLookup } from "./term-stats.js";
import { QuantizedVectors, blobToCode, codeToBlob, fitQuantizer, quantize, type Quantizer } from "./vector-codes.js";

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
  /** Transcripts: where re-chunking resumes after an append. */
  resume?: ResumePoint | null;
}

/** The last chunk of a transcript starts at `line` (byte `offset`, chunk `seq`); `malformed` lines precede it. */
export interface ResumePoint {
  offset: number;
  line: number;
  seq: number;
  malformed: number;
}

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

export interface VectorIdentity {
  identity: string;
  dims: number;
  model: string;
}

/**
 * From this many vectors on, vector search scans in-memory quantized codes and rescores the best
 * exactly, instead of sqlite-vec's brute-force float KNN (~20–30 ms per 100k vectors on the
 * development machine for k = 24–120, against ~10 ms quantized with top-10 overlap .996; see
 * `npm run bench -- scale` and the README's "Scale and load").
 */
export const QUANTIZED_MIN_VECTORS = 50_000;
/** Candidates taken by Hamming distance of the sign codes, then scored with the int8 codes. */
export const QUANTIZED_COARSE = 12_000;
/** Candidates (× k) rescored exactly against the float vectors. */
export const QUANTIZED_OVERSAMPLE = 2;
/** Vectors sampled to fit the quantizer. */
const QUANTIZER_SAMPLE = 20_000;
/** Written ids beyond which the loaded codes are reloaded rather than patched one by one. */
const TOUCHED_RELOAD = 100_000;
/** The quantizer is fitted (and codes written) once an index has this many vectors. */
const QUANTIZER_MIN_VECTORS = 2_000;

export interface VectorSearchOptions {
  /** exact: sqlite-vec float KNN; quantized: code scan + exact rescoring; auto (default): by index size. */
  path?: "exact" | "quantized" | "auto";
  /** Sign-code candidates scored with the int8 codes (quantized path). */
  coarse?: number;
}

export const VEC_PENDING = 0;
export const VEC_STORED = 1;
export const VEC_NONE = 2;

/** A float32 blob as a Float32Array (a view when aligned, else a copy; platform byte order, as toBlob writes it). */
function floatView(b: Buffer): Float32Array {
  if (b.byteOffset % 4 === 0) return new Float32Array(b.buffer, b.byteOffset, b.byteLength >>> 2);
  return new Float32Array(Uint8Array.from(b).buffer);
}

/** Content hashes are stored as 32-byte blobs (half the size of hex text). */
function hexToBlob(hex: string): Buffer {
  return Buffer.from(hex, "hex");
}

const FILE_COLUMNS = `id, path, class, date, size, mtime_ms AS mtimeMs, sha256, indexed_bytes AS indexedBytes,
  indexed_lines AS indexedLines, malformed, indexed_at AS indexedAt, hash_offset AS hashOffset, hash_state AS hashState,
  resume_offset AS resumeOffset, resume_line AS resumeLine, resume_seq AS resumeSeq, resume_malformed AS resumeMalformed`;

const CHUNK_COLUMNS = `c.id, c.file_id AS fileId, c.seq, f.path, f.class, f.date, c.start_line AS startLine,
  c.end_line AS endLine, c.text, lower(hex(c.hash)) AS hash, c.ts, c.vec_state AS vecState`;

/**
 * The index of one namespace: files, chunks, FTS, vectors and the embedding cache in one SQLite file.
 * Every mutating method is one transaction, so the index is consistent after a crash at any point.
 */
export class IndexStore {
  readonly db: Database.Database;
  readonly vecAvailable: boolean;
  readonly vecError: string | undefined;
  private vecDims: number | null = null;
  private chunksByIdsStmt: Database.Statement | undefined;
  private chunkTextsStmt: Database.Statement | undefined;
  private vecInsertStmt: Database.Statement | undefined;
  private vecDeleteStmt: Database.Statement | undefined;
  private vecGetStmt: Database.Statement | undefined;
  private vecStateStmt: Database.Statement | undefined;
  private stampsStmt: Database.Statement | undefined;
  private termCounts: TermStats | undefined;
  private lists: TermLists | undefined;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly stmts;
  /** In-memory codes (loaded on the first quantized search) and the ids written since. */
  private codes: QuantizedVectors | null = null;
  /** The quantizer of chunk_codes (meta vector_codes); null until codes are first needed. */
  private quantizer: Quantizer | null = null;
  private codesDataVersion = -1;
  private readonly touchedVectors = new Set<number>();
  /** Vectors stored, counted at open and kept up to date by this connection's writes. */
  private vectorCount = -1;

  constructor(opened: OpenedDb, readonly namespace: string, private readonly clock: () => number = Date.now) {
    this.db = opened.db;
    this.vecAvailable = opened.vecAvailable;
    this.vecError = opened.vecError;
    const db = this.db;
    this.stmts = {
      listFiles: db.prepare(`SELECT ${FILE_COLUMNS} FROM files ORDER BY path`),
      getFile: db.prepare(`SELECT ${FILE_COLUMNS} FROM files WHERE path = ?`),
      insertFile: db.prepare(`INSERT INTO files (path, class, date, size, mtime_ms, sha256, indexed_bytes, indexed_lines, malformed, indexed_at,
          hash_offset, hash_state, resume_offset, resume_line, resume_seq, resume_malformed)
        VALUES (@path, @class, @date, @size, @mtimeMs, @sha256, @indexedBytes, @indexedLines, @malformed, @indexedAt,
          @hashOffset, @hashState, @resumeOffset, @resumeLine, @resumeSeq, @resumeMalformed)`),
      updateFile: db.prepare(`UPDATE files SET path = @path, class = @class, date = @date, size = @size, mtime_ms = @mtimeMs, sha256 = @sha256,
        indexed_bytes = @indexedBytes, indexed_lines = @indexedLines, malformed = @malformed, indexed_at = @indexedAt,
        hash_offset = @hashOffset, hash_state = @hashState, resume_offset = @resumeOffset, resume_line = @resumeLine,
        resume_seq = @resumeSeq, resume_malformed = @resumeMalformed WHERE id = @id`),
      touchFile: db.prepare(`UPDATE files SET size = ?, mtime_ms = ? WHERE id = ?`),
      deleteFileRow: db.prepare(`DELETE FROM files WHERE id = ?`),
      chunksOfFile: db.prepare(`SELECT id, text, vec_state AS vecState FROM chunks WHERE file_id = ? AND seq >= ? ORDER BY seq`),
      deleteChunkRow: db.prepare(`DELETE FROM chunks WHERE id = ?`),
      ftsDelete: db.prepare(`INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', ?, ?)`),
      ftsInsert: db.prepare(`INSERT INTO chunks_fts(rowid, text) VALUES (?, ?)`),
      insertChunk: db.prepare(`INSERT INTO chunks (file_id, seq, start_line, end_line, text, hash, ts, vec_state)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      setVecState: db.prepare(`UPDATE chunks SET vec_state = ? WHERE id = ?`),
      pending: db.prepare(`SELECT id, lower(hex(hash)) AS hash, text FROM chunks WHERE vec_state = 0 AND id > ? ORDER BY id LIMIT ?`),
      cacheGet: db.prepare(`SELECT vector FROM embed_cache WHERE identity = ? AND hash = ?`),
      cacheTouch: db.prepare(`UPDATE embed_cache SET last_used = ? WHERE identity = ? AND hash = ?`),
      cachePut: db.prepare(`INSERT INTO embed_cache (identity, hash, vector, last_used) VALUES (?, ?, ?, ?)
        ON CONFLICT (identity, hash) DO UPDATE SET vector = excluded.vector, last_used = excluded.last_used`),
      codePut: db.prepare(`INSERT OR REPLACE INTO chunk_codes (id, code) VALUES (?, ?)`),
      codeDelete: db.prepare(`DELETE FROM chunk_codes WHERE id = ?`),
      codeGet: db.prepare(`SELECT code FROM chunk_codes WHERE id = ?`),
      metaGet: db.prepare(`SELECT value FROM meta WHERE key = ?`),
      metaSet: db.prepare(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
    };
    const identity = this.getVectorIdentity();
    if (identity && this.vecAvailable && this.hasVecTable()) this.vecDims = identity.dims;
  }

  /** The common words' impact-ordered lists (see term-lists). */
  get termLists(): TermLists {
    return (this.lists ??= new TermLists(this.db));
  }

  /** A prepared statement for a query run on every search (prepared once). */
  private cached(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) this.statements.set(sql, (stmt = this.db.prepare(sql)));
    return stmt;
  }

  close(): void {
    closeDatabase(this.db);
  }

  // ---- meta ----
  getMeta(key: string): string | undefined {
    return (this.stmts.metaGet.get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.stmts.metaSet.run(key, value);
  }

  // ---- files ----
  listFiles(): FileRow[] {
    return this.stmts.listFiles.all() as FileRow[];
  }

  /** Just what a sync compares, for every indexed file (fast: no objects beyond these fields). */
  fileStamps(): Map<string, FileStamp> {
    this.stampsStmt ??= this.db.prepare(`SELECT id, path, size, mtime_ms, sha256 FROM files`).raw();
    const out = new Map<string, FileStamp>();
    for (const [id, path, size, mtimeMs, sha256] of this.stampsStmt.all() as [number, string, number, number, string][]) {
      out.set(path, { id, path, size, mtimeMs, sha256 });
    }
    return out;
  }

  getFile(path: string): FileRow | undefined {
    return this.stmts.getFile.get(path) as FileRow | undefined;
  }

  /** Replaces a file's chunks (or creates the file) in one transaction. */
  replaceFile(meta: FileMeta, chunks: readonly StoredChunkInput[]): { added: number; removed: number } {
    return this.db.transaction(() => {
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
      this.insertChunks(fileId, 0, chunks);
      return { added: chunks.length, removed };
    })();
  }

  /**
   * Replaces the chunks of a file from sequence number `fromSeq` on (used for appended transcripts:
   * the chunks before fromSeq are unchanged) and updates the file row, in one transaction.
   */
  replaceTail(meta: FileMeta, fromSeq: number, chunks: readonly StoredChunkInput[]): { added: number; removed: number } {
    return this.db.transaction(() => {
      const existing = this.getFile(meta.path);
      if (!existing) throw new Error(`replaceTail: ${meta.path} is not indexed`);
      const removed = this.deleteChunksFrom(existing.id, fromSeq);
      this.stmts.updateFile.run({ ...this.fileParams(meta), id: existing.id });
      this.insertChunks(existing.id, fromSeq, chunks);
      return { added: chunks.length, removed };
    })();
  }

  /** The chunks of one file in order. */
  chunksOfFile(path: string): ChunkRow[] {
    return this.db
      .prepare(`SELECT ${CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ? ORDER BY c.seq`)
      .all(path) as ChunkRow[];
  }

  touchFile(id: number, size: number, mtimeMs: number): void {
    this.stmts.touchFile.run(size, mtimeMs, id);
  }

  /** Moves a file's index entry to a new path (a rename: chunks and vectors are kept). */
  renameFile(fromPath: string, meta: FileMeta): void {
    this.db.transaction(() => {
      const existing = this.getFile(fromPath);
      if (!existing) throw new Error(`renameFile: ${fromPath} is not indexed`);
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
              : { offset: existing.resumeOffset, line: existing.resumeLine!, seq: existing.resumeSeq!, malformed: existing.resumeMalformed ?? 0 },
        }),
        id: existing.id,
      });
    })();
  }

  deleteFile(path: string): number {
    return this.db.transaction(() => {
      const existing = this.getFile(path);
      return existing ? this.deleteFileById(existing.id) : 0;
    })();
  }

  private deleteFileById(id: number): number {
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
    };
  }

  private deleteChunksFrom(fileId: number, fromSeq: number): number {
    const rows = this.stmts.chunksOfFile.all(fileId, fromSeq) as { id: number; text: string; vecState: number }[];
    const lists = rows.length > 0 && this.termLists.active();
    for (const r of rows) {
      this.termLists.chunkDeleted(r.id, lists);
      this.stmts.ftsDelete.run(r.id, prepareFtsText(r.text));
      if (r.vecState === VEC_STORED && this.vecDims !== null) this.deleteVector(r.id);
      this.stmts.deleteChunkRow.run(r.id);
    }
    return rows.length;
  }

  private insertChunks(fileId: number, fromSeq: number, chunks: readonly StoredChunkInput[]): void {
    const lists = chunks.length > 0 && this.termLists.active();
    chunks.forEach((c, i) => {
      const state = c.vector === undefined || this.vecDims === null ? VEC_PENDING : c.vector === null ? VEC_NONE : VEC_STORED;
      const id = Number(
        this.stmts.insertChunk.run(fileId, fromSeq + i, c.startLine, c.endLine, c.text, hexToBlob(c.hash), c.timestamp ?? null, state).lastInsertRowid,
      );
      this.stmts.ftsInsert.run(id, prepareFtsText(c.text));
      this.termLists.chunkInserted(id, lists);
      if (state === VEC_STORED) this.insertVector(id, c.vector!);
    });
  }

  // ---- vectors ----
  getVectorIdentity(): VectorIdentity | null {
    const identity = this.getMeta("embedding_identity");
    const dims = this.getMeta("embedding_dims");
    if (!identity || !dims) return null;
    return { identity, dims: Number(dims), model: this.getMeta("embedding_model") ?? "" };
  }

  private hasVecTable(): boolean {
    return !!this.db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec'`).get();
  }

  /**
   * Makes the vector index match a provider. When the model identity or dimension differs from what
   * the index was built with, every vector is dropped and marked pending (re-embedded through the
   * cache by the next sync) — never mixed. Returns the previous identity when it changed.
   */
  useVectorIdentity(id: VectorIdentity): { changed: boolean; previous: VectorIdentity | null } {
    if (!this.vecAvailable) return { changed: false, previous: this.getVectorIdentity() };
    const previous = this.getVectorIdentity();
    const same = previous && previous.identity === id.identity && previous.dims === id.dims && this.hasVecTable();
    if (same) {
      this.vecDims = id.dims;
      return { changed: false, previous };
    }
    this.db.transaction(() => {
      this.db.exec(`DROP TABLE IF EXISTS chunks_vec`);
      this.db.exec(`CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[${id.dims}] distance_metric=cosine)`);
      this.db.exec(`UPDATE chunks SET vec_state = 0 WHERE vec_state <> 0`);
      this.db.exec(`DELETE FROM chunk_codes`);
      this.db.prepare(`DELETE FROM meta WHERE key = 'vector_codes'`).run();
      this.setMeta("embedding_identity", id.identity);
      this.setMeta("embedding_dims", String(id.dims));
      this.setMeta("embedding_model", id.model);
    })();
    this.vecDims = id.dims;
    this.codes = null;
    this.quantizer = null;
    this.touchedVectors.clear();
    this.vectorCount = 0;
    return { changed: previous !== null, previous };
  }

  get vectorDims(): number | null {
    return this.vecDims;
  }

  private insertVector(id: number, v: Float32Array): void {
    if (v.length !== this.vecDims) throw new Error(`vector has ${v.length} dims, index expects ${this.vecDims}`);
    this.vecInsertStmt ??= this.db.prepare(`INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)`);
    this.vecInsertStmt.run(BigInt(id), toBlob(v));
    const q = this.currentQuantizer();
    if (q) {
      this.stmts.codePut.run(id, codeToBlob(quantize(v, q)));
      this.touchVector(id);
    }
    if (this.vectorCount >= 0) this.vectorCount++;
  }

  /** Remembers a written vector id for the loaded codes (none loaded: the first use loads them all). */
  private touchVector(id: number): void {
    if (!this.codes) return;
    if (this.touchedVectors.size > TOUCHED_RELOAD) this.codes = null; // cheaper to reload than to patch
    else this.touchedVectors.add(id);
  }

  private deleteVector(id: number): void {
    this.vecDeleteStmt ??= this.db.prepare(`DELETE FROM chunks_vec WHERE rowid = ?`);
    this.vecDeleteStmt.run(BigInt(id));
    this.stmts.codeDelete.run(id);
    this.touchVector(id);
    if (this.vectorCount > 0) this.vectorCount--;
  }

  /** Chunks that still need a vector, in id order after `afterId`. */
  pendingChunks(afterId: number, limit: number): { id: number; hash: string; text: string }[] {
    return this.stmts.pending.all(afterId, limit) as { id: number; hash: string; text: string }[];
  }

  /** Stores vectors for existing chunks (null = nothing embeddable) in one transaction. */
  setVectors(items: readonly { id: number; vector: Float32Array | null }[]): void {
    if (this.vecDims === null) return;
    this.db.transaction(() => {
      for (const it of items) {
        this.vecStateStmt ??= this.db.prepare(`SELECT vec_state AS s FROM chunks WHERE id = ?`);
        const row = this.vecStateStmt.get(it.id) as { s: number } | undefined;
        if (!row) continue; // deleted meanwhile
        if (row.s === VEC_STORED) this.deleteVector(it.id);
        if (it.vector) this.insertVector(it.id, it.vector);
        this.stmts.setVecState.run(it.vector ? VEC_STORED : VEC_NONE, it.id);
      }
    })();
  }

  // ---- embedding cache ----
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
      for (const e of entries) this.stmts.cachePut.run(identity, hexToBlob(e.hash), e.vector ? toBlob(e.vector) : null, now);
    })();
  }

  /** Drops least-recently-used cache entries beyond `max`. Returns how many were removed. */
  pruneCache(max: number): number {
    const n = (this.db.prepare(`SELECT count(*) AS n FROM embed_cache`).get() as { n: number }).n;
    if (n <= max) return 0;
    const excess = n - max;
    return this.db
      .prepare(`DELETE FROM embed_cache WHERE (identity, hash) IN (SELECT identity, hash FROM embed_cache ORDER BY last_used LIMIT ?)`)
      .run(excess).changes;
  }

  // ---- access log ----
  /** Records that these chunks were recalled for a query (one transaction). */
  /** Up to n chunk vectors spread over the index (see vector-sample); none without vectors. */
  vectorSample(n: number): Float32Array[] {
    return this.vecDims === null ? [] : sampleVectors(this.db, n);
  }

  recordRecalls(queryHash: string, hits: readonly { hash: string; path: string; startLine: number; endLine: number }[]): void {
    if (hits.length === 0) return;
    const now = this.clock();
    const stmt = this.db.prepare(`INSERT INTO recalls (chunk_hash, path, start_line, end_line, query_hash, at) VALUES (?, ?, ?, ?, ?, ?)`);
    this.db.transaction(() => {
      for (const h of hits) stmt.run(hexToBlob(h.hash), h.path, h.startLine, h.endLine, hexToBlob(queryHash), now);
    })();
  }

  /** Recall counts per chunk text: total recalls, distinct queries, last time. */
  recallStats(hash: string): { recalls: number; queries: number; lastAt: number | null } {
    const r = this.db
      .prepare(`SELECT count(*) AS recalls, count(DISTINCT query_hash) AS queries, max(at) AS lastAt FROM recalls WHERE chunk_hash = ?`)
      .get(hexToBlob(hash)) as { recalls: number; queries: number; lastAt: number | null };
    return r;
  }

  // ---- search ----
  /**
   * Per query term: the stems FTS5 indexes for it and how many chunks hold it (df), plus the chunk
   * count and the mean chunk length; cached until the index changes (see term-stats).
   */
  termStats(terms: readonly string[]): TermLookup {
    this.termCounts ??= new TermStats(this.db);
    // A listed stem's df is counted (see term-lists); the others are counted or estimated.
    return this.termCounts.lookup(terms, this.hasTermLists() ? (stem) => this.termLists.df(stem) : undefined);
  }

  /** The FTS5 tokens (porter stems) of a word, cached. */
  stemsOf(word: string): string[] {
    this.termCounts ??= new TermStats(this.db);
    return this.termCounts.stemsOf(word);
  }

  /** A common stem's impact-ordered list head (see term-lists), or null (no list, or an index from before lists). */
  listHead(stem: string, limit: number): TermListHead | null {
    return this.hasTermLists() ? this.termLists.head(stem, limit) : null;
  }

  /** Chunks written since the lists were last folded (newest first). */
  listPending(limit: number): { ids: number[]; total: number } {
    return this.hasTermLists() ? this.termLists.pending(limit) : { ids: [], total: 0 };
  }

  private termListsTable: boolean | undefined;
  private hasTermLists(): boolean {
    // A read-only open of an index from before migration 7 has no such tables.
    return (this.termListsTable ??= !!this.db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'term_lists'`).get());
  }

  /** True when at most `limit` files' paths match (bounded: stops after limit + 1). */
  pathMatchesAtMost(match: string, limit: number): boolean {
    this.termCounts ??= new TermStats(this.db);
    return this.termCounts.memo(
      `paths ${limit} ${match}`,
      () => (this.cached(`SELECT count(*) AS n FROM (SELECT rowid FROM files_fts WHERE files_fts MATCH ? LIMIT ?)`).get(match, limit + 1) as { n: number }).n <= limit,
    );
  }

  /** Rows and tokens in the chunk FTS index, from FTS5's averages record (no table scan). */
  ftsTotals(): { rows: number; tokens: number } {
    this.termCounts ??= new TermStats(this.db);
    return this.termCounts.totals();
  }

  /**
   * FTS5 over chunk text. `match` must be a valid FTS5 query (see search/keyword-query).
   * rank: best BM25 first, ties by id (scores every match); recent: newest chunks first, no scoring (stops early).
   */
  keywordSearch(match: string, limit: number, order: "rank" | "recent" = "rank"): { id: number; rank: number }[] {
    if (order === "recent") {
      return (this.cached(`SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC LIMIT ?`).all(match, limit) as { id: number }[]).map(
        (r) => ({ id: r.id, rank: 0 }),
      );
    }
    return this.cached(
      `SELECT rowid AS id, bm25(chunks_fts) AS rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank, rowid LIMIT ?`,
    ).all(match, limit) as { id: number; rank: number }[];
  }

  /** The text of each chunk id (missing ids are left out). */
  chunkTexts(ids: readonly number[]): Map<number, string> {
    const out = new Map<number, string>();
    if (ids.length === 0) return out;
    this.chunkTextsStmt ??= this.db.prepare(`SELECT id, text FROM chunks WHERE id IN (SELECT value FROM json_each(?))`).raw();
    for (const [id, text] of this.chunkTextsStmt.all(JSON.stringify(ids)) as [number, string][]) out.set(id, text);
    return out;
  }

  /** Files whose path matches (FTS5 over paths). */
  pathSearch(match: string, limit: number): { fileId: number; path: string; rank: number }[] {
    return this.cached(`SELECT rowid AS fileId, path, bm25(files_fts) AS rank FROM files_fts WHERE files_fts MATCH ? ORDER BY rank LIMIT ?`).all(
      match,
      limit,
    ) as { fileId: number; path: string; rank: number }[];
  }

  /**
   * The k nearest chunks by cosine distance. Small indexes: sqlite-vec's exact KNN. From
   * QUANTIZED_MIN_VECTORS on: the in-memory codes pick k × QUANTIZED_OVERSAMPLE candidates (see
   * vector-codes.ts), which are rescored exactly against their float vectors (distances are exact;
   * a true neighbour can be missed when its code is far: the bench reports the overlap with exact).
   */
  vectorSearch(query: Float32Array, k: number, opts: VectorSearchOptions = {}): { id: number; distance: number }[] {
    if (this.vecDims === null || query.length !== this.vecDims) return [];
    const path = opts.path ?? "auto";
    // A read-only index without codes cannot write them: it searches the float vectors exactly.
    const codesUsable = !this.db.readonly || this.currentQuantizer() !== null;
    if (codesUsable && (path === "quantized" || (path === "auto" && this.countVectors() >= QUANTIZED_MIN_VECTORS))) {
      return this.quantizedSearch(query, k, opts.coarse ?? QUANTIZED_COARSE);
    }
    return this.cached(`SELECT rowid AS id, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance`).all(toBlob(query), k) as { id: number; distance: number }[];
  }

  /** True when the quantized path can run (sqlite-vec loaded and vectors indexed). */
  get supportsQuantized(): boolean {
    return this.vecDims !== null;
  }

  private countVectors(): number {
    if (this.vectorCount < 0) this.vectorCount = this.counts().vectors;
    return this.vectorCount;
  }

  /** The quantizer, if codes exist. While there is none, meta is read again each time: another connection may have made one. */
  private currentQuantizer(): Quantizer | null {
    if (!this.quantizer) {
      const raw = this.getMeta("vector_codes");
      let q: Quantizer | null = null;
      try {
        q = raw ? (JSON.parse(raw) as Quantizer) : null;
      } catch {
        q = null; // unreadable: the codes are rebuilt
      }
      this.quantizer = q && q.format === "c8-v1" && q.mean?.length === this.vecDims && q.scale?.length === this.vecDims ? q : null;
    }
    return this.quantizer;
  }

  /**
   * Brings the in-memory codes up to date: a full load when first used or when another connection
   * wrote the index; otherwise only the ids this connection wrote since (read back from the table,
   * so a rolled-back write leaves no trace). The first time, the quantizer is fitted on a sample
   * of the vectors and every vector's code is written (the codes then follow each write).
   */
  prepareVectorCodes(): QuantizedVectors | null {
    if (this.vecDims === null) return null;
    const dataVersion = this.db.pragma("data_version", { simple: true }) as number;
    if (dataVersion !== this.codesDataVersion) this.quantizer = null; // another connection may have (re)built them
    let q = this.currentQuantizer();
    if (!q) {
      q = this.buildCodeTable();
      this.codes = null;
    }
    if (!this.codes || dataVersion !== this.codesDataVersion) {
      this.touchedVectors.clear();
      const codes = new QuantizedVectors(this.vecDims, q, this.countVectors() + 1024);
      for (const [id, code] of this.db.prepare(`SELECT id, code FROM chunk_codes ORDER BY id`).raw().iterate() as IterableIterator<[number, Buffer]>) {
        codes.set(id, blobToCode(code));
      }
      this.codes = codes;
      this.vectorCount = codes.size;
    } else if (this.touchedVectors.size > 0) {
      for (const id of this.touchedVectors) {
        const row = this.stmts.codeGet.get(id) as { code: Buffer } | undefined;
        if (row) this.codes.set(id, blobToCode(row.code));
        else this.codes.delete(id);
      }
      this.touchedVectors.clear();
    }
    this.codesDataVersion = this.db.pragma("data_version", { simple: true }) as number;
    return this.codes;
  }

  /**
   * Once an index holds QUANTIZER_MIN_VECTORS vectors, fits the quantizer and writes the codes
   * (cheap then); from there on every stored vector gets its code as it is written, so a large
   * index never has to read all its float vectors back. The Indexer calls this after each batch.
   */
  ensureVectorCodes(): void {
    if (this.vecDims === null || this.currentQuantizer()) return;
    if (this.countVectors() >= QUANTIZER_MIN_VECTORS) this.buildCodeTable();
  }

  /** Loads the in-memory codes ahead of the first search when the index is large enough to use them. */
  warmVectorSearch(): void {
    if (this.vecDims !== null && this.countVectors() >= QUANTIZED_MIN_VECTORS) this.prepareVectorCodes();
  }

  /** Fits the quantizer on a sample of the float vectors and writes every vector's code. */
  private buildCodeTable(): Quantizer {
    const dims = this.vecDims!;
    const sample = (this.db.prepare(`SELECT embedding FROM chunks_vec LIMIT ${QUANTIZER_SAMPLE}`).raw().all() as [Buffer][]).map(([b]) => fromBlob(b));
    const q = fitQuantizer(sample, dims);
    const rows: [number, Buffer][] = [];
    for (const [id, embedding] of this.db.prepare(`SELECT rowid, embedding FROM chunks_vec`).raw().iterate() as IterableIterator<[number | bigint, Buffer]>) {
      rows.push([Number(id), Buffer.from(codeToBlob(quantize(fromBlob(embedding), q)))]);
    }
    this.db.transaction(() => {
      this.db.exec(`DELETE FROM chunk_codes`);
      for (const [id, code] of rows) this.stmts.codePut.run(id, code);
      this.setMeta("vector_codes", JSON.stringify(q));
    })();
    this.quantizer = q;
    return q;
  }

  private quantizedSearch(query: Float32Array, k: number, coarse: number): { id: number; distance: number }[] {
    const codes = this.prepareVectorCodes();
    if (!codes) return [];
    const candidates = codes.nearest(query, Math.max(coarse, k), k * QUANTIZED_OVERSAMPLE);
    this.vecGetStmt ??= this.db.prepare(`SELECT embedding FROM chunks_vec WHERE rowid = ?`);
    let qn = 0;
    for (let i = 0; i < query.length; i++) qn += query[i]! * query[i]!;
    qn = Math.sqrt(qn);
    const out: { id: number; distance: number }[] = [];
    for (const id of candidates) {
      const row = this.vecGetStmt.get(BigInt(id)) as { embedding: Buffer } | undefined;
      if (!row) continue; // deleted since the codes were read
      const e = floatView(row.embedding);
      let dot = 0;
      let en = 0;
      for (let i = 0; i < query.length; i++) {
        const x = e[i]!;
        dot += x * query[i]!;
        en += x * x;
      }
      const denom = Math.sqrt(en) * qn;
      out.push({ id, distance: denom > 0 ? 1 - dot / denom : 1 });
    }
    return out.sort((a, b) => a.distance - b.distance || a.id - b.id).slice(0, k);
  }

  chunksByIds(ids: readonly number[]): Map<number, ChunkRow> {
    const out = new Map<number, ChunkRow>();
    if (ids.length === 0) return out;
    this.chunksByIdsStmt ??= this.db.prepare(
      `SELECT ${CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))`,
    );
    for (const row of this.chunksByIdsStmt.all(JSON.stringify(ids)) as ChunkRow[]) out.set(row.id, row);
    return out;
  }

  /** Transcript files (on the files_class index). */
  countTranscriptFiles(): number {
    return this.cached(`SELECT count(*) FROM files WHERE class = 'transcript'`).pluck().get() as number;
  }

  /** Distinct dates of dated files and the oldest (on the files_date index: ~9 ms at 30,000 days). */
  memoryDays(): { days: number; oldest: string | null } {
    // Kept until the database changes (status is polled; the count is the slowest part of it).
    const generation = (this.generation ??= dbGeneration(this.db))();
    if (this.daysCache?.generation === generation) return this.daysCache.value;
    const r = this.cached(`SELECT count(DISTINCT date) AS days, min(date) AS oldest FROM files WHERE date IS NOT NULL`).get() as { days: number; oldest: string | null };
    this.daysCache = { generation, value: { days: r.days, oldest: r.oldest } };
    return this.daysCache.value;
  }

  private daysCache: { generation: string; value: { days: number; oldest: string | null } } | undefined;
  private generation: (() => string) | undefined;
  private fileTotals: (() => { rows: number; tokens: number }) | undefined;

  /** Every distinct date of a dated file. */
  memoryDates(): string[] {
    return this.cached(`SELECT DISTINCT date FROM files WHERE date IS NOT NULL`).pluck().all() as string[];
  }

  /**
   * Files, chunks and vector states, cheaply at any size. Files and chunks come from the FTS5
   * averages records (exact, no scan: count(*) of 1M chunks took ~40 ms cold); noVector from its
   * partial index (small). Pending is counted on its partial index only when the index has ever
   * held vectors: before that every chunk is pending or has nothing to embed. (With a backlog of
   * 1M chunks that count takes ~60 ms; with the vectors complete, nothing.)
   */
  counts(): { files: number; chunks: number; vectors: number; pending: number; noVector: number } {
    this.fileTotals ??= ftsTotalsReader(this.db, "files_fts");
    const files = this.fileTotals().rows;
    const chunks = this.ftsTotals().rows;
    const noVector = this.cached(`SELECT count(*) FROM chunks WHERE vec_state = 2`).pluck().get() as number;
    const neverVectors = this.vecDims === null && !this.getVectorIdentity();
    const pending = neverVectors ? chunks - noVector : (this.cached(`SELECT count(*) FROM chunks WHERE vec_state = 0`).pluck().get() as number);
    return { files, chunks, vectors: chunks - pending - noVector, pending, noVector };
  }

}
