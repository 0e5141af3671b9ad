import { isAbsolute, join, relative, sep } from "node:path";
import type { Logger } from "pino";
import type { EmbeddingProvider } from "../embed/provider.js";
import { CHUNKING_VERSION } from "../ingest/chunk-file.js";
import type { ChunkingOptions } from "../ingest/types.js";
import { scanWorkspace, statOne, tryLstat, type ScanTarget, type WorkspaceFile } from "../workspace/scan.js";
import { embedThroughCache } from "./embed-cache.js";
import { backfillPassages, embedPassages } from "./passage-embed.js";
import { prepareFile, type PreparedFile } from "./sync-prepare.js";
import { loadFile, type Loaded } from "./sync-read.js";
import type { SyncOptions, SyncProgress, SyncReport } from "./sync-report.js";
import { FileIssues, stampOf, type Stamp } from "./file-issues.js";
import type { FileStamp, IndexStore } from "./store.js";
import { ConflictRegistry } from "./conflict-registry.js";

/** Chunks written or removed by one sync from which its FTS segments are merged at the end. */
const MERGE_AFTER_CHUNKS = 1000;

export type { SyncOptions, SyncProgress, SyncReport } from "./sync-report.js";

export interface IndexerDeps {
  store: IndexStore;
  target: ScanTarget;
  /** null: keyword-only. */
  provider: EmbeddingProvider | null;
  chunking: ChunkingOptions;
  embedBatchSize?: number;
  /** Files larger than this are skipped with a reason (default 64 MiB). */
  maxFileBytes?: number;
  logger?: Logger;
  clock?: () => number;
}

/** The index key of a path: relative (POSIX) inside the root, absolute outside it. */
export function keyFor(root: string, p: string): string {
  if (!isAbsolute(p)) return p.split(sep).join("/");
  const rel = relative(root, p);
  return rel.startsWith("..") || isAbsolute(rel) ? p : rel.split(sep).join("/");
}

export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Files read concurrently. */
const READ_AHEAD = 8;
/** A write batch closes after this many files or bytes. */
const BATCH_FILES = 64;
const BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Brings one namespace's index in line with the files on disk. Unchanged files (same size and mtime)
 * are not read; a changed file is re-chunked and only chunks whose text is not in the embedding cache
 * are embedded; a file whose content moved to a new path keeps its chunks and vectors. Each file is
 * written whole inside one transaction (several files per transaction), so a crash leaves a
 * consistent index and the next sync finishes the work.
 */
export class Indexer {
  private readonly deps: Required<Omit<IndexerDeps, "logger" | "provider">> & Pick<IndexerDeps, "logger" | "provider">;
  /** Files skipped or indexed with a loss, and why (status shows the counts). */
  readonly issues: FileIssues;
  /** Memory files with git conflict markers (status flags them; saves go around them). */
  readonly conflicts: ConflictRegistry;
  /** Whether this process has checked, once, that an index without keyword lists needs none (see term-lists). */
  private listsChecked = false;

  constructor(deps: IndexerDeps) {
    this.deps = {
      embedBatchSize: 64,
      maxFileBytes: DEFAULT_MAX_FILE_BYTES,
      clock: Date.now,
      ...deps,
    };
    this.issues = new FileIssues(deps.logger);
    this.conflicts = new ConflictRegistry(() => this.deps.store);
  }

  get maxFileBytes(): number {
    return this.deps.maxFileBytes;
  }

  get store(): IndexStore {
    return this.deps.store;
  }

  /** Switches to another connection to the index (reopened read-write after a read-only spell). */
  setStore(store: IndexStore): void {
    this.deps.store = store;
  }

  /** Switches the embedding provider (null: keyword-only); the next sync re-embeds as needed. */
  setProvider(provider: EmbeddingProvider | null): void {
    this.deps.provider = provider;
  }

