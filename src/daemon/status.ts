import type { Engine } from "../engine/engine.js";
import { missingRootProblem } from "../workspace/resolve.js";
import { readOnlyMessage } from "../index/db/open-read-only.js";
import type {
  CortexStatus,
  EndpointHealth,
  HeartbeatResult,
  HookFailuresStatus,
  WorkspaceStatus,
} from "../rpc/protocol.js";
import type { ConsolidationReport } from "../consolidate/report.js";
import type { LatencyWindow } from "./latency.js";
import type { JobStatus } from "./scheduler.js";
import type { SyncQueue } from "./sync-queue.js";
import type { WatcherStatus } from "./watcher.js";
import type { GitSync } from "../multi-device/git-sync.js";
import { workspaceSyncStatus } from "../multi-device/status.js";
import type { TopEntitiesKeeper } from "./top-entities.js";

export interface StatusSources {
  engine: Engine;
  queue: SyncQueue;
  watcher: WatcherStatus;
  schedule: JobStatus[];
  recall: LatencyWindow;
  version: string;
  startedAt: number;
  socketPath: string;
  lastHeartbeat: number | null;
  heartbeats?: HeartbeatResult[];
  consolidation?: ConsolidationReport[];
  errors: { at: string; message: string }[];
  /** Hook failures (read from the hooks' log beside the socket). */
  hooks?: HookFailuresStatus;
  now?: number;
  gitSync?: GitSync;
  topEntities?: TopEntitiesKeeper;
}

/** Counts and queue state of each workspace. */
export function workspaceStatuses(
  engine: Engine,
  queue: SyncQueue,
  gitSync?: GitSync,
  /** Where the top entities are kept (counted off the request path); without it, none are listed. */
  top?: TopEntitiesKeeper,
): WorkspaceStatus[] {
  return engine.workspaces.map((w) => {
    const c = w.store.counts();
    const q = queue.state(w.name);
    const missing = missingRootProblem(w.root);
    return {
      name: w.name,
      root: w.root,
      files: c.files,
      chunks: c.chunks,
      vectors: c.vectors,
      pending: engine.provider ? c.pending : 0,
      noVector: c.noVector,
      dirty: q.dirty,
      lastSync:
        q.lastSync ??
        (w.store.getMeta("last_sync") ? new Date(Number(w.store.getMeta("last_sync"))).toISOString() : null),
      lastError: missing ?? q.lastError ?? (w.readOnly ? readOnlyMessage(w.readOnly) : null),
      ...(missing ? { missing: true } : {}),
      ...top?.of(w),
      ...(w.claudeCode ? { claudeCode: w.claudeCode } : {}),
      ...(w.store.text.postings.isEnabled || w.store.text.postings.lastError
        ? { keywordIndex: w.store.text.postings.state() }
        : {}),
      ...(w.recovery ? { recovered: w.recovery } : {}),
      ...(w.readOnly ? { readOnly: w.readOnly } : {}),
      ...w.indexer.issues.summary(),
      ...workspaceSyncStatus(w, gitSync),
    };
  });
}

/**
 * Maturity from how much memory there is and how long it spans: cold (almost nothing yet),
 * warming (some days of memory), mature (a month or more of daily logs, or a large curated memory).
 */
export function knowledgeState(engine: Engine, lastHeartbeat: number | null = null): CortexStatus["knowledgeState"] {
  let chunks = 0;
  let sessions = 0;
  let files = 0;
  let memoryDays = 0;
  let oldest: string | null = null;
  for (const w of engine.workspaces) {
    const c = w.store.counts();
    chunks += c.chunks;
    files += c.files;
    sessions += w.store.countTranscriptFiles();
    if (engine.workspaces.length === 1) {
      const d = w.store.memoryDays();
      memoryDays = d.days;
      oldest = d.oldest;
    }
  }
  if (engine.workspaces.length > 1) {
    // Days shared by several workspaces count once.
    const days = new Set(engine.workspaces.flatMap((w) => w.store.memoryDates()));
    memoryDays = days.size;
    oldest = [...days].sort()[0] ?? null;
  }
  const maturity = files < 3 || chunks < 10 ? "cold" : memoryDays >= 30 || chunks >= 2000 ? "mature" : "warming";
  return {
    hasMemories: chunks > 0,
    totalSessions: sessions,
    maturity,
    tier: maturity === "cold" ? 1 : maturity === "warming" ? 2 : 3,
    memoryDays,
    oldestMemory: oldest,
    lastHeartbeat: lastHeartbeat ? new Date(lastHeartbeat).toISOString() : null,
  };
}

