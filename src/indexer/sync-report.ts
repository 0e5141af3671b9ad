import type { SyncReport } from "../rpc/protocol.js";

export type { SyncReport };

/** What a sync is asked (SyncOptions), tells as it goes (SyncProgress) and reports at the end (SyncReport). */
export interface SyncProgress {
  phase: "scan" | "files" | "vectors" | "done";
  /** Files written of filesTotal; in phase "vectors", chunks embedded of the chunks waiting. */
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
