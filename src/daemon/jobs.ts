import { consolidate } from "../consolidate/run.js";
import { summarize, type ConsolidationReport } from "../consolidate/report.js";
import { indexPromoted } from "../consolidate/promotion.js";
import type { WorkspaceEngine } from "../engine/engine.js";
import { ReadOnlyIndexError } from "../index/db/open-read-only.js";
import type { HeartbeatResult } from "../rpc/protocol.js";
import type { Daemon } from "./daemon.js";
import { errorMessage } from "../util/error-message.js";

/** Heartbeat results kept for status. */
export const HEARTBEAT_HISTORY = 20;

/**
 * Heartbeat: the DB answers and takes a write (a one-row table), the watcher is in its configured
 * mode (and its event counter is reported), drift between disk and index is found and repaired by
 * a sync and counted, a degraded embedding provider is retried with backoff (once back, the sync
 * backfills the chunks indexed keyword-only). The result goes into a bounded history in status.
 */
export async function runHeartbeat(d: Daemon): Promise<string> {
  const t0 = performance.now();
  const problems: string[] = [];
  let drift = 0;
  let backfilled = 0;
  let db = true;
  const recovered = await d.retryProvider().catch((e) => {
    problems.push(`provider retry failed: ${errorMessage(e)}`);
    return false;
  });
  const modelProblem = await d.checkModelFile().catch((e: unknown) => `model file check failed: ${errorMessage(e)}`);
  if (modelProblem) problems.push(modelProblem);
  for (const ws of d.engine.workspaces) {
    if (ws.readOnly) {
      // The sync below reopens the index read-write if the data dir takes writes again; else it says why not.
      await d.queue.sync(ws).catch((e: unknown) => problems.push(`${ws.name}: ${errorMessage(e)}`));
      if (ws.readOnly) db = false;
      continue;
    }
    try {
      ws.store.upkeep.heartbeat(Date.now());
      ws.store.checkCommits(); // the in-memory copies hear another connection's commit between requests too
    } catch (e) {
      db = false;
      problems.push(`${ws.name}: database not writable: ${errorMessage(e)}`);
      continue;
    }
    try {
      const r = await d.queue.sync(ws);
      drift += r.added + r.changed + r.removed + r.renamed;
      backfilled += r.embedded;
    } catch (e) {
      problems.push(`${ws.name}: sync failed: ${errorMessage(e)}`);
    }
  }
  const w = d.watcherStatus();
  const wanted = d.engine.config.daemon.watch;
  if (wanted !== "off" && w.mode === "off") problems.push(`watcher is off (${w.reason ?? "stopped"})`);
  if (wanted === "auto" && w.mode === "polling")
    problems.push(`watcher fell back to polling (${w.reason ?? "no native events"})`);
  const emb = d.engine.providerStatus;
  const result: HeartbeatResult = {
    at: new Date().toISOString(),
    ms: Math.round(performance.now() - t0),
    ok: db && problems.length === 0,
    db,
    watcher: `${w.mode}, ${w.events} events`,
    drift,
    embedding: recovered ? "recovered" : emb.state,
    backfilled,
    problems,
  };
  d.recordHeartbeat(result);
  const parts = [drift ? `repaired drift in ${drift} files` : "ok"];
  if (recovered) parts.push(`embedding recovered, ${backfilled} chunks backfilled`);
  else if (backfilled) parts.push(`${backfilled} chunks embedded`);
  if (problems.length) parts.push(problems.join("; "));
  return parts.join("; ");
}

/** Consolidation of the given workspaces (default all): see consolidate/run.ts. */
export async function runConsolidation(
  d: Daemon,
  opts: { workspace?: WorkspaceEngine; dryRun?: boolean } = {},
): Promise<ConsolidationReport[]> {
  const reports: ConsolidationReport[] = [];
  for (const ws of opts.workspace ? [opts.workspace] : d.engine.workspaces) {
    try {
      if (ws.readOnly) throw new ReadOnlyIndexError(ws.readOnly);
      const r = await consolidate(ws, {
        dryRun: opts.dryRun ?? false,
        cacheMax: d.engine.config.cache.maxEntries,
        autoPromote: d.engine.config.schedule.autoPromote,
      });
      // Promoted entries were appended to MEMORY.md: index them.
      if (r.promoted) await indexPromoted((o) => d.queue.sync(ws, o)).catch((e) => d.recordError(e));
      reports.push(r);
    } catch (e) {
      d.recordError(e);
      reports.push({
        workspace: ws.name,
        at: new Date().toISOString(),
        dryRun: opts.dryRun ?? false,
        ms: 0,
        entries: 0,
        withVectors: 0,
        duplicateGroups: 0,
        duplicatesHidden: 0,
        reinforced: 0,
        superseded: 0,
        supersessionExamples: [],
        promotionCandidates: 0,
        promoted: 0,
        maintenance: null,
        timings: {},
        error: errorMessage(e),
      });
    }
  }
  d.lastConsolidation = reports;
  d.compactor.noteWork();
  return reports;
}

/** The nightly job: consolidation + maintenance; the one-line summary shows in status. */
export async function runMaintenance(d: Daemon): Promise<string> {
  const reports = await runConsolidation(d);
  return reports.map(summarize).join("; ");
}
