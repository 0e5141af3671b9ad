/**
 * Files the index passes over (or indexes with a loss) and why: one kind per reason, so status can
 * count them and a log line can name them.
 */
import type { IssueSummary, RepairKind, RepairedFile, SkipKind, SkippedFile } from "../rpc/protocol.js";

export type { IssueSummary, RepairKind, RepairedFile, SkipKind, SkippedFile };

export function summarizeIssues(
  list: readonly { path: string; kind: string; reason: string }[],
  max = 10,
): IssueSummary {
  const byReason: Record<string, number> = {};
  for (const i of list) byReason[i.kind] = (byReason[i.kind] ?? 0) + 1;
  const examples = [...list]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .slice(0, max)
    .map((i) => ({ path: i.path, reason: `${i.kind}: ${i.reason}` }));
  return { total: list.length, byReason, examples };
}

/** "binary 2, too-large 1" (empty string for none). */
export function formatByReason(byReason: Record<string, number>): string {
  return Object.entries(byReason)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
}
