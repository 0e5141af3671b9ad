import type { EmbeddingProvider } from "../embed/provider.js";
import type { IndexStore } from "../index/repos/store.js";
import { errorMessage } from "../util/error-message.js";

export interface EmbedOutcome {
  vectors: Map<string, Float32Array | null>;
  cacheHits: number;
  embedded: number;
  /**
   * Set when the provider failed: texts without an entry in `vectors` were not embedded and stay
   * pending (keyword-only until a later sync backfills them). `embedded` counts only what succeeded.
   */
  error?: string;
}

/**
 * Returns a vector (or null: nothing embeddable) for every text, taking what it can from the
 * embedding cache and embedding only the misses, in batches. New vectors are written to the cache.
 */
export async function embedThroughCache(
  store: IndexStore,
  provider: EmbeddingProvider,
  items: readonly { hash: string; text: string }[],
  batchSize: number,
): Promise<EmbedOutcome> {
  const vectors = store.cacheGet(
    provider.identity,
    items.map((i) => i.hash),
  );
  const cacheHits = vectors.size;
  const misses: { hash: string; text: string }[] = [];
  const queued = new Set<string>();
  for (const it of items) {
    if (vectors.has(it.hash) || queued.has(it.hash)) continue;
    queued.add(it.hash);
    misses.push(it);
  }
  let embedded = 0;
  for (let i = 0; i < misses.length; i += batchSize) {
    const batch = misses.slice(i, i + batchSize);
    let out: (Float32Array | null)[];
    try {
      out = await provider.embedBatch(batch.map((b) => b.text));
    } catch (e) {
      // Provider down (or gated): stop calling it; the rest stays pending for a later backfill.
      return { vectors, cacheHits, embedded, error: errorMessage(e) };
    }
    embedded += batch.length;
    const entries = batch.map((b, j) => ({ hash: b.hash, vector: out[j] ?? null }));
    for (const e of entries) {
      if (e.vector && e.vector.length !== provider.dims) {
        throw new Error(
          `embedding provider ${provider.modelName} returned ${e.vector.length} dims, expected ${provider.dims}`,
        );
      }
      vectors.set(e.hash, e.vector);
    }
    store.cachePut(provider.identity, entries);
  }
  return { vectors, cacheHits, embedded };
}
