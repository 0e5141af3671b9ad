import { z } from "zod";
import type { SearchResponse } from "../search/types.js";
import type { SyncReport } from "../index/sync.js";

/**
 * The JSON-RPC 2.0 methods cortexd serves, with their parameter schemas (validated by the server,
 * invalid → -32602 naming the field) and result types (used by the typed client).
 */
const workspace = z.string().min(1).max(4096).optional();

export const MethodParams = {
  "memory.search": z
    .object({
      query: z.string().max(100_000),
      limit: z.number().int().min(1).max(200).optional(),
      minScore: z.number().min(0).max(1).optional(),
      workspace,
      explain: z.boolean().optional(),
    })
    .strict(),
  "memory.get": z
    .object({
      path: z.string().min(1).max(4096),
      from: z.number().int().min(1).optional(),
      lines: z.number().int().min(1).max(10_000).optional(),
      workspace,
    })
    .strict(),
  "index.sync": z.object({ path: z.string().min(1).max(4096).optional(), workspace, force: z.boolean().optional() }).strict(),
  "index.status": z.object({ workspace }).strict(),
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

export interface WorkspaceStatus {
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
}

export interface IndexStatusResult {
  workspaces: WorkspaceStatus[];
}

export interface CortexStatus {
  version: string;
  healthy: boolean;
  knowledgeState: { hasMemories: boolean; totalSessions: number; maturity: "cold" | "warming" | "mature"; tier: number };
  recallMetrics: { count: number; p50: number; p95: number; p99: number };
  retryQueuePending: number;
  config: Record<string, unknown>;
  // cortexd's own
  pid: number;
  uptimeMs: number;
  rssBytes: number;
  workspaces: WorkspaceStatus[];
  embedding: { state: string; provider: string; model?: string; dims?: number; reason?: string };
  watcher: { mode: "watching" | "polling" | "off"; reason?: string; events: number; lastEventAt: string | null };
  schedule: { name: string; cron: string; lastRun: string | null; nextRun: string | null; lastResult: string | null }[];
  lastHeartbeat: string | null;
  errors: { at: string; message: string }[];
  socketPath: string;
}

export interface MethodResults {
  "memory.search": SearchResponse;
  "memory.get": MemoryGetResult;
  "index.sync": { reports: SyncReport[] };
  "index.status": IndexStatusResult;
  "cortex.status": CortexStatus;
  "daemon.ping": { pong: true; version: string; pid: number; uptimeMs: number };
  "daemon.shutdown": { ok: true };
  "daemon.reload": { applied: string[]; restartNeeded: string[] };
}

/** Application error codes (JSON-RPC reserves -32768..-32000 for the protocol). */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** A path outside every workspace, or not indexed. */
  PathRefused: -32001,
  NotFound: -32002,
  /** Unknown workspace name/root. */
  UnknownWorkspace: -32003,
  ShuttingDown: -32004,
  RequestTooLarge: -32005,
  /** The daemon is at maxConnections; the connection is closed after this error (id null). */
  TooManyConnections: -32006,
} as const;
