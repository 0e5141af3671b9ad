import type Database from "better-sqlite3";
import type { ChunkMeta } from "./chunk-meta.js";
import { ChunksRepo, type ChunkBody, type ChunkRow } from "./chunks-repo.js";
import { ConsolidationRecords } from "./consolidation-records.js";
import { closeDatabase, type OpenedDb } from "../db/db.js";
import { CopyRegistry, type InMemoryCopy } from "../db/copies.js";
import { DbUpkeep } from "../db/db-upkeep.js";
import { dataVersionOf, dbGeneration } from "../db/db-generation.js";
import { snapshotsOf, type ReadSnapshot } from "../db/read-snapshot.js";
import { EmbedCacheRepo } from "./embed-cache-repo.js";
import { FactsRepo } from "./facts-repo.js";
import { EntityGraph } from "./entity-graph.js";
import { IndexHistory } from "./index-history.js";
import { FilesRepo, type FileMeta, type FileRow, type FileStamp, type StoredChunkInput } from "./files-repo.js";
import { ftsTotalsReader } from "../keyword/fts-totals.js";
import { MetaRepo } from "./meta-repo.js";
import { PathIndex } from "../keyword/path-index.js";
import { RecallLog } from "./recall-log.js";
import type { KeywordHit } from "../keyword/bm25.js";
import type { PostingsView } from "../keyword/keyword-postings.js";
import type { TermLookup } from "../keyword/term-stats.js";
import { TextSearch } from "../keyword/text-search.js";
import type { QuantizedVectors } from "../vectors/vector-codes.js";
import { VectorRepo, type VectorIdentity, type VectorSearchOptions } from "../vectors/vector-repo.js";
import { VisibilityRepo } from "./visibility-repo.js";

export type { ChunkBody, ChunkRow } from "./chunks-repo.js";
export type { ChunkMeta } from "./chunk-meta.js";
export type { FileMeta, FileRow, FileStamp, StoredChunkInput } from "./files-repo.js";
export { QUANTIZED_COARSE, QUANTIZED_OVERSAMPLE } from "../vectors/vector-repo.js";
export { VEC_NONE, VEC_PENDING, VEC_STORED } from "../vectors/vec-state.js";
export type { VectorIdentity, VectorSearchOptions } from "../vectors/vector-repo.js";

/**
 * The index of one namespace: files, chunks, FTS, vectors and the embedding cache in one SQLite file.
 * A façade: it owns the connection and hands out the repositories that run the SQL (each with its
 * statements, see statements.ts); the methods below are theirs, kept here for the many callers.
 * Every mutating method is one transaction, so the index is consistent after a crash at any point.
 */
export class IndexStore {
  private readonly db: Database.Database;
  readonly vecAvailable: boolean;
  readonly vecError: string | undefined;
  readonly meta: MetaRepo;
  readonly vectors: VectorRepo;
  readonly files: FilesRepo;
  readonly chunks: ChunksRepo;
  readonly text: TextSearch;
  readonly embedCache: EmbedCacheRepo;
  readonly recalls: RecallLog;
  readonly records: ConsolidationRecords;
  readonly upkeep: DbUpkeep;
  /** Statements, entities and their slots (src/facts). */
  readonly facts: FactsRepo;
  /** The entity graph: chunks by entity, co-occurrence, aliases (search/entity-leg.ts). */
  readonly entities: EntityGraph;
  /** Who may see each chunk (visibility/visibility.ts). */
  readonly visibility: VisibilityRepo;
  /** The index over time: files and chunks per day and kind (index-history.ts). */
  readonly history: IndexHistory;
  /** A token that changes whenever the index may have changed (db/db-generation.ts), for caches of derived values. */
  readonly generation: () => string;
  private fileTotals: (() => { rows: number; tokens: number }) | undefined;
  private paths: PathIndex | undefined;
  /** The in-memory copies of this connection's tables: each hears its writes and every rollback (db/copies.ts). */
  private readonly copies = new CopyRegistry();
  private readonly openSnapshot: () => ReadSnapshot;

