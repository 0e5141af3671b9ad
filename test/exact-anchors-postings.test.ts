/**
 * The exact anchors of a query (search/exact.ts) with the postings in memory: a one-word token whose
 * chunk count the postings know is looked up in FTS5 only when it can be an anchor (held by 1..few
 * chunks); the anchors are the same as FTS5 alone finds. Real files, a real index.
 */
import { afterEach, describe, expect, it } from "vitest";
import { exactAnchors, type ExactStore } from "../src/search/exact.js";
import { openTestIndex, tempDir, writeFiles, type TestIndex } from "./helpers/workspace.js";

const open: TestIndex[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

function files(): Record<string, string> {
  const out: Record<string, string> = {
    "memory/2026-03-02.md": "# 2026-03-02\n\n- The incident INC-4821 hit the Lyon gateway (ECONNRESET).\n",
    "memory/2026-03-03.md": "# 2026-03-03\n\n- Closed INC-4821 after the Lyon gateway restart.\n",
  };
  for (let i = 0; i < 20; i++) {
    const d = new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10);
    out[`memory/${d}.md`] = `# ${d}\n\n- Checked the gateway dashboards and the backups (entry ${i}).\n`;
  }
  return out;
}

describe("exact anchors with the postings in memory", () => {
  it("finds the same anchors as FTS5 alone, with fewer FTS5 lookups", async () => {
    const root = tempDir();
    writeFiles(root, files());
    const t = openTestIndex(root, null);
    open.push(t);
    await t.indexer.sync();
    t.store.keepKeywordsInMemory();
    expect(await t.store.text.postings.ready()).toBe(true);
    const calls = { postings: 0, fts: 0 };
    const counting = (key: "postings" | "fts", withCounts: boolean): ExactStore => ({
      keywordSearch: (match, limit, order) => {
        calls[key]++;
        return t.store.keywordSearch(match, limit, order);
      },
      ...(withCounts ? { wordChunkCount: (w: string) => t.store.wordChunkCount(w) } : {}),
    });
    for (const q of [
      "What happened with INC-4821 in Lyon?",
      "gateway backups ECONNRESET",
      "dashboards unknownword lyon",
      '"Lyon gateway" restart',
    ]) {
      const viaPostings = exactAnchors(counting("postings", true), q, 3);
      const viaFts = exactAnchors(counting("fts", false), q, 3);
      expect(viaPostings, q).toEqual(viaFts);
    }
    expect(calls.postings).toBeLessThan(calls.fts);
    // The anchors are real: the rare tokens name their chunks.
    expect(exactAnchors(t.store, "What happened in Lyon?", 3).map((a) => a.term)).toEqual(["Lyon"]);
    expect(t.store.wordChunkCount("gateway")).toBe(22);
  });
});
