import { K1 } from "./bm25.js";
import type { Postings, PostingsView } from "./keyword-postings.js";

/** Postings per block (2^BLOCK_SHIFT) whose largest part bounds the block (postings-maxscore). */
export const BLOCK_SHIFT = 7;

/**
 * Per block of a token's postings, the largest (tf · (k1 + 1)) / (tf + norm) of its chunks: times
 * the token's idf, no chunk of the block gets more from the token. Computed with the operations the
 * exact score uses, from the length norms of the postings' version, and kept until the postings
 * change (a write moves the mean length, so every bound); 8 bytes per 128 postings.
 */
const cache = new WeakMap<Postings, { version: number; n: number; bounds: Float64Array }>();

export function blockBounds(view: PostingsView, list: Postings, norm: Float64Array): Float64Array {
  const known = cache.get(list);
  if (known && known.version === view.version && known.n === list.n) return known.bounds;
  const n = list.n;
  const ids = list.ids;
  const tfs = list.tfs;
  const bounds = new Float64Array((n + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT);
  for (let b = 0; b < bounds.length; b++) {
    let max = 0;
    const end = Math.min(n, (b + 1) << BLOCK_SHIFT);
    for (let j = b << BLOCK_SHIFT; j < end; j++) {
      const tf = tfs[j]!;
      const r = (tf * (K1 + 1.0)) / (tf + norm[ids[j]!]!);
      if (r > max) max = r;
    }
    bounds[b] = max;
  }
  cache.set(list, { version: view.version, n, bounds });
  return bounds;
}
