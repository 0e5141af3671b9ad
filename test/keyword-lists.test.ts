import { appendFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { generateWorkspace, rng, sampleQuery } from "../scripts/bench/generate.js";
import { bm25Ranker, planKeyword } from "../src/search/keyword/budget.js";
import { listTopK, type ListSearchResult } from "../src/search/keyword/lists.js";
import { buildKeywordQuery } from "../src/search/keyword/query.js";
import type { IndexStore } from "../src/index/store.js";
import { openTestIndex, tempDir, writeFiles } from "./helpers/workspace.js";
import { rawDb } from "./helpers/raw-db.js";

/**
 * The common words' impact-ordered lists on a real index of 2,000+ chunks, with thresholds scaled
 * down (lists for stems in 150+ chunks, 60 entries each, a postings budget of 300) so the
 * large-index plans run: where the bounds prove the top k exact it must equal FTS5's bm25 top k;
 * where they do not, it must still be close; writes (new, edited, deleted chunks) keep it so.
 */

const LISTS = { minDf: 150, size: 60 };
const BUDGET = 300;
const K = 10;

/** The keyword leg as the Searcher runs it in a large index, through the lists. */
function viaLists(store: IndexStore, query: string): ListSearchResult | null {
  const q = buildKeywordQuery(query);
  if (!q.match) return null;
  const { stats, chunks, avgTokens } = store.termStats(q.terms);
  const plan = planKeyword(stats, chunks, BUDGET);
  if (plan.kind === "full") return null;
  return listTopK(store, {
    terms: plan.rescore,
    rare: plan.kind === "rare" ? plan.terms : [],
    chunks,
    k: K,
    rank: bm25Ranker(plan.rescore, chunks, avgTokens, (tok) => store.stemsOf(tok)),
  });
}

/** FTS5's own bm25 top k over the same words (the exact ranking). */
function exactTopK(store: IndexStore, query: string): { id: number; rank: number }[] {
  const q = buildKeywordQuery(query);
  const { stats, chunks } = store.termStats(q.terms);
  const used = planKeyword(stats, chunks, Infinity).terms;
  return store.keywordSearch(buildKeywordQuery(used.join(" "), { keepStopWords: true }).match!, K);
}

function overlap(a: { id: number }[], b: { id: number }[]): number {
  const got = new Set(a.map((h) => h.id));
  return b.length ? b.filter((h) => got.has(h.id)).length / b.length : 1;
}

describe("keyword search through the common words' lists", () => {
  let idx: ReturnType<typeof openTestIndex>;
  let root: string;
  const queries = (() => {
    const r = rng(7);
    return Array.from({ length: 60 }, () => sampleQuery(r));
  })();

  beforeAll(async () => {
    root = tempDir();
    generateWorkspace(root, 420, 5);
    idx = openTestIndex(root, null);
    await idx.indexer.sync();
    const built = await idx.store.termLists.refresh(LISTS);
    expect(built.built).toBeGreaterThan(10);
  }, 120_000);

  it("is used for common-word queries; where it claims exactness it equals FTS5's bm25 top k; overall it stays close", () => {
    expect(idx.store.ftsTotals().rows).toBeGreaterThanOrEqual(2000);
    let used = 0;
    let exact = 0;
    let sum = 0;
    for (const query of queries) {
      const res = viaLists(idx.store, query);
      if (!res) continue;
      used++;
      const truth = exactTopK(idx.store, query);
      const o = overlap(res.hits, truth);
      sum += o;
      if (res.exact) {
        exact++;
        // Same chunks; scores agree with FTS5's (the text scorer reproduces its stems and lengths).
        expect(o, query).toBe(1);
        const mine = new Map(res.hits.map((h) => [h.id, h.rank]));
        for (const h of truth) expect(Math.abs(mine.get(h.id)! - h.rank)).toBeLessThan(0.02 * Math.abs(h.rank) + 1e-6);
      }
    }
    expect(used).toBeGreaterThan(queries.length / 2);
    expect(exact).toBeGreaterThan(0);
    expect(sum / used).toBeGreaterThan(0.8);
  });

  it("new and edited chunks are found before and after they are folded in; deleted ones leave the lists", async () => {
    const q = "flight hotel luggage";
    const before = viaLists(idx.store, q)!;
    expect(before).not.toBeNull();
    // A short chunk heavy in all three words: the best match there is.
    writeFiles(root, {
      "memory/notes/zz-best.md": "# Trip\n\nflight hotel luggage flight hotel luggage flight hotel.\n",
    });
    await idx.indexer.sync({ paths: ["memory/notes/zz-best.md"] });
    const newId = idx.store.chunksOfFile("memory/notes/zz-best.md")[0]!.id;
    // The sync folded it in already; queue it again to see a search score it as pending too.
    expect(idx.store.listPending(10).total).toBe(0);
    rawDb(idx.store).prepare(`INSERT INTO term_list_pending (chunk_id) VALUES (?)`).run(newId);
    const pending = viaLists(idx.store, q)!;
    expect(pending.hits[0]!.id).toBe(newId);
    await idx.store.termLists.fold();
    expect(idx.store.listPending(10).total).toBe(0);
    const folded = viaLists(idx.store, q)!;
    expect(folded.hits[0]!.id).toBe(newId);
    expect(folded.hits.map((h) => h.id)).toEqual(exactTopK(idx.store, q).map((h) => h.id));
    const listed = rawDb(idx.store)
      .prepare(`SELECT count(*) FROM term_list_entries WHERE chunk_id = ?`)
      .pluck()
      .get(newId) as number;
    expect(listed).toBeGreaterThan(0);

    // An edit appends; a delete removes every list entry of the file's chunks.
    appendFileSync(join(root, "memory/notes/zz-best.md"), "\nMore about the hotel.\n");
    await idx.indexer.sync();
    rmSync(join(root, "memory/notes/zz-best.md"));
    await idx.indexer.sync();
    const orphans = rawDb(idx.store)
      .prepare(
        `SELECT count(*) FROM term_list_entries e WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = e.chunk_id)`,
      )
      .pluck()
      .get() as number;
    expect(orphans).toBe(0);
    const after = viaLists(idx.store, q)!;
    expect(after.hits.map((h) => h.id)).not.toContain(newId);
    expect(overlap(after.hits, exactTopK(idx.store, q))).toBeGreaterThanOrEqual(0.8);
  });

  it("a rebuild from FTS ranks as the incrementally kept lists do", async () => {
    const sample = queries.slice(0, 20);
    const kept = sample.map((q) => viaLists(idx.store, q)?.hits.map((h) => h.id));
    await idx.store.termLists.refresh({ ...LISTS, force: true });
    const rebuilt = sample.map((q) => viaLists(idx.store, q)?.hits.map((h) => h.id));
    let same = 0;
    sample.forEach(
      (_, i) =>
        (same += overlap(
          (rebuilt[i] ?? []).map((id) => ({ id })),
          (kept[i] ?? []).map((id) => ({ id })),
        )),
    );
    expect(same / sample.length).toBeGreaterThan(0.9);
  });

  it("a write that fails half-way leaves the lists as they were (they change in the chunks' own transactions)", () => {
    const db = rawDb(idx.store);
    const state = () => ({
      entries: db.prepare(`SELECT count(*) FROM term_list_entries`).pluck().get(),
      pending: db.prepare(`SELECT count(*) FROM term_list_pending`).pluck().get(),
      chunks: db.prepare(`SELECT count(*) FROM chunks`).pluck().get(),
    });
    const meta = { path: "memory/notes/zz-fail.md", class: "note" as const, size: 10, mtimeMs: 1, sha256: "00" };
    const chunk = (seq: number) => ({
      text: `flight hotel luggage ${seq}`,
      startLine: seq + 1,
      endLine: seq + 1,
      hash: "ab".repeat(32),
    });
    idx.store.replaceFile(meta, [chunk(0), chunk(1)]);
    expect(idx.store.listPending(10).total).toBe(2);
    const before = state();
    // The third chunk's insert fails (as a full disk or a kill would stop it): nothing of the write stays.
    db.exec(
      `CREATE TEMP TRIGGER fail_insert BEFORE INSERT ON main.chunks WHEN new.seq = 2 BEGIN SELECT RAISE(ABORT, 'disk full'); END;`,
    );
    expect(() => idx.store.replaceFile(meta, [chunk(0), chunk(1), chunk(2)])).toThrow(/disk full/);
    expect(state()).toEqual(before);
    db.exec(`DROP TRIGGER fail_insert`);
    // A delete that fails after the list entries went: they come back with the chunks.
    db.prepare(`INSERT INTO term_list_entries (stem, g, chunk_id) SELECT stem, 9, ? FROM term_lists LIMIT 3`).run(
      idx.store.chunksOfFile(meta.path)[1]!.id,
    );
    const listed = state();
    db.exec(
      `CREATE TEMP TRIGGER fail_delete BEFORE DELETE ON main.chunks WHEN old.seq = 1 BEGIN SELECT RAISE(ABORT, 'disk full'); END;`,
    );
    expect(() => idx.store.deleteFile(meta.path)).toThrow(/disk full/);
    expect(state()).toEqual(listed);
    db.exec(`DROP TRIGGER fail_delete`);
    idx.store.deleteFile(meta.path);
    expect(state()).toMatchObject({ entries: before.entries, pending: 0 });
  });
});
