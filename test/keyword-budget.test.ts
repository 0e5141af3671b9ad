import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { generateWorkspace } from "../scripts/bench/generate.js";
import { SearchSchema } from "../src/config/schema.js";
import { Searcher } from "../src/search/searcher.js";
import { bm25Ranker, planKeyword } from "../src/search/keyword/budget.js";
import type { TermStat } from "../src/index/term-stats.js";
import { openTestIndex, tempDir, writeFiles } from "./helpers/workspace.js";
import { rawDb } from "./helpers/raw-db.js";

const stat = (term: string, df: number): TermStat => ({ term, stems: [term], df, exact: true });

describe("planKeyword", () => {
  it("runs every query in full in a small index", () => {
    expect(planKeyword([stat("deploy", 900), stat("zelka", 3)], 1500, 10)).toEqual({
      kind: "full",
      terms: ["deploy", "zelka"],
    });
  });

  it("in a large index: full when the postings fit, rare words first when not, the newest matches when even the rarest is over budget", () => {
    const n = 1_000_000;
    expect(planKeyword([stat("zelka", 300), stat("bread", 4000)], n, 10_000)).toEqual({
      kind: "full",
      terms: ["zelka", "bread"],
    });
    // Words in more than half of the chunks are dropped (no BM25 weight) while others remain.
    expect(planKeyword([stat("the", 900_000), stat("zelka", 300)], n, 10_000)).toEqual({
      kind: "full",
      terms: ["zelka"],
    });
    const rare = planKeyword(
      [stat("flight", 350_000), stat("zelka", 3_000), stat("quipol", 5_000), stat("hotel", 90_000)],
      n,
      10_000,
    );
    expect(rare).toMatchObject({ kind: "rare", terms: ["zelka", "quipol"] });
    expect(rare.kind === "rare" && rare.rescore.map((s) => s.term)).toEqual(["flight", "zelka", "quipol", "hotel"]);
    expect(planKeyword([stat("flight", 350_000), stat("hotel", 90_000)], n, 10_000)).toMatchObject({
      kind: "recent",
      terms: ["flight", "hotel"],
    });
  });
});

describe("keyword search in a large index", () => {
  let idx: ReturnType<typeof openTestIndex>;
  let root: string;
  beforeAll(async () => {
    root = tempDir();
    generateWorkspace(root, 420, 5);
    writeFiles(root, {
      "memory/notes/zz-special.md":
        "# Special\n\nThe flight to Lisbon was booked by Priya with the quixotron voucher for the hotel.\n",
    });
    idx = openTestIndex(root, null);
    await idx.indexer.sync();
  }, 120_000);

  it("the index is large enough for the budgeted plans, and FTS5's totals agree with the table", () => {
    const { rows } = idx.store.ftsTotals();
    expect(rows).toBe(rawDb(idx.store).prepare(`SELECT count(*) FROM chunks`).pluck().get());
    expect(rows).toBeGreaterThanOrEqual(2000);
  });

  it("BM25 computed on the text agrees with FTS5's bm25() on the same chunks", () => {
    const terms = ["flight", "hotel", "luggage"];
    const { stats, chunks, avgTokens } = idx.store.termStats(terms);
    const rank = bm25Ranker(stats, chunks, avgTokens, (tok) => idx.store.stemsOf(tok));
    const hits = idx.store.keywordSearch(`"flight" OR "hotel" OR "luggage"`, 50);
    const texts = idx.store.chunkTexts(hits.map((h) => h.id));
    for (const h of hits) {
      const mine = rank(texts.get(h.id)!);
      expect(Math.abs(mine - h.rank)).toBeLessThan(0.15 * Math.abs(h.rank) + 1e-3);
    }
  });

  it("a rare word among common ones still finds its memory first; common-only queries return matching, newest chunks", async () => {
    const config = SearchSchema.parse({});
    const budgeted = new Searcher({ store: idx.store, provider: null, config, keywordBudget: 300 });
    const exact = new Searcher({ store: idx.store, provider: null, config, keywordBudget: Infinity });
    const q = "when was the flight to the hotel with the quixotron voucher";
    const a = await budgeted.search({ query: q });
    const b = await exact.search({ query: q });
    expect(a.results[0]!.path).toBe("memory/notes/zz-special.md");
    expect(b.results[0]!.path).toBe("memory/notes/zz-special.md");

    // Common words only, tiny budget: the newest chunks holding the words, ranked by BM25.
    appendFileSync(
      join(root, "memory/notes/zz-special.md"),
      "\nThe newest flight and hotel booking: flight flight hotel.\n",
    );
    await idx.indexer.sync();
    const res = await budgeted.search({ query: "flight hotel", explain: true });
    expect(res.results.length).toBeGreaterThan(0);
    for (const r of res.results) expect(r.snippet.toLowerCase()).toMatch(/flight|hotel/);
    expect(res.results.map((r) => r.path)).toContain("memory/notes/zz-special.md");
  });
});
