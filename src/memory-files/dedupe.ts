import type { RecentSave } from "../session/state.js";

/** The Cortex plugin's save dedupe: same words (overlap ≥ 0.7) within 30 minutes. */
export const DEDUPE_WINDOW_MS = 30 * 60_000;
export const DEDUPE_THRESHOLD = 0.7;

export function wordSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/**
 * |A∩B| / max(|A|,|B|): near 1 only when both texts say nearly the same thing (a short note is
 * not a duplicate of a long one that happens to contain its words).
 */
export function wordOverlap(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  if (a.size === 0 || b.size === 0) return 0;
  let n = 0;
  for (const w of a) if (b.has(w)) n++;
  return n / Math.max(a.size, b.size);
}

/** The most recent save within the window that this text duplicates, if any. */
export function findDuplicate(
  recent: readonly RecentSave[],
  text: string,
  now: number,
  opts: { windowMs?: number; threshold?: number } = {},
): RecentSave | undefined {
  const windowMs = opts.windowMs ?? DEDUPE_WINDOW_MS;
  const threshold = opts.threshold ?? DEDUPE_THRESHOLD;
  const words = wordSet(text);
  for (let i = recent.length - 1; i >= 0; i--) {
    const r = recent[i]!;
    if (now - r.at >= windowMs) continue;
    if (wordOverlap(words, wordSet(r.text)) >= threshold) return r;
  }
  return undefined;
}
