/**
 * Gathering prompts ask for several things spread over time ("what activities has …", "how many
 * times …", "which places …", "list all …"): their answer is one line in each of several days or
 * sessions, not several chunks of one day. English question shapes only; anything else is not one.
 */
const GATHER = [
  /\bhow\s+(?:many|often)\b/i,
  /\b(?:list|name|enumerate)\s+(?:all|every|each|the)\b/i,
  /\bwhat\s+(?:kinds?|types?|sorts?)\s+of\b/i,
  /\b(?:what|which)\s+(?:\p{L}+\s+)?\p{L}{3,}s\s+(?:has|have|had|did|does|do|are|were)\b/iu,
  /\b(?:all|every)\s+(?:the\s+)?(?:times|places|things|events|books|people)\b/i,
];

export function isGathering(query: string): boolean {
  return GATHER.some((re) => re.test(query));
}

/**
 * Reorders memories so each day (or session) gets a turn before any gets a second one: the first
 * `perGroup` of every group in rank order, then the next `perGroup` of every group, and so on.
 * Order within a group and between groups follows the input order.
 */
export function spreadByGroup<T>(items: readonly T[], groupOf: (item: T) => string, perGroup: number): T[] {
  const seen = new Map<string, number>();
  const rounds: T[][] = [];
  for (const it of items) {
    const g = groupOf(it);
    const n = seen.get(g) ?? 0;
    seen.set(g, n + 1);
    const round = Math.floor(n / Math.max(1, perGroup));
    (rounds[round] ??= []).push(it);
  }
  return rounds.flat();
}
