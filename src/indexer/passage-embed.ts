import type { EmbeddingProvider } from "../embed/provider.js";
import { units } from "../ingest/units.js";
import { encodePassageVectors } from "../index/vectors/passage-codes.js";
import type { IndexStore } from "../index/repos/store.js";

/** Chunks read per batch when an index from before passage vectors gets them. */
const BACKFILL_BATCH = 512;
/** Completeness mark suffix: the passage vectors have their token ids (format 2). */
const FORMAT2_MARK = "with token ids";

/**
 * Index time, static models only (a text embeds in microseconds): the vectors of each unit (line
 * or transcript message) of each text, encoded as passage-codes.ts says.
 */
export async function passageBlobs(provider: EmbeddingProvider, texts: readonly string[]): Promise<Buffer[]> {
  // Each distinct unit once: overlapping chunks of a file share their edge lines.
  const slot = new Map<string, number>();
  const distinct: string[] = [];
  const perText = texts.map((t) =>
    units(t).map((u) => {
      let i = slot.get(u.text);
      if (i === undefined) slot.set(u.text, (i = distinct.push(u.text) - 1));
      return i;
    }),
  );
  const { vecs, tokens } = await embedUnits(provider, distinct);
  return perText.map((us) =>
    encodePassageVectors(
      us.map((i) => {
        const v = vecs[i];
        return v && v.length === provider.dims ? v : null;
      }),
      provider.dims,
      tokens && us.map((i) => tokens[i]!),
    ),
  );
}

/**
 * The units' vectors and, when the provider exposes its tokenizer, their token ids (each unit
 * tokenized once: the vector comes from the same ids).
 */
async function embedUnits(
  provider: EmbeddingProvider,
  texts: readonly string[],
): Promise<{ vecs: (Float32Array | null)[]; tokens?: number[][] }> {
  const { tokenIds, embedIds } = provider;
  if (!tokenIds || !embedIds) return { vecs: await provider.embedBatch(texts) };
  const vecs: (Float32Array | null)[] = [];
  const tokens: number[][] = [];
  let slice = performance.now();
  for (const text of texts) {
    const ids = tokenIds.call(provider, text);
    tokens.push(ids);
    vecs.push(embedIds.call(provider, ids));
    if (performance.now() - slice > 20) {
      // Long batches: let the event loop breathe (socket requests, timers).
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
  return { vecs, tokens };
}

/** Sets `passages` on the chunks that got a vector, when the provider is a static model. */
export async function embedPassages(
  provider: EmbeddingProvider,
  chunks: readonly { text: string; vector?: Float32Array | null; passages?: Buffer }[],
): Promise<void> {
  if (!provider.staticModel) return;
  const todo = chunks.filter((c) => c.vector);
  if (todo.length === 0) return;
  const blobs = await passageBlobs(
    provider,
    todo.map((c) => c.text),
  );
  todo.forEach((c, i) => (c.passages = blobs[i]!));
}

/**
 * Gives the chunks of an index from before passage vectors (or embedded while they were not
 * computed) theirs, once per embedding identity; stops early when `signal` aborts (the next sync
 * goes on).
 */
export async function backfillPassages(
  store: IndexStore,
  provider: EmbeddingProvider | null,
  signal?: AbortSignal,
): Promise<void> {
  if (!provider?.staticModel || store.vectorDims !== provider.dims) return;
  const repo = store.vectors.passages;
  // A provider that exposes its tokenizer stores the units' token ids too (format 2): an index
  // whose passage vectors predate them is brought up to it.
  const withIds = !!provider.tokenIds && !!provider.embedIds;
  const mark = withIds ? `${provider.identity} ${FORMAT2_MARK}` : provider.identity;
  if (repo.completeFor(mark)) return;
  let after = 0;
  for (;;) {
    if (signal?.aborted) return;
    const batch = repo.missing(after, BACKFILL_BATCH, withIds);
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.id;
    const blobs = await passageBlobs(
      provider,
      batch.map((b) => b.text),
    );
    repo.fill(batch.map((b, i) => ({ id: b.id, vecs: blobs[i]! })));
  }
  repo.markComplete(mark);
}
