import fc from "fast-check";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { IndexStore } from "../src/index/repos/store.js";
import { KeywordPostings } from "../src/index/keyword/keyword-postings.js";
import { Indexer } from "../src/indexer/sync.js";
import { buildKeywordQuery } from "../src/search/keyword/query.js";
import { rankKeywords } from "../src/search/keyword/strategy.js";
import { mulberry32 } from "../src/util/prng.js";
import { indexedWorkspace, writeFiles } from "./helpers/workspace.js";

/**
 * The daemon's keyword leg ranks from postings in memory (index/keyword-postings): its top k must
 * be FTS5's own `MATCH … ORDER BY bm25(), rowid` — the same chunks, the same scores to the last
 * bit, ties by id — on random corpora, and stay so through edits, deletes, a write by another
 * connection and a write that rolled back.
 */

// Words porter stems together (run/running/runs), diacritics, digits, words in most chunks.
const VOCAB = [
  ..."meeting meetings project projects budget travel travelling family garden gardening".split(" "),
  ..."run running runs café cafe naïve naive 2024 v2 x1".split(" "),
  ...Array.from({ length: 40 }, (_, i) => `zq${String.fromCharCode(97 + (i % 26))}${i}word`),
];
const GLUE = "the a and with for on in after before we they was is".split(" ");

function corpus(seed: number, files: number): Record<string, string> {
  const r = mulberry32(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const out: Record<string, string> = {};
  for (let f = 0; f < files; f++) {
    const paras: string[] = [];
    for (let p = 0; p < 3; p++) {
      const words: string[] = [];
      const n = 5 + Math.floor(r() * 50);
      for (let i = 0; i < n; i++) {
        const u = r();
        words.push(u < 0.35 ? VOCAB[Math.floor(r() * r() * VOCAB.length)]! : pick(GLUE));
      }
      paras.push(words.join(" ") + ".");
    }
    // Duplicated paragraphs make chunks with equal scores: ties fall to the lower id.
    if (f % 7 === 0) paras.push(paras[0]!);
    out[`memory/notes/n${f}.md`] = `# Note ${f}\n\n${paras.join("\n\n")}\n`;
  }
  return out;
}

let root: string;
let dbFile: string;
let store: IndexStore;
let indexer: Indexer;

beforeAll(async () => {
  ({
    root,
    dbPath: dbFile,
    store,
    indexer,
  } = await indexedWorkspace(corpus(3, 120), {
    chunking: { maxTokens: 40, overlapTokens: 0 },
  }));
  store.keepKeywordsInMemory();
  expect(await store.text.postings.ready()).toBe(true);
});

afterAll(() => store?.close());

const query = fc.tuple(
  fc.array(fc.constantFrom(...VOCAB, "absentword", "the"), { minLength: 1, maxLength: 5 }),
  fc.integer({ min: 1, max: 60 }),
);

/** The memory path's top k and FTS5's, for a query. */
function both(words: readonly string[], k: number) {
  const q = buildKeywordQuery(words.join(" "));
  expect(store.keywordPostings()).not.toBeNull();
  return { memory: rankKeywords(store, q, k), fts5: store.keywordSearch(q.match!, k) };
}

function assertExact(runs: number, seed: number) {
  let nonEmpty = 0;
  fc.assert(
    fc.property(query, ([words, k]) => {
      const { memory, fts5 } = both(words, k);
      expect(memory).toEqual(fts5);
      if (fts5.length) nonEmpty++;
    }),
    { numRuns: runs, seed },
  );
  expect(nonEmpty).toBeGreaterThan(runs / 2);
}

describe("keyword postings in memory", () => {
  it("rank exactly as FTS5 bm25 on a random corpus (scores, order, ties by id)", () => {
    assertExact(300, 7);
    // Ties exist in this corpus and were ordered by id (the duplicated paragraphs).
    const { fts5 } = both(["zqa0word", "meeting"], 200);
    expect(new Set(fts5.map((h) => h.rank)).size).toBeLessThan(fts5.length);
  });

  it("follow this connection's edits, deletes and new files", async () => {
    const next = corpus(4, 120);
    for (let f = 0; f < 120; f += 3) writeFileSync(join(root, `memory/notes/n${f}.md`), next[`memory/notes/n${f}.md`]!);
    for (let f = 1; f < 120; f += 10) rmSync(join(root, `memory/notes/n${f}.md`));
    writeFiles(root, { "memory/notes/extra.md": "# Extra\n\ncafé running zqb1word zqb1word budget.\n" });
    await indexer.sync();
    expect(store.keywordPostings()).not.toBeNull(); // patched, not reloaded
    assertExact(150, 8);
  });

  it("reload after a write by another connection, and after a write that rolled back", async () => {
    const other = new IndexStore(openDatabase(dbFile), "t");
    try {
      other.deleteFile("memory/notes/n2.md");
    } finally {
      other.close();
    }
    expect(store.keywordPostings()).toBeNull(); // stale: FTS5 answers until reloaded
    expect(await store.text.postings.ready()).toBe(true);
    assertExact(80, 9);

    expect(() =>
      store.transaction(() => {
        store.deleteFile("memory/notes/n5.md");
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(store.keywordPostings()).toBeNull();
    expect(await store.text.postings.ready()).toBe(true);
    assertExact(80, 10);
  });

  it("leave phrases of several tokens to FTS5 (CJK runs, words joined by _)", () => {
    expect(store.phraseTokens(["running", "foo_bar", "café"])).toEqual(["run", null, "cafe"]);
    const q = buildKeywordQuery("会议 meeting");
    expect(rankKeywords(store, q, 10)).toEqual(store.keywordSearch(q.match!, 10));
  });

  it("stay on FTS5 for an index with more postings than memory holds", async () => {
    const { db } = openDatabase(dbFile);
    const small = new KeywordPostings(db, { maxPostings: 100 });
    small.enable();
    expect(await small.ready()).toBe(false);
    expect(small.current()).toBeNull();
    expect(small.lastError).toMatch(/more than the 100 held in memory/);
    expect(small.isEnabled).toBe(false); // not tried again on every query
    db.close();
  });

  it("a load gives way while writes pile up behind its snapshot, and loads once they stop", async () => {
    const { db } = openDatabase(dbFile);
    db.exec("CREATE TABLE IF NOT EXISTS test_filler (x BLOB)");
    db.pragma("wal_checkpoint(TRUNCATE)");
    const postings = new KeywordPostings(db, { walGrowthMax: 0, stepMs: 0, retryMs: 0 });
    let writing = true;
    const write = () => {
      if (!writing) return;
      db.prepare("INSERT INTO test_filler VALUES (randomblob(1000000))").run();
      setImmediate(write);
    };
    write();
    postings.enable();
    expect(await postings.ready()).toBe(false);
    writing = false;
    expect(postings.deferrals).toBeGreaterThan(0);
    expect(postings.isEnabled).toBe(true); // deferred, not turned off
    expect(postings.lastError).toBeUndefined();
    expect(postings.current()).toBeNull(); // starts the next try
    expect(await postings.ready()).toBe(true);
    db.exec("DROP TABLE test_filler");
    db.close();
  });
});
