import type { Logger } from "pino";
import type { EmbeddingProvider } from "../embed/provider.js";
import { embedThroughCache } from "./embed-cache.js";
import { embedPassages } from "./passage-embed.js";
import type { StoredChunkInput } from "../index/repos/files-repo.js";
import type { IndexStore } from "../index/repos/store.js";
import type { SyncReport } from "./sync-report.js";

/** Sync, vector side: points the index at the provider, embeds new chunks and backfills pending ones. */
export interface VectorDeps {
  store: IndexStore;
  provider: EmbeddingProvider | null;
  embedBatchSize: number;
  logger?: Logger;
}

/** Points the vector index at the provider; reports a model change. Returns whether to embed. */
export function prepareVectors(deps: VectorDeps, report: SyncReport): boolean {
  const { store, provider } = deps;
  if (!provider) return false;
  if (!store.vecAvailable) {
    report.vectorsUnavailable = store.vecError ?? "sqlite-vec unavailable";
    return false;
  }
  const { changed, previous } = store.useVectorIdentity({
    identity: provider.identity,
    dims: provider.dims,
    model: provider.modelName,
  });
  if (changed && previous) {
    report.modelChanged = { from: previous.identity, to: provider.identity };
    deps.logger?.warn(
      { from: previous.identity, to: provider.identity },
      "embedding model changed: vectors will be re-embedded",
    );
  }
  return true;
}

/**
 * Gives a batch's new chunks their vectors (through the cache). After a provider failure in this
 * sync, the remaining chunks stay pending (vector undefined) without further calls.
 */
export async function embedFresh(deps: VectorDeps, fresh: StoredChunkInput[], report: SyncReport): Promise<void> {
  const { store, provider } = deps;
  if (!provider || fresh.length === 0 || report.vectorError) return;
  const outcome = await embedThroughCache(store, provider, fresh, deps.embedBatchSize);
  report.cacheHits += outcome.cacheHits;
  report.embedded += outcome.embedded;
  for (const c of fresh) {
    if (!outcome.vectors.has(c.hash)) {
      deferred(report, outcome.error);
      continue; // stays pending (vector undefined)
    }
    c.vector = outcome.vectors.get(c.hash) ?? null;
    if (c.vector === null) report.noVector++;
  }
  await embedPassages(provider, fresh);
}

/** Embeds chunks still pending (after a model change or a keyword-only period), through the cache. */
export async function backfillVectors(
  deps: VectorDeps,
  report: SyncReport,
  onBatch: (n: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  const { store, provider } = deps;
  if (!provider) return;
  let after = 0;
  let n = 0;
  for (;;) {
    if (signal?.aborted) {
      report.aborted = true; // the rest stays pending: the next sync backfills it
      break;
    }
    const batch = store.pendingChunks(after, 512);
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.id;
    const outcome = await embedThroughCache(store, provider, batch, deps.embedBatchSize);
    report.cacheHits += outcome.cacheHits;
    report.embedded += outcome.embedded;
    const done = outcome.error ? batch.filter((b) => outcome.vectors.has(b.hash)) : batch;
    const items = done.map((b) => ({ id: b.id, text: b.text, vector: outcome.vectors.get(b.hash) ?? null }));
    report.noVector += items.filter((i) => !i.vector).length;
    await embedPassages(provider, items);
    store.setVectors(items);
    store.ensureVectorCodes();
    n += batch.length;
    onBatch(n);
    if (outcome.error) {
      deferred(report, outcome.error);
      break; // provider down: the rest stays pending too
    }
  }
}

/** Notes the provider failure behind chunks left pending (the first one wins). */
function deferred(report: SyncReport, error: string | undefined): void {
  if (!report.vectorError) report.vectorError = error ?? "embedding failed";
}
