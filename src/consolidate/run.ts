import type { IndexStore } from "../index/repos/store.js";
import { groupDuplicates, similarPairs } from "./duplicates.js";
import { loadDailyEntries } from "./entries.js";
import { maintain } from "./maintenance.js";
import { applyPromotions, promotionCandidates } from "./promotion.js";
import { saveReport, type ConsolidationReport } from "./report.js";
import { writeTables, type ConsolidationTables } from "./state.js";
import { findSupersessions } from "./supersession.js";

export interface ConsolidateTarget {
  name: string;
  root: string;
  store: IndexStore;
}

export interface ConsolidateOptions {
  dryRun?: boolean;
  /** Embedding-cache cap (config cache.maxEntries). */
  cacheMax: number;
  /** Append promotion candidates to MEMORY.md (opt-in config consolidation.autoPromote). */
  autoPromote?: boolean;
  now?: number;
}

/**
 * One consolidation run over a workspace: duplicate groups and reinforcement (vector cosine),
 * supersession (see supersession.ts), promotion candidates (applied only when opted in),
 * maintenance. Index-only: every write is a transaction, so a run killed at any point leaves the
 * previous consistent state; only promotion touches a file (append after a backup). A dry run
 * computes everything and writes nothing but its report.
 */
export async function consolidate(ws: ConsolidateTarget, opts: ConsolidateOptions): Promise<ConsolidationReport> {
  const t0 = performance.now();
  const now = opts.now ?? Date.now();
  const timings: Record<string, number> = {};
  let lap = performance.now();
  const mark = (name: string) => {
    const t = performance.now();
    timings[name] = Math.round(t - lap);
    lap = t;
  };
  const store = ws.store;
  const entries = await loadDailyEntries(store);
  mark("load");
  const { pairs, reinforcement } = await similarPairs(entries);
  mark("similarity");
  const groups = await groupDuplicates(entries, pairs);
  mark("duplicates");
  const sups = await findSupersessions(entries);
  mark("supersession");
  const tables: ConsolidationTables = { duplicates: [], reinforcement: [], supersessions: [] };
  for (const g of groups) {
    const c = entries[g.canonical]!;
    const info = {
      canonicalHash: c.hash,
      canonicalPath: c.path,
      canonicalStart: c.startLine,
      canonicalEnd: c.endLine,
      size: g.members.length,
    };
    for (const m of g.members) tables.duplicates.push({ hash: entries[m]!.hash, info });
  }
  for (const [i, count] of reinforcement) tables.reinforcement.push({ hash: entries[i]!.hash, count });
  for (const s of sups) {
    const n = entries[s.newer]!;
    tables.supersessions.push({
      hash: entries[s.older]!.hash,
      info: { byHash: n.hash, byPath: n.path, byStart: n.startLine, validTo: n.date, reason: s.reason },
    });
  }
  if (!opts.dryRun) writeTables(store, tables);
  mark("write");
  let promoted = 0;
  let backup: string | undefined;
  let candidates: number;
  if (opts.autoPromote && !opts.dryRun) {
    const r = await applyPromotions(store, ws.root, now);
    promoted = r.applied;
    candidates = r.candidates.length;
    backup = r.backup;
  } else {
    candidates = (await promotionCandidates(store, ws.root, now)).length;
  }
  mark("promotion");
  const maintenance = await maintain(store, { cacheMax: opts.cacheMax, ...(opts.dryRun ? { dryRun: true } : {}) });
  mark("maintenance");
  const report: ConsolidationReport = {
    workspace: ws.name,
    at: new Date(now).toISOString(),
    dryRun: !!opts.dryRun,
    ms: Math.round(performance.now() - t0),
    entries: entries.length,
    withVectors: entries.filter((e) => e.vector).length,
    duplicateGroups: groups.length,
    duplicatesHidden: groups.reduce((n, g) => n + g.members.length - 1, 0),
    reinforced: reinforcement.size,
    superseded: sups.length,
    supersessionExamples: sups
      .slice(0, 5)
      .map(
        (s) =>
          `${entries[s.older]!.path}:${entries[s.older]!.startLine} → ${entries[s.newer]!.path}:${entries[s.newer]!.startLine}: ${s.reason}`,
      ),
    promotionCandidates: candidates,
    promoted,
    ...(backup ? { backup } : {}),
    maintenance,
    timings,
  };
  saveReport(store, report);
  return report;
}
