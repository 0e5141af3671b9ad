import { z } from "zod";
import type { SearchResponse } from "../search/types.js";
import type { SyncReport } from "../index/sync.js";
import type { IssueSummary } from "../workspace/issues.js";
import type { ConsolidationReport } from "../consolidate/report.js";
import type { PromotionCandidate } from "../consolidate/promotion.js";

/**
 * The JSON-RPC 2.0 methods cortexd serves, with their parameter schemas (validated by the server,
 * invalid → -32602 naming the field) and result types (used by the typed client).
 */
/** A file path: 1–4,096 characters, no NUL byte (no file system accepts one). */
const filePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((s) => !s.includes("\0"), { message: "contains a NUL byte" });
const workspace = filePath.optional();
const session_id = z.string().min(1).max(512);
/** Agent messages ({role, content} or OpenClaw/Claude Code transcript records). */
const messages = z.array(z.unknown()).max(10_000).optional();
/** Absolute path of a JSONL transcript. */
const transcript_path = filePath.optional();
/** The agent session's working directory: without `workspace`, picks the workspace containing it. */
const cwd = z.string().max(4096).optional();

export const MethodParams = {
  "memory.search": z
    .object({
      query: z.string().max(100_000),
      limit: z.number().int().min(1).max(200).optional(),
      minScore: z.number().min(0).max(1).optional(),
      workspace,
      explain: z.boolean().optional(),
      /** Return the wall time of each ranking stage (`timings`, ms). */
      timings: z.boolean().optional(),
    })
    .strict(),
  "memory.get": z
    .object({
      path: filePath,
      from: z.number().int().min(1).optional(),
      lines: z.number().int().min(1).max(10_000).optional(),
      workspace,
    })
    .strict(),
  "memory.recall": z
    .object({
      query: z.string().max(100_000),
      budgetTokens: z.number().int().min(1).max(100_000).optional(),
      workspace,
      /** "private" (default) may return MEMORY.md/USER.md; "group" never does. */
      scope: z.enum(["private", "group"]).optional(),
      limit: z.number().int().min(1).max(100).optional(),
      /** Also show memories superseded by newer ones (marked), not only current facts. */
      includeHistory: z.boolean().optional(),
      /** Leave out MEMORY.md/USER.md: the host already puts them in its prompt (OpenClaw does). */
      excludeCurated: z.boolean().optional(),
      /** Return the wall time of each stage (`timings`, ms). */
      timings: z.boolean().optional(),
      cwd,
      /** Say why each memory was kept or dropped, or why nothing was returned. */
      explain: z.boolean().optional(),
      /** The day relative dates in the query count from ("yesterday", "last week"): YYYY-MM-DD or an ISO date-time; default now. */
      referenceDate: z
        .string()
        .max(64)
        .refine(
          (s) => /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s)),
          {
            message: "expected YYYY-MM-DD or an ISO 8601 date-time",
          },
        )
        .optional(),
    })
    .strict(),
  "memory.save": z
    .object({
      text: z.string().min(1).max(100_000),
      target: z.enum(["daily", "memory"]).optional(),
      workspace,
      importance: z.number().int().min(1).max(10).optional(),
      tags: z.array(z.string().min(1).max(64)).max(32).optional(),
    })
    .strict(),
  "memory.capture": z
    .object({
      session_id,
      messages,
      transcript_path,
      workspace,
      cwd,
    })
    .strict()
    .refine((p) => p.messages !== undefined || p.transcript_path !== undefined, {
      message: "give messages or transcript_path",
    }),
  /** A session starts: recovery note if the previous one ended uncleanly, plus recent memory. */
  "session.start": z
    .object({
      session_id,
      source: z.string().max(64).optional(),
      cwd,
      /** Characters of recent daily-log context (default 2,000; 0 = none). */
      maxChars: z.number().int().min(0).max(10_000).optional(),
      workspace,
    })
    .strict(),
  /** Activity (a prompt) in a session; the prompt becomes its latest goal. */
  "session.touch": z.object({ session_id, prompt: z.string().max(100_000).optional(), cwd, workspace }).strict(),
  /** Capture what is left (when a transcript/messages are given), then write the session summary. */
  "session.checkpoint": z.object({ session_id, messages, transcript_path, workspace, cwd }).strict(),
  /** A clean end: capture what is left, checkpoint (unless checkpoint: false), mark the session ended. */
  "session.sleep": z
    .object({
      session_id,
      messages,
      transcript_path,
      reason: z.string().max(64).optional(),
      checkpoint: z.boolean().optional(),
      workspace,
      cwd,
    })
    .strict(),
  "index.sync": z.object({ path: filePath.optional(), workspace, force: z.boolean().optional() }).strict(),
  "index.status": z.object({ workspace }).strict(),
  /** Runs consolidation now (every workspace, or one); dryRun computes and reports without changing the index. */
  "consolidate.run": z.object({ workspace, dryRun: z.boolean().optional() }).strict(),
  /** The latest consolidation reports (default 1 per workspace). */
  "consolidate.report": z.object({ workspace, limit: z.number().int().min(1).max(30).optional() }).strict(),
  /** Promotion candidates: recalled often (≥ 3 recalls, ≥ 3 distinct queries, last 30 days). */
  "promote.list": z.object({ workspace }).strict(),
  /** Appends the candidates to MEMORY.md under a dated heading, after a backup; idempotent. */
  "promote.apply": z.object({ workspace }).strict(),
  "cortex.status": z.object({}).passthrough(),
  "daemon.ping": z.object({}).strict(),
  "daemon.shutdown": z.object({}).strict(),
  "daemon.reload": z.object({}).strict(),
} as const;

export type MethodName = keyof typeof MethodParams;
export type ParamsOf<M extends MethodName> = z.input<(typeof MethodParams)[M]>;

