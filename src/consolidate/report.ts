import type { IndexStore } from "../index/repos/store.js";
import type { ConsolidationReport } from "../rpc/protocol.js";

export type { ConsolidationReport };

export const REPORTS_KEPT = 30;

/** One line for status and logs. */
export function summarize(r: ConsolidationReport): string {
  if (r.error) return `${r.workspace}: error: ${r.error}`;
  const m = r.maintenance;
  return (
    `${r.workspace}${r.dryRun ? " (dry run)" : ""}: ${r.duplicateGroups} duplicate groups (${r.duplicatesHidden} hidden), ` +
    `${r.reinforced} reinforced, ${r.superseded} superseded, ${r.promotionCandidates} promotion candidates` +
    (r.promoted ? `, ${r.promoted} promoted` : "") +
    (m ? `; check ${m.quickCheck}, ${m.cachePruned} cache pruned${m.vacuumed ? ", vacuumed" : ""}` : "") +
    ` in ${r.ms} ms`
  );
}

export function saveReport(store: IndexStore, r: ConsolidationReport): void {
  store.records.saveReport({ at: Date.parse(r.at), dryRun: r.dryRun, ms: r.ms, json: JSON.stringify(r) }, REPORTS_KEPT);
}

/** The latest reports, newest first. */
export function loadReports(store: IndexStore, limit = 1): ConsolidationReport[] {
  return store.records.latestReports(limit).map((r) => JSON.parse(r) as ConsolidationReport);
}
