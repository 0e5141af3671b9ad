/**
 * Pure retrieval metrics over ranked result texts and a set of evidence ids.
 *
 * Evidence id E is found in a text when the text contains the literal marker `[E]`; the closing
 * bracket keeps `[D1:1]` from matching `[D1:10]`. Ranks are 1-based. Nothing here knows about
 * the engine: inputs are plain strings.
 */

/** The ks reported for hit@k and recall@k. */
export const KS = [1, 5, 10, 20] as const;
export type K = (typeof KS)[number];

/** 2,000 tokens ≈ 8,000 characters: the headline context budget. */
export const DEFAULT_BUDGET_CHARS = 8000;

/** The literal marker of an evidence id. */
export function marker(id: string): string {
  return `[${id}]`;
}

/** The evidence ids whose marker occurs in `text`. */
export function evidenceIn(text: string, evidence: readonly string[]): string[] {
  return evidence.filter((id) => text.includes(marker(id)));
}

/** True when `text` holds the marker of at least one evidence id. */
export function isHit(text: string, evidence: readonly string[]): boolean {
  return evidence.some((id) => text.includes(marker(id)));
}

/** 1-based rank of the first result holding any evidence marker, or null. */
export function firstHitRank(texts: readonly string[], evidence: readonly string[]): number | null {
  const i = texts.findIndex((t) => isHit(t, evidence));
  return i < 0 ? null : i + 1;
}

/** 1 when any of the first k results holds an evidence marker, else 0. */
export function hitAtK(texts: readonly string[], evidence: readonly string[], k: number): number {
  const r = firstHitRank(texts.slice(0, k), evidence);
  return r === null ? 0 : 1;
}

/** Fraction of distinct evidence ids whose marker occurs in the given texts (0 for no evidence). */
export function recallOf(texts: readonly string[], evidence: readonly string[]): number {
  const ids = [...new Set(evidence)];
  if (ids.length === 0) return 0;
  const found = new Set<string>();
  for (const t of texts) for (const id of evidenceIn(t, ids)) found.add(id);
  return found.size / ids.length;
}

/** Evidence recall within the first k results. */
export function recallAtK(texts: readonly string[], evidence: readonly string[], k: number): number {
  return recallOf(texts.slice(0, k), evidence);
}

/** Reciprocal rank of the first hit (0 when no result is a hit). */
export function reciprocalRank(texts: readonly string[], evidence: readonly string[]): number {
  const r = firstHitRank(texts, evidence);
  return r === null ? 0 : 1 / r;
}

/**
 * The texts a budgeted recall would inject: results in rank order until `budgetChars` characters
 * are used, the last one truncated to what is left. Separators are not counted.
 */
export function budgetTexts(texts: readonly string[], budgetChars: number): string[] {
  const out: string[] = [];
  let left = Math.max(0, Math.floor(budgetChars));
  for (const t of texts) {
    if (left <= 0) break;
    const piece = t.length <= left ? t : t.slice(0, left);
    out.push(piece);
    left -= piece.length;
  }
  return out;
}

/** Fraction of evidence ids whose marker made it into the budgeted texts. */
export function budgetedRecall(
  texts: readonly string[],
  evidence: readonly string[],
  budgetChars = DEFAULT_BUDGET_CHARS,
): number {
  return recallOf(budgetTexts(texts, budgetChars), evidence);
}

/** Everything measured for one query. */
export interface QueryScores {
  hit: Record<K, number>;
  recall: Record<K, number>;
  rr: number;
  /** 1-based rank of the first hit, or null. */
  firstHit: number | null;
  /** Results returned and their total length in characters. */
  results: number;
  chars: number;
  budgetRecall: number;
  /** Characters memory.recall injected (its whole context block; 0 when empty). */
  injectedChars?: number;
}

export function scoreQuery(
  texts: readonly string[],
  evidence: readonly string[],
  budgetChars = DEFAULT_BUDGET_CHARS,
): QueryScores {
  const hit = {} as Record<K, number>;
  const recall = {} as Record<K, number>;
  for (const k of KS) {
    hit[k] = hitAtK(texts, evidence, k);
    recall[k] = recallAtK(texts, evidence, k);
  }
  return {
    hit,
    recall,
    rr: reciprocalRank(texts, evidence),
    firstHit: firstHitRank(texts, evidence),
    results: texts.length,
    chars: texts.reduce((s, t) => s + t.length, 0),
    budgetRecall: budgetedRecall(texts, evidence, budgetChars),
  };
}

/** Means over a group of queries. */
export interface Aggregate {
  n: number;
  hit: Record<K, number>;
  recall: Record<K, number>;
  mrr: number;
  /** Mean characters per returned result (total characters / total results). */
  charsPerResult: number;
  budgetRecall: number;
  /** Mean characters memory.recall injected per query (NaN when not measured). */
  injectedChars: number;
  /** Share of queries for which memory.recall injected nothing (NaN when not measured): each is a miss. */
  emptyRecalls: number;
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Micro average: every query counts once. */
export function aggregate(scores: readonly QueryScores[]): Aggregate {
  const hit = {} as Record<K, number>;
  const recall = {} as Record<K, number>;
  for (const k of KS) {
    hit[k] = mean(scores.map((s) => s.hit[k]));
    recall[k] = mean(scores.map((s) => s.recall[k]));
  }
  const results = scores.reduce((s, q) => s + q.results, 0);
  const chars = scores.reduce((s, q) => s + q.chars, 0);
  return {
    n: scores.length,
    hit,
    recall,
    mrr: mean(scores.map((s) => s.rr)),
    charsPerResult: results === 0 ? NaN : chars / results,
    budgetRecall: mean(scores.map((s) => s.budgetRecall)),
    injectedChars: mean(scores.flatMap((s) => (s.injectedChars === undefined ? [] : [s.injectedChars]))),
    emptyRecalls: mean(scores.flatMap((s) => (s.injectedChars === undefined ? [] : [s.injectedChars === 0 ? 1 : 0]))),
  };
}

/** Macro average: the mean of per-group aggregates (e.g. one per conversation); n is the total. */
export function macro(groups: readonly Aggregate[]): Aggregate {
  const gs = groups.filter((g) => g.n > 0);
  const hit = {} as Record<K, number>;
  const recall = {} as Record<K, number>;
  for (const k of KS) {
    hit[k] = mean(gs.map((g) => g.hit[k]));
    recall[k] = mean(gs.map((g) => g.recall[k]));
  }
  return {
    n: gs.reduce((s, g) => s + g.n, 0),
    hit,
    recall,
    mrr: mean(gs.map((g) => g.mrr)),
    charsPerResult: mean(gs.map((g) => g.charsPerResult)),
    budgetRecall: mean(gs.map((g) => g.budgetRecall)),
    injectedChars: mean(gs.map((g) => g.injectedChars)),
    emptyRecalls: mean(gs.map((g) => g.emptyRecalls)),
  };
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
