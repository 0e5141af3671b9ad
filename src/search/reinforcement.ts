import type { AnnotatedHit } from "../consolidate/annotate.js";
import type { SlotRow } from "../index/repos/facts-repo.js";

/** Score factor per doubling of how often a memory's fact was stated. */
export const REINFORCEMENT_STEP = 0.1;
/** Statements counted at most (a fact said 16 times is not 4× more true than one said 4 times). */
const MAX_TIMES = 16;

/**
 * How often each statement's value was stated (as of `asOf`): for a statement of an (entity, class)
 * slot, the statements of that slot up to then stating one of its values — itself included.
 * Keyed by `path:line`.
 */
export function restatements(chains: Iterable<readonly SlotRow[]>, asOf: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const chain of chains) {
    const known = chain.filter((r) => (r.at ?? -Infinity) <= asOf && r.news.length > 0);
    for (const r of known) {
      const n = new Set(known.filter((o) => o.news.some((v) => r.news.includes(v))).map((o) => o.statement)).size;
      const place = `${r.path}:${r.line}`;
      out.set(place, Math.max(out.get(place) ?? 0, n));
    }
  }
  return out;
}

/** How many times a memory's fact was stated: its statements' restatements and consolidation's counts. */
export function timesStated(hit: AnnotatedHit, stated: number): number {
  const copies = Math.max(0, (hit.duplicates ?? 1) - 1) + (hit.reinforced ?? 0);
  return Math.min(MAX_TIMES, Math.max(1, stated) + copies);
}

/**
 * Reinforcement: a memory stated n times ranks as if its score were × (1 + 0.1 · log2 n) — twice
 * +10%, four times +20%, capped at 16 — so a fact said again and again ranks above one said once
 * at a similar score, never above a much better match. Stable: memories said once keep their order.
 */
export function reinforcedOrder<T extends { hit: AnnotatedHit; times: number }>(items: readonly T[]): T[] {
  if (items.every((i) => i.times <= 1)) return [...items];
  const key = (i: T) => i.hit.score * (1 + REINFORCEMENT_STEP * Math.log2(i.times));
  return items
    .map((item, i) => ({ item, i, k: key(item) }))
    .sort((a, b) => b.k - a.k || a.i - b.i)
    .map((x) => x.item);
}
