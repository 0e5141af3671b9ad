/**
 * The moment a recall is "as of": its `referenceDate` (a day counts from its noon UTC, as a daily
 * log's date does in the recency stage; an ISO date-time as written), else the clock. Recency and
 * supersession both count from it.
 */
export function referenceTime(referenceDate: string | undefined, now: () => number = Date.now): number {
  if (!referenceDate) return now();
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(referenceDate) ? `${referenceDate}T12:00:00Z` : referenceDate);
  return Number.isNaN(t) ? now() : t;
}
