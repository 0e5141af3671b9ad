import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { IndexStore } from "../src/index/repos/store.js";
import { QuantizedVectors } from "../src/index/vectors/vector-codes.js";
import { fitQuantizer, quantize } from "../src/index/vectors/quantizer.js";
import { topByScore } from "../src/index/vectors/top-by-score.js";
import { mulberry32 } from "../src/util/prng.js";
import { tempDir } from "./helpers/workspace.js";
import { chunksFor as vectorChunks, openVectorStore } from "./helpers/vector-store.js";
import { rawDb } from "./helpers/raw-db.js";

const DIMS = 100;

/** Clustered unit vectors, as embeddings of texts on a few topics are. */
function vectors(n: number, seed: number): Float32Array[] {
  const r = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(r() || 1e-9)) * Math.cos(2 * Math.PI * r());
  const centres = Array.from({ length: 12 }, () => Float32Array.from({ length: DIMS }, gauss));
  return Array.from({ length: n }, () => {
    const c = centres[Math.floor(r() * centres.length)]!;
    const v = Float32Array.from({ length: DIMS }, (_, i) => c[i]! + 0.9 * gauss());
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

describe("QuantizedVectors", () => {
  it("centres before quantizing: codes of near-parallel vectors still differ", () => {
    const vs = vectors(500, 9).map((v) => v.map((x, i) => x + (i === 0 ? 5 : 0))); // a large common component
    const q = fitQuantizer(vs, DIMS);
    const a = quantize(vs[0]!, q);
    const b = quantize(vs[1]!, q);
    expect(a.some((x, i) => Math.sign(x) !== Math.sign(b[i]!))).toBe(true);
    expect(Math.max(...a.map(Math.abs))).toBeLessThanOrEqual(127);
  });

  it("tracks adds, replacements, deletes and out-of-order ids; with a wide coarse pass it returns the best int8 scores", () => {
    const pool = vectors(64, 5);
    const quantizer = fitQuantizer(pool, DIMS);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ id: fc.integer({ min: 1, max: 300 }), v: fc.integer({ min: 0, max: 63 }), del: fc.boolean() }),
          { maxLength: 200 },
        ),
        fc.integer({ min: 0, max: 63 }),
        fc.integer({ min: 1, max: 20 }),
        (ops, qi, m) => {
          const codes = new QuantizedVectors(DIMS, quantizer, 4);
          const truth = new Map<number, Int8Array>();
          for (const op of ops) {
            if (op.del) {
              codes.delete(op.id);
              truth.delete(op.id);
            } else {
              const c = quantize(pool[op.v]!, quantizer);
              codes.set(op.id, c);
              truth.set(op.id, c);
            }
          }
          expect(codes.size).toBe(truth.size);
          const query = pool[qi]!;
          const got = codes.nearest(query, 10_000, m);
          expect(got.length).toBe(Math.min(m, truth.size));
          expect(got.every((id) => truth.has(id))).toBe(true);
          const norm = Math.hypot(...query);
          const score = (c: Int8Array) => c.reduce((s, x, j) => s + (x * query[j]!) / norm / quantizer.scale[j]!, 0);
          const best = [...truth.values()].map(score).sort((a, b) => b - a);
          const gotScores = got.map((id) => score(truth.get(id)!));
          gotScores.forEach((s, i) => expect(s).toBeCloseTo(best[i]!, 6));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("without SIMD (the kernels' JavaScript paths) picks the same ids", () => {
    const pool = vectors(3000, 12);
    const quantizer = fitQuantizer(pool, DIMS);
    const a = new QuantizedVectors(DIMS, quantizer, 64);
    const b = new QuantizedVectors(DIMS, quantizer, 64, false);
    pool.forEach((v, i) => {
      const id = i % 10 === 3 ? 5000 - i : i + 1; // some out of order: the side list
      a.set(id, quantize(v, quantizer));
      b.set(id, quantize(v, quantizer));
    });
    for (let id = 1; id < 3000; id += 7) {
      a.delete(id);
      b.delete(id);
    }
    for (const q of vectors(6, 13)) expect(b.nearest(q, 400, 30)).toEqual(a.nearest(q, 400, 30));
  });
});

const chunksFor = (vs: Float32Array[], from: number) =>
  vectorChunks(vs, from, (n, i) => `chunk ${n} about topic ${i % 7}`);
const openStore = (path: string) => openVectorStore(path, DIMS);
// (QUANTIZED_EXACT of the nearest are rescored exactly, the rest keep their codes' distance.)

describe("topByScore", () => {
  it("returns the same best m as a full sort (score descending, ties by smaller id)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 500 }), fc.integer({ min: -5, max: 5 })), { maxLength: 80 }),
        fc.integer({ min: 0, max: 90 }),
        (pairs, m) => {
          const byId = new Map(pairs); // unique ids, scores with many ties
          const ids = Float64Array.from(byId.keys());
          const scores = Float64Array.from(byId.values());
          const full = [...byId]
            .sort((a, b) => b[1] - a[1] || a[0] - b[0])
            .slice(0, m)
            .map(([id]) => id);
          expect(topByScore(ids, scores, m)).toEqual(full);
        },
      ),
    );
  });
});

