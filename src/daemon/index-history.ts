import type { WorkspaceEngine } from "../engine/engine.js";
import type { HistoryDay } from "../index/repos/index-history.js";
import type { HistoryPeriod, IndexHistoryResult, KindCounts } from "../rpc/protocol.js";

/**
 * `index.history`: the index over time for the console's Overview — the files and chunks of each kind
 * by the date of their memories (a daily log's own date, a transcript's first message, otherwise the
 * file's last change), per day or month. The newest `limit` periods are listed, gaps as zeros; what is
 * older is summed into `before`, so the answer is small whatever the index holds.
 */

export const DEFAULT_HISTORY_PERIODS = { day: 60, month: 24 } as const;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

const zero = (): KindCounts => ({ curated: 0, daily: 0, note: 0, transcript: 0 });

/** The n periods ending with `newest`, oldest first. */
function periodsEndingAt(newest: string, n: number, by: "day" | "month"): string[] {
  const [y, m, d] = newest.split("-").map(Number) as [number, number, number?];
  if (by === "day") {
    const end = Date.UTC(y, m - 1, d);
    return Array.from({ length: n }, (_, i) => new Date(end - (n - 1 - i) * DAY_MS).toISOString().slice(0, 10));
  }
  const end = y * 12 + (m - 1);
  return Array.from({ length: n }, (_, i) => {
    const k = end - (n - 1 - i);
    return `${String(Math.floor(k / 12)).padStart(4, "0")}-${String((k % 12) + 1).padStart(2, "0")}`;
  });
}

function add(into: { files: KindCounts; chunks: KindCounts }, r: HistoryDay): void {
  if (!Object.hasOwn(into.files, r.class)) return; // a kind this version does not know
  into.files[r.class] += r.files;
  into.chunks[r.class] += r.chunks;
}

/** Buckets per-day rows (oldest first) into the newest `limit` days or months. */
export function historyPeriods(
  rows: readonly HistoryDay[],
  by: "day" | "month",
  limit: number,
): Omit<IndexHistoryResult, "workspace"> {
  const len = by === "day" ? 10 : 7;
  const before = { files: zero(), chunks: zero() };
  const total = { files: 0, chunks: 0 };
  const dated: (HistoryDay & { day: string })[] = [];
  for (const r of rows) {
    total.files += r.files;
    total.chunks += r.chunks;
    if (r.day !== null && DAY.test(r.day)) dated.push(r as HistoryDay & { day: string });
    else add(before, r); // no usable date (a file time SQLite cannot show)
  }
  const newest = dated.at(-1)?.day.slice(0, len);
  if (!newest) return { by, periods: [], before, total };
  const oldest = dated[0]!.day.slice(0, len);
  let names = periodsEndingAt(newest, limit, by);
  const first = names.findIndex((p) => p >= oldest);
  if (first > 0) names = names.slice(first);
  const periods = new Map<string, HistoryPeriod>(names.map((p) => [p, { period: p, files: zero(), chunks: zero() }]));
  for (const r of dated) {
    const p = periods.get(r.day.slice(0, len));
    add(p ?? before, r);
  }
  return { by, periods: [...periods.values()], before, total };
}

export function indexHistory(
  ws: WorkspaceEngine,
  visible: readonly string[] | undefined,
  p: { by?: "day" | "month" | undefined; limit?: number | undefined },
): IndexHistoryResult {
  const by = p.by ?? "month";
  return {
    workspace: ws.name,
    ...historyPeriods(ws.store.history.byDay(visible), by, p.limit ?? DEFAULT_HISTORY_PERIODS[by]),
  };
}
