import type Database from "better-sqlite3";
import { floatView, toBlob } from "../db/blobs.js";
import { CommitWatch } from "../db/db-generation.js";
import type { MetaRepo } from "../repos/meta-repo.js";
import { statements, tableExists } from "../db/statements.js";
import { VEC_NONE, VEC_PENDING, VEC_STORED } from "./vec-state.js";
import { QuantizedVectors } from "./vector-codes.js";
import { codeToBlob, quantize } from "./quantizer.js";
import { CodesCopy } from "./codes-copy.js";
import { sampleVectors } from "./vector-sample.js";
import { codedDistances, quantizedNearest } from "./quantized-search.js";
import { PassageVectorRepo } from "./passage-vectors.js";
import { matrixBytesPerVector, VectorMatrix, vecCosineDistance } from "./vector-matrix.js";
import {
  MEMORY_MATRIX_MAX_BYTES,
  QUANTIZED_COARSE,
  QUANTIZER_MIN_VECTORS,
  TOUCHED_PATCH_MIN,
} from "./vector-limits.js";

export interface VectorIdentity {
  identity: string;
  dims: number;
  model: string;
}

export { MEMORY_MATRIX_MAX_BYTES, QUANTIZED_COARSE, QUANTIZED_OVERSAMPLE } from "./vector-limits.js";

export interface VectorSearchOptions {
  /**
   * memory (auto, the default): the in-memory matrix (vector-matrix.ts), exactly sqlite-vec's
   * result; exact: sqlite-vec's float KNN itself; quantized: code scan + exact rescoring (approximate).
   */
  path?: "exact" | "memory" | "quantized" | "auto";
  /** Sign-code candidates scored with the int8 codes (quantized path). */
  coarse?: number;
}

/**
 * The vectors of the chunks: sqlite-vec's chunks_vec table, each chunk's vec_state, and the
 * quantized codes (chunk_codes, meta vector_codes) with their in-memory copy for large indexes.
 */
export class VectorRepo {
  private vecDims: number | null = null;
  private readonly stmts;
  /** The quantized codes in memory (loaded on the first quantized search) and their quantizer. */
  private readonly codes: CodesCopy;
  /** The vectors in memory (loaded on the first search), the data version they match and the ids written since. */
  private matrix: VectorMatrix | null = null;
  private readonly matrixCommits;
  private readonly touchedRows = new Set<number>();
  /** Vectors stored, counted at open and kept up to date by this connection's writes (a rollback: counted again). */
  private vectorCount = -1;
  /** The chunks' passage vectors (static models): written and deleted with their chunk's vector. */
  readonly passages: PassageVectorRepo;

  /** Up to n chunk vectors spread over the index (see vector-sample; past the matrix, from the codes). */
  sample(n: number): Float32Array[] {
    if (this.vecDims === null) return [];
    const codes = this.matrixFits() ? null : this.usableCodes();
    return sampleVectors(this.db, n, codes ? (id) => codes.decoded(id) : undefined);
  }

  constructor(
    private readonly db: Database.Database,
    private readonly meta: MetaRepo,
    private readonly vecAvailable: boolean,
    /** Vectors stored, counted from the index (see IndexStore.counts). */
    private readonly countStored: () => number,
    private readonly matrixMaxBytes = MEMORY_MATRIX_MAX_BYTES,
  ) {
    this.codes = new CodesCopy(db, meta);
    this.matrixCommits = new CommitWatch(db);
    this.stmts = statements(db, {
      setVecState: `UPDATE chunks SET vec_state = ? WHERE id = ?`,
      pending: `SELECT id, lower(hex(hash)) AS hash, text FROM chunks WHERE vec_state = ${VEC_PENDING} AND id > ? ORDER BY id LIMIT ?`,
      vecState: `SELECT vec_state AS s FROM chunks WHERE id = ?`,
      resetVecStates: `UPDATE chunks SET vec_state = ${VEC_PENDING} WHERE vec_state <> ${VEC_PENDING}`,
      vecInsert: `INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)`,
      vecDelete: `DELETE FROM chunks_vec WHERE rowid = ?`,
      vecGet: `SELECT embedding FROM chunks_vec WHERE rowid = ?`,
      vecKnn: `SELECT rowid AS id, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance`,
      vecAll: `SELECT rowid, embedding FROM chunks_vec`,
      codePut: `INSERT OR REPLACE INTO chunk_codes (id, code) VALUES (?, ?)`,
      codeDelete: `DELETE FROM chunk_codes WHERE id = ?`,
      codesClear: `DELETE FROM chunk_codes`,
    });
    this.passages = new PassageVectorRepo(db, meta);
    const identity = this.getVectorIdentity();
    if (identity && this.vecAvailable && this.hasVecTable()) this.vecDims = identity.dims;
  }

