import type { WorkspaceEngine } from "../engine/engine.js";
import { ErrorCodes } from "../rpc/protocol.js";
import { RpcError, type MethodHandlers } from "../rpc/server.js";
import { afterAnswer } from "../rpc/dispatch.js";
import { VERSION } from "../version.js";
import { readMemoryLines } from "./memory-get.js";
import { workspaceStatuses } from "./status.js";
import { createIntegrationHandlers } from "./integration-methods.js";
import { DEFAULT_RECALL_BUDGET, recallLines } from "../search/recall.js";
import { loadReports } from "../consolidate/report.js";
import { applyPromotions, indexPromoted, promotionCandidates } from "../consolidate/promotion.js";
import { errorMessage } from "../util/error-message.js";
import { unusableFileIn } from "../util/unusable-file.js";
import { recallWithShared } from "../search/recall-shared.js";
import { loadedByClaudeCode } from "../workspace/claude-code-loaded.js";
import { WritePathRefusedError } from "../memory-files/write-path.js";
import { ReadAudit, scopeOf, visibleIn } from "./scoped-reads.js";
import type { MethodDeps } from "./method-deps.js";
import { pickSessionWorkspace, pickWorkspace } from "./pick-workspace.js";
import { indexHistory } from "./index-history.js";

/** Runs a read of the index; a damage SQLite reports on the way is recovered from (moved aside, rebuilt) and answered clearly. */
async function whileSound<T>(d: MethodDeps, ws: WorkspaceEngine, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!d.queue.damaged(ws, e)) throw e;
    throw new RpcError(
      ErrorCodes.InternalError,
      `the index of workspace ${ws.name} was damaged (${errorMessage(e)}): it was moved aside and is being rebuilt from the memory files; try again shortly`,
    );
  }
}

