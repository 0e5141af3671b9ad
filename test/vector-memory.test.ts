import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/index/db/db.js";
import { IndexStore } from "../src/index/repos/store.js";
import { VectorMatrix, cosineDistancesOf, vecCosineDistance } from "../src/index/vectors/vector-matrix.js";
import { jsGather, jsScan, simdGather, simdScan, wasmMemory } from "../src/index/vectors/simd-dot.js";
import { mulberry32 } from "../src/util/prng.js";
import { tempDir } from "./helpers/workspace.js";
import { chunksFor, openVectorStore } from "./helpers/vector-store.js";
import { rawDb } from "./helpers/raw-db.js";

const DIMS = 100;
type Hit = { id: number; distance: number };

/**
 * Unit vectors like an embedding model's: a large shared component, topic clusters, exact
 * duplicates, and near-duplicates whose distances differ by less than the scan's rounding.
 */
function vectors(n: number, seed: number, dims = DIMS): Float32Array[] {
  const r = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(r() || 1e-9)) * Math.cos(2 * Math.PI * r());
  const common = Float32Array.from({ length: dims }, gauss);
  const centres = Array.from({ length: 8 }, () => Float32Array.from({ length: dims }, gauss));
  const out: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const roll = r();
    if (i > 0 && roll < 0.05) {
      out.push(out[Math.floor(r() * out.length)]!); // the same text in two files
      continue;
    }
    if (i > 0 && roll < 0.3) {
      const base = out[Math.floor(r() * out.length)]!;
      out.push(base.map((x) => x + 2e-7 * gauss()));
      continue;
    }
    const c = centres[Math.floor(r() * centres.length)]!;
    const v = Float32Array.from({ length: dims }, (_, j) => 3 * common[j]! + c[j]! + 0.7 * gauss());
    const norm = Math.hypot(...v);
    out.push(v.map((x) => x / norm));
  }
  return out;
}

const openStore = (path: string) => openVectorStore(path, DIMS);

function addFile(store: IndexStore, name: string, vs: Float32Array[], from: number): void {
  store.replaceFile(
    { path: `memory/${name}.md`, class: "daily", size: 1, mtimeMs: 1, sha256: name },
    chunksFor(vs, from),
  );
}

/**
 * The in-memory result equals sqlite-vec's: the same distances, bit for bit, rank by rank, and
 * the same ids except among equal distances (sqlite-vec's order of ties is its own).
 */