export interface MemoryGetResult {
  path: string;
  text: string;
  from: number;
  to: number;
  totalLines: number;
  truncated: boolean;
  nextFrom?: number;
}

export interface RecalledMemory {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  text: string;
  /** Times this memory was written (its duplicate group); shown at the newest. */
  duplicates?: number;
  /** A newer entry (path:line) states a different value (only with includeHistory). */
  supersededBy?: string;
  /** Where it came from: the workspace; a team's (shared) one also says so, and who wrote it ("user@device"). */
  source?: { workspace: string; shared?: true; by?: string };
  /** YYYY-MM-DD of a daily log or transcript chunk. */
  date?: string;
}

/** One candidate's verdict (recall with explain). */
export interface RecallCandidateExplain {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  kept: boolean;
  /** Kept but not injected: the budget ran out, or it repeated an injected memory. */
  injected: boolean;
  reason: string;
  coverage: number;
  /** The prompt words it holds. */
  words: string[];
  rareWords: string[];
  vectorZ: number | null;
  dateMatch: boolean;
}

export interface RecallExplain {
  relevance: "auto" | "off";
  /** Why nothing was injected, when nothing was. */
  empty?: string;
  /** Date windows read from the query. */
  dates: { from: string; to: string; text: string }[];
  gathering: boolean;
  /** The prompt's words as the index sees them: chunks holding each (df) and its weight (idf). */
  words: { word: string; df: number; idf: number; rare: boolean; subject: boolean }[];
  chunks: number;
  /** The prompt's similarity to random memories of the index (the vector null), when vectors ran. */
  nullSimilarity: { mean: number; sd: number; n: number } | null;
  candidates: RecallCandidateExplain[];
}

export interface RecallResult {
  /** A <cortex_memories> block ready to inject ("" when nothing was found). */
  context: string;
  memories: RecalledMemory[];
  memory_count: number;
  tokens_used: number;
  /** With `timings`: ms per stage (the search's, then consolidation, pack, record) and total. */
  timings?: Record<string, number>;
  /** With explain: why each memory was kept or dropped. */
  explain?: RecallExplain;
}

export interface SaveResult {
  /** False when deduplicated against a recent save. */
  stored: boolean;
  /** Index key of the file ("memory/2026-11-29.md" or "MEMORY.md"). */
  path: string;
  /** 1-based lines written. */
  startLine?: number;
  endLine?: number;
  /** Secrets replaced by [REDACTED:kind] markers. */
  redactions: number;
  redactedKinds?: string[];
  /** "path:line" of the recent save this one duplicates (stored: false). */
  duplicateOf?: string;
  /** The file was indexed before the reply (false: written, indexing failed or deferred). */
  indexed?: boolean;
  /** The day's log (or MEMORY.md) has git conflict markers: the save went to the sidecar `path`. */
  conflict?: { file: string; savedTo: string; fix: string };
}

export interface CaptureResult {
  /** At least one entry was written. */
  stored: boolean;
  /** Entries written. */
  entries: number;
  /** Index key of the (last) daily log written. */
  path?: string;
  /** Every file written (a session spanning midnight writes two daily logs). */
  paths?: string[];
  /** Lines of the entries in `path`. */
  startLine?: number;
  endLine?: number;
  /** Turns skipped: trivial, too short, or without a reply. */
  skipped: number;
  /** Entries not written because a recent write says the same. */
  duplicates?: number;
  redactions?: number;
  /** Messages not seen by an earlier capture of this session. */
  messages?: number;
  indexed?: boolean;
}

export interface SessionStartResult {
  /** A <cortex_recovery> block when the previous session ended uncleanly (shown once), else "". */
  recovery: string;
  /** Recent daily-log entries as a <cortex_memories> block, or "" (on resume: only entries the session has not seen). */
  context: string;
  /** On source "compact": the session's checkpoint (goal, last focus) as a <cortex_checkpoint> block, else "". */
  checkpoint: string;
  previous?: { session_id: string; lastActivity: string; goal?: string; focus?: string; clean: boolean };
}

export interface CheckpointResult {
  stored: boolean;
  path?: string;
  startLine?: number;
  endLine?: number;
  duplicateOf?: string;
  summary: { goal: string | null; focus: string | null };
  captured?: CaptureResult;
}

export interface SleepResult {
  ok: true;
  endedAt: string;
  checkpoint?: CheckpointResult;
  captured?: CaptureResult;
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
  retryQueuePending: number;
  config: Record<string, unknown>;
  // cortexd's own
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

export interface MethodResults {
  "memory.search": SearchResponse;
  "memory.recall": RecallResult;
  "memory.save": SaveResult;
  "memory.capture": CaptureResult;
  "session.start": SessionStartResult;
  "session.touch": { ok: true };
  "session.checkpoint": CheckpointResult;
  "session.sleep": SleepResult;
  "memory.get": MemoryGetResult;
  "index.sync": { reports: SyncReport[] };
  "index.status": IndexStatusResult;
  "consolidate.run": { reports: ConsolidationReport[] };
  "consolidate.report": { reports: ConsolidationReport[] };
  "promote.list": { workspace: string; candidates: PromotionCandidate[] }[];
  "promote.apply": {
    workspace: string;
    applied: number;
    backup?: string;
    heading?: string;
    candidates: PromotionCandidate[];
  }[];
  "cortex.status": CortexStatus;
  "daemon.ping": { pong: true; version: string; pid: number; uptimeMs: number };
  "daemon.shutdown": { ok: true };
  "daemon.reload": { applied: string[]; restartNeeded: string[] };
}

/** Application error codes (JSON-RPC reserves -32768..-32000 for the protocol). */
export { ErrorCodes } from "./error-codes.js";
