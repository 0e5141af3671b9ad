import type { RecentSave } from "../session/state.js";

/** The Cortex plugin's save dedupe: same words (overlap ≥ 0.7) within 30 minutes. */
export const DEDUPE_WINDOW_MS = 30 * 60_000;
export const DEDUPE_THRESHOLD = 0.7;

export function wordSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/**
 * How much of a new text a recent one already says: |new ∩ old| / |new| (words, case-folded).
 * A new text that adds little to a recent save is a duplicate; a longer text that adds to it is
 * not. Texts of one or two words must match exactly.
 */
export function wordOverlap(fresh: Set<string>, old: Set<string>): number {
  if (fresh.size === 0) return old.size === 0 ? 1 : 0;
  let n = 0;
  for (const w of fresh) if (old.has(w)) n++;
  if (fresh.size < 3) return n === fresh.size && old.size === fresh.size ? 1 : 0;
  return n / fresh.size;
}

/** The most recent save within the window that this text duplicates, if any. */
export function findDuplicate(
  recent: readonly RecentSave[],
  text: string,
  now: number,
  opts: { windowMs?: number; threshold?: number; kind?: RecentSave["kind"] } = {},
): RecentSave | undefined {
  const checkpoint = opts.kind === "checkpoint";
  const windowMs = opts.windowMs ?? DEDUPE_WINDOW_MS;
  const threshold = opts.threshold ?? DEDUPE_THRESHOLD;
  const words = wordSet(text);
  for (let i = recent.length - 1; i >= 0; i--) {
    const r = recent[i]!;
    if (now - r.at >= windowMs) continue;
    if ((r.kind === "checkpoint") !== checkpoint) continue;
    if (wordOverlap(words, wordSet(r.text)) >= threshold) return r;
  }
  return undefined;
}
