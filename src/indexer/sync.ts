import type { Logger } from "pino";
import type { EmbeddingProvider } from "../embed/provider.js";
import { CHUNKING_VERSION } from "../ingest/chunk-file.js";
import type { ChunkingOptions } from "../ingest/types.js";
import type { ScanTarget } from "../workspace/scan.js";
import { ConflictRegistry } from "./conflict-registry.js";
import { FileIssues, type Stamp } from "./file-issues.js";
import type { IndexStore } from "../index/repos/store.js";
import { changedFiles, findFiles, goneFiles } from "./sync-find.js";
import type { SyncOptions, SyncProgress, SyncReport } from "./sync-report.js";
import { tidyKeywordIndex } from "./sync-tidy.js";
import { backfillVectors, prepareVectors } from "./sync-vectors.js";
import { backfillPassages } from "./passage-embed.js";
import { removeGone, writeChanged, type WriteDeps } from "./sync-write.js";
import { syncFacts } from "../facts/sync-facts.js";

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

export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

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
    const useVectors = prepareVectors(this.deps, report);
    const progress = (p: Omit<SyncProgress, "chunks" | "embedded">) =>
      opts.onProgress?.({ ...p, chunks: report.chunksWritten, embedded: report.embedded });

    progress({ phase: "scan", filesDone: 0, filesTotal: 0 });
    const found = await findFiles(store, this.deps.target, opts.paths, report);
    const { disk, indexed, looked } = found;
    const { gone, goneBySha } = goneFiles(found);

    // Files whose size or mtime changed are read ahead (a few at a time) and written in batches:
    // each batch is one transaction, so a crash leaves whole files indexed or not at all.
    const skipStamps = new Map<string, Stamp>();
    const work = changedFiles(found, force, this.issues, report, skipStamps);
    // Counts known before any file is read (and a hook for tests: files may vanish from here on).
    progress({ phase: "files", filesDone: report.unchanged, filesTotal: disk.length });
    const written = await writeChanged(this.writeDeps(), {
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
    await removeGone(
      store,
      this.conflicts,
      gone.filter((g) => !written.renamedFrom.has(g.path)),
      report,
    );
    // After a provider failure in this sync, do not call it again: the next sync backfills.
    if (useVectors && !report.vectorError) {
      // Embedding counts chunks (not files): done of the chunks waiting when it starts.
      const waiting = store.counts().pending;
      await backfillVectors(
        this.deps,
        report,
        (n) => progress({ phase: "vectors", filesDone: Math.min(n, waiting), filesTotal: waiting }),
        opts.signal,
      );
    }
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
    const facts = await syncFacts(store, { clock, signal: opts.signal });
    report.facts = facts;
    if (facts.aborted) {
      // Shutting down: a large index's facts pass (minutes at 1M chunks) must not hold the stop.
      report.aborted = true;
      report.ms = clock() - started;
      this.deps.logger?.info(
        { factsRead: facts.chunks },
        "facts pass stopped early (shutting down); the next sync continues",
      );
      return report;
    }
    await tidyKeywordIndex(store, report);
    store.setMeta("last_sync", String(clock()));
    report.ms = clock() - started;
    progress({ phase: "done", filesDone: disk.length, filesTotal: disk.length });
    this.deps.logger?.debug(
      { report: { ...report, skipped: report.skipped.length, repaired: report.repaired.length } },
      "sync finished",
    );
    return report;
  }

  private chunkingKey(): string {
    const c = this.deps.chunking;
    return `v${CHUNKING_VERSION}:${c.maxTokens}:${c.overlapTokens}`;
  }

  private writeDeps(): WriteDeps {
    return { ...this.deps, conflicts: this.conflicts };
  }
}
