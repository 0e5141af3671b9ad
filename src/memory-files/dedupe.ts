import type { RecentSave } from "../session/state.js";
import { lowerWords } from "../util/word-chars.js";

/**
 * The Cortex plugin's save dedupe: same words (overlap ≥ 0.7) within 30 minutes. A captured turn is
 * compared on its request as well: two different requests that got the same answer ("Noted.", a
 * repeated summary) are two memories, not one.
 */
export const DEDUPE_WINDOW_MS = 30 * 60_000;
export const DEDUPE_THRESHOLD = 0.7;

export function wordSet(text: string): Set<string> {
  return new Set(lowerWords(text));
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

/**
 * An inverted index (word → positions) over a recent-saves array, built as the array grows (saves
 * are only appended between prunes; a new array gets a new index): a lookup touches only the saves
 * sharing a word with the new text, and each save's words are computed once, not at every lookup.
 */
class DedupeIndex {
  readonly postings = new Map<string, number[]>();
  readonly sizes: number[] = [];
  readonly empty: number[] = [];
  count = 0;

  catchUp(recent: readonly RecentSave[]): void {
    for (; this.count < recent.length; this.count++) {
      const words = wordSet(recent[this.count]!.text);
      this.sizes.push(words.size);
      if (words.size === 0) this.empty.push(this.count);
      for (const w of words) {
        const list = this.postings.get(w);
        if (list) list.push(this.count);
        else this.postings.set(w, [this.count]);
      }
    }
  }
}

const indexes = new WeakMap<readonly RecentSave[], DedupeIndex>();

/** The most recent save within the window that this text duplicates, if any (wordOverlap ≥ threshold). */
export function findDuplicate(
  recent: readonly RecentSave[],
  text: string,
  now: number,
  opts: { windowMs?: number; threshold?: number; kind?: RecentSave["kind"]; lead?: string } = {},
): RecentSave | undefined {
  const checkpoint = opts.kind === "checkpoint";
  const windowMs = opts.windowMs ?? DEDUPE_WINDOW_MS;
  const threshold = opts.threshold ?? DEDUPE_THRESHOLD;
  let index = indexes.get(recent);
  if (!index) indexes.set(recent, (index = new DedupeIndex()));
  index.catchUp(recent);
  const words = wordSet(text);
  const lead = opts.lead !== undefined ? wordSet(opts.lead) : undefined;
  const shared = new Map<number, number>();
  for (const w of words) for (const i of index.postings.get(w) ?? []) shared.set(i, (shared.get(i) ?? 0) + 1);
  let best = -1;
  const consider = (i: number, n: number) => {
    if (i <= best) return;
    const r = recent[i]!;
    if (now - r.at >= windowMs || (r.kind === "checkpoint") !== checkpoint) return;
    const size = index.sizes[i]!;
    const overlap =
      words.size === 0
        ? size === 0
          ? 1
          : 0
        : words.size < 3
          ? n === words.size && size === words.size
            ? 1
            : 0
          : n / words.size;
    if (overlap < threshold) return;
    if (lead && typeof r.lead === "string" && wordOverlap(lead, wordSet(r.lead)) < threshold) return;
    best = i;
  };
  if (words.size === 0) for (const i of index.empty) consider(i, 0);
  for (const [i, n] of shared) consider(i, n);
  return best >= 0 ? recent[best] : undefined;
}