/** A store holding `vs` in files of 100 chunks (`matrixMaxBytes` 1: past the in-memory matrix at once). */
function storeOf(vs: Float32Array[], matrixMaxBytes?: number) {
  const store = openVectorStore(join(tempDir(), "index.sqlite"), DIMS, matrixMaxBytes);
  for (let f = 0; f * 100 < vs.length; f++)
    store.replaceFile(
      { path: `memory/f${f}.md`, class: "daily", size: 1, mtimeMs: 1, sha256: String(f) },
      chunksFor(vs.slice(f * 100, f * 100 + 100), f * 100),
    );
  return store;
}

describe("quantized vector search on a real index", () => {
  it("returns exact distances and mostly the same top 10 as sqlite-vec's exact KNN", () => {
    const vs = vectors(3000, 1);
    const store = storeOf(vs);
    const r = mulberry32(2);
    const queries = Array.from({ length: 40 }, () =>
      vs[Math.floor(r() * vs.length)]!.map((x) => x + 0.05 * (r() - 0.5)),
    );
    let overlap = 0;
    for (const q of queries) {
      const exact = store.vectorSearch(q, 24, { path: "exact" });
      const quant = store.vectorSearch(q, 24, { path: "quantized" });
      expect(quant).toHaveLength(24);
      const exactById = new Map(exact.map((h) => [h.id, h.distance]));
      for (const h of quant) if (exactById.has(h.id)) expect(h.distance).toBeCloseTo(exactById.get(h.id)!, 5);
      for (let i = 1; i < quant.length; i++) expect(quant[i]!.distance).toBeGreaterThanOrEqual(quant[i - 1]!.distance);
      const ids = new Set(quant.map((h) => h.id));
      overlap += exact.slice(0, 10).filter((h) => ids.has(h.id)).length / 10;
    }
    expect(overlap / queries.length).toBeGreaterThan(0.85);
    store.close();
  });

  it("past the in-memory matrix: a deep pool and the keyword candidates' similarities come from the codes, within 0.01 of exact", () => {
    const vs = vectors(3000, 4);
    const store = storeOf(vs, 1);
    const r = mulberry32(5);
    for (let n = 0; n < 20; n++) {
      const q = vs[Math.floor(r() * vs.length)]!.map((x) => x + 0.05 * (r() - 0.5));
      const exact = new Map(store.vectorSearch(q, 3000, { path: "exact" }).map((h) => [h.id, h.distance]));
      // Recall's pool (k 120): beyond the best QUANTIZED_EXACT, read from the codes.
      const deep = store.vectorSearch(q, 120);
      expect(deep).toHaveLength(120);
      for (const h of deep) expect(Math.abs(h.distance - exact.get(h.id)!)).toBeLessThan(0.01);
      const best = store.vectorSearch(q, 10, { path: "exact" }).map((h) => h.id);
      expect(deep.slice(0, 10).filter((h) => best.includes(h.id)).length).toBeGreaterThanOrEqual(8);
      // Chunks the keyword leg found outside the nearest: each answered, within 0.01.
      const ids = Array.from({ length: 60 }, () => 1 + Math.floor(r() * 3000));
      const got = store.vectors.distancesTo(q, ids);
      expect(new Set(got.map((h) => h.id))).toEqual(new Set(ids));
      for (const h of got) expect(Math.abs(h.distance - exact.get(h.id)!)).toBeLessThan(0.01);
    }
    store.close();
  });

  it("past the in-memory matrix, a sample for the vector null is decoded from the codes, each within 1% of its float vector", () => {
    const vs = vectors(2500, 6);
    const store = storeOf(vs, 1);
    store.vectors.warmVectorSearch();
    const sample = store.vectors.sample(256);
    expect(sample).toHaveLength(256);
    for (const v of sample) expect(store.vectorSearch(v, 1, { path: "exact" })[0]!.distance).toBeLessThan(0.01);
    store.close();
  });

  it("follows writes: replaced and deleted chunks are never returned, new ones are found", () => {
    const store = openStore(join(tempDir(), "index.sqlite"));
    const vs = vectors(600, 3);
    store.replaceFile(
      { path: "memory/a.md", class: "daily", size: 1, mtimeMs: 1, sha256: "a" },
      chunksFor(vs.slice(0, 300), 0),
    );
    store.replaceFile(
      { path: "memory/b.md", class: "daily", size: 1, mtimeMs: 1, sha256: "b" },
      chunksFor(vs.slice(300, 600), 300),
    );
    const probe = vs[10]!;
    const before = store.vectorSearch(probe, 5, { path: "quantized" });
    expect(store.chunksByIds([before[0]!.id]).get(before[0]!.id)!.path).toBe("memory/a.md");
    store.deleteFile("memory/a.md");
    const after = store.vectorSearch(probe, 50, { path: "quantized" });
    const rows = store.chunksByIds(after.map((h) => h.id));
    expect(after.length).toBe(50);
    expect([...rows.values()].every((r) => r.path === "memory/b.md")).toBe(true);
    // The same vector comes back under a new file: found again, at distance ~0.
    store.replaceFile(
      { path: "memory/c.md", class: "daily", size: 1, mtimeMs: 1, sha256: "c" },
      chunksFor([probe], 900),
    );
    const again = store.vectorSearch(probe, 1, { path: "quantized" });
    expect(store.chunksByIds([again[0]!.id]).get(again[0]!.id)!.path).toBe("memory/c.md");
    expect(again[0]!.distance).toBeCloseTo(0, 5);
    store.close();
  });

  it("sees writes made by another connection, and rebuilds missing codes from the float vectors", () => {
    const path = join(tempDir(), "index.sqlite");
    const reader = openStore(path);
    const writer = openStore(path);
    const vs = vectors(400, 4);
    writer.replaceFile(
      { path: "memory/a.md", class: "daily", size: 1, mtimeMs: 1, sha256: "a" },
      chunksFor(vs.slice(0, 200), 0),
    );
    expect(reader.vectorSearch(vs[5]!, 3, { path: "quantized" })[0]!.distance).toBeCloseTo(0, 5);
    writer.replaceFile(
      { path: "memory/b.md", class: "daily", size: 1, mtimeMs: 1, sha256: "b" },
      chunksFor(vs.slice(200, 400), 200),
    );
    expect(reader.vectorSearch(vs[300]!, 3, { path: "quantized" })[0]!.distance).toBeCloseTo(0, 5);
    // An index from before the codes existed: no codes, no quantizer.
    rawDb(writer).exec(`DELETE FROM chunk_codes; DELETE FROM meta WHERE key = 'vector_codes'`);
    writer.close();
    reader.close();
    const reopened = new IndexStore(openDatabase(path), "t");
    const hit = reopened.vectorSearch(vs[350]!, 3, { path: "quantized" });
    expect(hit[0]!.distance).toBeCloseTo(0, 5);
    expect((rawDb(reopened).prepare(`SELECT count(*) AS n FROM chunk_codes`).get() as { n: number }).n).toBe(400);
    reopened.close();
  });
});