/** The JSON-RPC method bodies; params arrive validated (see rpc/protocol.ts). */
export function createHandlers(d: MethodDeps): MethodHandlers {
  // Every recall/search answer is recorded (audit/), with who may see each memory (visibility/).
  const audit = new ReadAudit(d.engine);
  return {
    ...createIntegrationHandlers(d, audit),
    "memory.search": async (p, ctx) => {
      const ws = pickWorkspace(d.engine, p.workspace);
      const t0 = performance.now();
      const scope = scopeOf(p);
      const visible = visibleIn(ws, scope);
      const res = await whileSound(d, ws, () =>
        ws.searcher.search({
          query: p.query,
          ...(p.limit !== undefined ? { limit: p.limit } : {}),
          ...(p.minScore !== undefined ? { minScore: p.minScore } : {}),
          explain: p.explain ?? false,
          ...(p.timings ? { timings: true } : {}),
          ...(visible ? { visible } : {}),
        }),
      );
      d.searchLatency.record(performance.now() - t0);
      afterAnswer(ctx, () => audit.search(ws, scope, p, res));
      return res;
    },
    "memory.recall": async (p, ctx) => {
      const ws = pickSessionWorkspace(d.engine, p);
      const t0 = performance.now();
      const budget = p.budgetTokens ?? DEFAULT_RECALL_BUDGET;
      // A personal workspace's recall also brings in the team's (shared) workspaces, each labelled.
      const shared = d.engine.workspaces.filter((w) => w.shared && w !== ws);
      const hostHas = p.host === "claude-code" && p.cwd ? loadedByClaudeCode(p.cwd) : undefined;
      const scope = scopeOf(p);
      const res = await whileSound(d, ws, () =>
        recallWithShared(ws, shared, budget, (w) =>
          recallLines(w.searcher, w.store, {
            query: p.query,
            budgetTokens: budget,
            // A team's workspace has nothing private: its MEMORY.md is not private scope.
            ...(p.scope && !w.shared ? { scope: p.scope } : {}),
            ...(visibleIn(w, scope) ? { visible: visibleIn(w, scope)! } : {}),
            ...(p.limit !== undefined ? { limit: p.limit } : {}),
            ...(p.includeHistory ? { includeHistory: true } : {}),
            ...(p.excludeCurated ? { excludeCurated: true } : {}),
            ...(p.sources ? { sources: p.sources } : {}),
            ...(hostHas ? { excludePath: hostHas } : {}),
            ...(p.timings ? { timings: true } : {}),
            ...(p.explain ? { explain: true } : {}),
            ...(p.referenceDate ? { referenceDate: p.referenceDate } : {}),
            ...(w.shared ? { workspaceLabel: w.name } : {}),
            config: d.engine.config.recall,
          }),
        ),
      );
      d.searchLatency.record(performance.now() - t0, "recall");
      // The audit line (each memory's visibility read, the line appended) is written once the answer is.
      afterAnswer(ctx, () => audit.recall(ws, scope, p, res));
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
      for (const ws of targets)
        out.push({ workspace: ws.name, candidates: await promotionCandidates(ws.store, ws.root) });
      return out;
    },
    "promote.apply": async (p) => {
      const targets = p.workspace ? [pickWorkspace(d.engine, p.workspace)] : d.engine.workspaces;
      const out = [];
      for (const ws of targets) {
        const r = await applyPromotions(ws.store, ws.root).catch((e: unknown) => {
          if (e instanceof WritePathRefusedError)
            throw new RpcError(ErrorCodes.PathRefused, e.message, { path: e.path, link: e.link });
          throw e;
        });
        if (r.applied) await indexPromoted((o) => d.queue.sync(ws, o)).catch(() => {});
        out.push({ workspace: ws.name, ...r });
      }
      return out;
    },
    "memory.get": (p) => readMemoryLines(pickWorkspace(d.engine, p.workspace), p.path, p.from, p.lines, scopeOf(p)),
    "audit.tail": (p) => audit.tail(p),
    "index.sync": async (p) => {
      const targets = p.workspace || p.path ? [pickWorkspace(d.engine, p.workspace)] : d.engine.workspaces;
      const reports = [];
      for (const ws of targets)
        reports.push(await d.queue.sync(ws, { ...(p.path ? { paths: [p.path] } : {}), force: p.force ?? false }));
      return { reports };
    },
    "index.status": (p) => {
      const all = workspaceStatuses(d.engine, d.queue, d.gitSync);
      return {
        workspaces: p.workspace ? all.filter((w) => w.name === pickWorkspace(d.engine, p.workspace).name) : all,
      };
    },
    "index.history": (p) => {
      const ws = pickWorkspace(d.engine, p.workspace);
      return indexHistory(ws, visibleIn(ws, scopeOf(p)), p);
    },
    "sync.git": async (p) => {
      const git = d.gitSync;
      const syncing = d.engine.workspaces.filter((ws) => git?.status(ws.name));
      const targets = p.workspace ? [pickWorkspace(d.engine, p.workspace)] : syncing;
      const off = targets.find((ws) => !syncing.includes(ws));
      if (!git || targets.length === 0 || off) {
        throw new RpcError(
          ErrorCodes.InvalidParams,
          `${off ? `workspace ${off.name} has` : "no workspace has"} no git sync: give it "sync": { "git": "*/10 * * * *" } in the config (docs/multi-device.md)`,
        );
      }
      const out = [];
      for (const ws of targets) {
        await git.run(ws);
        out.push({ workspace: ws.name, gitSync: git.status(ws.name)! });
      }
      return out;
    },
    "cortex.status": () => ({ ...d.status(), audit: audit.log.state() }),
    "console.open": () => {
      if (!d.openConsole) throw new RpcError(ErrorCodes.InternalError, "the console is not available in this process");
      return d.openConsole();
    },
    "daemon.ping": () => ({ pong: true, version: VERSION, pid: process.pid, uptimeMs: Date.now() - d.startedAt }),
    "daemon.reload": () => {
      try {
        return d.reload();
      } catch (e) {
        const code = unusableFileIn(e) ? ErrorCodes.UnusableFile : ErrorCodes.InvalidParams;
        throw new RpcError(code, `config not reloaded: ${errorMessage(e)}`);
      }
    },
    "daemon.shutdown": () => {
      setImmediate(d.shutdown);
      return { ok: true };
    },
  };
}