function expectSameAsSqliteVec(store: IndexStore, q: Float32Array, k: number): void {
  const exact = store.vectorSearch(q, k, { path: "exact" });
  const memory = store.vectorSearch(q, k);
  expect(memory.map((h) => h.distance)).toEqual(exact.map((h) => h.distance));
  const byDistance = (hits: Hit[]) => {
    const m = new Map<number, number[]>();
    for (const h of hits) m.set(h.distance, [...(m.get(h.distance) ?? []), h.id]);
    return m;
  };
  const a = byDistance(exact);
  const b = byDistance(memory);
  const last = exact.at(-1)?.distance;
  for (const [d, ids] of a) {
    // A tie at the cut may keep different members; elsewhere the same ids.
    if (d === last) expect(b.get(d)!.length).toBe(ids.length);
    else expect([...b.get(d)!].sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
  }
}

describe("the in-memory vector search", () => {
  it("computes sqlite-vec's cosine distance bit for bit", () => {
    const store = openStore(join(tempDir(), "index.sqlite"));
    const vs = vectors(300, 1);
    addFile(store, "a", vs, 0);
    const rows = new Float32Array(vs.length * DIMS);
    vs.forEach((v, i) => rows.set(v, i * DIMS));
    for (const q of vectors(10, 2)) {
      const exact = store.vectorSearch(q, 300, { path: "exact" });
      for (const h of exact) expect(vecCosineDistance(q, rows, (h.id - 1) * DIMS)).toBe(h.distance);
    }
    store.close();
  });

  it("scores four rows a pass with the same distances as one at a time (any count, repeated rows, any dims)", () => {
    for (const dims of [3, 100, 257]) {
      const vs = vectors(60, dims, dims);
      const rows = new Float32Array(vs.length * dims);
      vs.forEach((v, i) => rows.set(v, i * dims));
      const r = mulberry32(dims);
      for (const q of vectors(5, dims + 1, dims))
        for (let n = 0; n <= 11; n++) {
          const slots = Array.from({ length: n }, () => Math.floor(r() * vs.length));
          const got = cosineDistancesOf(q, rows, slots);
          expect([...got]).toEqual(slots.map((s) => vecCosineDistance(q, rows, s * dims)));
        }
    }
  });

  it("returns sqlite-vec's k nearest on random indexes (clusters, duplicates, k above the count)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 700 }),
        fc.integer({ min: 1, max: 150 }),
        (seed, n, k) => {
          const store = openStore(":memory:");
          const vs = vectors(n, seed);
          if (n > 0) addFile(store, "a", vs, 0);
          for (const q of [...vectors(3, seed + 1), ...(n > 0 ? [vs[0]!] : [])]) expectSameAsSqliteVec(store, q, k);
          store.close();
        },
      ),
      { numRuns: 25 },
    );
  });

  it("scans in WebAssembly SIMD here: the same integer dot products as the JavaScript scan", () => {
    expect(new VectorMatrix(DIMS, 16).simd).toBe(true);
    const stride = 104;
    const n = 500;
    const mem = wasmMemory(4);
    const r = mulberry32(3);
    const codes = new Int8Array(mem.buffer, 0, n * stride);
    for (let i = 0; i < codes.length; i++) codes[i] = Math.round((r() * 2 - 1) * 127);
    const qAt = n * stride;
    const q = new Int16Array(mem.buffer, qAt, stride);
    for (let j = 0; j < stride; j++) q[j] = Math.round((r() * 2 - 1) * 32767);
    const outAt = qAt + stride * 2;
    simdScan(mem, stride / 8)!(0, qAt, n, 0, outAt);
    const simd = new Int32Array(mem.buffer, outAt, n).slice();
    jsScan(mem, 0, qAt, n, stride / 8, outAt);
    const js = new Int32Array(mem.buffer, outAt, n).slice();
    expect(Array.from(simd)).toEqual(Array.from(js));
    for (let i = 0; i < n; i++) {
      let exact = 0;
      for (let j = 0; j < stride; j++) exact += codes[i * stride + j]! * q[j]!;
      expect(simd[i]).toBe(exact);
    }
  });

  it("gathers in WebAssembly SIMD: the picked rows' integer dot products, as the JavaScript gather", () => {
    const stride = 104;
    const n = 300;
    const mem = wasmMemory(4);
    const r = mulberry32(4);
    const codes = new Int8Array(mem.buffer, 0, n * stride);
    for (let i = 0; i < codes.length; i++) codes[i] = Math.round((r() * 2 - 1) * 127);
    const qAt = n * stride;
    const q = new Int16Array(mem.buffer, qAt, stride);
    for (let j = 0; j < stride; j++) q[j] = Math.round((r() * 2 - 1) * 32767);
    const slotsAt = qAt + stride * 2;
    const picked = [299, 0, 17, 17, 150, 3];
    new Int32Array(mem.buffer, slotsAt, picked.length).set(picked);
    const outAt = slotsAt + 4 * picked.length;
    simdGather(mem, stride / 8)!(0, qAt, slotsAt, picked.length, outAt);
    const simd = Array.from(new Int32Array(mem.buffer, outAt, picked.length));
    jsGather(mem, stride / 8, 0, qAt, slotsAt, picked.length, outAt);
    expect(Array.from(new Int32Array(mem.buffer, outAt, picked.length))).toEqual(simd);
    picked.forEach((row, i) => {
      let exact = 0;
      for (let j = 0; j < stride; j++) exact += codes[row * stride + j]! * q[j]!;
      expect(simd[i]).toBe(exact);
    });
  });

  it("without SIMD (plain JavaScript scan) gives the same result", () => {
    const vs = vectors(800, 4);
    const a = new VectorMatrix(DIMS, 8, true);
    const b = new VectorMatrix(DIMS, 8, false);
    vs.forEach((v, i) => (a.set(i + 1, v), b.set(i + 1, v)));
    for (const q of vectors(5, 5)) expect(b.nearest(q, 40)).toEqual(a.nearest(q, 40));
  });

  it("stays exact above 512 dims: flat ±vectors whose int8 × int16 sums would overflow int32", () => {
    // Offsets from the mean that are flat ±1 code to ±127 everywhere, and a flat query to ±32767:
    // 127 × 32767 × 1024 is past 2³¹, so an unguarded int32 sum wraps and the bounds lose the nearest.
    for (const dims of [520, 768, 1024, 3072]) {
      const flat = (f: (j: number) => number) => Float32Array.from({ length: dims }, (_, j) => f(j));
      const vs = [
        flat(() => 1),
        flat(() => -1),
        flat((j) => (j % 2 ? 1 : -1)),
        flat((j) => (j % 2 ? -1 : 1)),
        flat((j) => (j < dims / 2 ? 1 : -1)),
        flat((j) => (j < dims / 2 ? -1 : 1)),
      ];
      for (const useSimd of [true, false]) {
        const m = new VectorMatrix(dims, 8, useSimd);
        vs.forEach((v, i) => m.set(i + 1, v));
        for (const q of [...vs, flat((j) => (j % 3 ? 1 : -1))]) {
          const all = vs.map((_, i) => ({ id: i + 1, distance: vecCosineDistance(q, vs[i]!, 0) }));
          const want = all.sort((a, b) => a.distance - b.distance || a.id - b.id);
          for (const k of [1, 2, 3]) expect(m.nearest(q, k)).toEqual(want.slice(0, k));
        }
      }
    }
  });

  it("follows this connection's writes: new, replaced and deleted chunks, and a rolled-back write", () => {
    const store = openStore(join(tempDir(), "index.sqlite"));
    const vs = vectors(900, 6);
    addFile(store, "a", vs.slice(0, 300), 0);
    addFile(store, "b", vs.slice(300, 600), 300);
    const probe = vs[10]!;
    expectSameAsSqliteVec(store, probe, 30); // loads the matrix
    store.deleteFile("memory/a.md");
    expectSameAsSqliteVec(store, probe, 30);
    const after = store.vectorSearch(probe, 50);
    expect([...store.chunksByIds(after.map((h) => h.id)).values()].every((r) => r.path === "memory/b.md")).toBe(true);
    addFile(store, "c", [probe, ...vs.slice(600, 700)], 900);
    const again = store.vectorSearch(probe, 1);
    expect(store.chunksByIds([again[0]!.id]).get(again[0]!.id)!.path).toBe("memory/c.md");
    addFile(store, "b", vs.slice(700, 900), 1000); // replaced
    expectSameAsSqliteVec(store, vs[800]!, 30);
    expectSameAsSqliteVec(store, vs[400]!, 30);
    // A write that rolls back leaves the matrix as the table is.
    const db = rawDb(store);
    expect(() =>
      db.transaction(() => {
        addFile(store, "d", [vs[5]!], 5000);
        throw new Error("rolled back");
      })(),
    ).toThrow("rolled back");
    expectSameAsSqliteVec(store, vs[5]!, 10);
    expect(store.chunksByIds(store.vectorSearch(vs[5]!, 10).map((h) => h.id)).size).toBe(10);
    store.close();
  });

  it("reloads after another connection's write, and resets when the model changes", () => {
    const path = join(tempDir(), "index.sqlite");
    const reader = openStore(path);
    const writer = openStore(path);
    const vs = vectors(500, 7);
    addFile(writer, "a", vs.slice(0, 250), 0);
    expectSameAsSqliteVec(reader, vs[5]!, 20);
    addFile(writer, "b", vs.slice(250, 500), 250);
    expectSameAsSqliteVec(reader, vs[300]!, 20);
    expect(reader.vectorSearch(vs[300]!, 1)[0]!.distance).toBeCloseTo(0, 5);
    writer.deleteFile("memory/a.md");
    expectSameAsSqliteVec(reader, vs[5]!, 20);
    // Another model: the vectors are dropped (to be re-embedded), and so is the matrix.
    reader.useVectorIdentity({ identity: "other", dims: DIMS, model: "other" });
    expect(reader.vectorSearch(vs[300]!, 5)).toEqual([]);
    writer.close();
    reader.close();
  });

  it("a read-only index searches its vectors in memory too", () => {
    const path = join(tempDir(), "index.sqlite");
    const writer = openStore(path);
    const vs = vectors(400, 8);
    addFile(writer, "a", vs, 0);
    writer.close();
    const ro = new IndexStore(openDatabase(path, { readonly: true }), "t");
    expectSameAsSqliteVec(ro, vs[7]!, 25);
    ro.close();
  });
});
