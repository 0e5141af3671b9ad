import { B, K1 } from "./bm25.js";
import type { PostingsView } from "./keyword-postings.js";

/** A chunk's length norm as FTS5's bm25() computes it per row: k1 · (1 − b + b · length / mean length). */
export function lengthNorm(length: number, avgdl: number): number {
  return K1 * (1 - B + (B * length) / avgdl);
}

/**
 * Each chunk's length in tokens as 16 bits (null when a chunk holds 65,536 tokens or more), kept per
 * postings until they change: a plan that needs one chunk's length norm at a time computes it
 * from here, k1 · (1 − b + b · length / mean length), the expression of postingsTopK's lengthNorms
 * and FTS5's, so the value is the same to the bit. At 400k chunks the norms take 3.2 MB, these
 * 0.8 MB: the lookups of a query's chunks, in id order but far apart, stay in the processor's
 * cache (a norm read was most of the exhaustive plan's time).
 */
const cache = new WeakMap<PostingsView, { version: number; lengths: Uint16Array | null }>();

export function shortLengths(view: PostingsView): Uint16Array | null {
  const known = cache.get(view);
  if (known && known.version === view.version && (!known.lengths || known.lengths.length === view.lengths.length))
    return known.lengths;
  const src = view.lengths;
  let lengths: Uint16Array | null = new Uint16Array(src.length);
  for (let id = 0; id < src.length; id++) {
    const n = src[id]!;
    if (n > 0xffff) {
      lengths = null;
      break;
    }
    lengths[id] = n;
  }
  cache.set(view, { version: view.version, lengths });
  return lengths;
}
