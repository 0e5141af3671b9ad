import { K1 } from "./bm25.js";
import type { PostingsView } from "./keyword-postings.js";
import { decodeBlock, MAX_BLOCK, type Postings } from "./postings-blocks.js";
import { lengthNorm } from "./postings-lengths.js";

/**
 * Per block of a token's postings (postings-blocks), the largest (tf · (k1 + 1)) / (tf + norm) of
 * its chunks: times the token's idf, no chunk of the block gets more from the token. Computed with
 * the operations the exact score uses, from the length norms of the mean length of then; 8 bytes a
 * block.
 *
 * Kept across writes (an agent appends to its log every turn, and reading a list of most chunks
 * again after each cost ~70 ms a word at 1M chunks): the write path tells each change of a list's
 * blocks (boundsAfterInsert / boundsAfterRemove: a new posting raises its block's bound to its
 * part, a split block's halves both keep the bound, a dropped block drops its own; a delete leaves
 * the bound, which stays an upper bound). A change of the mean length moves every part: a norm
 * k1 · (1 − b + b · length / mean) at a mean grown by a factor g is at least the norm of then / g,
 * so each part is at most g times the part of then (tf + norm/g ≥ (tf + norm)/g), and the bounds
 * are widened by that factor (a smaller mean only lowers the parts). Past a drift of MAX_DRIFT the
 * bounds are computed again (widened, they prune less).
 */
interface Kept {
  /** The mean length the parts were computed at. */
  avgdl: number;
  /** bounds[0..blocks): per block of the list (capacity beyond). */
  bounds: Float64Array;
  blocks: number;
  /** The bounds widened for the mean length of a version (cached for that version). */
  widened: Float64Array | null;
  widenedVersion: number;
}

export const MAX_DRIFT = 0.02;

const cache = new WeakMap<Postings, Kept>();
const ids = new Int32Array(MAX_BLOCK);
const tfs = new Uint16Array(MAX_BLOCK);

export function blockBounds(
  view: PostingsView,
  list: Postings,
  norm: Float64Array,
  trace?: { boundsBuilt?: number },
): Float64Array {
  const avgdl = view.tokens / view.rows;
  const kept = cache.get(list);
  if (kept && kept.blocks === list.blocks && Math.abs(avgdl / kept.avgdl - 1) <= MAX_DRIFT) {
    const bounds = kept.bounds.subarray(0, kept.blocks);
    if (!(avgdl > kept.avgdl)) return bounds;
    if (kept.widened && kept.widenedVersion === view.version) return kept.widened;
    const g = avgdl / kept.avgdl;
    const widened = new Float64Array(kept.blocks);
    for (let b = 0; b < widened.length; b++) widened[b] = bounds[b]! * g;
    [kept.widened, kept.widenedVersion] = [widened, view.version];
    return widened;
  }
  if (trace) trace.boundsBuilt = (trace.boundsBuilt ?? 0) + 1;
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
  cache.set(list, { avgdl, bounds, blocks: list.blocks, widened: null, widenedVersion: -1 });
  return bounds;
}

/**
 * A posting (count `tf`, chunk of `length` tokens) was set in the list: `at` is the block its id fell
 * in before (blockOf: `blocksBefore` when past the last), `blocksBefore` the list's blocks then.
 */
export function boundsAfterInsert(list: Postings, at: number, blocksBefore: number, tf: number, length: number): void {
  const kept = cache.get(list);
  if (!kept) return;
  if (kept.blocks !== blocksBefore || list.blocks > blocksBefore + 1) {
    cache.delete(list);
    return;
  }
  kept.widened = null;
  const part = (tf * (K1 + 1.0)) / (tf + lengthNorm(length, kept.avgdl));
  if (list.blocks === blocksBefore) {
    const b = Math.min(at, list.blocks - 1); // past the last: appended to the last block
    if (part > kept.bounds[b]!) kept.bounds[b] = part;
    return;
  }
  // One block more: a new last block, or block `at` split in two.
  if (list.blocks > kept.bounds.length) {
    const grown = new Float64Array(Math.ceil(list.blocks * 1.5) + 1);
    grown.set(kept.bounds.subarray(0, kept.blocks));
    kept.bounds = grown;
  }
  const bounds = kept.bounds;
  if (at >= blocksBefore) bounds[blocksBefore] = part;
  else {
    bounds.copyWithin(at + 2, at + 1, blocksBefore);
    bounds[at] = Math.max(bounds[at]!, part);
    bounds[at + 1] = bounds[at]!;
  }
  kept.blocks = list.blocks;
}

/** A posting was removed from the list (`at`, `blocksBefore`: as for boundsAfterInsert). */
export function boundsAfterRemove(list: Postings, at: number, blocksBefore: number): void {
  const kept = cache.get(list);
  if (!kept || list.blocks === blocksBefore) return;
  if (kept.blocks !== blocksBefore || list.blocks !== blocksBefore - 1) {
    cache.delete(list);
    return;
  }
  kept.widened = null;
  kept.bounds.copyWithin(at, at + 1, blocksBefore);
  kept.blocks = list.blocks;
}
