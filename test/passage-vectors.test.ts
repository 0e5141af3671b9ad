/**
 * Passage vectors computed at index time (static models): the passage stage reads them instead of
 * embedding every line per query, with the scores query-time embedding gives;
 * they follow their chunks through edits and deletions, and an index from before them still
 * searches (query-time embedding) and gets them from its next sync. Real index, real static model
 * (the tiny test GGUF through the TypeScript path).
 */
import { rmSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SearchSchema } from "../src/config/schema.js";
import { createStaticBertProvider, type StaticBertProvider } from "../src/embed/builtin/fast-provider.js";
import type { EmbeddingProvider } from "../src/embed/provider.js";
import { units } from "../src/ingest/units.js";
import { openDatabase } from "../src/index/db/db.js";
import {
  encodePassageVectors,
  estimatePassages,
  passageCount,
  passageRecords,
} from "../src/index/vectors/passage-codes.js";
import { IndexStore } from "../src/index/repos/store.js";
import { Indexer } from "../src/indexer/sync.js";
import { PassageScorer } from "../src/search/passages.js";
import { Searcher } from "../src/search/searcher.js";
import type { SearchResponse } from "../src/search/types.js";
import { ensureTinyTestModel } from "./fixtures/embed/tiny-model.js";
import { counting } from "./helpers/models.js";
import { rawDb } from "./helpers/raw-db.js";
import { mulberry32 } from "../src/util/prng.js";
import { indexedWorkspace } from "./helpers/workspace.js";

let provider: StaticBertProvider;
beforeAll(async () => {
  provider = await createStaticBertProvider(await ensureTinyTestModel());
});
afterAll(async () => {
  await provider?.close();
});

const FILES = {
  "memory/2026-11-20.md":
    "# 2026-11-20\n\n- paid the rent and the mortgage bills\n- the bank loan and the savings budget\n- the jazz concert with the band, guitar and piano songs\n- debt and bills paid from savings\n",
  "memory/notes/mixed.md": "# mixed\n\n- pasta and soup, a song\n- bread and cake, a tune\n- the bank and rent\n",
  "memory/notes/trip.md": "# trip\n\n- flight to tokyo, hotel booked\n- the dog and the cat\n",
};
const QUERIES = ["melody of the orchestra", "rent and bills", "tokyo hotel", "cake and bread", "savings budget"];

/** Runs `fn` on a second connection to the index (as another process writes it), then closes it. */
function withConnection(dbPath: string, fn: (db: Database.Database) => void): void {
  const db = new Database(dbPath);
  try {
    fn(db);
  } finally {
    db.close();
  }
}

async function indexed(files: Record<string, string> = FILES, p: EmbeddingProvider = provider) {
  return indexedWorkspace(files, { provider: p, chunking: { maxTokens: 400, overlapTokens: 80 } });
}

function allIds(store: IndexStore): number[] {
  return (rawDb(store).prepare("SELECT id FROM chunks WHERE vec_state = 1 ORDER BY id").pluck().all() as number[]).map(
    Number,
  );
}

/** What the query-time scorer gives each chunk (its units embedded now). */
async function queryTime(store: IndexStore, q: Float32Array, ids: number[]): Promise<number[]> {
  const rows = store.chunksByIds(ids);
  return new PassageScorer(provider).best(
    q,
    ids.map((id) => rows.get(id)!),
  );
}

