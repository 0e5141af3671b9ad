import type { IndexStore } from "../index/repos/store.js";
import type { TermLookup } from "../index/keyword/term-stats.js";

/**
 * The index as a narrower scope than private may see it, for the relevance decision and its explain:
 * the chunk count and each word's document frequency over the chunks of the visible visibilities
 * only (index/repos/visibility-repo.ts), so a word only a private memory holds has df 0 for a group, as if
 * that memory did not exist. Everything else reads the index as it is.
 */
export function scopedStats(store: IndexStore, visible: readonly string[]): IndexStore {
  const view = Object.create(store) as IndexStore;
  let rows: number | undefined;
  const visibleRows = () => (rows ??= store.visibility.count(visible));
  view.ftsTotals = () => {
    const all = store.ftsTotals();
    const n = visibleRows();
    return { rows: n, tokens: all.rows > 0 ? Math.round((all.tokens * n) / all.rows) : 0 };
  };
  view.termStats = (terms: readonly string[]): TermLookup => {
    const base = store.termStats(terms);
    return {
      ...base,
      chunks: visibleRows(),
      stats: base.stats.map((s) => ({
        ...s,
        df: s.stems.length === 0 ? 0 : store.visibility.df(s.term, visible),
        exact: true,
      })),
    };
  };
  return view;
}

/** Of some chunk ids, those with one of the visibilities. */
export function visibleIds(store: IndexStore, visible: readonly string[]): (ids: number[]) => Set<number> {
  const ok = new Set(visible);
  return (ids) => new Set([...store.visibility.of(ids)].filter(([, v]) => ok.has(v)).map(([id]) => id));
}
