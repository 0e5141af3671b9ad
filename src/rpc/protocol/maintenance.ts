/** Wire results of index.sync, consolidate.* and promote.*. */

export type SkipKind =
  /** Larger than the indexer's maxFileBytes. */
  | "too-large"
  /** NUL bytes, or mostly bytes that are not UTF-8. */
  | "binary"
  /** Could not be read (permissions, I/O error, a directory that cannot be listed). */
  | "unreadable"
  /** Listed by the scan, gone (or replaced) before it was read. */
  | "vanished"
  /** A symlink whose target is outside the tree it was found in. */
  | "symlink-outside"
  /** A symlink to nothing, or a symlink loop. */
  | "broken-symlink"
  /** A configured transcript dir or extra path that does not exist. */
  | "missing";

/** Files indexed with something changed or left out. */
export type RepairKind =
  /** Invalid UTF-8 sequences were replaced by U+FFFD. */
  | "invalid-utf8"
  /** More chunks than the per-file cap: only the first ones are indexed (split the file). */
  | "chunk-cap";

/** A file the index passed over, and why. */
export interface SkippedFile {
  path: string;
  kind: SkipKind;
  /** Human-readable detail ("larger than 67108864 bytes", "unreadable: EACCES"). */
  reason: string;
}

/** A file indexed with a loss. */
export interface RepairedFile {
  path: string;
  kind: RepairKind;
  reason: string;
}

/** One workspace's sync. */
export interface SyncReport {
  namespace: string;
  added: number;
  changed: number;
  removed: number;
  renamed: number;
  /** Changed files that were transcripts read incrementally (only their new lines). */
  appended: number;
  unchanged: number;
  chunksWritten: number;
  chunksRemoved: number;
  embedded: number;
  cacheHits: number;
  /** Chunks with nothing embeddable (e.g. only unknown words). */
  noVector: number;
  malformedLines: number;
  /** Files not indexed, with the reason (binary, too large, unreadable, vanished, symlink out, ...). */
  skipped: SkippedFile[];
  /** Files indexed with a loss (invalid UTF-8 replaced by U+FFFD). */
  repaired: RepairedFile[];
  /** Set when the embedding model differs from the one the index was built with. */
  modelChanged?: { from: string; to: string };
  /** Set when the sync was stopped early (the daemon is shutting down); the next sync finishes the work. */
  aborted?: true;
  /** Set when vectors could not be produced (keyword-only). */
  vectorsUnavailable?: string;
  /** Chunks left keyword-only (pending) because the provider failed; a later sync backfills them. */
  vectorsDeferred?: number;
  /** The provider's error behind vectorsDeferred. */
  vectorError?: string;
  /**
   * The facts pass (src/facts): chunks read, statements held, whether slots were linked again, how
   * many (entity, class) slots were (only those of the statements that came or went), its time.
   */
  facts?: { chunks: number; statements: number; linked: boolean; slotsRelinked: number; ms: number };
  ms: number;
}

/** The index upkeep a consolidation ran (ms per step). */
export interface MaintenanceReport {
  ftsOptimizeMs: number;
  cachePruned: number;
  cachePruneMs: number;
  walCheckpoint: { busy: number; log: number; checkpointed: number };
  walCheckpointMs: number;
  quickCheck: string;
  quickCheckMs: number;
  freePages: number;
  pages: number;
  vacuumed: boolean;
  vacuumMs: number;
}

export interface ConsolidationReport {
  workspace: string;
  at: string;
  dryRun: boolean;
  ms: number;
  /** Daily-log entries considered, and how many had a vector. */
  entries: number;
  withVectors: number;
  duplicateGroups: number;
  /** Entries hidden behind a newer duplicate. */
  duplicatesHidden: number;
  reinforced: number;
  superseded: number;
  /** A few supersessions with their reason ("older → newer: why"). */
  supersessionExamples: string[];
  promotionCandidates: number;
  promoted: number;
  backup?: string;
  maintenance: MaintenanceReport | null;
  timings: Record<string, number>;
  error?: string;
}

/** A memory recalled often enough to be promoted to MEMORY.md. */
export interface PromotionCandidate {
  hash: string;
  path: string;
  startLine: number;
  endLine: number;
  recalls: number;
  queries: number;
  lastRecall: string;
  /** The lines that would be appended to MEMORY.md. */
  text: string;
}