  getVectorIdentity(): VectorIdentity | null {
    const identity = this.meta.getMeta("embedding_identity");
    const dims = this.meta.getMeta("embedding_dims");
    if (!identity || !dims) return null;
    return { identity, dims: Number(dims), model: this.meta.getMeta("embedding_model") ?? "" };
  }

  /** True when the vector table exists (sqlite-vec was loaded when the index got an embedding identity). */
  hasVecTable(): boolean {
    return tableExists(this.db, "chunks_vec");
  }

  /** A chunk's stored float vector as its blob, if it has one. */
  vectorBlob(id: number): Buffer | undefined {
    return (this.stmts.vecGet.get(BigInt(id)) as { embedding: Buffer } | undefined)?.embedding;
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
      // DDL: the table's shape depends on the model's dimension.
      this.db.exec(`DROP TABLE IF EXISTS chunks_vec`);
      this.db.exec(`CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[${id.dims}] distance_metric=cosine)`);
      this.stmts.resetVecStates.run();
      this.stmts.codesClear.run();
      this.passages.clear();
      this.meta.deleteMeta("vector_codes");
      this.meta.setMeta("embedding_identity", id.identity);
      this.meta.setMeta("embedding_dims", String(id.dims));
      this.meta.setMeta("embedding_model", id.model);
    })();
    this.vecDims = id.dims;
    this.codes.forget();
    this.dropMatrix();
    this.vectorCount = 0;
    return { changed: previous !== null, previous };
  }

  get vectorDims(): number | null {
    return this.vecDims;
  }

  /** A transaction failed (index/db/copies.ts): the matrix, codes and count are read again when next used. */
  rolledBack(): void {
    this.dropMatrix();
    this.codes.forget();
    this.vectorCount = -1;
  }

  /** Stores a chunk's vector (and its passage vectors, when computed: see passage-vectors.ts). */
  insertVector(id: number, v: Float32Array, passages?: Buffer): void {
    if (v.length !== this.vecDims) throw new Error(`vector has ${v.length} dims, index expects ${this.vecDims}`);
    this.stmts.vecInsert.run(BigInt(id), toBlob(v));
    if (passages) this.passages.put(id, passages);
    const q = this.codes.current(this.vecDims!);
    if (q) {
      this.stmts.codePut.run(id, codeToBlob(quantize(v, q)));
      this.codes.touch(id);
    }
    this.touchRow(id);
    if (this.vectorCount >= 0) this.vectorCount++;
  }

  deleteVector(id: number): void {
    this.stmts.vecDelete.run(BigInt(id));
    this.stmts.codeDelete.run(id);
    this.passages.delete(id);
    this.codes.touch(id);
    this.touchRow(id);
    if (this.vectorCount > 0) this.vectorCount--;
  }

  /** Chunks that still need a vector, in id order after `afterId`. */
  pendingChunks(afterId: number, limit: number): { id: number; hash: string; text: string }[] {
    return this.stmts.pending.all(afterId, limit) as { id: number; hash: string; text: string }[];
  }

  /** Stores vectors for existing chunks (null = nothing embeddable) in one transaction. */
  setVectors(items: readonly { id: number; vector: Float32Array | null; passages?: Buffer }[]): void {
    if (this.vecDims === null) return;
    this.db.transaction(() => {
      for (const it of items) {
        const row = this.stmts.vecState.get(it.id) as { s: number } | undefined;
        if (!row) continue; // deleted meanwhile
        if (row.s === VEC_STORED) this.deleteVector(it.id);
        if (it.vector) this.insertVector(it.id, it.vector, it.passages);
        this.stmts.setVecState.run(it.vector ? VEC_STORED : VEC_NONE, it.id);
      }
    })();
  }

  /**
   * The k nearest chunks by cosine distance: by default from the vectors held in memory
   * (vector-matrix.ts), which gives sqlite-vec's exact KNN result without its per-query cost;
   * above MEMORY_MATRIX_MAX_BYTES of vectors from the approximate code scan (vector-codes.ts; `path:
   * "quantized"` asks for it at any size); `path: "exact"` asks sqlite-vec itself.
   */
  vectorSearch(query: Float32Array, k: number, opts: VectorSearchOptions = {}): { id: number; distance: number }[] {
    if (this.vecDims === null || query.length !== this.vecDims) return [];
    const path = opts.path ?? "auto";
    // A read-only index without codes cannot write them: it searches the float vectors exactly.
    const codesUsable = this.codesUsable();
    const large = path === "auto" && !this.matrixFits();
    if (codesUsable && (path === "quantized" || large))
      return this.quantizedSearch(query, k, opts.coarse ?? QUANTIZED_COARSE);
    if (path === "memory" || path === "auto") return this.prepareMatrix().nearest(query, k);
    return this.stmts.vecKnn.all(toBlob(query), k) as { id: number; distance: number }[];
  }

  /** The cosine distances of the given chunks to `query` (those with a vector), as the KNN gives them. */
  distancesTo(query: Float32Array, ids: readonly number[]): { id: number; distance: number }[] {
    if (this.vecDims === null || query.length !== this.vecDims) return [];
    if (this.matrixFits()) return this.prepareMatrix().distances(query, ids);
    // Past it, the codes' distances (quantized-search.ts); an index without codes reads the floats.
    const codes = this.usableCodes();
    const exact = (q: Float32Array, some: readonly number[]) => this.distancesFromRows(q, some);
    return codes ? codedDistances(codes, query, ids, exact) : exact(query, ids);
  }

  private distancesFromRows(query: Float32Array, ids: readonly number[]): { id: number; distance: number }[] {
    return ids.flatMap((id) => {
      const blob = this.vectorBlob(id);
      return blob ? [{ id, distance: vecCosineDistance(query, floatView(blob), 0) }] : [];
    });
  }

  /** Remembers a written vector id for the loaded matrix (too many: it is reloaded instead). */
  private touchRow(id: number): void {
    if (!this.matrix) return;
    if (this.touchedRows.size > Math.max(TOUCHED_PATCH_MIN, this.matrix.size / 4)) this.dropMatrix();
    else this.touchedRows.add(id);
  }

  private dropMatrix(): void {
    this.matrix = null;
    this.touchedRows.clear();
  }

  /**
   * The in-memory matrix, in step with the table: loaded whole when first used, after another
   * connection wrote the index (its data version changed) or after many writes here; otherwise
   * the ids this connection wrote since are read back (so a rolled-back write leaves no trace).
   */
  private prepareMatrix(): VectorMatrix {
    const dims = this.vecDims!;
    const dataVersion = this.matrixCommits.read();
    if (this.matrix && !this.matrixCommits.changed(dataVersion) && this.matrix.dims === dims) {
      if (this.touchedRows.size > 0) {
        for (const id of this.touchedRows) {
          const row = this.stmts.vecGet.get(BigInt(id)) as { embedding: Buffer } | undefined;
          if (row) this.matrix.set(id, floatView(row.embedding));
          else this.matrix.delete(id);
        }
        this.touchedRows.clear();
      }
      return this.matrix;
    }
    this.touchedRows.clear();
    const matrix = new VectorMatrix(dims, this.countVectors() + 1024);
    for (const [id, embedding] of this.stmts.vecAll.raw().iterate() as IterableIterator<[number | bigint, Buffer]>) {
      matrix.set(Number(id), floatView(embedding));
    }
    this.matrix = matrix;
    this.matrixCommits.mark(dataVersion);
    this.vectorCount = matrix.size;
    return matrix;
  }

  /** The loaded matrix's rows and bytes (null: not loaded), for status and benchmarks. */
  get memoryUse(): { vectors: number; bytes: number; simd: boolean } | null {
    return this.matrix ? { vectors: this.matrix.size, bytes: this.matrix.bytes, simd: this.matrix.simd } : null;
  }

  /** True when the quantized path can run (sqlite-vec loaded and vectors indexed). */
  get supportsQuantized(): boolean {
    return this.vecDims !== null;
  }

  /** The codes, unless a read-only index has none (it cannot write them). */
  private usableCodes(): QuantizedVectors | null {
    return this.codesUsable() ? this.prepareVectorCodes() : null;
  }

  private codesUsable(): boolean {
    return !this.db.readonly || this.codes.current(this.vecDims!) !== null;
  }

  /** Whether the index's vectors, held in memory, stay within the byte bound. */
  private matrixFits(): boolean {
    return this.countVectors() * matrixBytesPerVector(this.vecDims!) <= this.matrixMaxBytes;
  }

  private countVectors(): number {
    if (this.vectorCount < 0) this.vectorCount = this.countStored();
    return this.vectorCount;
  }

  /**
   * Brings the in-memory codes up to date: a full load when first used or when another connection
   * wrote the index; otherwise only the ids this connection wrote since (read back from the table,
   * so a rolled-back write leaves no trace). The first time, the quantizer is fitted on a sample
   * of the vectors and every vector's code is written (the codes then follow each write).
   */
  prepareVectorCodes(): QuantizedVectors | null {
    if (this.vecDims === null) return null;
    const expected = () => this.countVectors() + 1024;
    return this.codes.prepare(this.vecDims, expected, (size) => (this.vectorCount = size));
  }

  /**
   * Once an index holds QUANTIZER_MIN_VECTORS vectors, fits the quantizer and writes the codes
   * (cheap then); from there on every stored vector gets its code as it is written, so a large
   * index never has to read all its float vectors back. The Indexer calls this after each batch.
   */
  ensureVectorCodes(): void {
    if (this.vecDims === null || this.codes.current(this.vecDims)) return;
    if (this.countVectors() >= QUANTIZER_MIN_VECTORS) this.codes.build(this.vecDims);
  }

  /** Loads the in-memory vectors (or, in a large index, codes) ahead of the first search. */
  warmVectorSearch(): void {
    if (this.vecDims === null) return;
    if (!this.matrixFits()) this.prepareVectorCodes();
    else this.prepareMatrix();
  }

  /**
   * warmVectorSearch without holding the event loop (the daemon, once its startup sync is done): a
   * large index's codes are read in steps (codes-copy.ts); the matrix (bounded) and codes still to
   * be written load in one go.
   */
  async warmVectorSearchInSteps(stepMs?: number): Promise<void> {
    if (this.vecDims === null) return;
    if (this.matrixFits() || !(await this.codes.warmInSteps(this.vecDims, this.countVectors() + 1024, stepMs)))
      this.warmVectorSearch();
  }

  private quantizedSearch(query: Float32Array, k: number, coarse: number): { id: number; distance: number }[] {
    const codes = this.prepareVectorCodes();
    return codes ? quantizedNearest(codes, query, k, coarse, (q, ids) => this.distancesFromRows(q, ids)) : [];
  }
}