  constructor(
    opened: OpenedDb,
    readonly namespace: string,
    clock: () => number = Date.now,
    /** Bytes of vectors held in memory at most (vector-repo.ts, MEMORY_MATRIX_MAX_BYTES by default). */
    matrixMaxBytes?: number,
  ) {
    this.db = opened.db;
    this.vecAvailable = opened.vecAvailable;
    this.vecError = opened.vecError;
    this.meta = new MetaRepo(this.db);
    this.vectors = new VectorRepo(this.db, this.meta, this.vecAvailable, () => this.counts().vectors, matrixMaxBytes);
    this.text = new TextSearch(this.db);
    this.chunks = new ChunksRepo(this.db);
    this.files = new FilesRepo(this.db, clock, this.vectors, this.text.postings, this.copies);
    this.embedCache = new EmbedCacheRepo(this.db, clock);
    this.recalls = new RecallLog(this.db, clock);
    this.records = new ConsolidationRecords(this.db);
    this.upkeep = new DbUpkeep(this.db);
    this.facts = new FactsRepo(this.db);
    this.entities = new EntityGraph(this.db);
    // The audit's visibility of each answered memory, from the chunk metadata in memory once it is loaded.
    this.visibility = new VisibilityRepo(this.db, (spans) => this.chunks.meta.visibilitiesOfSpans(spans));
    this.generation = dbGeneration(this.db);
    this.history = new IndexHistory(this.db, this.generation);
    const { chunks, text, vectors, records } = this;
    // Another connection's commit drops or reloads each copy as a failed write of this one does.
    const drop = (name: string, f: () => void, onFileWrite?: (id: number) => void): InMemoryCopy => ({
      name,
      onRollback: f,
      onCommit: f,
      ...(onFileWrite ? { onFileWrite } : {}),
    });
    for (const copy of [
      drop("keyword postings", () => text.postings.writeFailed()),
      drop("word statistics", () => text.rolledBack()),
      drop(
        "chunk metadata",
        () => chunks.meta.rolledBack(),
        (id) => chunks.meta.fileChanged(id),
      ),
      drop(
        "chunk bodies and dates",
        () => chunks.rolledBack(),
        (id) => chunks.fileChanged(id),
      ),
      drop(
        "path index",
        () => this.paths?.rolledBack(),
        (id) => this.paths?.fileChanged(id),
      ),
      drop("vector matrix and codes", () => vectors.rolledBack()),
      drop("consolidation marks", () => records.rolledBack()),
      drop(
        "entity chunk count and word verdicts",
        () => this.entities.changed(),
        () => this.entities.changed(),
      ),
    ])
      this.copies.register(copy);
    dataVersionOf(this.db).onCommit(() => this.copies.committedElsewhere());
    this.openSnapshot = snapshotsOf(this.db);
  }

  /**
   * Registers an in-memory copy of this index's tables (db/copies.ts): told of each file this
   * connection writes and of every transaction that fails. Returns the function that removes it.
   */
  registerCopy(copy: InMemoryCopy): () => void {
    return this.copies.register(copy);
  }

  /** The names of the registered copies (diagnostics, tests). */
  get copyNames(): string[] {
    return this.copies.names;
  }

  close(): void {
    this.text.postings.close();
    this.recalls.flush(); // recalls queued off the answer's path
    closeDatabase(this.db);
  }

  /** Up to n chunk vectors spread over the index (see vector-sample); none without vectors. */
  vectorSample(n: number): Float32Array[] {
    return this.vectors.sample(n);
  }

  /**
   * Opens a read request's snapshot of the index (index/db/read-snapshot.ts): the in-memory copies
   * validated once, here; `moved()` at the request's end says whether it must run again.
   */
  readSnapshot(): ReadSnapshot {
    return this.openSnapshot();
  }

