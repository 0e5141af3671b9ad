/** Search and recall report the wall time of each stage when asked (a debug field; the figures go to the bench). */
import { afterEach, describe, expect, it } from "vitest";
import { recall } from "../src/search/recall.js";
import { tinyProvider } from "./helpers/models.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

const SEARCH_STAGES = [
  "keyword",
  "entities",
  "vector",
  "fusion",
  "rows",
  "passage",
  "path",
  "rank",
  "results",
  "total",
];

describe("stage timings", () => {
  let idx: TestIndex | null = null;
  afterEach(() => idx?.close());

  it("search returns ms per stage with `timings` (or `explain`), and nothing extra otherwise", async () => {
    const root = tempDir();
    writeFiles(root, {
      "MEMORY.md": "# Memory\n\n- The deploy pipeline uses blue-green releases.\n- Kafka keeps seven days.\n",
    });
    idx = openTestIndex(root, await tinyProvider());
    await idx.indexer.sync();
    const plain = await idx.searcher.search({ query: "deploy pipeline" });
    expect(plain.timings).toBeUndefined();
    const res = await idx.searcher.search({ query: "deploy pipeline", timings: true });
    expect(res.results[0]!.snippet).toContain("deploy");
    expect(Object.keys(res.timings!).sort()).toEqual([...SEARCH_STAGES].sort());
    for (const v of Object.values(res.timings!)) expect(v).toBeGreaterThanOrEqual(0);
    const parts = SEARCH_STAGES.filter((s) => s !== "total").reduce((a, s) => a + res.timings![s]!, 0);
    expect(res.timings!.total).toBeGreaterThanOrEqual(parts - 0.01);
    expect((await idx.searcher.search({ query: "deploy", explain: true })).timings).toBeDefined();
  });

  it("recall returns the search's stages plus its own, and the same memories as without timings", async () => {
    const root = tempDir();
    writeFiles(root, { "MEMORY.md": "# Memory\n\n- The deploy pipeline uses blue-green releases.\n" });
    idx = openTestIndex(root, null);
    await idx.indexer.sync();
    const without = await recall(idx.searcher, idx.store, { query: "how do we deploy", record: false });
    const withT = await recall(idx.searcher, idx.store, { query: "how do we deploy", record: false, timings: true });
    expect(without.timings).toBeUndefined();
    expect(withT.context).toBe(without.context);
    expect(Object.keys(withT.timings!)).toEqual(
      expect.arrayContaining(["keyword", "search", "consolidation", "pack", "record", "total"]),
    );
    expect(withT.timings!.total).toBeGreaterThanOrEqual(withT.timings!.search!);
  });
});
