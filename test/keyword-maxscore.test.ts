import { afterAll, beforeAll, expect, it } from "vitest";
import type { IndexStore } from "../src/index/repos/store.js";
import { buildKeywordQuery } from "../src/search/keyword/query.js";
import { impactTopK } from "../src/index/keyword/postings-impacts.js";
import { maxScoreTopK } from "../src/index/keyword/postings-maxscore.js";
import { lengthNorms } from "../src/index/keyword/postings-topk.js";
import { scanByMerge, scanByScore } from "../src/index/keyword/postings-scan.js";
import { shortLengths } from "../src/index/keyword/postings-lengths.js";
import { rankKeywords } from "../src/search/keyword/strategy.js";
import { mulberry32 } from "../src/util/prng.js";
import { indexedWorkspace } from "./helpers/workspace.js";

/**
 * The keyword leg's MaxScore over blocks of postings (search/keyword/postings-maxscore) skips most
 * of a common word's postings, and must still give FTS5's own top k — the same chunks, the same
 * bm25() scores to the last bit, ties by id — on a generated index of some thousands of chunks
 * (lists of many blocks), for a few hundred queries: rare and common words mixed, words every chunk
 * holds (idf floored by FTS5), queries of stop words only (kept when nothing else is left),
 * repeated words, and k from 1 to 150. The exhaustive plan (postings-scan) and MaxScore are each
 * compared whatever plan the leg chose, with the chunks' length norms from 16-bit lengths and, for
 * an index holding a chunk of 65,536 tokens or more, from the norms' array.
 */

const STOP = "the a and with for on in after before we they was is of to".split(" ");
const TOPIC = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`);

function corpus(seed: number, files: number): Record<string, string> {
  const r = mulberry32(seed);
  const out: Record<string, string> = {};
  for (let f = 0; f < files; f++) {
    const paras: string[] = [];
    for (let p = 0; p < 4; p++) {
      const words: string[] = [];
      const n = 3 + Math.floor(r() * r() * 90);
      for (let i = 0; i < n; i++) {
        // Zipf-like topic words (a few in most chunks, a long tail), stop words between.
        words.push(r() < 0.45 ? STOP[Math.floor(r() * STOP.length)]! : TOPIC[Math.floor(TOPIC.length * r() ** 3)]!);
      }
      paras.push(words.join(" ") + ".");
    }
    if (f % 9 === 0) paras.push(paras[1]!); // equal scores: ties to the lower id
    out[`memory/notes/n${f}.md`] = `# Note\n\n${paras.join("\n\n")}\n`;
  }
  return out;
}

let store: IndexStore;

beforeAll(async () => {
  ({ store } = await indexedWorkspace(corpus(11, 700), { chunking: { maxTokens: 24, overlapTokens: 0 } }));
  store.keepKeywordsInMemory();
  expect(await store.text.postings.ready()).toBe(true);
}, 120_000);

afterAll(() => store?.close());

it("gives FTS5 bm25's top k for every query, common-word and stop-word-only queries included", () => {
  const view = store.keywordPostings()!;
  expect(view).not.toBeNull();
  expect(view.rows).toBeGreaterThan(2000);
  // Some lists hold most chunks (several blocks of 128, floored idf).
  const longest = Math.max(...[...view.lists.values()].map((l) => l.n));
  expect(longest).toBeGreaterThan(view.rows / 2);
  const r = mulberry32(5);
  const pickTopic = (skew: number) => TOPIC[Math.floor(TOPIC.length * r() ** skew)]!;
  const queries: string[] = [];
  for (let i = 0; i < 320; i++) {
    const n = 1 + Math.floor(r() * 4);
    const kind = i % 4;
    const words = Array.from({ length: n }, () =>
      kind === 0
        ? STOP[Math.floor(r() * STOP.length)]! // stop words only: all kept, all in most chunks
        : kind === 1
          ? pickTopic(6) // the most common topic words
          : kind === 2
            ? pickTopic(1) // rare words mostly
            : r() < 0.5
              ? pickTopic(3)
              : pickTopic(1),
    );
    if (i % 10 === 3) words.push(words[0]!); // a repeated word counts twice
    queries.push(words.join(" "));
  }
  expect(shortLengths(view)).not.toBeNull();
  const lengths = new Int32Array(view.lengths.length + 1);
  lengths.set(view.lengths);
  lengths[view.lengths.length] = 70_000;
  const wide = { ...view, lengths };
  let compared = 0;
  let proven = 0;
  let provenStopOnly = 0;
  let provenDeeper = 0;
  for (const [i, text] of queries.entries()) {
    const q = buildKeywordQuery(text);
    if (!q.match) continue;
    const k = [1, 5, 10, 24, 40, 120, 150][i % 7]!;
    const memory = rankKeywords(store, q, k);
    const fts5 = store.keywordSearch(q.match, k);
    expect(memory, `${text} (k ${k})`).toEqual(fts5);
    // MaxScore itself, whichever plan the leg chose for lists this short.
    const tokens = store.phraseTokens(q.terms) as string[];
    expect(maxScoreTopK(view, tokens, k, lengthNorms(view)), `${text} (k ${k}, MaxScore)`).toEqual(fts5);
    // The exhaustive plan both ways (by an accumulator on small indexes, by merging the lists on large).
    expect(scanByScore(view, tokens, k, lengthNorms(view)), `${text} (k ${k}, scan)`).toEqual(fts5);
    expect(scanByMerge(view, tokens, k, lengthNorms(view)), `${text} (k ${k}, merge)`).toEqual(fts5);
    // A chunk too long for 16-bit lengths (here one past the index, outside its totals): the norms' array serves.
    expect(shortLengths(wide)).toBeNull();
    expect(maxScoreTopK(wide, tokens, k, lengthNorms(wide)), `${text} (k ${k}, MaxScore, wide)`).toEqual(fts5);
    expect(scanByMerge(wide, tokens, k, lengthNorms(wide)), `${text} (k ${k}, merge, wide)`).toEqual(fts5);
    // The all-common-word plan at this index's size (lists of ≥ 200 postings, 64 top chunks each):
    // when it answers, it is FTS5's answer.
    const impacts = impactTopK(view, tokens, k, lengthNorms(view), { longList: 200, top: 64 });
    if (impacts) {
      expect(impacts, `${text} (k ${k}, top impacts)`).toEqual(fts5);
      proven++;
      if (i % 4 === 0) provenStopOnly++;
    }
    // With deeper top sets for stop-word-only queries (as the daemon's plan has them), the same.
    const deeper = impactTopK(view, tokens, k, lengthNorms(view), { longList: 200, top: 64, flooredTop: 256 });
    if (deeper) {
      expect(deeper, `${text} (k ${k}, top impacts, floored 256)`).toEqual(fts5);
      if (i % 4 === 0) provenDeeper++;
    }
    compared++;
  }
  expect(compared).toBeGreaterThan(300);
  expect(provenDeeper).toBeGreaterThanOrEqual(provenStopOnly);
  // The plan proves its bound for a good share of the queries of common words (else it is not tested).
  expect(proven).toBeGreaterThan(30);
  // Stop-word-only queries (every idf floored) are bounded by their own top chunks, and proven too.
  expect(provenStopOnly).toBeGreaterThan(5);
});
