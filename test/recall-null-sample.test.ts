/**
 * The relevance decision's vector null (the prompt's similarity to a sample of the index's own
 * memories) is sampled once per index and kept while the index changes a little — a memory saved
 * every turn must not cost each next recall a fresh sample — and sampled again once the chunk
 * count has moved by a sixteenth, so the statistic follows the index it describes.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStaticBertProvider, type StaticBertProvider } from "../src/embed/builtin/fast-provider.js";
import { recall } from "../src/search/recall.js";
import { ensureTinyTestModel, TINY_MODEL_TOPICS } from "./fixtures/embed/tiny-model.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";
import { mulberry32 } from "../src/util/prng.js";

let provider: StaticBertProvider;
let idx: TestIndex;
const words = Object.values(TINY_MODEL_TOPICS).flat();
const r = mulberry32(7);

/** `n` one-chunk notes of random model words, numbered from `from`. */
function notes(from: number, n: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = from; i < from + n; i++)
    out[`memory/n${String(i).padStart(4, "0")}.md`] =
      `${Array.from({ length: 12 }, () => words[Math.floor(r() * words.length)]).join(" ")}\n`;
  return out;
}

async function nullOf(): Promise<unknown> {
  const res = await recall(idx.searcher, idx.store, {
    query: "the flight to the hotel was late",
    record: false,
    explain: true,
  });
  return res.explain!.nullSimilarity;
}

beforeAll(async () => {
  provider = await createStaticBertProvider(await ensureTinyTestModel());
  const root = tempDir("cortexd-null-");
  writeFiles(root, notes(0, 520));
  idx = openTestIndex(root, provider);
  await idx.indexer.sync();
});
afterAll(async () => {
  idx.close();
  await provider.close();
});

describe("recall's vector null sample", () => {
  it("stays while the index changes a little, and follows a change of a sixteenth", async () => {
    const first = (await nullOf()) as { n: number };
    expect(first.n).toBe(256);
    // Ten memories gone (sampled ones among them), eleven new: the same sample.
    writeFiles(idx.root, notes(520, 11));
    for (let i = 1; i <= 10; i++) rmSync(`${idx.root}/memory/n${String(i).padStart(4, "0")}.md`);
    await idx.indexer.sync();
    expect(await nullOf()).toEqual(first);
    // Half as many again: sampled again (every third chunk now, the new ones among them).
    writeFiles(idx.root, notes(531, 260));
    await idx.indexer.sync();
    const after = (await nullOf()) as { n: number };
    expect(after.n).toBe(256);
    expect(after).not.toEqual(first);
  });
});