  /**
   * One sync, in phases: find the files (scan, or just the given paths), pick the changed ones,
   * read → decide → write them in batches, remove the files that are gone, embed what is still
   * pending, then tidy the keyword index.
   */
  async sync(opts: SyncOptions = {}): Promise<SyncReport> {
    const { store, clock } = this.deps;
    const started = clock();
    const report: SyncReport = {
      namespace: store.namespace,
      added: 0,
      changed: 0,
      removed: 0,
      renamed: 0,
      appended: 0,
      unchanged: 0,
      chunksWritten: 0,
      chunksRemoved: 0,
      embedded: 0,
      cacheHits: 0,
      noVector: 0,
      malformedLines: 0,
      skipped: [],
      repaired: [],
      ms: 0,
    };
    let force = opts.force ?? false;
    if (store.getMeta("chunking") !== this.chunkingKey()) force = true;
    const useVectors = this.prepareVectors(report);
    const progress = (p: Omit<SyncProgress, "chunks" | "embedded">) =>
      opts.onProgress?.({ ...p, chunks: report.chunksWritten, embedded: report.embedded });

    progress({ phase: "scan", filesDone: 0, filesTotal: 0 });
    const { disk, indexed, looked } = await this.findFiles(opts, report);
    const onDisk = new Set(disk.map((f) => f.path));
    const gone = [...indexed.values()].filter((f) => !onDisk.has(f.path));
    const goneBySha = new Map<string, FileStamp[]>();
    for (const g of gone) goneBySha.set(g.sha256, [...(goneBySha.get(g.sha256) ?? []), g]);

    // Files whose size or mtime changed are read ahead (a few at a time) and written in batches:
    // each batch is one transaction, so a crash leaves whole files indexed or not at all.
    const skipStamps = new Map<string, Stamp>();
    const work = this.changedFiles(disk, indexed, force, report, skipStamps);
    // Counts known before any file is read (and a hook for tests: files may vanish from here on).
    progress({ phase: "files", filesDone: report.unchanged, filesTotal: disk.length });
    const written = await this.writeChanged({
      work,
      indexed,
      goneBySha,
      force,
      useVectors,
      report,
      skipStamps,
      progress,
      filesTotal: disk.length,
      signal: opts.signal,
    });
    if (written.aborted) {
      report.aborted = true;
      report.ms = clock() - started;
      this.deps.logger?.info(
        { filesDone: written.done, filesTotal: work.length },
        "sync stopped early (shutting down); the next sync continues",
      );
      return report;
    }
    progress({ phase: "files", filesDone: disk.length, filesTotal: disk.length });
    this.removeGone(
      gone.filter((g) => !written.renamedFrom.has(g.path)),
      report,
    );
    // After a provider failure in this sync, do not call it again: the next sync backfills.
    if (useVectors && !report.vectorError)
      await this.backfillVectors(
        report,
        (n) => progress({ phase: "vectors", filesDone: n, filesTotal: disk.length }),
        opts.signal,
      );
    if (useVectors && !report.vectorError) await backfillPassages(store, this.deps.provider, opts.signal);
    if (report.vectorError) {
      report.vectorsDeferred = store.counts().pending;
      this.deps.logger?.warn(
        { deferred: report.vectorsDeferred, err: report.vectorError },
        "embedding provider failed: chunks stay keyword-only until a later sync",
      );
    }
    this.issues.update({
      full: !opts.paths,
      paths: looked,
      skipped: report.skipped,
      repaired: report.repaired,
      stamps: skipStamps,
    });
    if (!opts.paths) store.setMeta("chunking", this.chunkingKey());
    await this.tidyKeywordIndex(report, opts.signal);
    store.setMeta("last_sync", String(clock()));
    report.ms = clock() - started;
    progress({ phase: "done", filesDone: disk.length, filesTotal: disk.length });
    this.deps.logger?.debug(
      { report: { ...report, skipped: report.skipped.length, repaired: report.repaired.length } },
      "sync finished",
    );
    return report;
  }

  /** Phase 1: the files on disk (a scan, or just the given paths) and what the index has for them. */
  private async findFiles(
    opts: SyncOptions,
    report: SyncReport,
  ): Promise<{ disk: WorkspaceFile[]; indexed: Map<string, FileStamp>; looked: string[] }> {
    const { store } = this.deps;
    let disk: WorkspaceFile[];
    let indexed: Map<string, FileStamp>;
    /** Index keys a targeted sync looked at (their issue entries are replaced). */
    const looked: string[] = [];
    if (opts.paths) {
      // Targeted sync (watcher events, index.sync {path}): look at just these paths.
      const root = this.deps.target.root;
      disk = [];
      indexed = new Map();
      for (const p of new Set(opts.paths)) {
        const abs = isAbsolute(p) ? p : join(root, p);
        const file = statOne(this.deps.target, abs);
        if (file && !disk.some((f) => f.path === file.path)) disk.push(file);
        const key = file?.path ?? keyFor(root, abs);
        // A path that is gone (not one statOne refused, e.g. a symlink out) loses its issue entry.
        if (file || !tryLstat(abs)) looked.push(key);
        const row = store.getFile(key);
        if (row) indexed.set(key, row);
      }
    } else {
      const scan = await scanWorkspace(this.deps.target);
      report.skipped.push(...scan.skipped);
      disk = scan.files;
      indexed = store.fileStamps();
    }
    return { disk, indexed, looked };
  }

