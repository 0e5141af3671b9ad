/**
 * The progress bar's ETA, from the rate since the phase started: "…" until there is a rate to go
 * by (the first second, or nothing done yet), never more done than the total, never NaN or Infinity.
 */
export function formatEta(done: number, total: number, elapsedMs: number): string {
  const d = Math.min(Math.max(done, 0), total);
  if (d >= total) return "0s";
  if (d === 0 || elapsedMs < 1000) return "…";
  const s = Math.ceil(((total - d) * elapsedMs) / d / 1000);
  if (!Number.isFinite(s)) return "…";
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
