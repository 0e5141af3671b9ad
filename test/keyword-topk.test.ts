import fc from "fast-check";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db.js";
import { IndexStore } from "../src/index/store.js";
import { Indexer } from "../src/index/sync.js";
import { termPhrase } from "../src/index/fts-text.js";
import { buildKeywordQuery } from "../src/search/keyword/query.js";
import { topKeywordHits, type TopKStats } from "../src/search/keyword/topk.js";
import { mulberry32 } from "../src/util/prng.js";
import { tempDir, writeFiles } from "./helpers/workspace.js";
import { rawDb } from "./helpers/raw-db.js";

/**
 * The planned keyword search (score only chunks with a rare word, prove no other chunk can enter the
 * top k) must return exactly what the plain OR query returns: same chunks, same scores, same order.
 */

const COMMON = ["meeting", "project", "budget", "travel", "family", "garden"];
const RARE = Array.from(
  { length: 60 },
  (_, i) => `zor${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}word`,
);
const GLUE = "the a and with for on in after before we they was is".split(" ");

let store: IndexStore;

beforeAll(async () => {
  const r = mulberry32(11);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const files: Record<string, string> = {};
  for (let f = 0; f < 150; f++) {
    const paras: string[] = [];
    for (let p = 0; p < 4; p++) {
      const words: string[] = [];
      const n = 20 + Math.floor(r() * 60);
      for (let i = 0; i < n; i++) {
        const u = r();
        // Common words in many paragraphs, repeated; rare words in few.
        words.push(u < 0.25 ? pick(COMMON) : u < 0.3 ? RARE[Math.floor(r() * r() * RARE.length)]! : pick(GLUE));
      }
      paras.push(words.join(" ") + ".");
    }
    files[`memory/notes/n${f}.md`] = `# Note ${f}\n\n${paras.join("\n\n")}\n`;
  }
  const root = tempDir();
  writeFiles(root, files);
  store = new IndexStore(openDatabase(join(tempDir(), "i.sqlite")), "t");
  await new Indexer({ store, target: { root }, provider: null, chunking: { maxTokens: 60, overlapTokens: 0 } }).sync();
});

afterAll(() => store?.close());

function plan(query: string, k: number, stats?: TopKStats) {
  const q = buildKeywordQuery(query);
  const { stats: counts, chunks } = store.termStats(q.terms);
  const ordered = [...counts].sort((a, b) => (a.exact ? a.df : Infinity) - (b.exact ? b.df : Infinity));
  return {
    planned: topKeywordHits(store, counts, chunks, k, stats),
    plain: store.keywordSearch(ordered.map((t) => termPhrase(t.term)).join(" OR "), k),
  };
}

describe("exact top-k keyword plan", () => {
  it("equals the plain OR query for any mix of rare and common words and any k", () => {
    const plans = new Set<string>();
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...COMMON, ...RARE, "absentword"), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 40 }),
        (words, k) => {
          const stats: TopKStats = { plan: "plain" };
          const { planned, plain } = plan(words.join(" "), k, stats);
          plans.add(stats.plan);
          expect(planned).toEqual(plain);
        },
      ),
      { numRuns: 300, seed: 5 },
    );
    // The property must have exercised the pruned plan, not only the plain query.
    expect(plans).toContain("pruned");
  });

  it("prunes a query with one rare word among common ones, and still finds the chunks with only common words when they rank", () => {
    const stats: TopKStats = { plan: "plain" };
    const { planned, plain } = plan(`meeting project ${RARE[0]}`, 10, stats);
    expect(stats.plan).toBe("pruned");
    expect(planned).toEqual(plain);
    // With a k larger than the chunks holding the rare word, common-only chunks must fill the rest.
    const big = plan(`meeting ${RARE[59]}`, 200);
    expect(big.planned).toEqual(big.plain);
    expect(big.planned.length).toBe(200);
  });
});

describe("term statistics cache", () => {
  it("counts chunks per word as FTS5 stems them, and sees changes made after it was read", async () => {
    const root = tempDir();
    writeFiles(root, { "MEMORY.md": "# Pets\n\nThe cats sleep on the sofa.\n" });
    const s = new IndexStore(openDatabase(join(tempDir(), "i.sqlite")), "t");
    const indexer = new Indexer({
      store: s,
      target: { root },
      provider: null,
      chunking: { maxTokens: 60, overlapTokens: 0 },
    });
    await indexer.sync();
    const counts = () => {
      const { stats, chunks } = s.termStats(["cat", "sleeping", "dog"]);
      return { df: stats.map((t) => t.df), exact: stats.map((t) => t.exact), stems: stats.map((t) => t.stems), chunks };
    };
    expect(counts()).toEqual({
      df: [1, 1, 0],
      exact: [true, true, true],
      stems: [["cat"], ["sleep"], ["dog"]],
      chunks: 1,
    });
    writeFiles(root, { "memory/2026-11-29.md": "# Today\n\nThe dog and the cat played.\n" });
    await indexer.sync();
    expect(counts()).toEqual({
      df: [2, 1, 1],
      exact: [true, true, true],
      stems: [["cat"], ["sleep"], ["dog"]],
      chunks: 2,
    });
    s.close();
  });
});

describe("FTS segments after a large sync", () => {
  it("are merged into one, so keyword search reads one posting list per word", () => {
    // The index built in beforeAll came from one sync of 150 files.
    expect(store.counts().chunks).toBeGreaterThanOrEqual(1000);
    const segments = (
      rawDb(store).prepare(`SELECT count(DISTINCT segid) AS n FROM chunks_fts_idx`).get() as { n: number }
    ).n;
    expect(segments).toBe(1);
  });

  it("give the merged segments' pages back: the index file holds no free pages afterwards", () => {
    expect(rawDb(store).pragma("auto_vacuum", { simple: true })).toBe(2); // incremental, set when the index was created
    expect(rawDb(store).pragma("freelist_count", { simple: true })).toBe(0);
  });
});