  /** Phase 2: the files whose size or mtime changed (or all, when forced), less those known to be skipped. */
  private changedFiles(
    disk: WorkspaceFile[],
    indexed: Map<string, FileStamp>,
    force: boolean,
    report: SyncReport,
    skipStamps: Map<string, Stamp>,
  ): WorkspaceFile[] {
    return disk.filter((file) => {
      const row = indexed.get(file.path);
      const same = row && !force && row.size === file.size && row.mtimeMs === file.mtimeMs;
      if (same) report.unchanged++;
      // A file skipped before and unchanged since (say, a 60 MB binary) is not read again.
      const known = !same && !force && !row ? this.issues.knownSkip(file) : undefined;
      if (known) {
        report.skipped.push(known);
        skipStamps.set(file.path, stampOf(file));
      }
      return !same && !known;
    });
  }

  /**
   * Phase 3: reads the changed files ahead, decides what each needs and writes them in batches
   * (one transaction each). Stops after the current batch when the signal aborts.
   */
  private async writeChanged(p: {
    work: WorkspaceFile[];
    indexed: Map<string, FileStamp>;
    goneBySha: Map<string, FileStamp[]>;
    force: boolean;
    useVectors: boolean;
    report: SyncReport;
    skipStamps: Map<string, Stamp>;
    progress: (p: Omit<SyncProgress, "chunks" | "embedded">) => void;
    filesTotal: number;
    signal: AbortSignal | undefined;
  }): Promise<{ aborted: boolean; done: number; renamedFrom: Set<string> }> {
    const { store } = this.deps;
    const { work, indexed, goneBySha, force, useVectors, report, skipStamps, progress } = p;
    const batchRenames: string[] = [];
    let done = report.unchanged;
    const reads = new Map<number, Promise<Loaded>>();
    const readAhead = (i: number) => {
      if (i < work.length && !reads.has(i)) {
        const f = work[i]!;
        reads.set(
          i,
          loadFile(f, indexed.has(f.path) ? store.getFile(f.path) : undefined, force, this.deps.maxFileBytes),
        );
      }
    };
    let batch: PreparedFile[] = [];
    let batchBytes = 0;
    for (let i = 0; i < work.length; i++) {
      for (let j = i; j < i + READ_AHEAD; j++) readAhead(j);
      const loaded = await reads.get(i)!;
      reads.delete(i);
      if (loaded.skip) skipStamps.set(loaded.file.path, stampOf(loaded.file));
      const prepared = prepareFile(
        store,
        this.deps.chunking,
        loaded,
        indexed.has(loaded.file.path) ? store.getFile(loaded.file.path) : undefined,
        goneBySha,
        force,
        report,
        (path, blocks) => this.conflicts.mark(path, blocks),
      );
      if (prepared?.kind === "rename") batchRenames.push(prepared.from);
      if (prepared) {
        batch.push(prepared);
        batchBytes += loaded.buf?.length ?? 0;
      }
      done++;
      if (batch.length >= BATCH_FILES || batchBytes >= BATCH_BYTES || i === work.length - 1) {
        await this.commit(batch, useVectors, report);
        batch = [];
        batchBytes = 0;
      }
      if (done % 25 === 0) progress({ phase: "files", filesDone: done, filesTotal: p.filesTotal });
      if (p.signal?.aborted && i < work.length - 1) {
        await this.commit(batch, useVectors, report);
        for (const pending of reads.values()) pending.catch(() => {}); // read-aheads nobody will use
        return { aborted: true, done, renamedFrom: new Set(batchRenames) };
      }
    }
    return { aborted: false, done, renamedFrom: new Set(batchRenames) };
  }

  /** Phase 4: files gone from disk (and not renamed) leave the index, in one transaction. */
  private removeGone(removals: FileStamp[], report: SyncReport): void {
    const { store } = this.deps;
    store.transaction(() => {
      for (const g of removals) {
        report.chunksRemoved += store.deleteFile(g.path);
        report.removed++;
        this.conflicts.mark(g.path, 0);
      }
      this.conflicts.persist();
    });
  }

  /** Phase 6: FTS segment merging after a large write, and the common words' lists. */
  private async tidyKeywordIndex(report: SyncReport, signal: AbortSignal | undefined): Promise<void> {
    const { store } = this.deps;
    // A large write left many FTS segments behind: merge them now rather than at the nightly run.
    if (report.chunksWritten + report.chunksRemoved >= MERGE_AFTER_CHUNKS) await store.upkeep.mergeFtsSegments();
    // Words that became common get their impact-ordered lists (a large index only; see term-lists):
    // after the first large write (or the first sync of an index from before the lists), then when
    // the index grew by a twentieth (the vocabulary scan costs ~5 s at 1M chunks; the nightly
    // maintenance refreshes too). Otherwise the new chunks are folded in.
    const lists = store.termLists;
    const large = report.chunksWritten + report.chunksRemoved >= MERGE_AFTER_CHUNKS;
    if (
      (!lists.active() && (large || !this.listsChecked)) ||
      (large && report.chunksWritten >= store.ftsTotals().rows / 20)
    ) {
      this.listsChecked = true;
      const r = await lists.refresh({ signal });
      if (r.built || r.dropped) this.deps.logger?.info({ lists: r }, "keyword lists of common words refreshed");
    } else if (report.chunksWritten > 0) await lists.fold(signal);
  }

