import type { Engine, WorkspaceEngine } from "../engine/engine.js";
import { ErrorCodes } from "../rpc/protocol.js";
import { RpcError, type MethodHandlers } from "../rpc/server.js";
import { VERSION } from "../version.js";
import type { LatencyWindow } from "./latency.js";
import { readMemoryLines } from "./memory-get.js";
import type { SyncQueue } from "./sync-queue.js";
import { workspaceStatuses } from "./status.js";
import { createIntegrationHandlers } from "./integration-methods.js";
import { recall } from "../search/recall.js";
import type { CortexStatus } from "../rpc/protocol.js";
import type { ConsolidationReport } from "../consolidate/report.js";
import { loadReports } from "../consolidate/report.js";
import { applyPromotions, promotionCandidates } from "../consolidate/promotion.js";
import { errorMessage } from "../util/error-message.js";
import { WritePathRefusedError } from "../memory-files/write-path.js";

export interface MethodDeps {
  engine: Engine;
  queue: SyncQueue;
  searchLatency: LatencyWindow;
  startedAt: number;
  status: () => CortexStatus;
  /** Re-reads the config file. */
  reload: () => { applied: string[]; restartNeeded: string[] };
  /** Begins a graceful shutdown (after the reply is sent). */
  shutdown: () => void;
  /** Runs consolidation now (optionally one workspace). */
  consolidate?: (opts: { workspace?: WorkspaceEngine; dryRun: boolean }) => Promise<ConsolidationReport[]>;
}

export function pickWorkspace(engine: Engine, selector: string | undefined): WorkspaceEngine {
  try {
    return engine.workspace(selector);
  } catch (e) {
    throw new RpcError(ErrorCodes.UnknownWorkspace, errorMessage(e));
  }
}

/** Runs a read of the index; a damage SQLite reports on the way is recovered from (moved aside, rebuilt) and answered clearly. */
async function whileSound<T>(d: MethodDeps, ws: WorkspaceEngine, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!d.queue.damaged(ws, e)) throw e;
    throw new RpcError(ErrorCodes.InternalError, `the index of workspace ${ws.name} was damaged (${errorMessage(e)}): it was moved aside and is being rebuilt from the memory files; try again shortly`);
  }
}

/** The JSON-RPC method bodies; params arrive validated (see rpc/protocol.ts). */
export function createHandlers(d: MethodDeps): MethodHandlers {
  return {
    ...createIntegrationHandlers(d),
    "memory.search": async (p) => {
      const ws = pickWorkspace(d.engine, p.workspace);
      const t0 = performance.now();
      const res = await whileSound(d, ws, () => ws.searcher.search({
        query: p.query,
        ...(p.limit !== undefined ? { limit: p.limit } : {}),
        ...(p.minScore !== undefined ? { minScore: p.minScore } : {}),
        explain: p.explain ?? false,
      }));
      d.searchLatency.record(performance.now() - t0);
      return res;
    },
    "memory.recall": async (p) => {
      const ws = pickWorkspace(d.engine, p.workspace);
      const t0 = performance.now();
      const res = await whileSound(d, ws, () => recall(ws.searcher, ws.store, {
        query: p.query,
        ...(p.budgetTokens !== undefined ? { budgetTokens: p.budgetTokens } : {}),
        ...(p.scope ? { scope: p.scope } : {}),
        ...(p.limit !== undefined ? { limit: p.limit } : {}),
        ...(p.includeHistory ? { includeHistory: true } : {}),
      }));
      d.searchLatency.record(performance.now() - t0);
      return res;
    },
    "consolidate.run": async (p) => {
      if (!d.consolidate) throw new RpcError(ErrorCodes.InternalError, "consolidation is not available");
      const ws = p.workspace ? pickWorkspace(d.engine, p.workspace) : undefined;
      return { reports: await d.consolidate({ ...(ws ? { workspace: ws } : {}), dryRun: p.dryRun ?? false }) };
    },
    "consolidate.report": (p) => {
      const targets = p.workspace ? [pickWorkspace(d.engine, p.workspace)] : d.engine.workspaces;
      return { reports: targets.flatMap((ws) => loadReports(ws.store, p.limit ?? 1)) };
    },
    "promote.list": async (p) => {
      const targets = p.workspace ? [pickWorkspace(d.engine, p.workspace)] : d.engine.workspaces;
      const out = [];
      for (const ws of targets) out.push({ workspace: ws.name, candidates: await promotionCandidates(ws.store, ws.root) });
      return out;
    },
    "promote.apply": async (p) => {
      const targets = p.workspace ? [pickWorkspace(d.engine, p.workspace)] : d.engine.workspaces;
      const out = [];
      for (const ws of targets) {
        const r = await applyPromotions(ws.store, ws.root).catch((e: unknown) => {
          if (e instanceof WritePathRefusedError) throw new RpcError(ErrorCodes.PathRefused, e.message, { path: e.path, link: e.link });
          throw e;
        });
        // Index the appended entries now (the watcher would too, later).
        if (r.applied) await d.queue.sync(ws, { paths: ["MEMORY.md"] }).catch(() => {});
        out.push({ workspace: ws.name, ...r });
      }
      return out;
    },
    "memory.get": (p) => readMemoryLines(pickWorkspace(d.engine, p.workspace), p.path, p.from, p.lines),
    "index.sync": async (p) => {
      const targets = p.workspace || p.path ? [pickWorkspace(d.engine, p.workspace)] : d.engine.workspaces;
      const reports = [];
      for (const ws of targets) reports.push(await d.queue.sync(ws, { ...(p.path ? { paths: [p.path] } : {}), force: p.force ?? false }));
      return { reports };
    },
    "index.status": (p) => {
      const all = workspaceStatuses(d.engine, d.queue);
      return { workspaces: p.workspace ? all.filter((w) => w.name === pickWorkspace(d.engine, p.workspace).name) : all };
    },
    "cortex.status": () => d.status(),
    "daemon.ping": () => ({ pong: true, version: VERSION, pid: process.pid, uptimeMs: Date.now() - d.startedAt }),
    "daemon.reload": () => {
      try {
        return d.reload();
      } catch (e) {
        throw new RpcError(ErrorCodes.InvalidParams, `config not reloaded: ${errorMessage(e)}`);
      }
    },
    "daemon.shutdown": () => {
      setImmediate(d.shutdown);
      return { ok: true };
    },
  };
}
