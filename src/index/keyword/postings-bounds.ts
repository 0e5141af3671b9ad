import { K1 } from "./bm25.js";
import type { PostingsView } from "./keyword-postings.js";
import { decodeBlock, MAX_BLOCK, type Postings } from "./postings-blocks.js";

/**
 * Per block of a token's postings (postings-blocks), the largest (tf · (k1 + 1)) / (tf + norm) of
 * its chunks: times the token's idf, no chunk of the block gets more from the token. Computed with
 * the operations the exact score uses, from the length norms of the postings' version, and kept
 * until the postings change (a write moves the mean length, so every bound); 8 bytes a block.
 */
const cache = new WeakMap<Postings, { version: number; n: number; bounds: Float64Array }>();
const ids = new Int32Array(MAX_BLOCK);
const tfs = new Uint16Array(MAX_BLOCK);

export function blockBounds(view: PostingsView, list: Postings, norm: Float64Array): Float64Array {
  const known = cache.get(list);
  if (known && known.version === view.version && known.n === list.n) return known.bounds;
  const bounds = new Float64Array(list.blocks);
  for (let b = 0; b < list.blocks; b++) {
    let max = 0;
    const n = decodeBlock(list, b, ids, tfs);
    for (let j = 0; j < n; j++) {
      const tf = tfs[j]!;
      const r = (tf * (K1 + 1.0)) / (tf + norm[ids[j]!]!);
      if (r > max) max = r;
    }
    bounds[b] = max;
  }
  cache.set(list, { version: view.version, n: list.n, bounds });
  return bounds;
}
