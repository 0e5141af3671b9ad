/**
 * The `m` ids with the highest scores (ties: smaller id first), best first, without sorting every
 * candidate: a native numeric sort of the scores finds the m-th best, and only those at or above it
 * are ordered.
 */
export function topByScore(ids: Float64Array, scores: Float64Array, m: number): number[] {
  if (m <= 0 || ids.length === 0) return [];
  let picked: number[];
  if (m >= ids.length) picked = Array.from(ids.keys());
  else {
    const threshold = Float64Array.from(scores).sort()[scores.length - m]!;
    picked = [];
    for (let i = 0; i < ids.length; i++) if (scores[i]! >= threshold) picked.push(i);
  }
  picked.sort((a, b) => scores[b]! - scores[a]! || ids[a]! - ids[b]!);
  return picked.slice(0, m).map((i) => ids[i]!);
}