const iso = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : null);

/** The embedding section: the provider's start-up state, its endpoint's live health, the vectors' progress. */
export function embeddingStatus(engine: Engine, workspaces: WorkspaceStatus[]): CortexStatus["embedding"] {
  const emb = engine.providerStatus;
  const h = engine.provider?.health?.();
  const endpoint: EndpointHealth | undefined = h && {
    state: h.state,
    consecutiveFailures: h.consecutiveFailures,
    lastSuccessAt: iso(h.lastSuccessAt),
    lastError: h.lastError ?? null,
    lastErrorAt: iso(h.lastErrorAt),
    gatedUntil: iso(h.gatedUntil),
    calls: h.calls,
    retries: h.retries,
  };
  const off = engine.config.embedding.provider === "none";
  // Without a provider the status lists nothing as pending; what waits for it is every unembedded chunk.
  const pendingVectors = off
    ? 0
    : engine.provider
      ? workspaces.reduce((n, w) => n + w.pending, 0)
      : engine.workspaces.reduce((n, w) => n + w.store.counts().pending, 0);
  let vectors: CortexStatus["embedding"]["vectors"];
  if (off) vectors = "off";
  else if (!engine.provider)
    vectors = "deferred"; // loading, or failed at start-up (the heartbeat retries it)
  else if (pendingVectors === 0) vectors = "complete";
  else vectors = endpoint && endpoint.state !== "ok" ? "deferred" : "backfilling";
  return {
    state: emb.state,
    provider: emb.provider,
    ...(emb.model ? { model: emb.model } : {}),
    ...(emb.dims ? { dims: emb.dims } : {}),
    ...(emb.reason ? { reason: emb.reason } : {}),
    ...(emb.warning ? { warning: emb.warning } : {}),
    ...(endpoint ? { endpoint } : {}),
    pendingVectors,
    vectors,
  };
}

/** The `cortex.status` payload: the gateway shape plus cortexd's own diagnostics. */
export function buildStatus(s: StatusSources): CortexStatus {
  const now = s.now ?? Date.now();
  const workspaces = workspaceStatuses(s.engine, s.queue, s.gitSync, s.topEntities);
  const embedding = embeddingStatus(s.engine, workspaces);
  const healthy =
    embedding.state !== "error" &&
    !embedding.warning &&
    embedding.endpoint?.state !== "gated" &&
    workspaces.every((w) => !w.lastError) &&
    // An unresolved git merge in a memory file, or a scheduled git sync that stopped, waits for a person.
    workspaces.every((w) => !w.conflicts?.files.length && w.gitSync?.state !== "stopped") &&
    (s.watcher.mode !== "off" || s.engine.config.daemon.watch === "off") &&
    (s.heartbeats?.at(-1)?.db ?? true);
  return {
    version: s.version,
    healthy,
    knowledgeState: knowledgeState(s.engine, s.lastHeartbeat),
    recallMetrics: s.recall.summary(),
    retryQueuePending: workspaces.reduce((n, w) => n + w.dirty, 0),
    config: {
      autoRecall: true,
      autoCapture: true,
      fileSync: s.engine.config.daemon.watch !== "off",
      transcriptSync: true,
      namespace: s.engine.workspaces[0]?.name ?? null,
      namespaces: s.engine.workspaces.map((w) => w.name),
      configFile: s.engine.configFile,
      dataDir: s.engine.dataDir,
      embeddingProvider: s.engine.config.embedding.provider,
      debounceMs: s.engine.config.daemon.debounceMs,
    },
    pid: process.pid,
    uptimeMs: now - s.startedAt,
    rssBytes: process.memoryUsage.rss(),
    workspaces,
    embedding,
    watcher: s.watcher,
    schedule: s.schedule.map((j) => ({
      name: j.name,
      cron: j.cron,
      lastRun: j.lastRun,
      nextRun: j.nextRun,
      lastResult: j.lastResult,
    })),
    lastHeartbeat: s.lastHeartbeat ? new Date(s.lastHeartbeat).toISOString() : null,
    ...(s.heartbeats ? { heartbeats: s.heartbeats.slice(-20) } : {}),
    ...(s.consolidation ? { consolidation: s.consolidation } : {}),
    errors: s.errors.slice(-10),
    socketPath: s.socketPath,
    ...(s.hooks ? { hooks: s.hooks } : {}),
  };
}
