/**
 * Files the index passes over (or indexes with a loss) and why: one kind per reason, so status can
 * count them and a log line can name them.
 */

export type SkipKind =
  /** Larger than the indexer's maxFileBytes. */
  | "too-large"
  /** NUL bytes, or mostly bytes that are not UTF-8. */
  | "binary"
  /** Could not be read (permissions, I/O error, a directory that cannot be listed). */
  | "unreadable"
  /** Listed by the scan, gone (or replaced) before it was read. */
  | "vanished"
  /** A symlink whose target is outside the tree it was found in. */
  | "symlink-outside"
  /** A symlink to nothing, or a symlink loop. */
  | "broken-symlink"
  /** A configured transcript dir or extra path that does not exist. */
  | "missing";

/** Files indexed with something changed or left out. */
export type RepairKind =
  /** Invalid UTF-8 sequences were replaced by U+FFFD. */
  "invalid-utf8";

export interface SkippedFile {
  path: string;
  kind: SkipKind;
  /** Human-readable detail ("larger than 67108864 bytes", "unreadable: EACCES"). */
  reason: string;
}

export interface RepairedFile {
  path: string;
  kind: RepairKind;
  reason: string;
}

/** What status shows for a list of skipped or repaired files: counts by kind and a few examples. */
export interface IssueSummary {
  total: number;
  byReason: Record<string, number>;
  /** Up to `max` of them, sorted by path. */
  examples: { path: string; reason: string }[];
}

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
