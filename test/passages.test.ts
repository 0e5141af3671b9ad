/**
 * The "passage" stage: a chunk whose one line answers the query rises above chunks that are only
 * broadly on topic. Real index, real static model (the tiny test GGUF through the TypeScript path).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SearchSchema } from "../src/config/schema.js";
import { createStaticBertProvider, type StaticBertProvider } from "../src/embed/builtin/fast-provider.js";
import { ensureTinyTestModel } from "./fixtures/embed/tiny-model.js";
import { openDatabase } from "../src/index/db/db.js";
import { IndexStore } from "../src/index/repos/store.js";
import { Indexer } from "../src/indexer/sync.js";
import { PassageScorer } from "../src/search/passages.js";
import { Searcher } from "../src/search/searcher.js";
import { tinyProvider } from "./helpers/models.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";

let provider: StaticBertProvider;
beforeAll(async () => {
  provider = await createStaticBertProvider(await ensureTinyTestModel());
});
afterAll(async () => {
  await provider?.close();
});

const MONEY = [
  "paid the rent and the mortgage bills",
  "the bank loan and the savings budget",
  "tax invoice paid with credit",
  "stocks price and salary dollars",
  "the budget for rent was expensive",
  "debt and bills paid from savings",
];

/** A long log, mostly money, with one line about a concert; and a note that touches music in passing, line after line. */
const FILES = {
  "memory/2026-11-20.md": `# 2026-11-20\n\n${[...MONEY.slice(0, 3), "the jazz concert with the band, guitar and piano songs", ...MONEY.slice(3)].map((l) => `- ${l}`).join("\n")}\n`,
  "memory/notes/mixed.md":
    "# mixed\n\n- pasta and soup, a song\\n- bread and cake, a tune\\n- the kids and mom, the playlist\\n- the bank and rent\\n- the dog and the cat\\n",
  "memory/notes/trip.md": "# trip\n\n- flight to tokyo, hotel booked\n",
};

async function searcherWith(
  search: Record<string, unknown>,
  p = provider as unknown as import("../src/embed/provider.js").EmbeddingProvider,
) {
  const root = tempDir();
  writeFiles(root, FILES);
  const store = new IndexStore(openDatabase(join(tempDir(), "i.sqlite")), "t");
  await new Indexer({ store, target: { root }, provider: p, chunking: { maxTokens: 400, overlapTokens: 80 } }).sync();
  return new Searcher({ store, provider: p, config: SearchSchema.parse({ recencyWeight: 0, ...search }) });
}

describe("passage stage", () => {
  it("lifts the chunk whose one line answers the query above a chunk that is only broadly on topic", async () => {
    const query = "melody of the orchestra";
    const off = await (await searcherWith({ passages: "off" })).search({ query, explain: true });
    const on = await (await searcherWith({})).search({ query, explain: true });
    expect(off.mode).toBe("hybrid");
    expect(off.results.map((h) => h.path).slice(0, 2)).toEqual(["memory/notes/mixed.md", "memory/2026-11-20.md"]);
    expect(on.results.map((h) => h.path).slice(0, 2)).toEqual(["memory/2026-11-20.md", "memory/notes/mixed.md"]);
    expect(on.results[0]!.explain!.passage).toBeGreaterThan(on.results[1]!.explain!.passage!);
    expect(off.results[0]!.explain!.passage).toBeUndefined();
  });

  it("auto: only static models (a llama.cpp model would pay per line); on: any model", async () => {
    const tiny = await tinyProvider();
    try {
      const auto = await (await searcherWith({}, tiny)).search({ query: "jazz concert", explain: true });
      expect(auto.mode).toBe("hybrid");
      expect(auto.results[0]!.explain!.passage).toBeUndefined();
      const forced = await (
        await searcherWith({ passages: "on" }, tiny)
      ).search({ query: "jazz concert", explain: true });
      expect(forced.results[0]!.explain!.passage).toBeGreaterThan(0);
    } finally {
      await tiny.close();
    }
  });

  it("scores the best unit, embeds each chunk once, and keeps its cache within its byte bound", async () => {
    const calls: number[] = [];
    const counting = Object.assign(Object.create(provider) as StaticBertProvider, {
      embedBatch: async (texts: readonly string[]) => {
        calls.push(texts.length);
        return provider.embedBatch(texts);
      },
    });
    const dims = provider.dims;
    const scorer = new PassageScorer(counting, 3 * dims * 4); // room for three unit vectors
    const [q] = await provider.embedBatch(["jazz concert"]);
    const [line] = await provider.embedBatch(["the jazz band concert"]);
    let cos = 0;
    for (let i = 0; i < dims; i++) cos += q![i]! * line![i]!;
    const chunks = [
      { id: 1, hash: "a", text: "paid the rent\nthe jazz band concert" },
      { id: 2, hash: "a", text: "paid the rent\nthe jazz band concert" },
      { id: 3, hash: "b", text: "flight to tokyo" },
    ];
    const best = await scorer.best(q!, chunks);
    expect(best[0]).toBeCloseTo(cos, 5);
    expect(best[1]).toBe(best[0]);
    expect(best[2]).toBeLessThan(best[0]!);
    expect(calls).toEqual([3]); // two units of "a" (once), one of "b"
    await scorer.best(q!, chunks);
    expect(calls).toEqual([3]); // cached
    expect(scorer.size.bytes).toBeLessThanOrEqual(3 * dims * 4);
    await scorer.best(q!, [{ id: 4, hash: "c", text: "bread\ncake" }]);
    expect(scorer.size.bytes).toBeLessThanOrEqual(3 * dims * 4);
    expect(scorer.size.chunks).toBe(2); // "a" (the least recently used) made room for "c"
  });
});