  /** Reads the data version: every copy hears another connection's commit now, not on its next use. */
  checkCommits(): void {
    dataVersionOf(this.db).fresh();
  }

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn)();
    } catch (e) {
      this.copies.rolledBack(); // writes inside it may have rolled back: the copies hear it
      throw e;
    }
  }

  /**
   * Keeps the chunk index's postings in memory for the keyword leg (the daemon; see
   * keyword-postings): loaded in the background, kept in step with the index from then on.
   */
  keepKeywordsInMemory(): void {
    this.text.postings.enable();
  }

  /** True when this store keeps its postings in memory (a store swapped in for it should too). */
  get keywordsInMemory(): boolean {
    return this.text.postings.isEnabled;
  }

  keywordPostings(): PostingsView | null {
    return this.text.keywordPostings();
  }

  phraseTokens(words: readonly string[]): (string | null)[] {
    return this.text.phraseTokens(words);
  }

  /**
   * Files, chunks and vector states, cheaply at any size. Files and chunks come from the FTS5
   * averages records (exact, no scan); noVector from its partial index (small). Pending is counted
   * on its partial index only when the index has ever held vectors: before that every chunk is
   * pending or has nothing to embed.
   */
  counts(): { files: number; chunks: number; vectors: number; pending: number; noVector: number } {
    this.fileTotals ??= ftsTotalsReader(this.db, "files_fts");
    const files = this.fileTotals().rows;
    const chunks = this.ftsTotals().rows;
    const noVector = this.chunks.countNoVector();
    const neverVectors = this.vectorDims === null && !this.getVectorIdentity();
    const pending = neverVectors ? chunks - noVector : this.chunks.countPending();
    return { files, chunks, vectors: chunks - pending - noVector, pending, noVector };
  }

  // ---- meta ----
  getMeta(key: string): string | undefined {
    return this.meta.getMeta(key);
  }
  setMeta(key: string, value: string): void {
    this.meta.setMeta(key, value);
  }

  // ---- files and chunks (FilesRepo, ChunksRepo) ----
  listFiles(): FileRow[] {
    return this.files.listFiles();
  }
  conflictCandidates(): string[] {
    return this.files.conflictCandidates();
  }
  fileStamps(): Map<string, FileStamp> {
    return this.files.fileStamps();
  }
  getFile(path: string): FileRow | undefined {
    return this.files.getFile(path);
  }
  replaceFile(meta: FileMeta, chunks: readonly StoredChunkInput[]): { added: number; removed: number } {
    return this.files.replaceFile(meta, chunks);
  }
  replaceTail(
    meta: FileMeta,
    fromSeq: number,
    chunks: readonly StoredChunkInput[],
  ): { added: number; removed: number } {
    return this.files.replaceTail(meta, fromSeq, chunks);
  }
  touchFile(id: number, size: number, mtimeMs: number): void {
    this.files.touchFile(id, size, mtimeMs);
  }
  renameFile(fromPath: string, meta: FileMeta): void {
    this.files.renameFile(fromPath, meta);
  }
  chunkEnd(path: string): number {
    return this.files.chunkEnd(path);
  }
  deleteFile(path: string): number {
    return this.files.deleteFile(path);
  }
  chunksOfFile(path: string): ChunkRow[] {
    return this.chunks.chunksOfFile(path);
  }
  chunksByIds(ids: readonly number[]): Map<number, ChunkRow> {
    return this.chunks.chunksByIds(ids);
  }
  /** Each chunk's text, hash and vector state (what chunkMeta leaves out), in one statement. */
  chunkBodies(ids: readonly number[]): Map<number, ChunkBody> {
    return this.chunks.chunkBodies(ids);
  }
  /** What the ranking stages read of each chunk id besides its text, from memory (chunk-meta.ts). */
  chunkMeta(ids: readonly number[]): Map<number, ChunkMeta> {
    return this.chunks.meta.lookup(ids);
  }
  chunkTexts(ids: readonly number[]): Map<number, string> {
    return this.chunks.chunkTexts(ids);
  }
  countTranscriptFiles(): number {
    return this.chunks.countTranscriptFiles();
  }
  memoryDays(): { days: number; oldest: string | null } {
    return this.chunks.memoryDays();
  }
  memoryDates(): string[] {
    return this.chunks.memoryDates();
  }

  // ---- vectors (VectorRepo) ----
  getVectorIdentity(): VectorIdentity | null {
    return this.vectors.getVectorIdentity();
  }
  useVectorIdentity(id: VectorIdentity): { changed: boolean; previous: VectorIdentity | null } {
    return this.vectors.useVectorIdentity(id);
  }
  get vectorDims(): number | null {
    return this.vectors.vectorDims;
  }
  get supportsQuantized(): boolean {
    return this.vectors.supportsQuantized;
  }
  pendingChunks(afterId: number, limit: number): { id: number; hash: string; text: string }[] {
    return this.vectors.pendingChunks(afterId, limit);
  }
  setVectors(items: readonly { id: number; vector: Float32Array | null; passages?: Buffer }[]): void {
    this.transaction(() => this.vectors.setVectors(items)); // a failure is heard by the copies
  }
  vectorSearch(query: Float32Array, k: number, opts: VectorSearchOptions = {}): { id: number; distance: number }[] {
    return this.vectors.vectorSearch(query, k, opts);
  }
  prepareVectorCodes(): QuantizedVectors | null {
    return this.vectors.prepareVectorCodes();
  }
  ensureVectorCodes(): void {
    this.vectors.ensureVectorCodes();
  }
  /** Loads the vectors (or a large index's codes) ahead of the first search, yielding to the event loop while it reads (db/stepped-read.ts). */
  warmVectorSearch(stepMs?: number): Promise<void> {
    return this.vectors.warmVectorSearchInSteps(stepMs);
  }
  /** Loads the chunk metadata (chunk-meta.ts) now rather than on the first search. */
  warmChunkMeta(): void {
    this.chunks.meta.warm();
  }
  /** warmChunkMeta, yielding to the event loop while it reads (the daemon, after its startup sync). */
  warmChunkMetaInSteps(stepMs?: number): Promise<void> {
    return this.chunks.meta.warmInSteps(stepMs);
  }
  /** Reads the path index (path-index.ts) ahead of the first search, yielding to the event loop while it reads. */
  warmPathIndex(stepMs?: number): Promise<void> {
    return this.pathIndex.warmInSteps(stepMs);
  }

  // ---- embedding cache (EmbedCacheRepo) ----
  cacheGet(identity: string, hashes: readonly string[]): Map<string, Float32Array | null> {
    return this.embedCache.cacheGet(identity, hashes);
  }
  cachePut(identity: string, entries: readonly { hash: string; vector: Float32Array | null }[]): void {
    this.embedCache.cachePut(identity, entries);
  }
  pruneCache(max: number): number {
    return this.embedCache.pruneCache(max);
  }

  // ---- recall log (RecallLog) ----
  recordRecalls(
    queryHash: string,
    hits: readonly { hash: string; path: string; startLine: number; endLine: number }[],
  ): void {
    this.recalls.recordRecalls(queryHash, hits);
  }
  recallStats(hash: string): { recalls: number; queries: number; lastAt: number | null } {
    return this.recalls.recallStats(hash);
  }

  // ---- full-text search (TextSearch) ----
  termStats(terms: readonly string[]): TermLookup {
    return this.text.termStats(terms);
  }
  pathMatchCount(match: string, limit: number): number {
    return this.text.pathMatchCount(match, limit);
  }
  ftsTotals(): { rows: number; tokens: number } {
    return this.text.ftsTotals();
  }
  keywordSearch(match: string, limit: number, order: "rank" | "recent" = "rank"): KeywordHit[] {
    return this.text.keywordSearch(match, limit, order);
  }
  /** Chunks holding a query word (as a one-token phrase), from the postings in memory; null when unknown (text-search.ts). */
  wordChunkCount(word: string): number | null {
    return this.text.wordChunkCount(word);
  }
  pathSearch(match: string, limit: number): { fileId: number; path: string; rank: number }[] {
    return this.text.pathSearch(match, limit);
  }
  /**
   * pathSearch for the OR of single-token words, from the path index in memory (path-index.ts):
   * the same files and ranks; null when it cannot say (then ask pathSearch).
   */
  pathSearchWords(words: readonly string[], limit: number): { fileId: number; rank: number }[] | null {
    return this.pathIndex.search(words, limit);
  }
  /** Files whose path holds `word`, from the path index in memory; null when it cannot say (ask pathMatchCount). */
  pathFilesWith(word: string): number | null {
    return this.pathIndex.filesWith(word);
  }
  private get pathIndex(): PathIndex {
    return (this.paths ??= new PathIndex(this.db));
  }
}
