/**
 * The keyword postings in memory hold this connection's chunk writes until a query or the end of a
 * sync patches them in; past MAX_PENDING (4,000) they are loaded again instead. A cold index of
 * more chunks than that must not hold every chunk's text until the end of the sync (it did: a
 * 100k-chunk cold index kept all 100k texts, RSS and GC); after it the postings still rank exactly
 * as FTS5. A real index over real files.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FtsTokenizer } from "../src/index/keyword/fts-tokens.js";
import { buildKeywordQuery } from "../src/search/keyword/query.js";
import { rankKeywords } from "../src/search/keyword/strategy.js";
import { indexedWorkspace, writeFiles, type IndexedWorkspace } from "./helpers/workspace.js";

const open: IndexedWorkspace[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.store.close();
  vi.restoreAllMocks();
});

const WORDS = "budget garden travel meeting running project café family harbor lantern".split(" ");

describe("keyword postings: pending writes", () => {
  it("hold at most 4,000 writes during a large sync, then reload and rank exactly as FTS5", async () => {
    const t = await indexedWorkspace({ "memory/first.md": "# First\n\nbudget garden.\n" });
    open.push(t);
    t.store.keepKeywordsInMemory();
    expect(await t.store.text.postings.ready()).toBe(true);
    const files: Record<string, string> = {};
    for (let i = 0; i < 4_400; i++)
      files[`memory/notes/n${i}.md`] =
        `# Note ${i}\n\n${WORDS[i % 10]} ${WORDS[(i * 7) % 10]} and ${WORDS[(i * 3) % 10]} word${i}.\n`;
    writeFiles(t.root, files);
    let most = 0;
    const report = await t.indexer.sync({
      onProgress: () => (most = Math.max(most, t.store.text.postings.pendingWrites)),
    });
    expect(report.chunksWritten).toBe(4_400);
    expect(most).toBeGreaterThan(1_000); // sampled mid-sync: writes were held
    expect(most).toBeLessThanOrEqual(4_000);
    expect(await t.store.text.postings.ready()).toBe(true);
    for (const q of ["budget", "garden travel", "café lantern harbor", "word17 budget", "meeting project family"]) {
      const kq = buildKeywordQuery(q);
      expect(t.store.keywordPostings()).not.toBeNull();
      expect(rankKeywords(t.store, kq, 25)).toEqual(t.store.keywordSearch(kq.match!, 25));
    }
  });

  it("at the end of a sync, patch the pending writes in slices, not in one FTS5 call", async () => {
    const t = await indexedWorkspace({ "memory/first.md": "# First\n\nbudget garden.\n" });
    open.push(t);
    t.store.keepKeywordsInMemory();
    expect(await t.store.text.postings.ready()).toBe(true);
    const files: Record<string, string> = {};
    for (let i = 0; i < 3_000; i++)
      files[`memory/notes/n${i}.md`] = `# Note ${i}\n\n${WORDS[i % 10]} ${WORDS[(i * 3) % 10]} word${i}.\n`;
    writeFiles(t.root, files);
    const calls: number[] = [];
    const tokens = FtsTokenizer.prototype.tokens;
    vi.spyOn(FtsTokenizer.prototype, "tokens").mockImplementation(function (this: FtsTokenizer, texts) {
      calls.push(texts.length);
      return tokens.call(this, texts);
    });
    await t.indexer.sync();
    expect(t.store.text.postings.pendingWrites).toBe(0);
    expect(calls.reduce((a, b) => a + b, 0)).toBe(3_000); // patched, not reloaded
    expect(Math.max(...calls)).toBeLessThanOrEqual(256);
    for (const q of ["budget", "garden travel", "word17 lantern", "meeting project family"]) {
      const kq = buildKeywordQuery(q);
      expect(t.store.keywordPostings()).not.toBeNull();
      expect(rankKeywords(t.store, kq, 25)).toEqual(t.store.keywordSearch(kq.match!, 25));
    }
  });
});