describe("passage vectors", () => {
  it("estimate four units a pass with the values of one at a time (any unit count, empty units)", () => {
    const r = mulberry32(5);
    for (const dims of [3, 100]) {
      const query = Float32Array.from({ length: dims }, () => r() - 0.5);
      const l1 = query.reduce((a, x) => a + Math.abs(x), 0);
      for (let n = 0; n <= 9; n++) {
        const vectors = Array.from({ length: n }, () =>
          r() < 0.2 ? null : Float32Array.from({ length: dims }, () => r() - 0.5),
        );
        const blob = encodePassageVectors(vectors, dims);
        // One unit at a time, as the estimate is defined (passage-codes.ts).
        const rec = 4 + dims;
        const codes = new Int8Array(blob.buffer, blob.byteOffset, blob.byteLength);
        const want = vectors.map((_, u) => {
          const scale = blob.readFloatLE(u * rec);
          if (!(scale > 0)) return { score: 0, error: 0 };
          let dot = 0;
          for (let i = 0; i < dims; i++) dot += query[i]! * codes[u * rec + 4 + i]!;
          return { score: dot * scale, error: (scale / 2) * l1 + 1e-6 };
        });
        expect(estimatePassages(blob, query, l1)).toEqual(want);
      }
    }
  });

  it("are stored for every embedded chunk, estimate each line within their bound, and score as query-time embedding does", async () => {
    const { store } = await indexed();
    const ids = allIds(store);
    const stored = store.vectors.passages.byIds(ids);
    expect(stored.size).toBe(ids.length);
    const rows = store.chunksByIds(ids);
    for (const id of ids) expect(passageCount(stored.get(id)!, provider.dims)).toBe(units(rows.get(id)!.text).length);
    for (const query of QUERIES) {
      const [q] = await provider.embedBatch([query]);
      const l1 = q!.reduce((n, x) => n + Math.abs(x), 0);
      for (const id of ids) {
        const est = estimatePassages(stored.get(id)!, q!, l1)!;
        const lines = await provider.embedBatch(units(rows.get(id)!.text).map((u) => u.text));
        lines.forEach((v, u) => {
          const dot = v ? v.reduce((n, x, i) => n + x * q![i]!, 0) : 0;
          expect(Math.abs(est[u]!.score - dot)).toBeLessThanOrEqual(est[u]!.error);
          if (v) expect(est[u]!.error).toBeLessThan(0.05);
        });
      }
      const want = await queryTime(store, q!, ids);
      const got = await new PassageScorer(provider).best(
        q!,
        ids.map((id) => rows.get(id)!),
        stored,
      );
      got.forEach((s, i) => expect(s).toBeCloseTo(want[i]!, 9));
    }
    store.close();
  });

  it("the passage stage reads them (few lines embedded per query) and ranks exactly as query-time embedding does", async () => {
    const spy = counting(provider);
    const { store, dbPath } = await indexed(FILES, spy);
    // A new searcher for each query: the query-time path's cache of earlier queries does not count.
    const lines = async (out: SearchResponse[]) => {
      spy.calls.length = 0;
      for (const query of QUERIES) {
        const searcher = new Searcher({ store, provider: spy, config: SearchSchema.parse({ recencyWeight: 0 }) });
        out.push(await searcher.search({ query, explain: true }));
      }
      return spy.calls.length - QUERIES.length; // less the query vectors
    };
    const stored: SearchResponse[] = [];
    const withStored = await lines(stored);
    // Without stored passage vectors (another process's index, written on its connection): the
    // query-time path embeds every line of the candidates.
    withConnection(dbPath, (db) => db.exec("DELETE FROM passage_vectors"));
    const live: SearchResponse[] = [];
    const withoutStored = await lines(live);
    expect(withStored).toBeLessThan(withoutStored / 2);
    for (const [i, got] of live.entries()) samePassages(got, stored[i]!);
    store.close();
  });

  it("hold each line's token ids: the passage stage tokenizes and embeds no line text, with the same scores", async () => {
    const { store } = await indexed();
    const ids = allIds(store);
    const stored = store.vectors.passages.byIds(ids);
    const rows = store.chunksByIds(ids);
    for (const id of ids) {
      const read = passageRecords(stored.get(id)!, provider.dims)!;
      expect(read.hasIds).toBe(true);
      units(rows.get(id)!.text).forEach((u, i) => expect(read.ids(i)).toEqual(provider.tokenIds(u.text)));
    }
    const texts: string[] = [];
    const watched = Object.assign(Object.create(provider) as StaticBertProvider, {
      embedBatch: async (t: readonly string[]) => (texts.push(...t), provider.embedBatch(t)),
    });
    for (const query of QUERIES) {
      const [q] = await provider.embedBatch([query]);
      const want = await queryTime(store, q!, ids);
      const read: number[][] = [];
      const got = await new PassageScorer(watched).scores(q!, ids, stored, (need) => (read.push(need), rows));
      got.forEach((s, i) => expect(s).toBe(want[i]!)); // bit for bit
      expect(read).toEqual([]); // no chunk text is read either
      expect(texts).toEqual([]); // nor embedded
      // A chunk without stored vectors among them: only its text is read.
      const without = new Map([...stored].filter(([id]) => id !== ids[0]));
      const mixed = await new PassageScorer(watched).scores(q!, ids, without, (need) => (read.push(need), rows));
      expect(read).toEqual([[ids[0]]]);
      texts.length = 0;
      mixed.forEach((s, i) => expect(s).toBeCloseTo(want[i]!, 9));
    }
    store.close();
  });

  it("an index whose passage vectors lack token ids (format 1) scores alike and gets them from its next sync", async () => {
    const { store, indexer, dbPath } = await indexed();
    const searcher = new Searcher({ store, provider, config: SearchSchema.parse({ recencyWeight: 0 }) });
    const want: SearchResponse[] = [];
    for (const query of QUERIES) want.push(await searcher.search({ query, explain: true }));
    // Rewrite every blob as format 1 (the records alone) and mark them complete as that code did,
    // on its own connection (as that code's process would have).
    const ids = allIds(store);
    const rows = store.chunksByIds(ids);
    const format1 = new Map<number, Buffer>();
    for (const id of ids) {
      const vecs = await provider.embedBatch(units(rows.get(id)!.text).map((u) => u.text));
      format1.set(id, encodePassageVectors(vecs, provider.dims));
    }
    withConnection(dbPath, (db) => {
      for (const [id, vecs] of format1) db.prepare("UPDATE passage_vectors SET vecs = ? WHERE id = ?").run(vecs, id);
      db.prepare("UPDATE meta SET value = ? WHERE key = 'passage_vectors'").run(provider.identity);
    });
    const old = store.vectors.passages.byIds(ids);
    expect([...old.values()].every((b) => !passageRecords(b, provider.dims)!.hasIds)).toBe(true);
    for (const [i, query] of QUERIES.entries()) samePassages(await searcher.search({ query, explain: true }), want[i]!);
    await indexer.sync();
    const upgraded = store.vectors.passages.byIds(ids);
    expect(upgraded.size).toBe(ids.length);
    expect([...upgraded.values()].every((b) => passageRecords(b, provider.dims)!.hasIds)).toBe(true);
    for (const [i, query] of QUERIES.entries()) samePassages(await searcher.search({ query, explain: true }), want[i]!);
    store.close();
  });

  it("follow their chunk: an edited file's lines are re-done, a deleted file's go", async () => {
    const { root, store, indexer } = await indexed();
    writeFileSync(
      join(root, "memory/notes/trip.md"),
      "# trip\n\n- the jazz concert in tokyo\n- a piano recital\n- guitar songs\n",
    );
    rmSync(join(root, "memory/notes/mixed.md"));
    await indexer.sync();
    const ids = allIds(store);
    const stored = store.vectors.passages.byIds(ids);
    expect(stored.size).toBe(ids.length);
    expect(rawDb(store).prepare("SELECT count(*) FROM passage_vectors").pluck().get()).toBe(ids.length);
    const trip = store.chunksOfFile("memory/notes/trip.md")[0]!;
    expect(passageCount(stored.get(trip.id)!, provider.dims)).toBe(units(trip.text).length); // the new text's units
    const [q] = await provider.embedBatch(["piano recital"]);
    const [want] = await queryTime(store, q!, [trip.id]);
    const [got] = await new PassageScorer(provider).best(q!, [trip], stored);
    expect(got).toBeCloseTo(want!, 9);
    expect(got).toBeGreaterThan(0.3);
    store.close();
  });

  it("an index from before them searches with query-time embedding, then gets them from its next sync", async () => {
    const { root, dbPath, store } = await indexed();
    const searcher = new Searcher({ store, provider, config: SearchSchema.parse({ recencyWeight: 0 }) });
    const want: SearchResponse[] = [];
    for (const query of QUERIES) want.push(await searcher.search({ query, explain: true }));
    // Back to schema 7: no passage_vectors table, no completeness mark.
    const db = rawDb(store);
    db.exec("DROP TABLE passage_vectors; DELETE FROM meta WHERE key = 'passage_vectors'");
    db.pragma("user_version = 7");
    store.close();

    const old = new IndexStore(openDatabase(dbPath), "t");
    expect(old.vectors.passages.byIds(allIds(old)).size).toBe(0);
    const upgraded = new Searcher({ store: old, provider, config: SearchSchema.parse({ recencyWeight: 0 }) });
    for (const [i, query] of QUERIES.entries()) samePassages(await upgraded.search({ query, explain: true }), want[i]!);
    await new Indexer({
      store: old,
      target: { root },
      provider,
      chunking: { maxTokens: 400, overlapTokens: 80 },
    }).sync();
    const ids = allIds(old);
    expect(old.vectors.passages.byIds(ids).size).toBe(ids.length);
    for (const [i, query] of QUERIES.entries()) samePassages(await upgraded.search({ query, explain: true }), want[i]!);
    old.close();
  });
});

/** Same results in the same order, with the same passage additions. */
function samePassages(got: SearchResponse, want: SearchResponse): void {
  expect(got.results.map((h) => [h.path, h.startLine])).toEqual(want.results.map((h) => [h.path, h.startLine]));
  got.results.forEach((h, j) => {
    const p = want.results[j]!.explain!.passage;
    expect(h.explain!.passage).toBe(p);
    expect(h.score).toBe(want.results[j]!.score);
  });
}
