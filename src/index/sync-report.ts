import type { RepairedFile, SkippedFile } from "../workspace/issues.js";

/** What a sync is asked (SyncOptions), tells as it goes (SyncProgress) and reports at the end (SyncReport). */
export interface SyncProgress {
  phase: "scan" | "files" | "vectors" | "done";
  filesDone: number;
  filesTotal: number;
  chunks: number;
  embedded: number;
}

export interface SyncOptions {
  /** Re-read, re-chunk and re-store every file (vectors still come from the cache). */
  force?: boolean;
  /** Sync only these files (index keys or absolute paths) instead of scanning the workspace. */
  paths?: readonly string[];
  onProgress?: (p: SyncProgress) => void;
  /**
   * Stop early (the daemon is shutting down): the batch in hand is committed, the rest is left to
   * the next sync. The index stays consistent (whole files per transaction).
   */
  signal?: AbortSignal;
}

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
  /** Set when the sync was stopped early through `signal`; the next sync finishes the work. */
  aborted?: true;
  /** Set when vectors could not be produced (keyword-only). */
  vectorsUnavailable?: string;
  /** Chunks left keyword-only (pending) because the provider failed; a later sync backfills them. */
  vectorsDeferred?: number;
  /** The provider's error behind vectorsDeferred. */
  vectorError?: string;
  ms: number;
}