  private chunkingKey(): string {
    const c = this.deps.chunking;
    return `v${CHUNKING_VERSION}:${c.maxTokens}:${c.overlapTokens}`;
  }

  /** Points the vector index at the provider; reports a model change. Returns whether to embed. */
  private prepareVectors(report: SyncReport): boolean {
    const { store, provider } = this.deps;
    if (!provider) return false;
    if (!store.vecAvailable) {
      report.vectorsUnavailable = store.vecError ?? "sqlite-vec unavailable";
      return false;
    }
    const { changed, previous } = store.useVectorIdentity({
      identity: provider.identity,
      dims: provider.dims,
      model: provider.modelName,
    });
    if (changed && previous) {
      report.modelChanged = { from: previous.identity, to: provider.identity };
      this.deps.logger?.warn(
        { from: previous.identity, to: provider.identity },
        "embedding model changed: vectors will be re-embedded",
      );
    }
    return true;
  }

  /** Embeds the batch's new chunks (through the cache), then writes the whole batch in one transaction. */
  private async commit(batch: PreparedFile[], useVectors: boolean, report: SyncReport): Promise<void> {
    if (batch.length === 0) return;
    const { store, provider } = this.deps;
    const fresh = batch.flatMap((p) => (p.kind === "replace" ? p.chunks : []));
    // After a provider failure in this sync, the remaining chunks stay pending without further calls.
    if (useVectors && provider && fresh.length > 0 && !report.vectorError) {
      const outcome = await embedThroughCache(store, provider, fresh, this.deps.embedBatchSize);
      report.cacheHits += outcome.cacheHits;
      report.embedded += outcome.embedded;
      for (const c of fresh) {
        if (!outcome.vectors.has(c.hash)) {
          deferred(report, outcome.error);
          continue; // stays pending (vector undefined)
        }
        c.vector = outcome.vectors.get(c.hash) ?? null;
        if (c.vector === null) report.noVector++;
      }
      await embedPassages(provider, fresh);
    }
    store.transaction(() => {
      for (const p of batch) {
        if (p.kind === "touch") store.touchFile(p.id, p.size, p.mtimeMs);
        else if (p.kind === "rename") {
          store.renameFile(p.from, p.meta);
          this.conflicts.move(p.from, p.meta.path);
        } else if (p.kind === "delete") {
          report.chunksRemoved += store.deleteFile(p.path);
          this.conflicts.mark(p.path, 0);
        } else {
          const res = p.keep > 0 ? store.replaceTail(p.meta, p.keep, p.chunks) : store.replaceFile(p.meta, p.chunks);
          report.chunksWritten += res.added;
          report.chunksRemoved += res.removed;
        }
      }
    });
    if (useVectors) store.ensureVectorCodes();
  }

  /** Embeds chunks still pending (after a model change or a keyword-only period), through the cache. */
  private async backfillVectors(report: SyncReport, onBatch: (n: number) => void, signal?: AbortSignal): Promise<void> {
    const { store, provider } = this.deps;
    if (!provider) return;
    let after = 0;
    let n = 0;
    for (;;) {
      if (signal?.aborted) {
        report.aborted = true; // the rest stays pending: the next sync backfills it
        break;
      }
      const batch = store.pendingChunks(after, 512);
      if (batch.length === 0) break;
      after = batch[batch.length - 1]!.id;
      const outcome = await embedThroughCache(store, provider, batch, this.deps.embedBatchSize);
      report.cacheHits += outcome.cacheHits;
      report.embedded += outcome.embedded;
      const done = outcome.error ? batch.filter((b) => outcome.vectors.has(b.hash)) : batch;
      const items = done.map((b) => ({ id: b.id, text: b.text, vector: outcome.vectors.get(b.hash) ?? null }));
      report.noVector += items.filter((i) => !i.vector).length;
      await embedPassages(provider, items);
      store.setVectors(items);
      store.ensureVectorCodes();
      n += batch.length;
      onBatch(n);
      if (outcome.error) {
        deferred(report, outcome.error);
        break; // provider down: the rest stays pending too
      }
    }
  }
}

function deferred(report: SyncReport, error: string | undefined): void {
  if (!report.vectorError) report.vectorError = error ?? "embedding failed";
}
