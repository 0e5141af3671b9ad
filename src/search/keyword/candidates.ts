import type { KeywordHit } from "../../index/bm25.js";
import type { KeywordStore } from "./store.js";
import { RECENT_WINDOW } from "./budget.js";
import { buildKeywordQuery } from "./query.js";

/**
 * The large-index fallback when no common word has an impact-ordered list: candidates from the rare
 * words by FTS5 bm25 ("rare"), or the newest chunks holding all the words, then any ("recent"), each
 * ranked by `rank` (BM25 over every word, computed on the text).
 */
export function rescoredCandidates(
  store: KeywordStore,
  plan: { kind: "rare" | "recent"; terms: readonly string[] },
  k: number,
  rank: (text: string) => number,
): KeywordHit[] {
  const match = buildKeywordQuery(plan.terms.join(" "), { keepStopWords: true }).match!;
  let found: KeywordHit[];
  if (plan.kind === "rare") found = store.keywordSearch(match, Math.max(4 * k, 100));
  else {
    found =
      plan.terms.length > 1 ? store.keywordSearch(match.split(" OR ").join(" AND "), RECENT_WINDOW, "recent") : [];
    if (found.length < RECENT_WINDOW) {
      const seen = new Set(found.map((h) => h.id));
      found.push(
        ...store
          .keywordSearch(match, RECENT_WINDOW, "recent")
          .filter((h) => !seen.has(h.id))
          .slice(0, RECENT_WINDOW - found.length),
      );
    }
  }
  const texts = store.chunkTexts(found.map((h) => h.id));
  return found
    .map((h) => ({ id: h.id, rank: rank(texts.get(h.id) ?? "") }))
    .filter((h) => h.rank < 0)
    .sort((a, b) => a.rank - b.rank || a.id - b.id)
    .slice(0, k);
}
