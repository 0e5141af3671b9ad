/**
 * Recall embeds the prompt once: the relevance decision's vector null takes the query vector the
 * search's vector leg made, and comes out the same as when it embeds the prompt itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecallSchema } from "../src/config/schema.js";
import { createStaticBertProvider, type StaticBertProvider } from "../src/embed/builtin/fast-provider.js";
import type { EmbeddingProvider } from "../src/embed/provider.js";
import { recall } from "../src/search/recall.js";
import { profilePrompt } from "../src/search/relevance.js";
import { ensureTinyTestModel, TINY_MODEL_TOPICS } from "./fixtures/embed/tiny-model.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

let inner: StaticBertProvider;
let idx: TestIndex;
/** Texts embedded as queries or batches since the last reset. */
let embedded: string[] = [];

/** The built-in provider, counting what it is asked to embed (passages embed by ids, not counted). */
function counting(p: StaticBertProvider): EmbeddingProvider {
  return {
    identity: p.identity,
    modelName: p.modelName,
    dims: p.dims,
    staticModel: p.staticModel,
    tokenIds: (text) => p.tokenIds(text),
    embedIds: (ids) => p.embedIds(ids),
    embedBatch: (texts) => {
      embedded.push(...texts);
      return p.embedBatch(texts);
    },
    stats: () => p.stats(),
    close: () => p.close(),
  };
}

beforeAll(async () => {
  inner = await createStaticBertProvider(await ensureTinyTestModel());
  const words = Object.values(TINY_MODEL_TOPICS).flat();
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++)
    files[`memory/n${String(i).padStart(3, "0")}.md`] =
      `${Array.from({ length: 10 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(" ")}\n`;
  const root = tempDir("cortexd-qvec-");
  writeFiles(root, files);
  idx = openTestIndex(root, counting(inner));
  await idx.indexer.sync();
});
afterAll(async () => {
  idx.close();
  await inner.close();
});

describe("recall's query vector", () => {
  it("is embedded once per recall, and the vector null is what embedding the prompt again gives", async () => {
    const query = "the flight to the hotel was late";
    embedded = [];
    const res = await recall(idx.searcher, idx.store, { query, record: false, explain: true });
    expect(embedded.filter((t) => t === query)).toHaveLength(1);
    const cfg = RecallSchema.parse({});
    const own = await profilePrompt(query, query, idx.store, idx.searcher.provider, cfg);
    expect(own.nullSim).not.toBeNull();
    expect(res.explain!.nullSimilarity).toEqual(own.nullSim);
  });
});
