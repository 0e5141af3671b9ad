import type { AuditState } from "./audit.js";
/** Wire results of index.status and cortex.status. */
import type { ConsolidationReport } from "./maintenance.js";

/** Counts by kind and a few examples of skipped or repaired files. */
export interface IssueSummary {
  total: number;
  byReason: Record<string, number>;
  /** Up to 10 of them, sorted by path. */
  examples: { path: string; reason: string }[];
}

export interface WorkspaceStatus extends WorkspaceSyncStatus {
  name: string;
  root: string;
  files: number;
  chunks: number;
  vectors: number;
  /** Chunks waiting for a vector. */
  pending: number;
  /** Chunks with nothing embeddable. */
  noVector: number;
  /** Files changed on disk and not yet indexed (queued by the watcher). */
  dirty: number;
  lastSync: string | null;
  lastError: string | null;
  /** The workspace's root does not exist (or is not a directory): nothing is indexed; lastError says the fix. */
  missing?: boolean;
  /** The index was found damaged when the daemon started: moved aside and rebuilt from the files. */
  recovered?: { at: string; reason: string; movedTo: string };
  /**
   * The data dir refuses writes (read-only mount, a disk the kernel turned read-only, permissions):
   * searches answer from the index as it is, indexing waits and resumes by itself once it is writable.
   * `unreadable`: the index could not be read either; `copy`: it is searched from a copy in memory.
   */
  readOnly?: { at: string; dir: string; reason: string; unreadable?: string; copy?: true };
  /** Files not indexed (binary, too large, unreadable, symlink out, ...): counts by reason, examples. */
  skipped: IssueSummary;
  /** Files indexed with a loss (invalid UTF-8 replaced). */
  repaired: IssueSummary;
  /** The named entities (names, identifiers) in the most memories (src/facts), with how many chunks name each and their aliases in the workspace ("Alice" for "Alice Chen"). */
  topEntities?: { name: string; chunks: number; aliases?: string[] }[];
  /** Set while the top entities are first being counted (off the request path: status never waits for the count). */
  topEntitiesCounting?: true;
  /** Claude Code's own memory this workspace indexes (`claudeCodeMemory`): "1 project, 2 auto-memory files, 2 CLAUDE.md". */
  claudeCode?: string;
  /**
   * How keyword searches are ranked (the daemon): "memory" from the postings held in memory (their
   * count and bytes), "loading" while they load after a start or a change by another process (FTS5
   * answers meanwhile, exactly, more slowly), "fts5" when they are not held (`reason`).
   */
  keywordIndex?:
    { state: "memory"; postings: number; bytes: number } | { state: "loading" } | { state: "fts5"; reason?: string };
}

/** Sync between devices (see docs/multi-device.md): part of each WorkspaceStatus. */
export interface WorkspaceSyncStatus {
  /** A team workspace: never private, saves only when named. */
  shared?: true;
  /** Memory files with git conflict markers, conflict copies of file-sync tools, and how to fix them. */
  conflicts?: { files: string[]; copies: { path: string; of: string }[]; fix: string };
  /** The scheduled git sync (config `sync.git`). */
  gitSync?: {
    schedule: string;
    state: "idle" | "ok" | "stopped" | "error";
    lastRun: string | null;
    lastResult: string | null;
    fix?: string;
    conflicted?: string[];
  };
}

export interface IndexStatusResult {
  workspaces: WorkspaceStatus[];
}

export interface CortexStatus {
  version: string;
  healthy: boolean;
  knowledgeState: {
    hasMemories: boolean;
    totalSessions: number;
    maturity: "cold" | "warming" | "mature";
    tier: number;
    /** Distinct days of daily logs, and the oldest one. */
    memoryDays?: number;
    oldestMemory?: string | null;
    lastHeartbeat?: string | null;
  };
  recallMetrics: { count: number; p50: number; p95: number; p99: number };
  /** Config keys a reload (SIGHUP) found changed that only a restart applies (absent when none). */
  restartNeeded?: string[];
  retryQueuePending: number;
  config: Record<string, unknown>;
  // cortexd's own
  /** The audit log of recall/search answers (docs/security.md): on or off, and where. */
  audit?: AuditState;
  pid: number;
  uptimeMs: number;
  rssBytes: number;
  workspaces: WorkspaceStatus[];
  embedding: {
    state: string;
    provider: string;
    model?: string;
    dims?: number;
    reason?: string;
    /** Something to look at although embedding works (e.g. the model file was deleted). */
    warning?: string;
    /** Remote providers: the endpoint's live health since start-up. */
    endpoint?: EndpointHealth;
    /** Chunks indexed keyword-only, waiting for a vector (all workspaces). */
    pendingVectors: number;
    /**
     * complete: every chunk that can have a vector has one; backfilling: the provider works and the
     * next syncs embed the pending chunks; deferred: the provider is down, loading or failing, the
     * pending chunks wait for it (keyword search meanwhile); off: no embeddings by choice.
     */
    vectors: "complete" | "backfilling" | "deferred" | "off";
  };
  watcher: { mode: "watching" | "polling" | "off"; reason?: string; events: number; lastEventAt: string | null };
  schedule: { name: string; cron: string; lastRun: string | null; nextRun: string | null; lastResult: string | null }[];
  lastHeartbeat: string | null;
  /** The last heartbeats (newest last, bounded). */
  heartbeats?: HeartbeatResult[];
  /** The latest consolidation report per workspace. */
  consolidation?: ConsolidationReport[];
  errors: { at: string; message: string }[];
  socketPath: string;
  /** Agent hooks that timed out, failed or found a dead socket (from the hooks' own log beside the socket). */
  hooks?: HookFailuresStatus;
}

export type HookFailureKind = "timeout" | "error" | "unavailable";

/** One hook run that gave up: when, which event, why, after how long, under which budget. */
export interface HookFailure {
  at: string;
  event: string;
  kind: HookFailureKind;
  message: string;
  ms: number;
  budgetMs: number;
}

export interface HookFailuresStatus {
  /** Failures in the log (the most recent ones; the log is bounded). */
  failures: number;
  timeouts: number;
  errors: number;
  unavailable: number;
  /** Failures in the last 24 hours. */
  last24h: number;
  lastAt: string | null;
  /** The newest failures, newest last. */
  recent: HookFailure[];
  /** The log file. */
  log: string;
}

/** A remote embedding endpoint's health, as the daemon has seen it since start-up. */
export interface EndpointHealth {
  /** ok; degraded: the last call(s) failed; gated: down, no calls until gatedUntil. */
  state: "ok" | "degraded" | "gated";
  consecutiveFailures: number;
  lastSuccessAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  gatedUntil: string | null;
  calls: number;
  retries: number;
}

export interface HeartbeatResult {
  at: string;
  ms: number;
  ok: boolean;
  /** DB answered and took a write. */
  db: boolean;
  watcher: string;
  /** Files found changed on disk and re-indexed by the heartbeat's sync. */
  drift: number;
  /** Provider state after the heartbeat ("ready", "keyword-only", "recovered", …). */
  embedding: string;
  /** Chunks embedded by this heartbeat's sync (backfill). */
  backfilled: number;
  problems: string[];
}
